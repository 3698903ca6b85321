/*
 * tool.h - what the mcz programs (mcs, mcz-replay, mchgen) share, built on mcz.h and the
 * platform layer (platform/platform.h).
 *
 * Files a user names: "-" and other streams as inputs are spooled to a temporary file so that
 * every program can map and reopen them; outputs are checked before any work (directory
 * present and writable, not a directory, not the same file as an input); signals remove what a
 * run left half-done and end the process as the signal would.
 */
#ifndef MCZ_TOOL_H
#define MCZ_TOOL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The programs are built with the library they ship with: they may use its static-only part. */
#define MCZ_STATIC_LINKING_ONLY
#include "mcz.h"
#include "mcz_superpmi.h"
/* The system: the platform layer (platform/platform.h), which the programs call directly. */
#include "platform.h"

#define TOOL_ERROR_SIZE 1024

/* The programs are built with the library's printf (on Windows mingw's C99 one, with %zu):
 * their formats are checked as its are. */
#define TOOL_PRINTF(f, a) MCZ_DIAG_PRINTF(f, a)

/* ---- Messages (tool_message.c) ---- */

/* The name every message starts with ("mcs"); set once at the start of main. */
void tool_set_program(const char *name);
const char *tool_program(void);
/* Which messages are shown (SuperPMI's verbosity: errors, warnings, information); all are by
 * default. */
void tool_set_levels(bool errors, bool warnings, bool info);
bool tool_info_shown(void);
/* "PROG: text" on stderr. */
void tool_error(const char *fmt, ...) TOOL_PRINTF(1, 2);
void tool_verror(const char *fmt, va_list ap) TOOL_PRINTF(1, 0);
/* "PROG: warning: text" on stderr. */
void tool_warn(const char *fmt, ...) TOOL_PRINTF(1, 2);
/* An informational line, bare, on stdout (as SuperPMI prints them), or on stderr once
 * tool_info_to_stderr was called (stdout then carries data). */
void tool_info(const char *fmt, ...) TOOL_PRINTF(1, 2);
void tool_info_to_stderr(void);

/* Where a problem is, as the program found it. Only locations the program found itself belong
 * here (a walk's position, a loop's chunk index), never a number read from a damaged file. */
typedef struct tool_where {
    const char *path; /* the file (or option) concerned, when d names no subject; NULL: none */
    int64_t chunk;    /* archive chunk index; -1: none */
    int64_t context;  /* context number; <= 0: none */
    int64_t offset;   /* file offset; -1: none */
} tool_where;

/* The line every program prints for d: mcz_diag_format of d with the location w gives
 * ("PATH: chunk C: context N at offset X: MESSAGE", the parts w holds), d's own subject before
 * w's path. Returns buf. */
const char *tool_where_text(const tool_where *w, const mcz_diag *d, char *buf, size_t cap);
/* Names path as d's subject when the library named none (a buffer the program read itself). */
void tool_diag_name(mcz_diag *d, const char *path);
/* d's subject `from` (a spooled copy of "-") is named `to` instead. Meanwhile, a message of the
 * library that still begins with `from` is rewritten: those go with the conversion of io/,
 * reader/, writer/ to mcz_diag_set_subject. */
void tool_diag_rename(mcz_diag *d, const char *from, const char *to);

/* ---- A collection in a zip (tool_zip.c) ---- */

/* The .mch member of a zip file (superpmi.py's store: one member <name>.mch, deflated),
 * read in order, inflated as it is read: nothing is unpacked to disk or held whole. */
typedef struct tool_zip tool_zip;
/* True when path is a regular file that begins as a zip does (PK\3\4, or PK\5\6 when empty),
 * whatever its name. */
bool tool_is_zip(const char *path);
/* Opens the zip's one member named *.mch; NULL with err naming the file (and the members) when
 * the zip cannot be read, holds none or several, or the member is encrypted or compressed with
 * a method libzip lacks. */
tool_zip *tool_zip_open(const char *path, char err[TOOL_ERROR_SIZE]);
const char *tool_zip_member(const tool_zip *z);
/* The member's uncompressed size, as the zip's directory states it. */
uint64_t tool_zip_size(const tool_zip *z);
/* Its compressed size and method ("deflate", "stored", ...). */
uint64_t tool_zip_stored_size(const tool_zip *z);
const char *tool_zip_method(const tool_zip *z);
/* Reads up to len bytes of the member: fewer only at its end; -1 with err naming the file, the
 * member and the offset in it (damaged data, a CRC-32 that does not match at the end). */
int64_t tool_zip_read(tool_zip *z, void *buf, size_t len, char err[TOOL_ERROR_SIZE]);
void tool_zip_close(tool_zip *z); /* accepts NULL */

/* ---- Progress (tool_progress.c) ---- */

/*
 * One self-overwriting line on stderr for long work, shown only on a terminal with information
 * on: "converting: 12345/20000 contexts, 45 MB/s, ETA 3s". Totals of 0 are unknown; bytes of 0
 * give a rate in contexts. tool_progress_end clears it (call it before printing anything else).
 */
typedef struct tool_progress {
    const char *what;
    uint64_t total_contexts;
    uint64_t total_bytes;
    double start;
    double last_shown;
    bool enabled;
    bool shown;
} tool_progress;

void tool_progress_start(tool_progress *p, const char *what, uint64_t total_contexts,
                         uint64_t total_bytes);
void tool_progress_update(tool_progress *p, uint64_t contexts, uint64_t bytes);
void tool_progress_end(tool_progress *p);
/* From a handler of a signal that ends the program: ends a progress line left on the terminal
 * with a line break (async-signal-safe), so what follows starts on a line of its own. */
void tool_progress_abandon(void);

/* ---- Words (tool_text.c) ---- */

char *tool_strndup(const char *s, size_t n); /* NULL: out of memory */
/* Levenshtein distance between a[0..alen) and b, case-insensitive; SIZE_MAX when either is 64
 * characters or longer (names are short). */
size_t tool_edit_distance(const char *a, size_t alen, const char *b);
/* strcasecmp(3) and strncasecmp(3) as in the C locale (ASCII letters without case), which
 * <strings.h> declares on POSIX systems only. */
int tool_strcasecmp(const char *a, const char *b);
int tool_strncasecmp(const char *a, const char *b, size_t n);

/* ---- CSV (tool_csv.c) ---- */

/* A field, quoted (quotes doubled) only when it holds a comma, a quote or a line break. */
void tool_csv_field(FILE *f, const char *text);
/* A field, always quoted. */
void tool_csv_quoted(FILE *f, const char *text);

/* Reading CSV as RFC 4180 has it (what superpmi's -details writes: fields quoted when they hold
 * commas or quotes, "" for a quote, CRLF or LF line ends; a quoted field may hold line ends).
 * A field is a span of the text as written, quotes included, so a record can be passed on
 * byte for byte. */
typedef struct tool_csv_span {
    const char *start;
    size_t len;
    bool quoted;
} tool_csv_span;

enum { TOOL_CSV_BAD = -1, TOOL_CSV_WIDE = -2 };

/* Reads the record at *p (text up to end) into fields[0..*count); moves *p past its line end.
 * Returns 1 a record, 0 at the end of the text, TOOL_CSV_BAD when it is not CSV (a quote
 * inside an unquoted field, text after a closing quote, an unterminated quote, a lone CR),
 * TOOL_CSV_WIDE when it has more than max fields. fields NULL: only counts them (no limit). */
int tool_csv_next(const char **p, const char *end, tool_csv_span *fields, size_t max,
                  size_t *count);
/* The field's value (quotes removed, "" made one), NUL-terminated in buf (cut to cap - 1
 * bytes); returns its whole length. */
size_t tool_csv_value(const tool_csv_span *f, char *buf, size_t cap);
/* True when the field's value is text. */
bool tool_csv_is(const tool_csv_span *f, const char *text);

/* ---- System ---- */

/* Seconds on the monotonic clock. */
double tool_now(void);
/* Flushes and closes stdout at the end of main: 0, or -1 after saying on stderr (prog: ...)
 * that a write failed (a full disk). A reader that closed its pipe early is not an error. */
int tool_close_stdout(void);

/* ---- Files and directories, on the platform's calls (tool_dir.c, tool_files.c) ---- */

/* The names in dir (not . and ..), sorted by strcmp; only those matching glob when glob is
 * not NULL (mcz_os_glob_match). 0, or -1 with errno set. */
int tool_dir_list(const char *dir, const char *glob, char ***names, size_t *count);
void tool_dir_list_free(char **names, size_t count);
/* A directory and everything in it removed, depth first, a symbolic link removed as a file
 * and never followed; what cannot be removed is left and the rest still removed. 0 when all
 * is gone, else -1 with errno of the first failure. */
int tool_remove_tree(const char *path);
/* Whether two identities (mcz_os_file_id_of) are one file's. */
bool tool_file_id_equal(const mcz_os_file_id *a, const mcz_os_file_id *b);

/* ---- Counts ---- */

/* A count as the programs spell it: decimal digits (no sign, no space), times an optional K, M
 * or G (1024-based; KB and KiB and the like too) when suffix is true. MCZ_EINVAL when text is
 * not such a count or lies outside [min, max]; *out is then unchanged. */
int tool_parse_count(const char *text, bool suffix, uint64_t min, uint64_t max, uint64_t *out);

/* ---- Versions ---- */

/* `prog --version` alone on its command line. */
bool tool_wants_version(int argc, char **argv);
/* Prints prog's version and the loaded libraries' to stdout. */
void tool_print_version(void);
/* 0 when the libmcz loaded keeps the ABI this program was built against (same major, a minor
 * at least as new); otherwise says which was loaded, on stderr, and returns -1. */
int tool_check_library(void);

/* ---- Signals (tool_undo.c; the handlers are the platform's: mcz_os_stop_catch) ---- */

/*
 * SIGINT, SIGTERM and SIGHUP remove this process's uncommitted temporaries
 * (mcz_remove_temporaries), spooled inputs and registered truncations, then end the process by
 * the same signal (the shell sees 128+signal). SIGPIPE does the same while such work is under
 * way; otherwise it is ignored, so that a reader closing a pipe early ends text output with a
 * write error the program handles (EPIPE) rather than a kill.
 * On Windows a console control event (Ctrl-C, Ctrl-Break, the console closed, a log-off or a
 * shutdown) undoes the same things, then ends the process as that event ends a console
 * program (Ctrl-C: exit code STATUS_CONTROL_C_EXIT).
 */
void tool_signals_install(void);

/* On a signal, fd is truncated back to size (an in-place append being undone). Returns a
 * handle for tool_undo_forget, or -1 when the table is full. */
int tool_undo_truncate(int fd, int64_t size);
void tool_undo_forget(int handle);
/* On a signal, path is removed (a file the run created and has not finished); forget takes it
 * off the list. A full table (8 of each) leaves the extra ones to the caller alone. */
void tool_undo_remove(const char *path);
void tool_undo_remove_forget(const char *path);

/* For the tests: with MCZ_TEST_SIGNAL=INT@N (TERM, HUP, PIPE) in the environment, the signal
 * is raised when `done` (units of work so far, e.g. contexts written) reaches N. On Windows
 * INT@N sends the process's console a Ctrl-C, TERM@N and HUP@N a Ctrl-Break (PIPE: nothing),
 * and the calling thread waits for the handler to end the process; a process without a
 * console says on stderr that it waits ("waiting for the console control event"), for the
 * test to send the event (under Wine: SIGINT). No event within 30 s: exit 125. */
void tool_test_signal_point(uint64_t done);

/* ---- Inputs ---- */

/* True when path is "-" or names an existing FIFO, character device, socket or terminal. */
bool tool_input_is_stream(const char *path);

/* How messages name an input or output: "standard input"/"standard output" for "-". */
const char *tool_display_name(const char *path, bool output);

/* ---- Outputs ---- */

/* Remembers an input (its device and inode) so that tool_output_check can refuse it as an
 * output. Streams and missing files are ignored. */
void tool_note_input(const char *path);

/*
 * Before any work: fails (0 is success, -1 with the reason in err) when output path is a
 * directory, when its directory is missing or not writable, or when it is the same file as an
 * input noted above. *stream says whether it will be written in place (see mcz_outfile).
 */
int tool_output_check(const char *path, bool *stream, char err[TOOL_ERROR_SIZE]);

/* True when writing path writes where standard output goes ("-", /dev/stdout, or the file or
 * pipe that stdout is): the program's own messages must then go to stderr. */
bool tool_output_is_stdout(const char *path);

/* ---- The strict check of a context (tool_check.c) ---- */

/* The one check mcs -integ, -verify and mcz-replay's verify replayer run on each context, so
 * that they agree on every context: mcz_mc_check_strict against the collection's JIT-EE
 * version. */
typedef struct tool_check {
    bool strict;                  /* --strict: an unknown packet id is an error */
    const mcz_jit_ee *jit_ee;     /* whose packet table (the collection's); NULL: the newest */
    uint64_t unknown[256];        /* contexts holding each unknown id, counted by tool_check_context */
    uint32_t first_unknown[256];  /* the first of them */
} tool_check;

/* Checks mc: MCZ_OK, or the first problem with d filled (an unknown id is one only with
 * strict). *report (may be NULL) receives the unknown ids of the context. */
int tool_check_context(tool_check *c, const mcz_mc *mc, mcz_strict_report *report, mcz_diag *d);
/* Adds one context's unknown ids to c's counts (tool_check_context does it itself; for a
 * process that gathers reports checked elsewhere). */
void tool_check_count(tool_check *c, uint32_t number, const mcz_strict_report *report);
/* One warning per unknown id counted: "packet unknown(200) in 3 contexts (first: context 5):
 * not in the packet table, not checked". */
void tool_check_warn(const tool_check *c);

#endif
