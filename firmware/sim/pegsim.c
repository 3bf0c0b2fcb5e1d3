/* pegsim.c: the peg board's real firmware (its ELF) running in simavr, with a simulated diode
 * matrix of 64 reed switches and 15 keys on its pins and its UART on a pseudo-terminal, so that
 * `annabella serve --peg PATH` talks to the firmware exactly as to a board on a USB port.
 *
 *   pegsim FIRMWARE.elf --link PATH [--annabella PROGRAM] [--exit-at-eof] [--no-chatter]
 *          [-- SIMULATE-BOARD-OPTIONS...]
 *
 * Standard input takes the lines of `annabella simulate-board` (moves in any notation, `raw L…`,
 * `raw P…`, `key K`, `fen FEN`, `start`). pegsim does no chess itself: it runs
 * `annabella simulate-board --protocol peg --to-stdout` on its standard input, which answers
 * every operator line with the lines a board would send, at a hand's pace and stamped with the
 * time the hand made them; pegsim performs each of those lines with the switches instead (a
 * lift opens a reed, a placement closes one, each with contact chatter; a key is pressed and
 * released; a snapshot sets up every peg at once), and the firmware has to see them. See
 * docs/peg-firmware.md.
 *
 * It prints the pseudo-terminal's path first, and its measurements (scan time, the delay from a
 * switch's first contact to its line on the UART, lines sent) when it stops: at the end of
 * standard input with --exit-at-eof, or on SIGTERM or SIGINT. Times are simulated time at
 * 16 MHz; the simulation is held back to the wall clock, never ahead of it. */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "avr_ioport.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_irq.h"

/* The board's wiring, as firmware/src/wiring.h has it: which port pin each matrix line is on.
 * Rows 0-7 are ranks 1-8, rows 8 and 9 the key strip; columns 0-7 are files a-h. */
#define ROWS 10
#define BOARD_ROWS 8
#define COLUMNS 8
struct line_pin {
	char port;
	uint8_t bit;
};
static const struct line_pin ROW_PINS[ROWS] = {
	{ 'C', 0 }, { 'C', 1 }, { 'C', 2 }, { 'C', 3 }, { 'C', 4 },
	{ 'C', 5 }, { 'B', 2 }, { 'B', 3 }, { 'B', 4 }, { 'B', 5 },
};
static const struct line_pin COLUMN_PINS[COLUMNS] = {
	{ 'D', 2 }, { 'D', 3 }, { 'D', 4 }, { 'D', 5 },
	{ 'D', 6 }, { 'D', 7 }, { 'B', 0 }, { 'B', 1 },
};
static const char KEY_LETTER[2][COLUMNS] = {
	{ 'Q', 'R', 'B', 'N', 'A', 'T', 'O', 'H' },
	{ 'D', 'C', 'X', 'S', 'Z', 'G', 'L', 'M' },
};
static const char PORTS[] = "BCD";

#define MHZ 16
#define CYCLES_PER_MS (MHZ * 1000ull)

/* A hand's timing. A reed chatters as the magnet comes and goes: the contact flips at these
 * offsets (µs) after the first touch and rests in its new state after the last. */
static const unsigned CHATTER_US[] = { 0, 300, 700, 1200, 1800 };
/* A finger holds a key this long. */
#define KEY_HOLD_MS 80
/* Between the end of one action of the hand and the start of the next, at least. */
#define HAND_GAP_MS 20

/* --- the switches ------------------------------------------------------------------------- */

static avr_t *avr;
/* Closed switches, one byte a row, bit c = column c. */
static uint8_t closed[ROWS];
static avr_irq_t *column_irq[COLUMNS];

static int port_index(char port)
{
	return (int)(strchr(PORTS, port) - PORTS);
}

static avr_ioport_state_t port_state[3];

/* The column levels the firmware reads: pulled up, unless a closed switch connects the column
 * to a row that is driven low (through its diode). Called after every write to a port. */
static void present_columns(void)
{
	for (int i = 0; i < 3; i++)
		avr_ioctl(avr, AVR_IOCTL_IOPORT_GETSTATE(PORTS[i]), &port_state[i]);
	uint8_t low = 0;
	for (int c = 0; c < COLUMNS; c++) {
		for (int r = 0; r < ROWS; r++) {
			const avr_ioport_state_t *s = &port_state[port_index(ROW_PINS[r].port)];
			uint8_t m = (uint8_t)(1u << ROW_PINS[r].bit);
			int driven_low = (s->ddr & m) && !(s->port & m);
			if (driven_low && (closed[r] & (1u << c)))
				low |= (uint8_t)(1u << c);
		}
	}
	for (int c = 0; c < COLUMNS; c++)
		avr_raise_irq(column_irq[c], (low >> c) & 1 ? 0 : 1);
}

/* --- measurements ------------------------------------------------------------------------- */

/* Scans, seen on the row pins: the first row pulled low starts one, the last released ends it. */
static uint64_t scan_started, last_scan_start;
static int scan_row_expected;
static uint64_t scans, scan_cycles_total, scan_min = UINT64_MAX, scan_max;
static uint64_t periods, period_cycles_total;

static void watch_rows(void)
{
	int selected = -1;
	for (int r = 0; r < ROWS; r++) {
		const avr_ioport_state_t *s = &port_state[port_index(ROW_PINS[r].port)];
		uint8_t m = (uint8_t)(1u << ROW_PINS[r].bit);
		if ((s->ddr & m) && !(s->port & m))
			selected = r;
	}
	if (selected == 0 && scan_row_expected <= 0) {
		scan_started = avr->cycle;
		scan_row_expected = 1;
	} else if (selected == scan_row_expected && selected > 0) {
		scan_row_expected++;
	} else if (selected == -1 && scan_row_expected == ROWS) {
		uint64_t d = avr->cycle - scan_started;
		scans++;
		scan_cycles_total += d;
		if (d < scan_min)
			scan_min = d;
		if (d > scan_max)
			scan_max = d;
		if (last_scan_start) {
			periods++;
			period_cycles_total += scan_started - last_scan_start;
		}
		last_scan_start = scan_started;
		scan_row_expected = 0;
	} else if (selected != -1 && selected != scan_row_expected - 1) {
		scan_row_expected = 0;
	}
}

static void on_port_written(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	(void)value;
	(void)param;
	present_columns();
	watch_rows();
}

/* Changes whose line the firmware still owes: the line's text and the cycle of first contact. */
#define AWAITED 128
static struct {
	char line[4];
	uint64_t at;
	int burst; /* one of many switches set at once (a snapshot's set-up) */
} awaited[AWAITED];
static int awaited_count;
static uint64_t changes_made, latency_count, latency_total, latency_min = UINT64_MAX, latency_max;
static uint64_t lines_lift_place, lines_key, lines_snapshot, lines_identity, lines_other;
static uint64_t changes_unanswered;
static uint64_t burst_lines, burst_max;

static void await_line(const char *line, uint64_t at, int burst)
{
	changes_made++;
	if (awaited_count == AWAITED) {
		changes_unanswered++;
		return;
	}
	snprintf(awaited[awaited_count].line, sizeof awaited[0].line, "%s", line);
	awaited[awaited_count].at = at;
	awaited[awaited_count].burst = burst;
	awaited_count++;
}

/* When the hand is free for its next action. */
static uint64_t hand_free;
/* Set when the firmware has said its identity after power-up; the hand waits for it. */
static int firmware_ready;

/* A whole line came out of the UART (its LF handed to the transmitter at `at`). */
static void line_sent(const char *line, uint64_t at)
{
	switch (line[0]) {
	case 'L':
	case 'P':
		lines_lift_place++;
		break;
	case 'K':
		lines_key++;
		break;
	case 'S':
		lines_snapshot++;
		return;
	case 'V':
		lines_identity++;
		if (!firmware_ready) {
			/* Up and scanning: from now on the hand may move pegs (a peg moved while the
			 * firmware reads the board at power-up would be taken as where it was). */
			firmware_ready = 1;
			if (hand_free < at + HAND_GAP_MS * CYCLES_PER_MS)
				hand_free = at + HAND_GAP_MS * CYCLES_PER_MS;
		}
		return;
	default:
		lines_other++;
		return;
	}
	for (int i = 0; i < awaited_count; i++) {
		if (strcmp(awaited[i].line, line) != 0)
			continue;
		uint64_t d = at - awaited[i].at;
		if (awaited[i].burst) {
			burst_lines++;
			if (d > burst_max)
				burst_max = d;
			memmove(&awaited[i], &awaited[i + 1],
				(size_t)(awaited_count - i - 1) * sizeof awaited[0]);
			awaited_count--;
			return;
		}
		latency_count++;
		latency_total += d;
		if (d < latency_min)
			latency_min = d;
		if (d > latency_max)
			latency_max = d;
		memmove(&awaited[i], &awaited[i + 1], (size_t)(awaited_count - i - 1) * sizeof awaited[0]);
		awaited_count--;
		return;
	}
}

/* --- the serial line ---------------------------------------------------------------------- */

#define BUFFER 4096
/* Bytes from the UART on their way to the pseudo-terminal, and from it to the UART. */
static uint8_t to_host[BUFFER];
static size_t to_host_len;
static uint64_t to_host_dropped;
static uint8_t from_host[256];
static size_t from_host_len;
static int uart_full;
static avr_irq_t *uart_input;

static char tx_line[300];
static size_t tx_line_len;

static void on_uart_byte(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	(void)param;
	uint8_t byte = (uint8_t)value;
	if (to_host_len < BUFFER)
		to_host[to_host_len++] = byte;
	else
		to_host_dropped++; /* nobody reads the port: a serial line drops what no one takes */
	if (byte == '\n') {
		tx_line[tx_line_len] = 0;
		line_sent(tx_line, avr->cycle);
		tx_line_len = 0;
	} else if (tx_line_len < sizeof tx_line - 1) {
		tx_line[tx_line_len++] = (char)byte;
	}
}

static void on_uart_xoff(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	(void)param;
	uart_full = value != 0;
}

static void on_uart_xon(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	(void)param;
	if (value)
		uart_full = 0;
}

/* --- the hand ----------------------------------------------------------------------------- */

enum change_kind { SWITCH, SET_BOARD };
struct change {
	uint64_t at;
	enum change_kind kind;
	uint8_t row, column, closed;
	uint64_t board; /* SET_BOARD: bit n = rank * 8 + file */
};
#define CHANGES 1024
static struct change changes[CHANGES];
static size_t changes_head, changes_len;
static int chatter = 1;

static void schedule(struct change c)
{
	changes[(changes_head + changes_len) % CHANGES] = c;
	changes_len++;
}

static size_t changes_room(void)
{
	return CHANGES - changes_len;
}

static uint64_t us(unsigned n)
{
	return (uint64_t)n * MHZ;
}

/* A switch flipped to `state`, chattering as a reed does; returns when it rests. */
static uint64_t flip(uint64_t at, uint8_t row, uint8_t column, uint8_t state)
{
	size_t flips = chatter ? sizeof CHATTER_US / sizeof CHATTER_US[0] : 1;
	for (size_t i = 0; i < flips; i++) {
		uint8_t s = (i % 2 == 0) ? state : !state;
		schedule((struct change){ .at = at + us(CHATTER_US[i]), .kind = SWITCH, .row = row,
					  .column = column, .closed = s });
	}
	return at + us(CHATTER_US[flips - 1]);
}

/* What the hand's switches will be once every scheduled change has happened. */
static uint8_t planned[ROWS];

static int square_of(const char *s, uint8_t *row, uint8_t *column)
{
	char f = s[0] | 0x20, r = s[1];
	if (f < 'a' || f > 'h' || r < '1' || r > '8')
		return 0;
	*column = (uint8_t)(f - 'a');
	*row = (uint8_t)(r - '1');
	return 1;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int parse_snapshot(const char *hex, uint64_t *board)
{
	uint64_t v = 0;
	for (int i = 0; i < 16; i++) {
		int d = hex_digit(hex[i]);
		if (d < 0)
			return 0;
		v = (v << 4) | (uint64_t)d;
	}
	if (hex[16] != 0)
		return 0;
	*board = v;
	return 1;
}

/* A hand is not in step with the scan: each action starts a fraction of a millisecond after
 * its stamp, from a fixed pseudo-random sequence (so a run measures every phase between a change
 * and the next scan, and the same every time). */
static uint64_t hand_phase(void)
{
	static uint32_t state = 12345;
	state = state * 1103515245u + 12345u;
	return us((state >> 16) % 1000);
}

/* The cycle at which the simulation began, which stamps count from. */
static uint64_t sim_origin;

/* Takes the `@<ms> ` stamp off a line of the board process: when the hand made it, in
 * milliseconds since the process began, which is about when the simulation began. 0 if none. */
static uint64_t take_stamp(char **line)
{
	if (**line != '@')
		return 0;
	char *end;
	unsigned long long ms = strtoull(*line + 1, &end, 10);
	while (*end == ' ')
		end++;
	*line = end;
	return (uint64_t)ms;
}

/* Performs one line of what the board should send with the switches: at the time it is stamped
 * with, so the hand's pace is kept however late the line was read; never in the simulation's
 * past, and never before the hand is free. */
static void perform(char *line)
{
	uint64_t at = sim_origin + take_stamp(&line) * CYCLES_PER_MS;
	size_t n = strlen(line);
	while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' '))
		line[--n] = 0;
	if (n == 0)
		return;
	at += hand_phase();
	if (at < avr->cycle)
		at = avr->cycle;
	if (at < hand_free)
		at = hand_free;
	uint8_t row, column;
	char text[4] = { 0 };
	if ((line[0] == 'L' || line[0] == 'P') && n == 3 && square_of(line + 1, &row, &column)) {
		uint8_t state = line[0] == 'P';
		uint8_t bit = (uint8_t)(1u << column);
		if (!!(planned[row] & bit) == state) {
			fprintf(stderr, "pegsim: %s: that hole is already %s; nothing changes\n", line,
				state ? "full" : "empty");
			return;
		}
		planned[row] ^= bit;
		text[0] = line[0];
		text[1] = (char)('a' + column);
		text[2] = (char)('1' + row);
		await_line(text, at, 0);
		hand_free = flip(at, row, column, state) + us(HAND_GAP_MS * 1000);
	} else if (line[0] == 'K' && n == 2) {
		char letter = (char)(line[1] & ~0x20);
		for (int k = 0; k < 2; k++) {
			for (int c = 0; c < COLUMNS; c++) {
				if (KEY_LETTER[k][c] != letter)
					continue;
				text[0] = 'K';
				text[1] = letter;
				await_line(text, at, 0);
				uint64_t down = flip(at, (uint8_t)(BOARD_ROWS + k), (uint8_t)c, 1);
				uint64_t up = flip(down + us(KEY_HOLD_MS * 1000), (uint8_t)(BOARD_ROWS + k),
						   (uint8_t)c, 0);
				hand_free = up + us(HAND_GAP_MS * 1000);
				return;
			}
		}
		fprintf(stderr, "pegsim: %s: the key strip has no key %c\n", line, line[1]);
	} else if (line[0] == 'S' && n == 17) {
		uint64_t board;
		if (!parse_snapshot(line + 1, &board)) {
			fprintf(stderr, "pegsim: %s: not a snapshot (S and 16 hex digits)\n", line);
			return;
		}
		for (int r = 0; r < BOARD_ROWS; r++) {
			uint8_t now = (uint8_t)(board >> (8 * r));
			for (int c = 0; c < COLUMNS; c++) {
				uint8_t bit = (uint8_t)(1u << c);
				if ((planned[r] ^ now) & bit) {
					text[0] = now & bit ? 'P' : 'L';
					text[1] = (char)('a' + c);
					text[2] = (char)('1' + r);
					await_line(text, at, 1);
				}
			}
			planned[r] = now;
		}
		schedule((struct change){ .at = at, .kind = SET_BOARD, .board = board });
		hand_free = at + us(HAND_GAP_MS * 1000);
	} else {
		fprintf(stderr, "pegsim: %s: no switch makes this line; the firmware writes its own\n",
			line);
	}
}

/* Bytes from the board process not yet performed. */
#define BOARD_BUFFER 4096

/* The most changes one line schedules: a key pressed and released, each chattering. */
#define CHANGES_PER_LINE (2 * sizeof CHATTER_US / sizeof CHATTER_US[0])

/* Performs the complete lines at the start of `buf` while the change queue has room, and keeps
 * the rest; a line longer than the buffer is performed in pieces (and refused). */
static void perform_lines(char *buf, size_t *len)
{
	while (firmware_ready && changes_room() >= CHANGES_PER_LINE) {
		char *end = memchr(buf, '\n', *len);
		size_t take;
		if (end) {
			*end = 0;
			take = (size_t)(end - buf) + 1;
		} else if (*len == BOARD_BUFFER) {
			buf[*len - 1] = 0;
			take = *len;
		} else {
			return;
		}
		perform(buf);
		memmove(buf, buf + take, *len - take);
		*len -= take;
	}
}

static void apply_due_changes(void)
{
	int touched = 0;
	while (changes_len > 0 && changes[changes_head].at <= avr->cycle) {
		struct change *c = &changes[changes_head];
		if (c->kind == SWITCH) {
			uint8_t bit = (uint8_t)(1u << c->column);
			closed[c->row] = (uint8_t)(c->closed ? closed[c->row] | bit : closed[c->row] & ~bit);
		} else {
			for (int r = 0; r < BOARD_ROWS; r++)
				closed[r] = (uint8_t)(c->board >> (8 * r));
		}
		changes_head = (changes_head + 1) % CHANGES;
		changes_len--;
		touched = 1;
	}
	if (touched)
		present_columns();
}

/* --- the process -------------------------------------------------------------------------- */

static volatile sig_atomic_t stop_requested;

/* simavr's own messages: errors and warnings on standard error, the rest (firmware loaded at
 * address …) not at all, so standard output keeps to the path and the measurements. */
static void quiet_logger(avr_t *a, const int level, const char *format, va_list ap)
{
	(void)a;
	if (level > LOG_WARNING)
		return;
	fputs("pegsim: simavr: ", stderr);
	vfprintf(stderr, format, ap);
}

static void sleep_nowhere(avr_t *a, avr_cycle_count_t how_long)
{
	(void)a;
	(void)how_long;
}

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void fail(const char *what)
{
	fprintf(stderr, "pegsim: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: pegsim FIRMWARE.elf --link PATH [--annabella PROGRAM] [--exit-at-eof] "
		"[--no-chatter] [-- SIMULATE-BOARD-OPTIONS...]\n");
	exit(2);
}

/* A pseudo-terminal in raw mode; its slave stays open so the master never sees a hang-up when
 * the host closes and reopens the port. */
static int open_pty(char *name, size_t size, int *slave)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0)
		fail("opening a pseudo-terminal");
	if (ptsname_r(master, name, size) != 0)
		fail("naming the pseudo-terminal");
	*slave = open(name, O_RDWR | O_NOCTTY);
	if (*slave < 0)
		fail(name);
	struct termios t;
	if (tcgetattr(*slave, &t) != 0)
		fail("reading terminal attributes");
	cfmakeraw(&t);
	if (tcsetattr(*slave, TCSANOW, &t) != 0)
		fail("setting raw mode");
	fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
	return master;
}

static void replace_symlink(const char *target, const char *link)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp%d", link, (int)getpid());
	unlink(tmp);
	if (symlink(target, tmp) != 0)
		fail(tmp);
	if (rename(tmp, link) != 0)
		fail(link);
}

/* `annabella simulate-board --protocol peg --to-stdout EXTRA...` on our standard input; returns
 * the read end of its standard output. */
static int start_annabella(const char *program, char **extra, int extra_count, pid_t *pid)
{
	int fds[2];
	if (pipe(fds) != 0)
		fail("pipe");
	*pid = fork();
	if (*pid < 0)
		fail("fork");
	if (*pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		char **argv = calloc((size_t)extra_count + 6, sizeof *argv);
		if (!argv)
			_exit(127);
		int n = 0;
		argv[n++] = (char *)program;
		argv[n++] = "simulate-board";
		argv[n++] = "--protocol";
		argv[n++] = "peg";
		argv[n++] = "--to-stdout";
		for (int i = 0; i < extra_count; i++)
			argv[n++] = extra[i];
		execvp(program, argv);
		fprintf(stderr, "pegsim: running %s: %s\n", program, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	return fds[0];
}

static uint64_t wall_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static double cycles_us(double cycles)
{
	return cycles / MHZ;
}

static void report(uint64_t simulated)
{
	for (int i = 0; i < awaited_count; i++)
		fprintf(stderr, "pegsim: the firmware never sent %s for the change at %.1f ms\n",
			awaited[i].line, cycles_us((double)awaited[i].at) / 1000.0);
	printf("measure simulated-s=%.3f mhz=%d\n", cycles_us((double)simulated) / 1e6, MHZ);
	if (scans > 0)
		printf("measure scan-us min=%.1f mean=%.1f max=%.1f scans=%llu period-us=%.1f\n",
		       cycles_us((double)scan_min), cycles_us((double)scan_cycles_total / (double)scans),
		       cycles_us((double)scan_max), (unsigned long long)scans,
		       periods ? cycles_us((double)period_cycles_total / (double)periods) : 0.0);
	if (latency_count > 0)
		printf("measure latency-us min=%.1f mean=%.1f max=%.1f changes=%llu\n",
		       cycles_us((double)latency_min),
		       cycles_us((double)latency_total / (double)latency_count),
		       cycles_us((double)latency_max), (unsigned long long)latency_count);
	if (burst_lines > 0)
		printf("measure burst-us last=%.1f lines=%llu\n", cycles_us((double)burst_max),
		       (unsigned long long)burst_lines);
	printf("measure lines lift-place=%llu keys=%llu snapshots=%llu identities=%llu other=%llu "
	       "hand-changes=%llu unanswered=%llu dropped-bytes=%llu\n",
	       (unsigned long long)lines_lift_place, (unsigned long long)lines_key,
	       (unsigned long long)lines_snapshot, (unsigned long long)lines_identity,
	       (unsigned long long)lines_other, (unsigned long long)changes_made,
	       (unsigned long long)(changes_unanswered + (uint64_t)awaited_count),
	       (unsigned long long)to_host_dropped);
	fflush(stdout);
}

/* Reads the first line of the board process: the snapshot of the starting position. */
static uint64_t read_start_position(int fd)
{
	char line[64];
	size_t len = 0;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 60000) <= 0) {
			fprintf(stderr, "pegsim: annabella simulate-board said nothing within 60 s\n");
			exit(2);
		}
		char c;
		ssize_t n = read(fd, &c, 1);
		if (n <= 0) {
			fprintf(stderr, "pegsim: annabella simulate-board ended before its first line\n");
			exit(2);
		}
		if (c == '\n')
			break;
		if (len < sizeof line - 1)
			line[len++] = c;
	}
	line[len] = 0;
	char *event = line;
	take_stamp(&event);
	uint64_t board;
	if (event[0] != 'S' || !parse_snapshot(event + 1, &board)) {
		fprintf(stderr, "pegsim: expected a snapshot first, got %s\n", line);
		exit(2);
	}
	return board;
}

int main(int argc, char **argv)
{
	const char *elf = NULL, *link = NULL;
	const char *program = getenv("ANNABELLA") ? getenv("ANNABELLA") : "annabella";
	int exit_at_eof = 0;
	char **extra = NULL;
	int extra_count = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--link") && i + 1 < argc)
			link = argv[++i];
		else if (!strcmp(argv[i], "--annabella") && i + 1 < argc)
			program = argv[++i];
		else if (!strcmp(argv[i], "--exit-at-eof"))
			exit_at_eof = 1;
		else if (!strcmp(argv[i], "--no-chatter"))
			chatter = 0;
		else if (!strcmp(argv[i], "--")) {
			extra = argv + i + 1;
			extra_count = argc - i - 1;
			break;
		} else if (argv[i][0] != '-' && !elf)
			elf = argv[i];
		else
			usage();
	}
	if (!elf || !link)
		usage();

	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	pid_t child;
	int board_fd = start_annabella(program, extra, extra_count, &child);
	uint64_t start = read_start_position(board_fd);

	avr_global_logger_set(quiet_logger);
	elf_firmware_t fw;
	memset(&fw, 0, sizeof fw);
	if (elf_read_firmware(elf, &fw) != 0) {
		fprintf(stderr, "pegsim: cannot read the firmware %s\n", elf);
		return 2;
	}
	if (!fw.mmcu[0])
		snprintf(fw.mmcu, sizeof fw.mmcu, "atmega328p");
	fw.frequency = MHZ * 1000000u;
	avr = avr_make_mcu_by_name(fw.mmcu);
	if (!avr) {
		fprintf(stderr, "pegsim: simavr does not know the MCU %s\n", fw.mmcu);
		return 2;
	}
	avr_init(avr);
	avr->log = LOG_ERROR;
	avr_load_firmware(avr, &fw);
	/* The loop below keeps simulated time behind the wall clock; simavr must not sleep too. */
	avr->sleep = sleep_nowhere;

	for (int r = 0; r < BOARD_ROWS; r++)
		closed[r] = planned[r] = (uint8_t)(start >> (8 * r));
	for (int c = 0; c < COLUMNS; c++)
		column_irq[c] = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(COLUMN_PINS[c].port),
					      COLUMN_PINS[c].bit);
	for (int i = 0; i < 3; i++)
		avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(PORTS[i]),
						      IOPORT_IRQ_PIN_ALL),
					on_port_written, NULL);
	uint32_t flags = 0;
	avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
	flags &= ~(uint32_t)AVR_UART_FLAG_STDIO;
	avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
	avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
				on_uart_byte, NULL);
	avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
				on_uart_xoff, NULL);
	avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
				on_uart_xon, NULL);
	uart_input = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);

	char slave_name[256];
	int slave;
	int master = open_pty(slave_name, sizeof slave_name, &slave);
	replace_symlink(slave_name, link);
	printf("%s\n", slave_name);
	fflush(stdout);

	/* What the board process wrote and pegsim has not yet performed; a line is taken only while
	 * the change queue has room for its changes, and the pipe is read only while this has room. */
	char board_buf[BOARD_BUFFER];
	size_t board_len = 0;
	int board_open = 1;
	uint64_t stop_at = UINT64_MAX;
	uint64_t wall_start = wall_ns(), cycle_start = avr->cycle;
	sim_origin = cycle_start;
	while (!stop_requested && avr->cycle < stop_at) {
		uint64_t slice_end = avr->cycle + CYCLES_PER_MS;
		while (avr->cycle < slice_end) {
			apply_due_changes();
			uint64_t until = slice_end;
			if (changes_len > 0 && changes[changes_head].at < until)
				until = changes[changes_head].at;
			while (avr->cycle < until) {
				int state = avr_run(avr);
				if (state == cpu_Done || state == cpu_Crashed) {
					fprintf(stderr, "pegsim: the firmware stopped (%s)\n",
						state == cpu_Done ? "done" : "crashed");
					report(avr->cycle - cycle_start);
					kill(child, SIGTERM);
					return 1;
				}
			}
		}
		if (!firmware_ready && avr->cycle - cycle_start > 5000 * CYCLES_PER_MS) {
			fprintf(stderr, "pegsim: the firmware sent no identity line (V) within 5 s\n");
			report(avr->cycle - cycle_start);
			kill(child, SIGTERM);
			return 1;
		}
		/* Bytes from the host into the UART while its receive buffer has room. */
		size_t fed = 0;
		while (fed < from_host_len && !uart_full)
			avr_raise_irq(uart_input, from_host[fed++]);
		memmove(from_host, from_host + fed, from_host_len - fed);
		from_host_len -= fed;

		/* Wait for the wall clock if the simulation is ahead, watching both inputs. */
		uint64_t simulated_ns = (avr->cycle - cycle_start) * 1000ull / MHZ;
		uint64_t elapsed = wall_ns() - wall_start;
		uint64_t ahead = simulated_ns > elapsed ? simulated_ns - elapsed : 0;
		struct timespec timeout = { .tv_sec = (time_t)(ahead / 1000000000ull),
					    .tv_nsec = (long)(ahead % 1000000000ull) };
		struct pollfd fds[2] = {
			{ .fd = master,
			  .events = (short)((from_host_len < sizeof from_host ? POLLIN : 0) |
					    (to_host_len ? POLLOUT : 0)) },
			{ .fd = board_open && board_len < sizeof board_buf ? board_fd : -1, .events = POLLIN },
		};
		if (ppoll(fds, 2, &timeout, NULL) < 0 && errno != EINTR)
			fail("poll");
		if (fds[0].revents & POLLIN) {
			ssize_t n = read(master, from_host + from_host_len, sizeof from_host - from_host_len);
			if (n > 0)
				from_host_len += (size_t)n;
		}
		if (to_host_len && (fds[0].revents & POLLOUT)) {
			ssize_t n = write(master, to_host, to_host_len);
			if (n > 0) {
				memmove(to_host, to_host + n, to_host_len - (size_t)n);
				to_host_len -= (size_t)n;
			}
		}
		if (fds[1].revents & (POLLIN | POLLHUP)) {
			ssize_t n = read(board_fd, board_buf + board_len, sizeof board_buf - board_len);
			if (n > 0) {
				board_len += (size_t)n;
			} else {
				board_open = 0;
				close(board_fd);
			}
		}
		perform_lines(board_buf, &board_len);
		if (!board_open && board_len == 0 && exit_at_eof && stop_at == UINT64_MAX) {
			/* The operator is done: let the hand finish and the firmware send what it owes. */
			uint64_t last = hand_free > avr->cycle ? hand_free : avr->cycle;
			stop_at = last + 300 * CYCLES_PER_MS;
		}
	}
	/* The last bytes for the host, if it is still reading. */
	if (to_host_len)
		(void)!write(master, to_host, to_host_len);
	report(avr->cycle - cycle_start);
	kill(child, SIGTERM);
	waitpid(child, NULL, 0);
	close(slave);
	close(master);
	return 0;
}
