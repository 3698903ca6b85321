/*
 * replay_row.c - superpmi's -details CSV: the rows an --exec unit wrote, held per context, and
 * the merged file written from them.
 *
 * superpmi (superpmi.cpp) writes one row per context it compiled (none for an excluded one):
 *   replay:    Context,Context size,Result,MinOpts,Size,Instructions
 *   asm diffs: Context,Context size,Base result,Diff result,MinOpts,Has diff,Base size,
 *              Diff size,Base instructions,Diff instructions
 * results Success, Error or Miss, booleans True or False. Newer versions add columns (Base
 * PerfScore, Diff PerfScore; superpmi.py reads them by name), so columns are known by name and
 * any other is kept and written after superpmi's own.
 */
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"

static const char *const replay_columns[] = {"Context size", "Result", "MinOpts", "Size",
                                             "Instructions", NULL};
static const char *const diffs_columns[] = {"Context size", "Base result", "Diff result",
                                            "MinOpts", "Has diff", "Base size", "Diff size",
                                            "Base instructions", "Diff instructions", NULL};

static const char *const *known_columns(replay_style style)
{
    return style == REPLAY_STYLE_SPMI_DIFFS ? diffs_columns : replay_columns;
}

static bool known(replay_style style, const char *name, size_t len)
{
    for (const char *const *c = known_columns(style); *c; c++)
        if (strlen(*c) == len && memcmp(*c, name, len) == 0)
            return true;
    return false;
}

/* The next name or value of a row from *p; its length in *len; false at the end. */
static bool row_next(const char **p, const char **start, size_t *len)
{
    if (!*p)
        return false;
    const char *sep = strchr(*p, REPLAY_ROW_SEP);
    *start = *p;
    *len = sep ? (size_t)(sep - *p) : strlen(*p);
    *p = sep ? sep + 1 : NULL;
    return true;
}

bool replay_row_get(const char *row, const char *name, char *buf, size_t cap)
{
    const char *p = row, *n, *v;
    size_t nlen, vlen;
    while (row_next(&p, &n, &nlen) && row_next(&p, &v, &vlen)) {
        if (nlen == strlen(name) && memcmp(n, name, nlen) == 0) {
            snprintf(buf, cap, "%.*s", (int)vlen, v);
            return true;
        }
    }
    return false;
}

/* superpmi's result names: the kind of one JIT's result; -1 unknown. */
static int result_kind(const char *text)
{
    if (strcmp(text, "Success") == 0)
        return REPLAY_SUCCESS;
    if (strcmp(text, "Error") == 0)
        return REPLAY_FAILURE;
    if (strcmp(text, "Miss") == 0)
        return REPLAY_MISSING;
    return -1;
}

int replay_row_kind(const char *row, replay_style style, bool *miss)
{
    char a[32], b[32], diff[32];
    *miss = false;
    if (style != REPLAY_STYLE_SPMI_DIFFS) {
        int k = replay_row_get(row, "Result", a, sizeof a) ? result_kind(a) : -1;
        *miss = k == REPLAY_MISSING;
        return k;
    }
    if (!replay_row_get(row, "Base result", a, sizeof a) ||
        !replay_row_get(row, "Diff result", b, sizeof b) ||
        !replay_row_get(row, "Has diff", diff, sizeof diff))
        return -1;
    int base = result_kind(a), other = result_kind(b);
    if (base < 0 || other < 0 || (strcmp(diff, "True") && strcmp(diff, "False")))
        return -1;
    /* superpmi: an Error of either JIT is an error; a Miss of either counts as missing */
    *miss = base == REPLAY_MISSING || other == REPLAY_MISSING;
    if (base == REPLAY_FAILURE || other == REPLAY_FAILURE)
        return REPLAY_FAILURE;
    if (*miss)
        return REPLAY_MISSING;
    return strcmp(diff, "True") == 0 ? REPLAY_DIFF : REPLAY_SUCCESS;
}

/* ---- The merged file --------------------------------------------------------------------------- */

typedef struct columns {
    char **extra; /* columns beyond superpmi's, in the order first met */
    size_t count, cap;
} columns;

static int add_extras(columns *c, replay_style style, const char *row)
{
    const char *p = row, *n, *v;
    size_t nlen, vlen;
    while (row_next(&p, &n, &nlen) && row_next(&p, &v, &vlen)) {
        bool seen = known(style, n, nlen);
        for (size_t i = 0; i < c->count && !seen; i++)
            seen = strlen(c->extra[i]) == nlen && memcmp(c->extra[i], n, nlen) == 0;
        if (seen)
            continue;
        if (replay_grow(&c->extra, &c->cap, c->count, sizeof *c->extra) != MCZ_OK ||
            !(c->extra[c->count] = strndup(n, nlen)))
            return MCZ_ENOMEM;
        c->count++;
    }
    return MCZ_OK;
}

/* What superpmi writes for a kind when no unit row says more. */
static const char *kind_result(int kind)
{
    return kind == REPLAY_SUCCESS || kind == REPLAY_DIFF ? "Success"
           : kind == REPLAY_MISSING                      ? "Miss"
                                                         : "Error";
}

static void fallback_value(const replay_entry *e, replay_style style, const char *name, FILE *f)
{
    if (strcmp(name, "Context size") == 0)
        fprintf(f, "%u", e->size);
    else if (strcmp(name, "Result") == 0 || strcmp(name, "Base result") == 0)
        fputs(kind_result(e->kind), f);
    else if (strcmp(name, "Diff result") == 0)
        fputs(kind_result(e->kind), f);
    else if (strcmp(name, "MinOpts") == 0 || strcmp(name, "Has diff") == 0)
        fputs(e->kind == REPLAY_DIFF && name[0] == 'H' ? "True" : "False", f);
    else if (known(style, name, strlen(name)))
        fputc('0', f);
}

static void write_row(const replay_entry *e, replay_style style, const columns *c, FILE *f)
{
    char value[REPLAY_MESSAGE_MAX];
    fprintf(f, "%u", e->number);
    for (const char *const *k = known_columns(style); *k; k++) {
        fputc(',', f);
        if (e->row && replay_row_get(e->row, *k, value, sizeof value))
            fputs(value, f);
        else
            fallback_value(e, style, *k, f);
    }
    for (size_t i = 0; i < c->count; i++) {
        fputc(',', f);
        if (e->row && replay_row_get(e->row, c->extra[i], value, sizeof value))
            fputs(value, f);
    }
    if (style == REPLAY_STYLE_MCZ) {
        fprintf(f, ",%s,", replay_kind_name(e->kind));
        tool_csv_field(f, e->message ? e->message : "");
    }
    fputc('\n', f);
}

int replay_row_write_csv(const replay_table *t, FILE *f)
{
    columns c = {NULL, 0, 0};
    int rc = MCZ_OK;
    for (size_t i = 0; i < t->count && rc == MCZ_OK; i++)
        if (t->entries[i].row)
            rc = add_extras(&c, t->style, t->entries[i].row);
    if (rc == MCZ_OK) {
        fputs("Context", f);
        for (const char *const *k = known_columns(t->style); *k; k++)
            fprintf(f, ",%s", *k);
        for (size_t i = 0; i < c.count; i++)
            fprintf(f, ",%s", c.extra[i]);
        fputs(t->style == REPLAY_STYLE_MCZ ? ",Kind,Message\n" : "\n", f);
        for (size_t i = 0; i < t->count; i++)
            if (t->entries[i].kind != REPLAY_EXCLUDED)
                write_row(&t->entries[i], t->style, &c, f);
    }
    for (size_t i = 0; i < c.count; i++)
        free(c.extra[i]);
    free(c.extra);
    return rc;
}
