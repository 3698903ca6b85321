/*
 * replay_table.c - the results table: contexts accounted in any order, held up to a bound,
 * spilled past it as sorted runs to temporary files, and walked in context order by a k-way
 * merge of the runs and what is held (replay_int.h says why and what it costs).
 *
 * A run is text, one entry a line, in the entry format of a results file (replay_results.c):
 *   NUMBER TAB KIND TAB MISS TAB SIZE TAB MESSAGE [TAB ROWS] LF
 * numbers increasing, MESSAGE one line of printable text, ROWS escaped (replay_escape_write).
 * A results file given to --merge-results is read as a run from its first entry line to its
 * "end COUNT" line, every field checked as hostile, on every walk (it may change meanwhile).
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"

#define LINE_MAX_BYTES (64u << 20) /* one line read back (a context's rows) */
#define ALLOC_OVERHEAD 16u         /* what the allocator adds to a string, about */

struct replay_run {
    FILE *f;
    char *path;     /* a results file's name (entries checked, an end line); NULL: spilled */
    long start;     /* offset of its first entry */
    uint64_t lines; /* lines before it (a results file's header), for messages */
    unsigned level; /* spilled: how many merges made it (0: spilled from memory) */
};

/* ---- Lines and fields ------------------------------------------------------------------------ */

int replay_line_read(FILE *f, char **buf, size_t *cap)
{
    errno = 0;
    ptrdiff_t n = mcz_os_getline(buf, cap, f);
    if (n < 0)
        return ferror(f) ? MCZ_EIO : 0;
    if ((*buf)[n - 1] != '\n')
        return MCZ_ETRUNCATED;
    (*buf)[--n] = '\0';
    if ((size_t)n >= LINE_MAX_BYTES || memchr(*buf, '\0', (size_t)n))
        return MCZ_ECORRUPT;
    return 1;
}

size_t replay_split_tabs(char *buf, char **fields, size_t max)
{
    size_t n = 0;
    fields[n++] = buf;
    for (char *p = buf; n < max && (p = strchr(p, '\t')) != NULL;) {
        *p++ = '\0';
        fields[n++] = p;
    }
    return n;
}

void replay_escape_write(FILE *f, const char *text)
{
    for (const char *c = text ? text : ""; *c;) {
        size_t plain = strcspn(c, "\\\t\n\r");
        fwrite(c, 1, plain, f);
        c += plain;
        if (*c) {
            fputs(*c == '\\' ? "\\\\" : *c == '\t' ? "\\t" : *c == '\n' ? "\\n" : "\\r", f);
            c++;
        }
    }
}

bool replay_unescape(char *s)
{
    char *out = s;
    for (const char *c = s; *c; c++) {
        if (*c != '\\') {
            *out++ = *c;
            continue;
        }
        c++;
        if (*c == '\\' || *c == 't' || *c == 'n' || *c == 'r')
            *out++ = *c == 't' ? '\t' : *c == 'n' ? '\n' : *c == 'r' ? '\r' : '\\';
        else
            return false;
    }
    *out = '\0';
    return true;
}

void replay_entry_write(FILE *f, const replay_entry *e)
{
    fprintf(f, "%u\t%s\t%d\t%u\t%s", e->number, replay_kind_name(e->kind), e->miss, e->size,
            e->message ? e->message : "");
    if (e->row) {
        fputc('\t', f);
        replay_escape_write(f, e->row);
    }
    fputc('\n', f);
}

/* Messages become one line of printable text of at most REPLAY_MESSAGE_MAX - 1 bytes, so every
 * output format can hold them; in place. */
static void message_clean(char *s)
{
    size_t len = strnlen(s, REPLAY_MESSAGE_MAX - 1);
    s[len] = '\0';
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < ' ' || s[i] == 0x7F)
            s[i] = ' ';
}

/* ---- Adding, spilling ---------------------------------------------------------------------- */

static int entry_compare(const void *a, const void *b)
{
    uint32_t x = ((const replay_entry *)a)->number, y = ((const replay_entry *)b)->number;
    return (x > y) - (x < y);
}

static size_t hold_bound(void)
{
    uint64_t n;
    const char *env = getenv("MCZ_REPLAY_HOLD_BYTES");
    return env && replay_parse_count(env, 1, SIZE_MAX, &n) ? (size_t)n : REPLAY_HOLD_BYTES;
}

static int spill_failed(replay_table *t, int err)
{
    snprintf(t->error, sizeof t->error, "%s: cannot write a run of results to a temporary file "
             "in it: %s", mcz_os_temp_dir(), strerror(err ? err : EIO));
    return MCZ_EIO;
}

static void held_free(replay_table *t)
{
    for (size_t i = 0; i < t->held; i++) {
        free(t->entries[i].message);
        free(t->entries[i].row);
    }
    t->held = 0;
    t->held_bytes = 0;
}

static int run_push(replay_table *t, replay_run run)
{
    if (replay_grow(&t->runs, &t->run_cap, t->run_count, sizeof *t->runs) != MCZ_OK)
        return MCZ_ENOMEM;
    t->runs[t->run_count++] = run;
    return MCZ_OK;
}

/* Which entries of a walk come with their rows: all, or those wants(arg, ...) says. */
typedef struct rows_wanted {
    bool all;
    replay_wants_row wants; /* NULL: none */
    void *arg;
} rows_wanted;

static int merge(const replay_table *t, const replay_run *runs, size_t n,
                 const replay_entry *held, size_t held_n, const rows_wanted *rows,
                 replay_visit visit, void *arg, mcz_diag *diag);

static int write_visit(void *arg, const replay_entry *e)
{
    replay_entry_write(arg, e);
    return ferror((FILE *)arg) ? MCZ_EIO : MCZ_OK;
}

/* A new run (level) made of n sorted sources (runs, then held entries); pushed. */
static int run_make(replay_table *t, const replay_run *runs, size_t n, const replay_entry *held,
                    size_t held_n, unsigned level)
{
    FILE *f = mcz_os_temp_file();
    if (!f)
        return spill_failed(t, errno);
    mcz_diag d;
    mcz_diag_clear(&d);
    errno = 0;
    const rows_wanted all = {.all = true};
    int rc = merge(t, runs, n, held, held_n, &all, write_visit, f, &d);
    if (rc == MCZ_OK && fflush(f) != 0)
        rc = MCZ_EIO;
    if (rc != MCZ_OK) {
        int err = errno;
        fclose(f);
        if (rc == MCZ_EIO)
            return spill_failed(t, err);
        snprintf(t->error, sizeof t->error, "%s", d.message);
        return rc;
    }
    return run_push(t, (replay_run){f, NULL, 0, 0, level});
}

/* Merges the last REPLAY_RUN_FAN runs while they are spilled runs of one level. */
static int runs_compact(replay_table *t)
{
    while (t->run_count >= REPLAY_RUN_FAN) {
        size_t from = t->run_count - REPLAY_RUN_FAN;
        unsigned level = t->runs[from].level;
        for (size_t i = from; i < t->run_count; i++)
            if (t->runs[i].path || t->runs[i].level != level)
                return MCZ_OK;
        replay_run merged[REPLAY_RUN_FAN];
        memcpy(merged, &t->runs[from], sizeof merged);
        t->run_count = from;
        int rc = run_make(t, merged, REPLAY_RUN_FAN, NULL, 0, level + 1);
        if (rc != MCZ_OK) { /* the runs stay as they were */
            memcpy(&t->runs[from], merged, sizeof merged);
            t->run_count = from + REPLAY_RUN_FAN;
            return rc;
        }
        for (size_t i = 0; i < REPLAY_RUN_FAN; i++)
            fclose(merged[i].f);
    }
    return MCZ_OK;
}

static int spill(replay_table *t)
{
    qsort(t->entries, t->held, sizeof *t->entries, entry_compare);
    int rc = run_make(t, NULL, 0, t->entries, t->held, 0);
    if (rc != MCZ_OK)
        return rc;
    t->spills++;
    held_free(t);
    return runs_compact(t);
}

static int table_add(replay_table *t, uint32_t number, int kind, bool miss, uint32_t size,
                     const char *msg, const char *row)
{
    assert(!t->finished);
    if (!t->bound)
        t->bound = hold_bound();
    /* the array of entries keeps its size once spilled: it may take half the bound */
    int rc = t->held && t->held == t->cap && t->cap * 2 * sizeof *t->entries > t->bound / 2
                 ? spill(t) : MCZ_OK;
    if (rc != MCZ_OK)
        return rc;
    if (replay_grow(&t->entries, &t->cap, t->held, sizeof *t->entries) != MCZ_OK)
        return MCZ_ENOMEM;
    char *copy = msg && msg[0] ? tool_strndup(msg, REPLAY_MESSAGE_MAX - 1) : NULL;
    char *row_copy = row && row[0] ? strdup(row) : NULL;
    if ((msg && msg[0] && !copy) || (row && row[0] && !row_copy)) {
        free(copy);
        free(row_copy);
        return MCZ_ENOMEM;
    }
    if (copy)
        message_clean(copy);
    t->entries[t->held++] = (replay_entry){number, size, (uint8_t)kind, miss, copy, row_copy};
    t->count++;
    if (t->held > t->held_peak)
        t->held_peak = t->held;
    t->held_bytes += sizeof *t->entries + (copy ? strlen(copy) + ALLOC_OVERHEAD : 0) +
                     (row_copy ? strlen(row_copy) + ALLOC_OVERHEAD : 0);
    return t->held_bytes > t->bound ? spill(t) : MCZ_OK;
}

int replay_table_add(replay_table *t, uint32_t number, int kind, uint32_t size, const char *msg)
{
    return table_add(t, number, kind, kind == REPLAY_MISSING, size, msg, NULL);
}

int replay_table_add_row(replay_table *t, uint32_t number, int kind, bool miss, uint32_t size,
                         const char *row)
{
    return table_add(t, number, kind, miss, size, NULL, row);
}

int replay_table_add_run(replay_table *t, FILE *f, const char *path, uint64_t lines)
{
    long start = ftell(f);
    char *name = strdup(path);
    if (start < 0 || !name) {
        free(name);
        return start < 0 ? MCZ_EIO : MCZ_ENOMEM;
    }
    int rc = run_push(t, (replay_run){f, name, start, lines, 0});
    if (rc != MCZ_OK)
        free(name);
    return rc;
}

void replay_table_print_stats(const replay_table *t, FILE *f)
{
    fprintf(f, "results: %llu contexts, at most %zu held at once (bound %zu bytes), %llu runs "
            "spilled, %zu runs left\n", (unsigned long long)t->count, t->held_peak, t->bound,
            (unsigned long long)t->spills, t->run_count);
}

void replay_table_free(replay_table *t)
{
    if (!t)
        return;
    held_free(t);
    free(t->entries);
    for (size_t i = 0; i < t->run_count; i++) {
        fclose(t->runs[i].f);
        free(t->runs[i].path);
    }
    free(t->runs);
    replay_columns_free(&t->columns);
    memset(t, 0, sizeof *t);
}

/* ---- Reading back: the k-way merge ---------------------------------------------------------- */

/* One source of a merge: a run read line by line, or the held entries. */
typedef struct cursor {
    const replay_run *run; /* NULL: held */
    const replay_entry *held;
    size_t held_at, held_n;
    char *line;
    size_t cap;
    uint64_t line_no, seen;
    uint32_t previous;
    bool live;
    replay_entry e;
    const rows_wanted *rows; /* which entries' rows a spilled run unescapes */
} cursor;

static int cursor_bad(const cursor *c, mcz_diag *diag, const char *what)
{
    if (!c->run->path)
        return mcz_diag_set(diag, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "a run of results read back from %s is damaged: %s",
                            mcz_os_temp_dir(), what);
    return mcz_diag_set(diag, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s:%llu: %s",
                        c->run->path, (unsigned long long)(c->run->lines + c->line_no), what);
}

/* A results file's "end COUNT": the count of its entries, and nothing after it. */
static int cursor_end(cursor *c, const char *count, mcz_diag *diag)
{
    uint64_t n;
    if (!replay_parse_count(count, 0, UINT64_MAX, &n) || n != c->seen)
        return cursor_bad(c, diag, "the end line does not match the number of results");
    if (replay_line_read(c->run->f, &c->line, &c->cap) != 0)
        return cursor_bad(c, diag, "data after the end line");
    c->live = false;
    return MCZ_OK;
}

/* The entry in c->line (its fields split); a results file's rows must fit t's columns. */
static int cursor_parse(const replay_table *t, cursor *c, char **f, size_t nf, mcz_diag *diag)
{
    uint64_t number, size, miss;
    int kind = nf == 5 || nf == 6 ? replay_kind_parse(f[1]) : -1;
    if (kind <= REPLAY_NONE || !replay_parse_count(f[0], 0, UINT32_MAX, &number) ||
        (c->seen && number <= c->previous) || !replay_parse_count(f[2], 0, 1, &miss) ||
        !replay_parse_count(f[3], 0, UINT32_MAX, &size))
        return cursor_bad(c, diag, "expected \"NUMBER KIND MISS SIZE MESSAGE\", numbers "
                                   "increasing");
    char *row = nf == 6 ? f[5] : NULL;
    /* a spilled run's rows (this run's own, escaped when added) only for a visitor that reads
     * them */
    if (row && !c->run->path && !c->rows->all &&
        !(c->rows->wants && c->rows->wants(c->rows->arg, (uint32_t)number, kind)))
        row = NULL;
    bool row_miss;
    if (row && (!replay_unescape(row) ||
                (c->run->path && (!t->columns.header ||
                                  replay_rows_kind(&t->columns, t->style, row, strlen(row),
                                                   &row_miss) < 0))))
        return cursor_bad(c, diag, "details rows that do not fit the columns");
    if (c->run->path)
        message_clean(f[4]); /* a spilled run's were cleaned when added */
    c->e = (replay_entry){(uint32_t)number, (uint32_t)size, (uint8_t)kind, miss != 0,
                          f[4][0] ? f[4] : NULL, row && row[0] ? row : NULL};
    c->previous = (uint32_t)number;
    c->seen++;
    return MCZ_OK;
}

static int cursor_next(const replay_table *t, cursor *c, mcz_diag *diag)
{
    if (!c->run) {
        c->live = c->held_at < c->held_n;
        if (c->live)
            c->e = c->held[c->held_at++];
        return MCZ_OK;
    }
    int rc = replay_line_read(c->run->f, &c->line, &c->cap);
    if (rc == MCZ_EIO)
        return mcz_diag_set(diag, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s: %s",
                            c->run->path ? c->run->path : mcz_os_temp_dir(),
                            strerror(errno ? errno : EIO));
    if (rc == 0 && !c->run->path) {
        c->live = false;
        return MCZ_OK;
    }
    if (rc == 0) {
        mcz_diag_set(diag, MCZ_ETRUNCATED, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                     "no end line (truncated?)");
        mcz_diag_set_subject(diag, c->run->path);
        return MCZ_ETRUNCATED;
    }
    if (rc < 0)
        return cursor_bad(c, diag, "unterminated or overlong line");
    c->line_no++;
    char *f[6];
    size_t nf = replay_split_tabs(c->line, f, 6);
    if (c->run->path && nf == 2 && strcmp(f[0], "end") == 0)
        return cursor_end(c, f[1], diag);
    c->live = true;
    return cursor_parse(t, c, f, nf, diag);
}

static int cursor_open(const replay_table *t, cursor *c, mcz_diag *diag)
{
    if (c->run && fseek(c->run->f, c->run->start, SEEK_SET) != 0)
        return mcz_diag_set(diag, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s: %s",
                            c->run->path ? c->run->path : mcz_os_temp_dir(), strerror(errno));
    return cursor_next(t, c, diag);
}

/* The live cursor with the lowest number; NULL when all are done. */
static cursor *cursor_min(cursor *c, size_t n)
{
    cursor *min = NULL;
    for (size_t i = 0; i < n; i++)
        if (c[i].live && (!min || c[i].e.number < min->e.number))
            min = &c[i];
    return min;
}

/* Runs before held: n + 1 sources, few (REPLAY_RUN_FAN a level), so the lowest is found by a
 * scan rather than a heap. */
static int merge(const replay_table *t, const replay_run *runs, size_t n,
                 const replay_entry *held, size_t held_n, const rows_wanted *rows,
                 replay_visit visit, void *arg, mcz_diag *diag)
{
    cursor *c = calloc(n + 1, sizeof *c);
    if (!c)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    int rc = MCZ_OK;
    for (size_t i = 0; rc == MCZ_OK && i <= n; i++) {
        c[i] = (cursor){.run = i < n ? &runs[i] : NULL, .held = i < n ? NULL : held,
                        .held_n = i < n ? 0 : held_n, .rows = rows};
        rc = cursor_open(t, &c[i], diag);
    }
    bool any = false;
    uint32_t previous = 0;
    for (cursor *min; rc == MCZ_OK && (min = cursor_min(c, n + 1)) != NULL;) {
        if (any && min->e.number == previous) {
            rc = mcz_diag_set(diag, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                              "context %u is accounted twice", previous);
            break;
        }
        any = true;
        previous = min->e.number;
        rc = visit(arg, &min->e);
        if (rc == MCZ_OK)
            rc = cursor_next(t, min, diag);
    }
    for (size_t i = 0; i <= n; i++)
        free(c[i].line);
    free(c);
    return rc;
}

int replay_table_walk(const replay_table *t, replay_visit visit, void *arg, mcz_diag *diag)
{
    assert(t->finished);
    const rows_wanted all = {.all = true};
    return merge(t, t->runs, t->run_count, t->entries, t->held, &all, visit, arg, diag);
}

int replay_table_walk_rows(const replay_table *t, replay_visit visit, replay_wants_row wants,
                           void *arg, mcz_diag *diag)
{
    assert(t->finished);
    const rows_wanted some = {false, wants, arg};
    return merge(t, t->runs, t->run_count, t->entries, t->held, &some, visit, arg, diag);
}

/* ---- Counting ------------------------------------------------------------------------------ */

static int count_visit(void *arg, const replay_entry *e)
{
    replay_counts *c = arg;
    c->by_kind[e->kind]++;
    c->missing += e->miss;
    c->loaded++;
    return MCZ_OK;
}

int replay_table_finish(replay_table *t, mcz_diag *diag)
{
    if (t->finished)
        return MCZ_OK;
    if (t->held > 0) /* none held: entries is NULL, which qsort may not be given */
        qsort(t->entries, t->held, sizeof *t->entries, entry_compare);
    t->finished = true;
    replay_counts *c = &t->counts;
    memset(c, 0, sizeof *c);
    int rc = replay_table_walk_rows(t, count_visit, NULL, c, diag);
    c->style = t->style;
    c->excluded = c->by_kind[REPLAY_EXCLUDED];
    c->jitted = c->loaded - c->excluded;
    c->diffs = c->by_kind[REPLAY_DIFF];
    c->failed = c->jitted - c->by_kind[REPLAY_SUCCESS] - c->diffs;
    t->count = c->loaded;
    return rc;
}

void replay_table_count(const replay_table *t, replay_counts *c)
{
    assert(t->finished);
    *c = t->counts;
    c->style = t->style;
}
