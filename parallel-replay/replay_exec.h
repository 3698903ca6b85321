/*
 * replay_exec.h - the --exec replayer's pieces (replay_exec.c, replay_exec_details.c,
 * replay_exec_args.c).
 */
#ifndef MCZ_REPLAY_EXEC_H
#define MCZ_REPLAY_EXEC_H

#include "replay_int.h"

/* How the command numbers the unit's contexts: 1..count, or (global) by numbers[]. */
typedef struct exec_numbering {
    bool global;
    const uint32_t *numbers; /* global: the contexts' numbers, increasing */
    size_t count;
} exec_numbering;

/* Reads the unit's details file at path: its columns into cols, each context's rows into
 * rows[count] (replay_row.c; NULL where the file has none): 1 read, 0 no file, negative when
 * the file is unusable (why says why; rows all NULL, cols empty). */
int exec_details_read(const char *path, const exec_numbering *num, replay_style style,
                      replay_columns *cols, char **rows, char *why, size_t cap);
/* The same over the file's bytes (text, size) already in memory: MCZ_OK, or negative as
 * above. */
int exec_details_parse(const void *text, size_t size, const exec_numbering *num,
                       replay_style style, replay_columns *cols, char **rows, char *why,
                       size_t cap);

/* Looks at the words of an --exec command as superpmi's command line reads them (its prefix and
 * case rules): *style: asm diffs with -a/-applyDiff, else replay. A switch that writes a file
 * (-f, -details, -r, -w, -diffsInfo, -metricsSummary...) is refused: MCZ_EINVAL, why names it. */
int exec_args_check(char *const argv[], replay_style *style, char *why, size_t cap);

/* ---- The run's stdout (replay_exec_output.c) ------------------------------------------------ */

/* The context number a line of superpmi's names (ISSUE/MISSING/ERROR...: the digits after one
 * of its fixed texts), with where its digits start and how many there are; 0 when none. */
uint64_t exec_line_number(const char *line, size_t len, size_t *at, size_t *digits);

/* A unit's file of the run's temporary directory: DIR/KIND.NUMBER, NUMBER its first context's
 * (so that names sort in context order). */
void exec_out_path(const char *temp_dir, const char *kind, uint32_t first, char *buf,
                   size_t cap);

/* What one context of a unit counted, as superpmi counts (its compiles: -repeatCount), and
 * where it lies in the .mch (superpmi's progress over a file without a table). */
typedef struct exec_tally {
    uint32_t number;
    uint32_t compiles, failed, missed, diffs;
    uint64_t offset;
} exec_tally;

/* Writes the unit's tallies (n of them, in number order) beside its stdout. Best effort: a
 * file that cannot be written costs the progress lines and -repeatCount's extra counts only,
 * never a result. */
void exec_tally_write(const char *temp_dir, const exec_tally *t, size_t n);

#endif /* MCZ_REPLAY_EXEC_H */
