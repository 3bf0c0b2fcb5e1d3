/* wiring.h: the pin map of an Arduino Nano or Uno peg board, the one table that ties wires to
 * squares and keys (docs/peg-firmware.md, docs/build-a-peg-board.md). A wiring mistake (two
 * row wires swapped, a board wired from Black's side) is fixed here and nowhere else. */
#ifndef PEG_WIRING_H
#define PEG_WIRING_H

#include <avr/io.h>
#include <stdint.h>

/* One microcontroller pin: its input, direction and output registers and its bit. */
struct pin {
	volatile uint8_t *in;
	volatile uint8_t *ddr;
	volatile uint8_t *out;
	uint8_t mask;
};

#define PIN_OF(port, bit) { &PIN##port, &DDR##port, &PORT##port, (uint8_t)(1u << (bit)) }

/* The matrix: 10 row lines, driven low one at a time (high otherwise), and 8 column lines,
 * inputs with pull-ups. Every switch has a diode in series, anode on the column, cathode on the
 * row. Rows 0-7 are the board's ranks, rows 8 and 9 the key strip. */
#define BOARD_ROWS 8
#define KEY_ROWS 2
#define ROWS (BOARD_ROWS + KEY_ROWS)
#define COLUMNS 8

static const struct pin ROW_PINS[ROWS] = {
	PIN_OF(C, 0), /* A0: row 0 */
	PIN_OF(C, 1), /* A1: row 1 */
	PIN_OF(C, 2), /* A2: row 2 */
	PIN_OF(C, 3), /* A3: row 3 */
	PIN_OF(C, 4), /* A4: row 4 */
	PIN_OF(C, 5), /* A5: row 5 */
	PIN_OF(B, 2), /* D10: row 6 */
	PIN_OF(B, 3), /* D11: row 7 */
	PIN_OF(B, 4), /* D12: key row 0 */
	PIN_OF(B, 5), /* D13: key row 1 (the on-board LED's pin: it is lit between scans) */
};

/* The columns as the scan reads them: bit c set when column c is low (a closed switch on the
 * row driven low). Read in two port reads, not pin by pin, to keep the scan short; it must
 * agree with COLUMN_PINS. */
static inline uint8_t columns_low(void)
{
	return (uint8_t)~((PIND >> 2) | (uint8_t)(PINB << 6));
}

static const struct pin COLUMN_PINS[COLUMNS] = {
	PIN_OF(D, 2), /* D2: column 0 */
	PIN_OF(D, 3), /* D3: column 1 */
	PIN_OF(D, 4), /* D4: column 2 */
	PIN_OF(D, 5), /* D5: column 3 */
	PIN_OF(D, 6), /* D6: column 4 */
	PIN_OF(D, 7), /* D7: column 5 */
	PIN_OF(B, 0), /* D8: column 6 */
	PIN_OF(B, 1), /* D9: column 7 */
};

/* Which rank (0 = rank 1 ... 7 = rank 8, White's point of view) each board row is, and which
 * file (0 = a ... 7 = h) each column. A board built with rank 8 on row 0 says 7, 6, ... here. */
static const uint8_t RANK_OF_ROW[BOARD_ROWS] = { 0, 1, 2, 3, 4, 5, 6, 7 };
static const uint8_t FILE_OF_COLUMN[COLUMNS] = { 0, 1, 2, 3, 4, 5, 6, 7 };

/* The key strip: the letter each key sends as K<letter> (docs/peg-protocol.md, Keys), by key
 * row and column; 0 where no key is fitted. Promotion pieces first, then what he asks, then
 * what he decides, then the correspondence desk's three (next game, list the games, the
 * opponent's comment). */
static const char KEY_LETTER[KEY_ROWS][COLUMNS] = {
	{ 'Q', 'R', 'B', 'N', 'A', 'T', 'O', 'H' },
	{ 'D', 'C', 'X', 'S', 'Z', 'G', 'L', 'M' },
};

#endif
