/* scan.c: the diode matrix scanned row by row, every switch debounced by counting scans, and the
 * L, P and K lines of the changes (docs/peg-protocol.md §2, §7.2, §7.3). */
#include "scan.h"

#include <util/delay.h>

#include "config.h"
#include "uart.h"
#include "wiring.h"

/* The debounced state of every row: bit c set = the switch at column c is closed. */
static uint8_t reported[ROWS];
/* For every switch, how many scans in a row its reading has differed from `reported`. */
static uint8_t differing[ROWS][COLUMNS];
/* Per row, bit c set while differing[r][c] is not 0: a quiet row is skipped in one test. */
static uint8_t counting[ROWS];

void scan_init(void)
{
	for (uint8_t r = 0; r < ROWS; r++) {
		*ROW_PINS[r].out |= ROW_PINS[r].mask;
		*ROW_PINS[r].ddr |= ROW_PINS[r].mask;
	}
	for (uint8_t c = 0; c < COLUMNS; c++) {
		*COLUMN_PINS[c].ddr &= (uint8_t)~COLUMN_PINS[c].mask;
		*COLUMN_PINS[c].out |= COLUMN_PINS[c].mask;
	}
}

/* Pulls row `r` low, waits for the columns to settle, and returns the closed switches. The
 * diodes keep every other row (driven high) out of the reading, however many pegs are in. */
static uint8_t read_row(uint8_t r)
{
	const struct pin *row = &ROW_PINS[r];
	*row->out &= (uint8_t)~row->mask;
	_delay_us(SETTLE_US);
	uint8_t closed = columns_low();
	*row->out |= row->mask;
	return closed;
}

void scan_prime(void)
{
	uint8_t last[ROWS];
	for (uint8_t r = 0; r < ROWS; r++)
		last[r] = read_row(r);
	for (uint8_t attempt = 0; attempt < 10; attempt++) {
		uint8_t same = 1;
		_delay_ms(SCAN_PERIOD_MS);
		for (uint8_t r = 0; r < ROWS; r++) {
			uint8_t now = read_row(r);
			if (now != last[r])
				same = 0;
			last[r] = now;
		}
		if (same)
			break;
	}
	for (uint8_t r = 0; r < ROWS; r++) {
		reported[r] = last[r];
		counting[r] = 0;
		for (uint8_t c = 0; c < COLUMNS; c++)
			differing[r][c] = 0;
	}
}

/* Sends the line for switch (r, c) having become `closed`; returns 0 if it does not fit now. A
 * key's release sends nothing and always succeeds. */
static uint8_t report(uint8_t r, uint8_t c, uint8_t closed)
{
	char line[4];
	if (r < BOARD_ROWS) {
		line[0] = closed ? 'P' : 'L';
		line[1] = (char)('a' + FILE_OF_COLUMN[c]);
		line[2] = (char)('1' + RANK_OF_ROW[r]);
		line[3] = '\n';
		return uart_send(line, 4);
	}
	char letter = KEY_LETTER[r - BOARD_ROWS][c];
	if (!closed || letter == 0)
		return 1;
	line[0] = 'K';
	line[1] = letter;
	line[2] = '\n';
	return uart_send(line, 3);
}

void scan_step(void)
{
	uint8_t blocked = 0;
	for (uint8_t r = 0; r < ROWS; r++) {
		uint8_t changed = read_row(r) ^ reported[r];
		if ((changed | counting[r]) == 0)
			continue;
		for (uint8_t c = 0; c < COLUMNS; c++) {
			uint8_t bit = (uint8_t)(1u << c);
			if (!(changed & bit)) {
				differing[r][c] = 0;
				counting[r] &= (uint8_t)~bit;
				continue;
			}
			counting[r] |= bit;
			if (differing[r][c] < STABLE_SCANS)
				differing[r][c]++;
			if (differing[r][c] < STABLE_SCANS || blocked)
				continue;
			if (!report(r, c, (uint8_t)!(reported[r] & bit))) {
				blocked = 1;
				continue;
			}
			reported[r] ^= bit;
			differing[r][c] = 0;
			counting[r] &= (uint8_t)~bit;
		}
	}
}

void scan_occupancy(uint8_t ranks[8])
{
	for (uint8_t i = 0; i < 8; i++)
		ranks[i] = 0;
	for (uint8_t r = 0; r < BOARD_ROWS; r++)
		for (uint8_t c = 0; c < COLUMNS; c++)
			if (reported[r] & (1u << c))
				ranks[RANK_OF_ROW[r]] |= (uint8_t)(1u << FILE_OF_COLUMN[c]);
}
