/*
 * replay_results.c - accounting and every output of a run: SuperPMI's summary line and exit code,
 * the failing list (-f, .mcl), the per-context details (--details, CSV) and the machine-readable
 * shard results (--results) that --merge-results reads back.
 *
 * Everything is written from the table sorted by context number, never in arrival order, so the
 * files depend neither on the number of workers nor on how the work was split.
 *
 * Results file (text, one record per line, fields separated by one TAB):
 *   mcz-replay-results 3
 *   shard K N
 *   plan FINGERPRINT            (the whole collection's plan, identical in every shard)
 *   selected S                  (selected contexts in the whole plan)
 *   style STYLE                 (mcz, replay or asm-diffs: which details the run has)
 *   columns [HEADER]            (the details header the rows have; empty: none)
 *   NUMBER KIND MISS SIZE MESSAGE [ROWS]  (one per context, increasing numbers; MISS 0 or 1;
 *                               MESSAGE may be empty; ROWS: its details rows, replay_row.c)
 *   end COUNT
 * HEADER and ROWS are escaped: backslash, TAB, LF and CR as \\, \t, \n and \r.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"

#define RESULTS_MAGIC "mcz-replay-results 3"
#define RESULTS_LINE_MAX (64u << 20) /* bytes of one line read back */

static const char *const style_names[] = {"mcz", "replay", "asm-diffs", "verify"};

/* Messages become one line of printable text, so every output format can hold them. */
static char *message_copy(const char *msg)
{
    if (!msg || !msg[0])
        return NULL;
    size_t len = strnlen(msg, REPLAY_MESSAGE_MAX - 1);
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    for (size_t i = 0; i < len; i++)
        s[i] = (unsigned char)msg[i] < ' ' || msg[i] == 0x7F ? ' ' : msg[i];
    s[len] = '\0';
    return s;
}

static int table_add(replay_table *t, uint32_t number, int kind, bool miss, uint32_t size,
                     const char *msg, const char *row)
{
    if (replay_grow(&t->entries, &t->cap, t->count, sizeof *t->entries) != MCZ_OK)
        return MCZ_ENOMEM;
    char *copy = message_copy(msg);
    char *row_copy = row && row[0] ? strdup(row) : NULL;
    if ((msg && msg[0] && !copy) || (row && row[0] && !row_copy)) {
        free(copy);
        free(row_copy);
        return MCZ_ENOMEM;
    }
    t->entries[t->count++] = (replay_entry){number, size, (uint8_t)kind, miss, copy, row_copy};
    return MCZ_OK;
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

static int entry_compare(const void *a, const void *b)
{
    uint32_t x = ((const replay_entry *)a)->number, y = ((const replay_entry *)b)->number;
    return (x > y) - (x < y);
}

int replay_table_finish(replay_table *t, mcz_diag *diag)
{
    if (t->count > 1)
        qsort(t->entries, t->count, sizeof *t->entries, entry_compare);
    for (size_t i = 1; i < t->count; i++)
        if (t->entries[i].number == t->entries[i - 1].number)
            return mcz_diag_set(diag, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                                "context %u is accounted twice", t->entries[i].number);
    return MCZ_OK;
}

void replay_table_free(replay_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->count; i++) {
        free(t->entries[i].message);
        free(t->entries[i].row);
    }
    free(t->entries);
    replay_columns_free(&t->columns);
    memset(t, 0, sizeof *t);
}

/* Kinds that did not replay: all but success, a diff and exclusion (superpmi lists failures
 * and missing-data contexts in -f). */
static bool kind_failed(int kind)
{
    return kind != REPLAY_SUCCESS && kind != REPLAY_EXCLUDED && kind != REPLAY_DIFF;
}

void replay_table_count(const replay_table *t, replay_counts *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < t->count; i++) {
        c->by_kind[t->entries[i].kind]++;
        c->missing += t->entries[i].miss;
    }
    c->style = t->style;
    c->loaded = t->count;
    c->excluded = c->by_kind[REPLAY_EXCLUDED];
    c->jitted = c->loaded - c->excluded;
    c->diffs = c->by_kind[REPLAY_DIFF];
    c->failed = c->jitted - c->by_kind[REPLAY_SUCCESS] - c->diffs;
}

void replay_counts_print(const replay_counts *c, FILE *out)
{
    /* the verify replayer compiles nothing: its line says what it did, in superpmi's shape */
    bool verified = c->style == REPLAY_STYLE_VERIFY;
    fprintf(out, "Loaded %" PRIu64 "  %s %" PRIu64 "  %s %" PRIu64
                 " Excluded %" PRIu64 " Missing %" PRIu64,
            c->loaded, verified ? "Verified" : "Jitted", c->jitted,
            verified ? "Failed" : "FailedCompile", c->failed, c->excluded, c->missing);
    if (c->style == REPLAY_STYLE_SPMI_DIFFS)
        fprintf(out, " Diffs %" PRIu64, c->diffs);
    fputc('\n', out);
}

int replay_counts_exit_code(const replay_counts *c)
{
    if (c->by_kind[REPLAY_ERROR])
        return REPLAY_EXIT_GENERAL;
    if (c->by_kind[REPLAY_FAILURE] || c->by_kind[REPLAY_CRASH] || c->by_kind[REPLAY_TIMEOUT])
        return REPLAY_EXIT_ERROR;
    if (c->diffs)
        return REPLAY_EXIT_DIFFS;
    if (c->missing)
        return REPLAY_EXIT_MISSING;
    return REPLAY_EXIT_SUCCESS;
}

void replay_table_report(const replay_table *t, FILE *err, size_t limit, bool lost_only,
                         bool details)
{
    size_t shown = 0, more = 0;
    for (size_t i = 0; i < t->count; i++) {
        const replay_entry *e = &t->entries[i];
        if (!kind_failed(e->kind) ||
            (lost_only && (e->kind == REPLAY_FAILURE || e->kind == REPLAY_MISSING)))
            continue;
        if (shown == limit) {
            more++;
            continue;
        }
        fprintf(err, "mcz-replay: context %u: %s%s%s\n", e->number, replay_kind_name(e->kind),
                e->message ? ": " : "", e->message ? e->message : "");
        shown++;
    }
    if (more)
        fprintf(err, "mcz-replay: ... and %zu more%s\n", more, details ? " (see --details)" : "");
}

void replay_table_warn_unknown(const replay_table *t)
{
    static tool_check check; /* large; one use per run */
    const size_t note_len = sizeof REPLAY_UNKNOWN_NOTE - 1;
    memset(&check, 0, sizeof check);
    for (size_t i = 0; i < t->count; i++) {
        const replay_entry *e = &t->entries[i];
        if (e->kind != REPLAY_SUCCESS || !e->message ||
            strncmp(e->message, REPLAY_UNKNOWN_NOTE, note_len) != 0)
            continue;
        mcz_strict_report r = {0};
        unsigned id;
        int used;
        for (const char *p = e->message + note_len;
             sscanf(p, "unknown(%u)%n", &id, &used) == 1 && id < 256; p += used + 2) {
            r.unknown_count += !r.unknown[id];
            r.unknown[id] = true;
            if (p[used] != ',')
                break;
        }
        tool_check_count(&check, e->number, &r);
    }
    tool_check_warn(&check);
}

/* ---- Output files ---------------------------------------------------------------------------- */

static int commit_text(const char *path, const char *text, size_t len, mcz_diag *diag)
{
    mcz_outfile *f = mcz_outfile_open(path, diag);
    if (!f)
        return diag && diag->code ? diag->code : MCZ_EIO;
    errno = 0;
    int rc = mcz_outfile_write(f, text, len);
    if (rc != MCZ_OK) {
        int err = errno;
        mcz_outfile_abort(f);
        if (err == EPIPE)
            return MCZ_OK; /* its reader stopped early (| head): not an error, as for stdout */
        mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "write failed%s%s",
                     err ? ": " : "", err ? strerror(err) : "");
        mcz_diag_set_subject(diag, path);
        return rc;
    }
    return mcz_outfile_commit(f, diag);
}

int replay_write_empty(const char *path, mcz_diag *diag) { return commit_text(path, "", 0, diag); }

/* The writers below build their text in memory (open_memstream) and commit it at once, so
 * an output appears whole or not at all. */
static FILE *text_open(char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    return tool_memstream_open(text, len);
}

static int text_commit(FILE *f, char **text, size_t *len, const char *path, mcz_diag *diag)
{
    bool failed = !f || ferror(f) != 0;
    if (f && tool_stream_close(f) != 0)
        failed = true;
    int rc = failed ? mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory")
                    : commit_text(path, *text ? *text : "", *len, diag);
    free(*text);
    return rc;
}

/* How many times superpmi lists the entry in -f: once per compile that failed (-repeatCount
 * compiles a context N times), or once. */
static size_t mcl_times(const replay_table *t, const replay_entry *e)
{
    replay_rows_info info;
    if (!e->row || !t->columns.header ||
        replay_rows_scan(&t->columns, t->style, e->row, strlen(e->row), &info) < 0)
        return 1;
    return info.failed ? info.failed : 1;
}

int replay_table_write_mcl(const replay_table *t, const char *path, bool with_details,
                           mcz_diag *diag)
{
    char *text;
    size_t len;
    FILE *f = text_open(&text, &len);
    for (size_t i = 0; f && i < t->count; i++) {
        const replay_entry *e = &t->entries[i];
        if (!kind_failed(e->kind) && !(e->kind == REPLAY_DIFF && !with_details))
            continue;
        for (size_t k = kind_failed(e->kind) ? mcl_times(t, e) : 1; k; k--)
            fprintf(f, "%u\r\n", e->number);
    }
    return text_commit(f, &text, &len, path, diag);
}

int replay_table_write_details(const replay_table *t, const char *path, mcz_diag *diag)
{
    char *text;
    size_t len;
    FILE *f = text_open(&text, &len);
    if (f && replay_row_write_csv(t, f) != MCZ_OK) {
        tool_stream_close(f);
        free(text);
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    }
    return text_commit(f, &text, &len, path, diag);
}

/* Text that may hold TABs and line ends, as one field of a results line. */
static void write_escaped(FILE *f, const char *text)
{
    for (const char *c = text ? text : ""; *c; c++) {
        const char *esc = *c == '\\' ? "\\\\" : *c == '\t' ? "\\t" : *c == '\n' ? "\\n"
                          : *c == '\r' ? "\\r" : NULL;
        if (esc)
            fputs(esc, f);
        else
            fputc(*c, f);
    }
}

/* Undoes write_escaped in place; false on an escape it never writes. */
static bool unescape(char *s)
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

int replay_table_write_results(const replay_table *t, const replay_shard_id *id,
                               const char *path, mcz_diag *diag)
{
    char *text;
    size_t len;
    FILE *f = text_open(&text, &len);
    if (f) {
        fprintf(f, "%s\nshard\t%u\t%u\nplan\t%s\nselected\t%" PRIu64 "\nstyle\t%s\ncolumns\t",
                RESULTS_MAGIC, id->k, id->n, id->fingerprint, id->plan_selected,
                style_names[t->style]);
        write_escaped(f, t->columns.header);
        fputc('\n', f);
        for (size_t i = 0; i < t->count; i++) {
            const replay_entry *e = &t->entries[i];
            fprintf(f, "%u\t%s\t%d\t%u\t%s", e->number, replay_kind_name(e->kind), e->miss,
                    e->size, e->message ? e->message : "");
            if (e->row) {
                fputc('\t', f);
                write_escaped(f, e->row);
            }
            fputc('\n', f);
        }
        fprintf(f, "end\t%zu\n", t->count);
    }
    return text_commit(f, &text, &len, path, diag);
}

/* ---- Reading results back ---------------------------------------------------------------- */

typedef struct line_reader {
    const char *path;
    const char *p, *end;
    uint64_t line;
    char *buf; /* the current line, malloc'ed */
    size_t cap;
} line_reader;

/* Copies the next line (without its LF) into lr->buf; 0 at the end, negative when too long. */
static int next_line(line_reader *lr)
{
    if (lr->p >= lr->end)
        return 0;
    const char *nl = memchr(lr->p, '\n', (size_t)(lr->end - lr->p));
    if (!nl)
        return MCZ_ETRUNCATED;
    size_t len = (size_t)(nl - lr->p);
    if (len >= RESULTS_LINE_MAX || memchr(lr->p, '\0', len))
        return MCZ_ECORRUPT;
    if (len >= lr->cap) {
        char *grown = realloc(lr->buf, len + 1);
        if (!grown)
            return MCZ_ENOMEM;
        lr->buf = grown;
        lr->cap = len + 1;
    }
    memcpy(lr->buf, lr->p, len);
    lr->buf[len] = '\0';
    lr->p = nl + 1;
    lr->line++;
    return 1;
}

static int bad_line(const line_reader *lr, mcz_diag *diag, const char *what)
{
    return mcz_diag_set(diag, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s:%llu: %s", lr->path,
                        (unsigned long long)lr->line, what);
}

/* Splits buf at TABs into at most max fields; returns how many. */
static size_t split_tabs(char *buf, char **fields, size_t max)
{
    size_t n = 0;
    fields[n++] = buf;
    for (char *p = buf; *p && n < max; p++) {
        if (*p == '\t') {
            *p = '\0';
            fields[n++] = p + 1;
        }
    }
    return n;
}

static int read_header(line_reader *lr, replay_shard_id *id, mcz_diag *diag)
{
    char *f[3];
    uint64_t k, n;
    if (next_line(lr) != 1 || strcmp(lr->buf, RESULTS_MAGIC) != 0)
        return bad_line(lr, diag, "not an mcz-replay results file");
    if (next_line(lr) != 1 || split_tabs(lr->buf, f, 3) != 3 || strcmp(f[0], "shard") ||
        !replay_parse_count(f[1], 0, 65535, &k) || !replay_parse_count(f[2], 0, 65535, &n) ||
        k == 0 || k > n)
        return bad_line(lr, diag, "expected \"shard K N\"");
    id->k = (uint32_t)k;
    id->n = (uint32_t)n;
    if (next_line(lr) != 1 || split_tabs(lr->buf, f, 2) != 2 || strcmp(f[0], "plan"))
        return bad_line(lr, diag, "expected \"plan ...\"");
    snprintf(id->fingerprint, sizeof id->fingerprint, "%s", f[1]);
    if (next_line(lr) != 1 || split_tabs(lr->buf, f, 2) != 2 || strcmp(f[0], "selected") ||
        !replay_parse_count(f[1], 0, UINT64_MAX, &id->plan_selected))
        return bad_line(lr, diag, "expected \"selected N\"");
    if (next_line(lr) != 1 || split_tabs(lr->buf, f, 2) != 2 || strcmp(f[0], "style"))
        return bad_line(lr, diag, "expected \"style NAME\"");
    for (size_t i = 0; i < sizeof style_names / sizeof *style_names; i++)
        if (strcmp(f[1], style_names[i]) == 0)
            id->style = (replay_style)i;
    if (strcmp(f[1], style_names[id->style]) != 0)
        return bad_line(lr, diag, "unknown style");
    return MCZ_OK;
}

/* "columns HEADER": the rows' header; the same in every file merged. */
static int read_columns(line_reader *lr, replay_table *t, mcz_diag *diag)
{
    char *f[2], why[REPLAY_MESSAGE_MAX];
    if (next_line(lr) != 1 || split_tabs(lr->buf, f, 2) != 2 || strcmp(f[0], "columns") ||
        !unescape(f[1]))
        return bad_line(lr, diag, "expected \"columns HEADER\"");
    size_t len = strlen(f[1]);
    if (!len || replay_columns_same(&t->columns, f[1], len))
        return MCZ_OK;
    if (t->columns.header)
        return bad_line(lr, diag, "other details columns than the results before it");
    if (replay_columns_set(&t->columns, f[1], len, t->style, why, sizeof why) != MCZ_OK)
        return bad_line(lr, diag, why);
    return MCZ_OK;
}

static int read_entries(line_reader *lr, replay_table *t, mcz_diag *diag)
{
    uint64_t count = 0, previous = 0;
    int rc;
    while ((rc = next_line(lr)) == 1) {
        char *f[6];
        size_t nf = split_tabs(lr->buf, f, 6);
        uint64_t number, size, end_count, miss;
        if (nf == 2 && strcmp(f[0], "end") == 0) {
            if (!replay_parse_count(f[1], 0, UINT64_MAX, &end_count) || end_count != count)
                return bad_line(lr, diag, "the end line does not match the number of results");
            return next_line(lr) == 0 ? MCZ_OK : bad_line(lr, diag, "data after the end line");
        }
        int kind = nf == 5 || nf == 6 ? replay_kind_parse(f[1]) : -1;
        if (kind <= REPLAY_NONE || !replay_parse_count(f[0], 0, UINT32_MAX, &number) ||
            number <= previous || !replay_parse_count(f[2], 0, 1, &miss) ||
            !replay_parse_count(f[3], 0, UINT32_MAX, &size))
            return bad_line(lr, diag, "expected \"NUMBER KIND MISS SIZE MESSAGE\", numbers "
                                      "increasing");
        const char *row = nf == 6 ? f[5] : NULL;
        bool row_miss;
        if (row && (!unescape(f[5]) || !t->columns.header ||
                    replay_rows_kind(&t->columns, t->style, row, strlen(row), &row_miss) < 0))
            return bad_line(lr, diag, "details rows that do not fit the columns");
        if (table_add(t, (uint32_t)number, kind, miss != 0, (uint32_t)size, f[4], row) != MCZ_OK)
            return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
        previous = number;
        count++;
    }
    if (rc != 0)
        return bad_line(lr, diag, "unterminated or overlong line");
    mcz_diag_set(diag, MCZ_ETRUNCATED, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "no end line (truncated?)");
    mcz_diag_set_subject(diag, lr->path);
    return MCZ_ETRUNCATED;
}

int replay_table_parse_results(replay_table *t, const char *path, const void *text, size_t size,
                               replay_shard_id *id, mcz_diag *diag)
{
    line_reader lr = {.path = path, .p = text, .end = (const char *)text + size};
    int rc = read_header(&lr, id, diag);
    if (rc == MCZ_OK && t->count && t->style != id->style)
        rc = bad_line(&lr, diag, "another style than the results before it");
    t->style = id->style;
    if (rc == MCZ_OK)
        rc = read_columns(&lr, t, diag);
    if (rc == MCZ_OK)
        rc = read_entries(&lr, t, diag);
    free(lr.buf);
    return rc;
}

int replay_table_read_results(replay_table *t, const char *path, replay_shard_id *id,
                              mcz_diag *diag)
{
    mcz_file f;
    int rc = mcz_file_map(path, &f, diag);
    if (rc != MCZ_OK)
        return rc;
    rc = replay_table_parse_results(t, path, f.data, f.size, id, diag);
    mcz_file_unmap(&f);
    return rc;
}
