/*
 * replay_exec_details.c - reading the -details file an --exec unit's command wrote (superpmi's
 * CSV, see replay_row.c) into one held row per context.
 *
 * The file is the command's output, so hostile: a header with a Context column, then rows of as
 * many fields, each naming a context of the unit once. Anything else makes the whole file
 * unusable (said once, naming the unit and the line); a context without a row is left to the
 * command's exit status.
 */
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"
#include "replay_exec.h"

#define MAX_COLUMNS 64

typedef struct csv_line {
    char *field[MAX_COLUMNS];
    size_t count;
} csv_line;

/* Splits one line (NUL-terminated, no LF) at commas; false when it has too many fields or a
 * character no superpmi field holds (quotes, control characters). */
static bool split_line(char *line, csv_line *out)
{
    size_t len = strlen(line);
    if (len && line[len - 1] == '\r')
        line[--len] = '\0';
    out->count = 0;
    out->field[out->count++] = line;
    for (char *p = line; *p; p++) {
        if ((unsigned char)*p < ' ' || *p == '"' || *p == 0x7F)
            return false;
        if (*p == ',') {
            if (out->count == MAX_COLUMNS)
                return false;
            *p = '\0';
            out->field[out->count++] = p + 1;
        }
    }
    return true;
}

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

/* The held row: every column but Context, name US value ...; NULL when too long. */
static char *make_row(const csv_line *head, const csv_line *row, size_t context_col)
{
    char buf[REPLAY_MESSAGE_MAX];
    size_t len = 0;
    for (size_t i = 0; i < head->count; i++) {
        if (i == context_col)
            continue;
        int n = snprintf(buf + len, sizeof buf - len, "%s%s%c%s", len ? "\x1f" : "",
                         head->field[i], REPLAY_ROW_SEP, row->field[i]);
        if (n < 0 || (size_t)n >= sizeof buf - len)
            return NULL;
        len += (size_t)n;
    }
    return strdup(buf);
}

static int bad(char *why, size_t cap, size_t line, const char *what)
{
    snprintf(why, cap, "line %zu: %s", line, what);
    return MCZ_ECORRUPT;
}

/* Fills rows[] from the lines of text (modified); why says what is wrong. */
static int parse(char *text, const exec_numbering *num, replay_style style, char **rows,
                 char *why, size_t cap)
{
    csv_line head, row;
    size_t line = 1, context_col = MAX_COLUMNS;
    char *save = NULL;
    char *l = strtok_r(text, "\n", &save);
    if (!l || !split_line(l, &head))
        return bad(why, cap, line, "no header");
    for (size_t i = 0; i < head.count; i++)
        if (strcmp(head.field[i], "Context") == 0)
            context_col = i;
    if (context_col == MAX_COLUMNS)
        return bad(why, cap, line, "no Context column");
    while ((l = strtok_r(NULL, "\n", &save))) {
        line++;
        uint64_t number;
        if (!split_line(l, &row) || row.count != head.count)
            return bad(why, cap, line, "not as many fields as the header");
        long at = replay_parse_count(row.field[context_col], 1, UINT32_MAX, &number)
                      ? position_of(num, number) : -1;
        if (at < 0)
            return bad(why, cap, line, "a context that is not in the unit");
        if (rows[at])
            return bad(why, cap, line, "a context given a second row");
        bool miss;
        if (!(rows[at] = make_row(&head, &row, context_col)))
            return bad(why, cap, line, "a row too long");
        if (replay_row_kind(rows[at], style, &miss) < 0)
            return bad(why, cap, line, "no result superpmi writes");
    }
    return MCZ_OK;
}

int exec_details_read(const char *path, const exec_numbering *num, replay_style style,
                      char **rows, char *why, size_t cap)
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
        snprintf(why, cap, "%s", d.message);
        return MCZ_EIO;
    }
    char *text = malloc(f.size + 1);
    int rc = MCZ_ENOMEM;
    if (text) {
        memcpy(text, f.data, f.size);
        text[f.size] = '\0';
        rc = memchr(text, '\0', f.size) ? bad(why, cap, 1, "a NUL byte")
                                        : parse(text, num, style, rows, why, cap);
    }
    mcz_file_unmap(&f);
    free(text);
    if (rc != MCZ_OK) {
        for (size_t i = 0; i < num->count; i++) {
            free(rows[i]);
            rows[i] = NULL;
        }
        return rc;
    }
    return 1;
}
