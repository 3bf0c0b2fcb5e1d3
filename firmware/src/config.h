/* config.h: the firmware's timings, sizes and identity, in one place (docs/peg-firmware.md). */
#ifndef PEG_CONFIG_H
#define PEG_CONFIG_H

/* The identity line's text after the V (docs/peg-protocol.md §2, Identification): what the
 * board is and which firmware it runs. The Makefile passes the version. */
#ifndef FIRMWARE_VERSION
#define FIRMWARE_VERSION "1.0"
#endif
#define IDENTITY "annabella-peg " FIRMWARE_VERSION " atmega328p reed-matrix"

/* The serial line: 115200 baud, 8N1 (the protocol's default rate). */
#define BAUD 115200

/* One scan of every row every SCAN_PERIOD_MS; a change counts once it has been read in
 * STABLE_SCANS scans in a row, so a reed that chatters for a few milliseconds as the peg
 * slides in is reported once (docs/peg-protocol.md §7.3: stable for 5-10 ms). */
#define SCAN_PERIOD_MS 1
#define STABLE_SCANS 8

/* After a row is pulled low, the column lines need a moment to fall through the diode and the
 * wiring's capacitance before they are read. */
#define SETTLE_US 5

/* Bytes waiting for the UART: a whole board emptied at once is 64 lines of 4 bytes, more than
 * this; lines that do not fit wait (in order) for a later scan, they are never cut. */
#define TX_BUFFER 128
/* Bytes from the host not yet read by the main loop. */
#define RX_BUFFER 16
/* The longest host line the firmware reads (`?` and `V` are one byte); longer ones are ignored
 * whole, as the protocol says of unknown lines. */
#define HOST_LINE_MAX 8
/* Answers to `?` and `V` waiting for room in the TX buffer; more requests meanwhile are dropped
 * (the host asks again when it doubts). */
#define PENDING_ANSWERS 4

#endif
