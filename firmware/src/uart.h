/* uart.h: the serial line to the host, interrupt-driven, with bounded buffers both ways. */
#ifndef PEG_UART_H
#define PEG_UART_H

#include <stdint.h>

/* 115200 baud 8N1, receiver and transmitter on. */
void uart_init(void);

/* Room left in the transmit buffer, in bytes. */
uint8_t uart_tx_room(void);

/* Queues `len` bytes if they all fit and returns 1; queues nothing and returns 0 otherwise, so
 * a line is never cut. */
uint8_t uart_send(const char *bytes, uint8_t len);

/* The next byte from the host, or -1 when none is waiting. */
int16_t uart_receive(void);

/* 1 when no byte from the host is waiting (for the sleep decision, with interrupts off). */
uint8_t uart_rx_empty(void);

#endif
