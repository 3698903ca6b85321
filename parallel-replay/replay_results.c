/*
 * replay_results.c - accounting and every output of a run: SuperPMI's summary line and exit code,
 * the failing list (-f, .mcl), the per-context details (--details, CSV) and the machine-readable
 * shard results (--results) that --merge-results reads back.
 *
 * Everything is written from a walk of the table in context number order (replay_table.c: a
 * k-way merge of sorted runs, never a table of every context in memory), never in arrival
 * order, so the files depend neither on the number of workers nor on how the work was split.
 * Each output is written as the walk goes, straight to its temporary beside the name
 * (mcz_outfile), and renamed when whole: it appears whole or not at all.
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

static const char *const style_names[] = {"mcz", "replay", "asm-diffs", "verify"};

/* Kinds that did not replay: all but success, a diff and exclusion (superpmi lists failures
 * and missing-data contexts in -f). */
static bool kind_failed(int kind)
{
    return kind != REPLAY_SUCCESS && kind != REPLAY_EXCLUDED && kind != REPLAY_DIFF;
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

/* The stderr report: the contexts that did not pass, and the unknown packet ids counted. */
typedef struct report {
    FILE *err;
    size_t limit, shown, more;
    bool lost_only, details;
    tool_check *check;
} report;

static void report_unknown(tool_check *check, const replay_entry *e)
{
    const size_t note_len = sizeof REPLAY_UNKNOWN_NOTE - 1;
    if (e->kind != REPLAY_SUCCESS || !e->message ||
        strncmp(e->message, REPLAY_UNKNOWN_NOTE, note_len) != 0)
        return;
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
    tool_check_count(check, e->number, &r);
}

static int report_visit(void *arg, const replay_entry *e)
{
    report *r = arg;
    report_unknown(r->check, e);
    if (!kind_failed(e->kind) ||
        (r->lost_only && (e->kind == REPLAY_FAILURE || e->kind == REPLAY_MISSING)))
        return MCZ_OK;
    if (r->shown == r->limit) {
        r->more++;
        return MCZ_OK;
    }
    fprintf(r->err, "mcz-replay: context %u: %s%s%s\n", e->number, replay_kind_name(e->kind),
            e->message ? ": " : "", e->message ? e->message : "");
    r->shown++;
    return MCZ_OK;
}

int replay_table_report(const replay_table *t, FILE *err, size_t limit, bool lost_only,
                        bool details, mcz_diag *diag)
{
    static tool_check check; /* large; one use per run */
    memset(&check, 0, sizeof check);
    report r = {err, limit, 0, 0, lost_only, details, &check};
    int rc = replay_table_walk_rows(t, report_visit, NULL, &r, diag);
    if (r.more)
        fprintf(err, "mcz-replay: ... and %zu more%s\n", r.more,
                details ? " (see --details)" : "");
    tool_check_warn(&check);
    return rc;
}

/* ---- Output files ---------------------------------------------------------------------------- */

/* An output written through a stdio stream straight into its mcz_outfile. */
typedef struct output {
    mcz_outfile *file;
    FILE *f;
    int err; /* errno of the first write that failed */
} output;

static long output_write(void *cookie, const char *buf, size_t len)
{
    output *o = cookie;
    errno = 0;
    if (mcz_outfile_write(o->file, buf, len) == MCZ_OK)
        return (long)len;
    if (!o->err)
        o->err = errno ? errno : EIO;
    return -1;
}

static int output_open(output *o, const char *path, mcz_diag *diag)
{
    *o = (output){mcz_outfile_open(path, diag), NULL, 0};
    if (!o->file)
        return diag && diag->code ? diag->code : MCZ_EIO;
    if (!(o->f = mcz_os_stream_open(output_write, o))) {
        mcz_outfile_abort(o->file);
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "out of memory");
    }
    return MCZ_OK;
}

/* Commits the output when rc (what writing it gave, diag set) is MCZ_OK; else leaves the name
 * untouched. A reader that stopped early (| head) is not an error, as for stdout. */
static int output_close(output *o, int rc, const char *path, mcz_diag *diag)
{
    if (mcz_os_stream_close(o->f) != 0 && rc == MCZ_OK) {
        if (o->err == EPIPE) {
            mcz_outfile_abort(o->file);
            return MCZ_OK;
        }
        rc = mcz_diag_set(diag, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "write failed%s%s",
                          o->err ? ": " : "", o->err ? strerror(o->err) : "");
        mcz_diag_set_subject(diag, path);
    }
    if (rc != MCZ_OK) {
        mcz_outfile_abort(o->file);
        return rc;
    }
    return mcz_outfile_commit(o->file, diag);
}

int replay_write_empty(const char *path, mcz_diag *diag)
{
    output o;
    int rc = output_open(&o, path, diag);
    return rc == MCZ_OK ? output_close(&o, MCZ_OK, path, diag) : rc;
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

typedef struct mcl_state {
    const replay_table *t;
    FILE *f;
    bool with_details;
} mcl_state;

/* Rows are read for the failed only (how many of their compiles failed). */
static bool mcl_wants_row(void *arg, uint32_t number, int kind)
{
    (void)arg;
    (void)number;
    return kind_failed(kind);
}

static int mcl_visit(void *arg, const replay_entry *e)
{
    mcl_state *m = arg;
    if (!kind_failed(e->kind) && !(e->kind == REPLAY_DIFF && !m->with_details))
        return MCZ_OK;
    for (size_t k = kind_failed(e->kind) ? mcl_times(m->t, e) : 1; k; k--)
        fprintf(m->f, "%u\r\n", e->number);
    return MCZ_OK;
}

int replay_table_write_mcl(const replay_table *t, const char *path, bool with_details,
                           mcz_diag *diag)
{
    output o;
    int rc = output_open(&o, path, diag);
    if (rc != MCZ_OK)
        return rc;
    mcl_state m = {t, o.f, with_details};
    return output_close(&o, replay_table_walk_rows(t, mcl_visit, mcl_wants_row, &m, diag), path,
                        diag);
}

int replay_table_write_details(const replay_table *t, const char *path, mcz_diag *diag)
{
    output o;
    int rc = output_open(&o, path, diag);
    if (rc != MCZ_OK)
        return rc;
    return output_close(&o, replay_row_write_csv(t, o.f, diag), path, diag);
}

static int results_visit(void *arg, const replay_entry *e)
{
    replay_entry_write(arg, e);
    return MCZ_OK;
}

int replay_table_write_results(const replay_table *t, const replay_shard_id *id,
                               const char *path, mcz_diag *diag)
{
    output o;
    int rc = output_open(&o, path, diag);
    if (rc != MCZ_OK)
        return rc;
    fprintf(o.f, "%s\nshard\t%u\t%u\nplan\t%s\nselected\t%" PRIu64 "\nstyle\t%s\ncolumns\t",
            RESULTS_MAGIC, id->k, id->n, id->fingerprint, id->plan_selected,
            style_names[t->style]);
    replay_escape_write(o.f, t->columns.header);
    fputc('\n', o.f);
    rc = replay_table_walk(t, results_visit, o.f, diag);
    fprintf(o.f, "end\t%" PRIu64 "\n", t->count);
    return output_close(&o, rc, path, diag);
}

/* ---- Reading results back ---------------------------------------------------------------- */

/* A results file's header, read line by line. */
typedef struct line_reader {
    const char *path;
    FILE *f;
    uint64_t line;
    char *buf; /* the current line, malloc'ed */
    size_t cap;
} line_reader;

static int bad_line(const line_reader *lr, mcz_diag *diag, const char *what)
{
    return mcz_diag_set(diag, MCZ_ECORRUPT, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s:%llu: %s", lr->path,
                        (unsigned long long)lr->line, what);
}

/* The next line into lr->buf; false (nothing read: the header is cut short) at the end or on
 * a bad line. */
static bool next_line(line_reader *lr)
{
    bool read = replay_line_read(lr->f, &lr->buf, &lr->cap) == 1;
    lr->line += read;
    return read;
}

/* The next line as a keyword and count fields: true when it is that. */
static bool header_line(line_reader *lr, const char *key, char **f, size_t count)
{
    return next_line(lr) && replay_split_tabs(lr->buf, f, count) == count &&
           strcmp(f[0], key) == 0;
}

static int read_header(line_reader *lr, replay_shard_id *id, mcz_diag *diag)
{
    char *f[3];
    uint64_t k, n;
    if (!next_line(lr) || strcmp(lr->buf, RESULTS_MAGIC) != 0)
        return bad_line(lr, diag, "not an mcz-replay results file");
    if (!header_line(lr, "shard", f, 3) || !replay_parse_count(f[1], 0, 65535, &k) ||
        !replay_parse_count(f[2], 0, 65535, &n) || k == 0 || k > n)
        return bad_line(lr, diag, "expected \"shard K N\"");
    id->k = (uint32_t)k;
    id->n = (uint32_t)n;
    if (!header_line(lr, "plan", f, 2))
        return bad_line(lr, diag, "expected \"plan ...\"");
    snprintf(id->fingerprint, sizeof id->fingerprint, "%s", f[1]);
    if (!header_line(lr, "selected", f, 2) ||
        !replay_parse_count(f[1], 0, UINT64_MAX, &id->plan_selected))
        return bad_line(lr, diag, "expected \"selected N\"");
    if (!header_line(lr, "style", f, 2))
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
    if (!header_line(lr, "columns", f, 2) || !replay_unescape(f[1]))
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

/* Takes the results file open as f (closed either way): its header now, its entries as a run
 * that replay_table_finish checks. */
static int results_take(replay_table *t, FILE *f, const char *path, replay_shard_id *id,
                        mcz_diag *diag)
{
    line_reader lr = {.path = path, .f = f};
    int rc = read_header(&lr, id, diag);
    if (rc == MCZ_OK && t->run_count && t->style != id->style)
        rc = bad_line(&lr, diag, "another style than the results before it");
    t->style = id->style;
    if (rc == MCZ_OK)
        rc = read_columns(&lr, t, diag);
    free(lr.buf);
    if (rc == MCZ_OK && (rc = replay_table_add_run(t, f, path, lr.line)) != MCZ_OK)
        mcz_diag_set(diag, rc, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s: %s", path,
                     rc == MCZ_ENOMEM ? "out of memory" : strerror(errno));
    if (rc != MCZ_OK)
        fclose(f);
    return rc;
}

int replay_table_parse_results(replay_table *t, const char *path, const void *text, size_t size,
                               replay_shard_id *id, mcz_diag *diag)
{
    FILE *f = mcz_os_temp_file();
    if (!f || fwrite(text, 1, size, f) != size || fflush(f) != 0 || fseek(f, 0, SEEK_SET) != 0) {
        int err = errno;
        if (f)
            fclose(f);
        return mcz_diag_set(diag, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "%s: cannot write a temporary file in it: %s", mcz_os_temp_dir(),
                            strerror(err ? err : EIO));
    }
    return results_take(t, f, path, id, diag);
}

int replay_table_read_results(replay_table *t, const char *path, replay_shard_id *id,
                              mcz_diag *diag)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int err = errno;
        mcz_diag_set(diag, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "%s", strerror(err));
        mcz_diag_set_subject(diag, path);
        return MCZ_EIO;
    }
    return results_take(t, f, path, id, diag);
}
