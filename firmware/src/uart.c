/* uart.c: the USART at 115200 baud, a ring buffer each way; the interrupts move the bytes, the
 * main loop never waits for the line. */
#include "uart.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "config.h"

/* 115200 baud from 16 MHz is 2.1 % fast (UBRR 16 with U2X), as on every Arduino; the USB-serial
 * bridges (FTDI, CH340, the Uno's 16U2) take it. */
#define BAUD_TOL 3
#include <util/setbaud.h>

/* Indices wrap with a mask, not `%`: an int `%` is a division call on an AVR. */
_Static_assert((TX_BUFFER & (TX_BUFFER - 1)) == 0 && TX_BUFFER <= 128, "TX_BUFFER: a power of 2");
_Static_assert((RX_BUFFER & (RX_BUFFER - 1)) == 0 && RX_BUFFER <= 128, "RX_BUFFER: a power of 2");
#define TX_WRAP(i) ((uint8_t)((i) & (TX_BUFFER - 1)))
#define RX_WRAP(i) ((uint8_t)((i) & (RX_BUFFER - 1)))

static volatile char tx_buf[TX_BUFFER];
/* Index of the next byte to send and of the next free slot; equal when empty. One slot stays
 * free to tell full from empty. */
static volatile uint8_t tx_head, tx_tail;

static volatile uint8_t rx_buf[RX_BUFFER];
static volatile uint8_t rx_head, rx_tail;

void uart_init(void)
{
	/* Double speed before the rate: the chip does not mind the order, and simavr reckons the
	 * byte time when the rate is written, so this way the simulation sends at 115200 too. */
#if USE_2X
	UCSR0A = _BV(U2X0);
#else
	UCSR0A = 0;
#endif
	UBRR0H = UBRRH_VALUE;
	UBRR0L = UBRRL_VALUE;
	UCSR0C = _BV(UCSZ01) | _BV(UCSZ00); /* 8 data bits, no parity, 1 stop bit */
	UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

uint8_t uart_tx_room(void)
{
	uint8_t used;
	ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
	{
		used = TX_WRAP(tx_tail - tx_head);
	}
	return (uint8_t)(TX_BUFFER - 1 - used);
}

uint8_t uart_send(const char *bytes, uint8_t len)
{
	if (uart_tx_room() < len)
		return 0;
	/* Only this function moves the tail, and only the interrupt moves the head. */
	uint8_t tail = tx_tail;
	for (uint8_t i = 0; i < len; i++) {
		tx_buf[tail] = bytes[i];
		tail = TX_WRAP(tail + 1);
	}
	tx_tail = tail;
	UCSR0B |= _BV(UDRIE0);
	return 1;
}

ISR(USART_UDRE_vect)
{
	if (tx_head == tx_tail) {
		UCSR0B &= (uint8_t)~_BV(UDRIE0);
		return;
	}
	UDR0 = tx_buf[tx_head];
	tx_head = TX_WRAP(tx_head + 1);
}

ISR(USART_RX_vect)
{
	uint8_t byte = UDR0;
	uint8_t next = RX_WRAP(rx_tail + 1);
	/* A full buffer drops the byte: the host's lines are short and it asks again. */
	if (next != rx_head) {
		rx_buf[rx_tail] = byte;
		rx_tail = next;
	}
}

int16_t uart_receive(void)
{
	if (rx_head == rx_tail)
		return -1;
	uint8_t byte = rx_buf[rx_head];
	rx_head = RX_WRAP(rx_head + 1);
	return byte;
}

uint8_t uart_rx_empty(void)
{
	return rx_head == rx_tail;
}
