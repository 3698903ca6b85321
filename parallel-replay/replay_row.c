/*
 * replay_row.c - superpmi's -details CSV: the columns a run's rows have, what a row says, and
 * the merged file written from the rows held per context.
 *
 * superpmi (superpmi.cpp at filipnavara/runtime@c659a8bb) writes one row per compile (so
 * -repeatCount N gives N rows a context, and an excluded context none):
 *   replay:    Context,Context size,Method full name,Tier name,Result,MinOpts,Instructions
 *              [,<metric>...]
 *   asm diffs: Context,Context size,Method full name,Tier name,Base result,Diff result,MinOpts,
 *              Has diff,Base instructions,Diff instructions[,Base <metric>,Diff <metric>...]
 * one metric column (or pair) per JITMETADATAMETRIC of the JIT it was built with (16 to 106 of
 * them), Method full name always quoted. Older superpmi wrote other columns (Size, Base size).
 * So the header is taken from the units as it is, columns are known by name, and rows pass
 * through byte for byte, only Context renumbered: a row is held as its records without the
 * Context field (which always comes first), each ending in LF.
 */
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"

/* The headers of runs whose units wrote none (every unit crashed; plugins): today's columns,
 * with the two metrics superpmi.py reads by name. */
static const char *const default_headers[] = {
    [REPLAY_STYLE_MCZ] = "Context,Context size,Result,MinOpts,Size,Instructions,Kind,Message",
    [REPLAY_STYLE_VERIFY] = "Context,Context size,Result,MinOpts,Size,Instructions,Kind,Message",
    [REPLAY_STYLE_SPMI_REPLAY] = "Context,Context size,Method full name,Tier name,Result,MinOpts,"
                                 "Instructions,ActualCodeBytes,PerfScore",
    [REPLAY_STYLE_SPMI_DIFFS] = "Context,Context size,Method full name,Tier name,Base result,"
                                "Diff result,MinOpts,Has diff,Base instructions,"
                                "Diff instructions,Base ActualCodeBytes,Diff ActualCodeBytes,"
                                "Base PerfScore,Diff PerfScore",
};

const char *replay_default_header(replay_style style) { return default_headers[style]; }

static int column_bad(char *why, size_t cap, const char *what)
{
    snprintf(why, cap, "its header %s", what);
    return MCZ_ECORRUPT;
}

int replay_columns_set(replay_columns *c, const char *header, size_t len, replay_style style,
                       char *why, size_t cap)
{
    tool_csv_span *f = malloc(REPLAY_MAX_COLUMNS * sizeof *f);
    char *copy = tool_strndup(header, len);
    if (!f || !copy) {
        free(f);
        free(copy);
        return MCZ_ENOMEM;
    }
    replay_columns_free(c);
    c->header = copy;
    c->result = c->base_result = c->diff_result = c->has_diff = -1;
    const char *p = copy;
    int rc = tool_csv_next(&p, copy + len, f, REPLAY_MAX_COLUMNS, &c->count);
    if (rc == TOOL_CSV_WIDE)
        rc = column_bad(why, cap, "has more than " REPLAY_MAX_COLUMNS_TEXT " columns");
    else if (rc != 1 || p != copy + len)
        rc = column_bad(why, cap, "is not one CSV record");
    else if (!tool_csv_is(&f[0], "Context"))
        rc = column_bad(why, cap, "does not start with Context");
    else
        rc = MCZ_OK;
    for (size_t i = 1; rc == MCZ_OK && i < c->count; i++) {
        int *at = tool_csv_is(&f[i], "Result")        ? &c->result
                  : tool_csv_is(&f[i], "Base result") ? &c->base_result
                  : tool_csv_is(&f[i], "Diff result") ? &c->diff_result
                  : tool_csv_is(&f[i], "Has diff")    ? &c->has_diff
                                                      : NULL;
        if (at)
            *at = (int)i;
    }
    if (rc == MCZ_OK && style == REPLAY_STYLE_SPMI_DIFFS &&
        (c->base_result < 0 || c->diff_result < 0 || c->has_diff < 0))
        rc = column_bad(why, cap, "lacks Base result, Diff result or Has diff (asm diffs)");
    else if (rc == MCZ_OK && style != REPLAY_STYLE_SPMI_DIFFS && c->result < 0)
        rc = column_bad(why, cap, "lacks Result");
    free(f);
    if (rc != MCZ_OK)
        replay_columns_free(c);
    return rc;
}

void replay_columns_free(replay_columns *c)
{
    free(c->header);
    memset(c, 0, sizeof *c);
}

bool replay_columns_same(const replay_columns *c, const char *header, size_t len)
{
    return c->header && strlen(c->header) == len && memcmp(c->header, header, len) == 0;
}

/* superpmi's result names: the kind of one JIT's result; -1 unknown. */
static int result_kind(const tool_csv_span *f)
{
    return tool_csv_is(f, "Success") ? REPLAY_SUCCESS
           : tool_csv_is(f, "Error") ? REPLAY_FAILURE
           : tool_csv_is(f, "Miss")  ? REPLAY_MISSING
                                     : -1;
}

bool replay_row_results_valid(const replay_columns *c, replay_style style,
                              const tool_csv_span *fields, char *why, size_t cap)
{
    const char *results = "Success, Error or Miss";
    struct {
        int column;
        const char *name, *values;
    } check[3] = {{c->result, "Result", results}};
    size_t n = 1;
    if (style == REPLAY_STYLE_SPMI_DIFFS) {
        check[0].column = c->base_result;
        check[0].name = "Base result";
        check[n].column = c->diff_result;
        check[n].name = "Diff result";
        check[n++].values = results;
        check[n].column = c->has_diff;
        check[n].name = "Has diff";
        check[n++].values = "True or False";
    }
    for (size_t i = 0; i < n; i++) {
        const tool_csv_span *f = &fields[check[i].column - 1];
        bool ok = check[i].values == results ? result_kind(f) >= 0
                                             : tool_csv_is(f, "True") || tool_csv_is(f, "False");
        if (!ok) {
            char value[48];
            tool_csv_value(f, value, sizeof value);
            snprintf(why, cap, "%s \"%s\" is not what superpmi writes there (%s)",
                     check[i].name, value, check[i].values);
            return false;
        }
    }
    return true;
}

/* What one row says; fields[0] is the row's first field after Context (header column 1). */
static int row_kind(const replay_columns *c, replay_style style, const tool_csv_span *fields,
                    bool *miss)
{
    if (style != REPLAY_STYLE_SPMI_DIFFS) {
        int k = result_kind(&fields[c->result - 1]);
        *miss = k == REPLAY_MISSING;
        return k;
    }
    int base = result_kind(&fields[c->base_result - 1]);
    int other = result_kind(&fields[c->diff_result - 1]);
    const tool_csv_span *diff = &fields[c->has_diff - 1];
    bool has_diff = tool_csv_is(diff, "True");
    if (base < 0 || other < 0 || (!has_diff && !tool_csv_is(diff, "False")))
        return -1;
    /* superpmi: an Error of either JIT is an error; a Miss of either counts as missing */
    *miss = base == REPLAY_MISSING || other == REPLAY_MISSING;
    if (base == REPLAY_FAILURE || other == REPLAY_FAILURE)
        return REPLAY_FAILURE;
    if (*miss)
        return REPLAY_MISSING;
    return has_diff ? REPLAY_DIFF : REPLAY_SUCCESS;
}

/* The worse of two kinds a context's rows say (-repeatCount compiles it several times). */
static int worse(int a, int b)
{
    static const int rank[REPLAY_KIND_COUNT] = {
        [REPLAY_SUCCESS] = 1, [REPLAY_DIFF] = 2, [REPLAY_MISSING] = 3, [REPLAY_FAILURE] = 4};
    return a < 0 || rank[b] > rank[a] ? b : a;
}

int replay_rows_scan(const replay_columns *c, replay_style style, const char *rows, size_t len,
                     replay_rows_info *info)
{
    memset(info, 0, sizeof *info);
    info->kind = -1;
    /* a row has the header's fields but Context: room for one more tells a wider row (per
     * context, so not the 4096 the header may have) */
    tool_csv_span *f = malloc(c->count * sizeof *f);
    if (!f)
        return -1;
    const char *p = rows, *end = rows + len;
    size_t n;
    int rc;
    while ((rc = tool_csv_next(&p, end, f, c->count, &n)) == 1) {
        bool m;
        int k = n + 1 == c->count ? row_kind(c, style, f, &m) : -1;
        if (k < 0) {
            rc = TOOL_CSV_BAD;
            break;
        }
        info->kind = worse(info->kind, k);
        info->miss = info->miss || m;
        info->failed += k == REPLAY_FAILURE || k == REPLAY_MISSING;
        int first = style == REPLAY_STYLE_SPMI_DIFFS ? c->base_result : c->result;
        info->first_error = info->first_error || tool_csv_is(&f[first - 1], "Error");
    }
    free(f);
    if (rc < 0)
        info->kind = -1;
    return info->kind;
}

int replay_rows_kind(const replay_columns *c, replay_style style, const char *rows, size_t len,
                     bool *miss)
{
    replay_rows_info info;
    int kind = replay_rows_scan(c, style, rows, len, &info);
    *miss = info.miss;
    return kind;
}

/* ---- The merged file --------------------------------------------------------------------------- */

/* What superpmi writes for a kind when no row says more. */
static const char *kind_result(int kind)
{
    return kind == REPLAY_SUCCESS || kind == REPLAY_DIFF ? "Success"
           : kind == REPLAY_MISSING                      ? "Miss"
                                                         : "Error";
}

/* A value for column f of a context no unit wrote a row for (crashed, timed out, unreadable,
 * or replayed by mcz's own replayers): its result, superpmi's empty name, zero metrics. */
static void fallback_value(const replay_entry *e, const tool_csv_span *f, FILE *out)
{
    if (tool_csv_is(f, "Context size"))
        fprintf(out, "%u", e->size);
    else if (tool_csv_is(f, "Result") || tool_csv_is(f, "Base result") ||
             tool_csv_is(f, "Diff result"))
        fputs(kind_result(e->kind), out);
    else if (tool_csv_is(f, "Has diff"))
        fputs(e->kind == REPLAY_DIFF ? "True" : "False", out);
    else if (tool_csv_is(f, "MinOpts"))
        fputs("False", out);
    else if (tool_csv_is(f, "Method full name"))
        fputs("\"\"", out); /* superpmi quotes it always */
    else if (tool_csv_is(f, "Tier name"))
        ;
    else if (tool_csv_is(f, "Kind"))
        fputs(replay_kind_name(e->kind), out);
    else if (tool_csv_is(f, "Message"))
        tool_csv_field(out, e->message ? e->message : "");
    else
        fputc('0', out);
}

static void write_entry(const replay_entry *e, const tool_csv_span *columns, size_t count,
                        FILE *f)
{
    if (e->row) {
        /* each held record, as the unit wrote it, behind the global number */
        const char *p = e->row, *end = e->row + strlen(e->row);
        const char *lf = memchr(p, '\n', (size_t)(end - p));
        if (lf && lf + 1 == end) { /* one line: one record (the common case, one compile) */
            size_t len = (size_t)(lf - p);
            while (len && p[len - 1] == '\r')
                len--;
            fprintf(f, "%u,%.*s\n", e->number, (int)len, p);
            return;
        }
        while (p < end) {
            const char *start = p;
            size_t n;
            if (tool_csv_next(&p, end, NULL, 0, &n) != 1)
                break; /* held rows were checked when taken */
            size_t len = (size_t)(p - start);
            while (len && (start[len - 1] == '\n' || start[len - 1] == '\r'))
                len--;
            fprintf(f, "%u,%.*s\n", e->number, (int)len, start);
        }
        return;
    }
    fprintf(f, "%u", e->number);
    for (size_t i = 1; i < count; i++) {
        fputc(',', f);
        fallback_value(e, &columns[i], f);
    }
    fputc('\n', f);
}

/* One group of superpmi -p N's workers (group g of groups: numbers n with (n - 1) % groups
 * == g), to f under the header's columns. */
typedef struct csv_state {
    FILE *f;
    const tool_csv_span *columns;
    size_t count;
    uint32_t group, groups;
} csv_state;

static bool csv_wants_row(void *arg, uint32_t number, int kind)
{
    const csv_state *s = arg;
    return kind != REPLAY_EXCLUDED && (number - 1) % s->groups == s->group;
}

static int csv_visit(void *arg, const replay_entry *e)
{
    const csv_state *s = arg;
    if (csv_wants_row(arg, e->number, e->kind))
        write_entry(e, s->columns, s->count, s->f);
    return MCZ_OK;
}

int replay_row_write_csv(const replay_table *t, FILE *f, mcz_diag *diag)
{
    const char *header = t->columns.header ? t->columns.header : default_headers[t->style];
    tool_csv_span *columns = malloc(REPLAY_MAX_COLUMNS * sizeof *columns);
    if (!columns)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    const char *p = header;
    size_t count = 0;
    if (tool_csv_next(&p, header + strlen(header), columns, REPLAY_MAX_COLUMNS, &count) != 1) {
        free(columns);
        return MCZ_ECORRUPT; /* set from a checked header: cannot happen */
    }
    fprintf(f, "%s\n", header);
    /* in number order; superpmi -p N concatenates its workers' files instead (worker i has
     * contexts i+1, i+1+N, ...), which orders superpmi.py's float sums: a walk per worker */
    csv_state s = {f, columns, count, 0, t->interleave > 1 ? t->interleave : 1};
    int rc = MCZ_OK;
    for (; rc == MCZ_OK && s.group < s.groups; s.group++)
        rc = replay_table_walk_rows(t, csv_visit, csv_wants_row, &s, diag);
    free(columns);
    return rc;
}
