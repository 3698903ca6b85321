/*
 * replay_exec_details.c - reading the -details file an --exec unit's command wrote (superpmi's
 * CSV, see replay_row.c) into its columns and the rows of each context.
 *
 * The file is the command's output, so hostile: RFC 4180 CSV, a header starting with Context
 * and holding the style's result columns, then rows of as many fields, each naming a context
 * of the unit (several rows for one context under -repeatCount). Anything else makes the whole
 * file unusable (said once, naming the unit and the line); a context without a row is left to
 * the command's exit status. Limits, each far above what superpmi writes, keep a hostile file
 * from taking the run's memory: REPLAY_MAX_COLUMNS columns, DETAILS_MAX bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"
#include "replay_exec.h"

#define DETAILS_MAX (1u << 30)

/* Position in the unit of the context the command calls number; -1 when not in the unit. */
static long position_of(const exec_numbering *num, uint64_t number)
{
    if (!num->global)
        return number >= 1 && number <= num->count ? (long)(number - 1) : -1;
    size_t lo = 0, hi = num->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (num->numbers[mid] < number)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < num->count && num->numbers[lo] == number ? (long)lo : -1;
}

static int bad(char *why, size_t cap, size_t line, const char *what)
{
    snprintf(why, cap, "line %zu: %s", line, what);
    return MCZ_ECORRUPT;
}

/* Appends the record's fields after Context (from `from` to `to`) and a LF to *row. */
static int append_row(char **row, const char *from, const char *to)
{
    size_t have = *row ? strlen(*row) : 0, len = (size_t)(to - from);
    char *grown = realloc(*row, have + len + 2);
    if (!grown)
        return MCZ_ENOMEM;
    memcpy(grown + have, from, len);
    grown[have + len] = '\n';
    grown[have + len + 1] = '\0';
    *row = grown;
    return MCZ_OK;
}

/* The end of a record's last field (before its line end). */
static const char *record_end(const tool_csv_span *f, size_t count)
{
    return f[count - 1].start + f[count - 1].len;
}

static int parse_rows(const char *p, const char *end, const exec_numbering *num,
                      replay_style style, const replay_columns *cols, tool_csv_span *f,
                      char **rows, char *why, size_t cap)
{
    char what[REPLAY_MESSAGE_MAX];
    size_t line = 1, count;
    int rc;
    while ((rc = tool_csv_next(&p, end, f, REPLAY_MAX_COLUMNS, &count)) == 1) {
        line++;
        uint64_t number;
        char text[16];
        if (count != cols->count)
            return bad(why, cap, line, "not as many fields as the header");
        tool_csv_value(&f[0], text, sizeof text);
        long at = replay_parse_count(text, 1, UINT32_MAX, &number) ? position_of(num, number)
                                                                    : -1;
        if (at < 0)
            return bad(why, cap, line, "a context that is not in the unit");
        if (!replay_row_results_valid(cols, style, &f[1], what, sizeof what))
            return bad(why, cap, line, what);
        if (append_row(&rows[at], f[1].start, record_end(f, count)) != MCZ_OK)
            return MCZ_ENOMEM;
    }
    return rc == 0 ? MCZ_OK : bad(why, cap, line + 1, rc == TOOL_CSV_WIDE ? "too many fields"
                                                                          : "not CSV");
}

/* Fills cols and rows[] from the text; why says what is wrong. */
static int parse(const char *text, size_t size, const exec_numbering *num, replay_style style,
                 replay_columns *cols, char **rows, char *why, size_t cap)
{
    const char *p = text, *end = text + size;
    tool_csv_span *f = malloc(REPLAY_MAX_COLUMNS * sizeof *f);
    if (!f)
        return MCZ_ENOMEM;
    size_t count;
    int rc = tool_csv_next(&p, end, f, REPLAY_MAX_COLUMNS, &count);
    char what[REPLAY_MESSAGE_MAX];
    if (rc != 1)
        rc = bad(why, cap, 1, rc == 0 ? "no header" : "a header that is not CSV");
    else if (count < 2)
        rc = bad(why, cap, 1, "a header of one column");
    else if (replay_columns_set(cols, f[0].start, (size_t)(record_end(f, count) - f[0].start),
                                style, what, sizeof what) != MCZ_OK)
        rc = bad(why, cap, 1, what);
    else
        rc = parse_rows(p, end, num, style, cols, f, rows, why, cap);
    free(f);
    return rc;
}

int exec_details_parse(const void *text, size_t size, const exec_numbering *num,
                       replay_style style, replay_columns *cols, char **rows, char *why,
                       size_t cap)
{
    int rc = size > DETAILS_MAX            ? bad(why, cap, 0, "larger than 1 GiB")
             : memchr(text, '\0', size)    ? bad(why, cap, 0, "a NUL byte")
                                           : parse(text, size, num, style, cols, rows, why, cap);
    if (rc != MCZ_OK) {
        for (size_t i = 0; i < num->count; i++) {
            free(rows[i]);
            rows[i] = NULL;
        }
        replay_columns_free(cols);
    }
    return rc;
}

int exec_details_read(const char *path, const exec_numbering *num, replay_style style,
                      replay_columns *cols, char **rows, char *why, size_t cap)
{
    mcz_file f;
    mcz_diag d;
    mcz_diag_clear(&d);
    why[0] = '\0';
    FILE *probe = fopen(path, "rbe");
    if (!probe)
        return 0;
    fclose(probe);
    if (mcz_file_map(path, &f, &d) != MCZ_OK) {
        mcz_diag_format(&d, why, cap);
        return MCZ_EIO;
    }
    int rc = exec_details_parse(f.data, f.size, num, style, cols, rows, why, cap);
    mcz_file_unmap(&f);
    return rc == MCZ_OK ? 1 : rc;
}
