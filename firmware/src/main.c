/* main.c: the annabella peg board's firmware for an ATmega328P (Arduino Nano or Uno): a scan
 * every millisecond on a timer, the host's `?` and `V` answered, sleep in between
 * (docs/peg-protocol.md, docs/peg-firmware.md). */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#include "config.h"
#include "scan.h"
#include "uart.h"

/* Timer ticks (one per SCAN_PERIOD_MS) not yet scanned; the main loop takes them one by one. */
static volatile uint8_t ticks;

ISR(TIMER0_COMPA_vect)
{
	if (ticks < 255)
		ticks++;
}

/* Timer 0 in CTC mode: F_CPU / 64 / 250 = 1 kHz at 16 MHz. */
_Static_assert(F_CPU / 64 / 1000 * SCAN_PERIOD_MS - 1 <= 255, "SCAN_PERIOD_MS: too long for timer 0");
static void timer_init(void)
{
	TCCR0A = _BV(WGM01);
	TCCR0B = _BV(CS01) | _BV(CS00);
	OCR0A = (uint8_t)(F_CPU / 64 / 1000 * SCAN_PERIOD_MS - 1);
	TIMSK0 = _BV(OCIE0A);
}

/* Answers owed to the host, oldest first: 'V' (identity) or 'S' (snapshot). */
static char pending[PENDING_ANSWERS];
static uint8_t pending_count;

static void owe(char answer)
{
	if (pending_count < PENDING_ANSWERS)
		pending[pending_count++] = answer;
}

static const char HEX[] = "0123456789ABCDEF";

/* The S line: 16 hex digits, most significant first, bit n = rank * 8 + file (a1 = bit 0). */
static uint8_t send_snapshot(void)
{
	uint8_t ranks[8];
	char line[18];
	scan_occupancy(ranks);
	line[0] = 'S';
	for (uint8_t i = 0; i < 8; i++) {
		uint8_t byte = ranks[7 - i];
		line[1 + 2 * i] = HEX[byte >> 4];
		line[2 + 2 * i] = HEX[byte & 0x0F];
	}
	line[17] = '\n';
	return uart_send(line, sizeof line);
}

static uint8_t send_identity(void)
{
	static const char line[] = "V" IDENTITY "\n";
	return uart_send(line, sizeof line - 1);
}

/* Sends the owed answers that fit now, in order. */
static void answer(void)
{
	while (pending_count > 0) {
		uint8_t sent = pending[0] == 'V' ? send_identity() : send_snapshot();
		if (!sent)
			return;
		for (uint8_t i = 1; i < pending_count; i++)
			pending[i - 1] = pending[i];
		pending_count--;
	}
}

/* The host line being read; blanks and CR are ignored, an overlong line is ignored whole. */
static char host_line[HOST_LINE_MAX];
static uint8_t host_len;
static uint8_t host_overflow;

static void host_byte(uint8_t byte)
{
	if (byte == '\n') {
		if (!host_overflow && host_len == 1) {
			if (host_line[0] == '?')
				owe('S');
			else if (host_line[0] == 'V')
				owe('V');
		}
		host_len = 0;
		host_overflow = 0;
	} else if (byte == '\r' || byte == ' ' || byte == '\t') {
		/* The protocol ignores CR anywhere and blanks around a line; the commands have none
		 * inside, so dropping them all reads every valid command. */
	} else if (host_len < HOST_LINE_MAX) {
		host_line[host_len++] = (char)byte;
	} else {
		host_overflow = 1;
	}
}

int main(void)
{
	uart_init();
	scan_init();
	timer_init();
	set_sleep_mode(SLEEP_MODE_IDLE);
	sei();
	scan_prime();
	/* A USB board resets when the port opens (DTR): say who we are and what is on the board. */
	owe('V');
	owe('S');
	for (;;) {
		cli();
		if (ticks == 0 && uart_rx_empty()) {
			sleep_enable();
			sei();
			sleep_cpu();
			sleep_disable();
		}
		sei();
		while (ticks > 0) {
			cli();
			ticks--;
			sei();
			scan_step();
		}
		int16_t byte;
		while ((byte = uart_receive()) >= 0)
			host_byte((uint8_t)byte);
		answer();
	}
}
