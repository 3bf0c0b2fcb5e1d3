/* scan.h: the sensor matrix and the key strip, scanned and debounced. */
#ifndef PEG_SCAN_H
#define PEG_SCAN_H

#include <stdint.h>

/* Rows as outputs, driven high; columns as inputs with pull-ups. */
void scan_init(void);

/* Reads the matrix until two scans agree (at most a few) and takes that as the reported state:
 * the pegs already in at power-up produce no events. */
void scan_prime(void);

/* One scan of every row: a square or key whose reading has differed from its reported state
 * for STABLE_SCANS scans in a row is reported (L/P for a square, K for a key press), in scan
 * order, if its line fits in the transmit buffer; otherwise it waits for a later scan, and so
 * does every later change of this scan, so lines keep the order the changes were seen in. */
void scan_step(void);

/* The reported occupancy, one byte a rank (rank 1 first), bit n = file n: what the S line
 * says, never contradicting the lines sent before it. */
void scan_occupancy(uint8_t ranks[8]);

#endif
