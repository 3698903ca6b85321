/*
 * replay_exec.c - the --exec replayer: an external command per work unit, in SuperPMI's shape.
 *
 * Contract (also in --help and parallel-replay/README.md):
 *   CMD ARGS... -f LIST -details DETAILS.csv UNIT.mch
 * UNIT.mch holds the unit's selected, non-excluded contexts, renumbered 1..k in order. With
 * --exec-original (MCH input only) the command gets the original file and the global numbers:
 *   CMD ARGS... -c RANGES -f LIST -details DETAILS.csv ORIGINAL.mch
 * A context's row in DETAILS.csv (superpmi's columns, read by name: replay_row.c) says what it
 * did: Success, Error or Miss, and in asm diffs (-a in CMD) both JITs' results and whether the
 * code differs. A context with no row is decided by the exit status: 0 passed (any listed in
 * LIST failed); 1 or 2: the contexts listed in LIST failed, the others passed, with no list all
 * failed; 3: the same, but "missing data"; any other exit, or death by a signal: crashed. The
 * numbers in LIST and DETAILS.csv are mapped back to global numbers. A command that cannot start (its exec fails), or that exits
 * 254 (superpmi: the JIT failed to initialize) on a worker's first unit, stops the whole run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay_exec.h"

/* Leads a unit file read through its .mct (--exec-toc): not a context, so a superpmi that
 * reads the file from its start instead of seeking by the table fails at once ("low
 * integrity", no context compiled) and is told apart. */
static const char toc_lead[8] = {'M', 'C', 'Z', '-', 'T', 'O', 'C', '\n'};

static int write_unit(const char *path, const mcz_mc *ctx, size_t n, bool lead)
{
    FILE *f = fopen(path, "wbe");
    if (!f)
        return MCZ_EIO;
    if (lead)
        fwrite(toc_lead, 1, sizeof toc_lead, f);
    for (size_t i = 0; i < n; i++)
        fwrite(ctx[i].bytes, 1, ctx[i].size, f);
    bool ok = !ferror(f);
    return fclose(f) == 0 && ok ? MCZ_OK : MCZ_EIO;
}

/* "a-b,c,..." of the contexts' global numbers (SuperPMI's -c syntax); malloc'ed. */
static char *global_ranges(const mcz_mc *ctx, size_t n)
{
    char *s = malloc(n * 24 + 1);
    if (!s)
        return NULL;
    size_t len = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && ctx[j + 1].number == ctx[j].number + 1)
            j++;
        len += (size_t)sprintf(s + len, j > i ? "%s%u-%u" : "%s%u", len ? "," : "",
                               ctx[i].number, ctx[j].number);
        i = j + 1;
    }
    s[len] = '\0';
    return s;
}

typedef struct exec_files {
    char unit[4200];
    char toc[4200];      /* the unit's .mct: its contexts under their global numbers */
    char list[4200];
    char details[4200];
    char out[4200];      /* the command's stdout and stderr */
    char err[4200];
    char original[4200]; /* --exec-original: the collection's path */
    char *ranges;        /* --exec-original: the unit's numbers */
} exec_files;

static char **build_argv(const replay_config *cfg, exec_files *ef)
{
    size_t words = 0;
    while (cfg->exec_argv[words])
        words++;
    char **argv = calloc(words + 8, sizeof *argv);
    if (!argv)
        return NULL;
    size_t a = 0;
    for (size_t i = 0; i < words; i++)
        argv[a++] = cfg->exec_argv[i];
    if (ef->ranges) {
        argv[a++] = (char *)"-c";
        argv[a++] = ef->ranges;
    }
    argv[a++] = (char *)"-f";
    argv[a++] = ef->list;
    argv[a++] = (char *)"-details";
    argv[a++] = ef->details;
    argv[a++] = ef->ranges ? ef->original : ef->unit;
    return argv;
}

/* The command's failing list, when it wrote a valid one: 1 read, 0 none, negative bad. */
static int read_list(const char *path, mcz_list *l, mcz_diag *d)
{
    mcz_file f;
    memset(l, 0, sizeof *l);
    if (access(path, F_OK) != 0)
        return 0;
    int rc = mcz_file_map(path, &f, d);
    if (rc != MCZ_OK)
        return rc;
    rc = f.size ? mcz_list_parse_mcl(f.data, f.size, l, d) : MCZ_OK;
    mcz_file_unmap(&f);
    return rc == MCZ_OK ? 1 : rc;
}

/* The number the command uses for ctx[i]. */
static uint32_t command_number(const exec_files *ef, const mcz_mc *ctx, size_t i)
{
    return ef->ranges ? ctx[i].number : (uint32_t)(i + 1);
}

static bool list_fits(const exec_files *ef, const mcz_list *l, const mcz_mc *ctx, size_t n)
{
    uint64_t found = 0;
    for (size_t i = 0; i < n; i++)
        found += mcz_list_contains(l, command_number(ef, ctx, i));
    return found == mcz_list_size(l);
}

static int report_all(replay_chan *ch, const mcz_mc *ctx, size_t n, int kind, const char *msg)
{
    for (size_t i = 0; i < n; i++)
        if (replay_chan_result(ch, ctx[i].number, kind, (uint32_t)ctx[i].size, msg) != MCZ_OK)
            return MCZ_EIO;
    return MCZ_OK;
}

/* superpmi's lines that name a context by the number it was given (superpmi.cpp, and the
 * JIT's assert line): the text before the number. */
static const char *const numbered_lines[] = {
    "ISSUE: <ASSERT> #",
    "ISSUE: <ASM_DIFF> main method ",
    "MISSING: Method context ",
    "ERROR: Method ",
    "ERROR: main method ",
    "ERROR: method ",
    "INFO: main method ",
    "INFO: HINT: to repro add '-c ",
};

/* The context number a line of superpmi's names (the digits after one of numbered_lines), with
 * where its digits start and how many there are; 0 when it names none. */
static uint64_t line_number(const char *line, size_t len, size_t *at, size_t *digits)
{
    for (size_t k = 0; k < sizeof numbered_lines / sizeof *numbered_lines; k++) {
        size_t plen = strlen(numbered_lines[k]);
        if (len <= plen || memcmp(line, numbered_lines[k], plen) != 0)
            continue;
        uint64_t number = 0;
        size_t d = 0;
        while (plen + d < len && d < 10 && line[plen + d] >= '0' && line[plen + d] <= '9')
            number = number * 10 + (uint64_t)(line[plen + d++] - '0');
        if (d) {
            *at = plen;
            *digits = d;
            return number;
        }
    }
    return 0;
}

/* Writes one line of the command's output to f, the unit's number in it made global. */
static void write_line(FILE *f, const char *line, size_t len, const mcz_mc *ctx, size_t n)
{
    size_t at, digits;
    uint64_t local = line_number(line, len, &at, &digits);
    if (local >= 1 && local <= n)
        fprintf(f, "%.*s%u%.*s", (int)at, line, ctx[local - 1].number,
                (int)(len - at - digits), line + at + digits);
    else
        fwrite(line, 1, len, f);
}

/* Copies the command's output file at path to f line by line, numbers made global when the
 * command saw the unit's own (1..n). */
static void pass_output(const char *path, FILE *f, bool renumber, const mcz_mc *ctx, size_t n)
{
    FILE *in = fopen(path, "rbe");
    if (!in)
        return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = tool_getline(&line, &cap, in)) > 0) {
        /* a unit's own summary: the run's, summed over every unit, is printed at the end (as
         * superpmi -p sums its children's instead of passing them on) */
        if (ctx && strncmp(line, "Loaded ", 7) == 0)
            continue;
        if (renumber)
            write_line(f, line, (size_t)len, ctx, n);
        else
            fwrite(line, 1, (size_t)len, f);
    }
    free(line);
    fclose(in);
}

/* The command's stdout goes to the run's stdout in unit order (replay_exec_output), so it reads
 * as one superpmi run's; its stderr to the run's stderr at once. */
static void pass_outputs(const replay_config *cfg, const exec_files *ef, const mcz_mc *ctx,
                         size_t n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/out.%010u", cfg->temp_dir, ctx[0].number);
    FILE *out = fopen(path, "wbe");
    if (out) {
        pass_output(ef->out, out, !ef->ranges, ctx, n);
        fclose(out);
    }
    pass_output(ef->err, stderr, !ef->ranges, ctx, n);
    fflush(stderr);
}

/* -r PREFIX: each context that failed is written alone as PREFIX-N.mc, as superpmi does for its
 * errors (with its global number). */
static void write_repros(const replay_config *cfg, const mcz_mc *ctx, const bool *first_error,
                         size_t n)
{
    for (size_t i = 0; cfg->repro && i < n; i++) {
        if (!first_error[i])
            continue;
        char path[4200];
        snprintf(path, sizeof path, "%s-%u.mc", cfg->repro, ctx[i].number);
        FILE *f = fopen(path, "wbe");
        bool ok = f && fwrite(ctx[i].bytes, 1, ctx[i].size, f) == ctx[i].size;
        if ((f && fclose(f) != 0) || !ok)
            tool_warn("%s: cannot write the repro: %s", path, strerror(errno));
    }
}

/* A run of output lines about one context: from a line naming it to the next line naming
 * another (lines before the first named one go with the unit's first context). */
typedef struct segment {
    uint32_t number;
    uint32_t group; /* superpmi -p N's worker: (number - 1) % N */
    size_t seq;     /* order of appearance, to keep it among equals */
    size_t from, len;
} segment;

static int segment_compare(const void *a, const void *b)
{
    const segment *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->number != y->number)
        return x->number < y->number ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Cuts the text (the units' stdout in unit order) into segments by context. */
static int segments_cut(const char *text, size_t len, uint32_t interleave, segment **out,
                        size_t *count)
{
    size_t cap = 0, n = 0;
    segment *seg = NULL;
    uint32_t current = 1;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t line_len = nl ? (size_t)(nl - (text + at)) + 1 : len - at;
        size_t pos, digits;
        uint64_t number = line_number(text + at, line_len, &pos, &digits);
        bool starts = number >= 1 && number <= UINT32_MAX && (number != current || n == 0);
        if (starts || n == 0) {
            if (replay_grow(&seg, &cap, n, sizeof *seg) != MCZ_OK) {
                free(seg);
                return MCZ_ENOMEM;
            }
            current = number >= 1 && number <= UINT32_MAX ? (uint32_t)number : current;
            seg[n] = (segment){current, (current - 1) % interleave, n, at, 0};
            n++;
        }
        seg[n - 1].len += line_len;
        at += line_len;
    }
    *out = seg;
    *count = n;
    return MCZ_OK;
}

/* The text reordered as superpmi -p N prints its workers' output, one worker after the other. */
static int write_interleaved(const char *text, size_t len, uint32_t interleave, FILE *to)
{
    segment *seg;
    size_t n;
    int rc = segments_cut(text, len, interleave, &seg, &n);
    if (rc != MCZ_OK)
        return rc;
    if (n > 0) /* no output: seg is NULL, which qsort may not be given */
        qsort(seg, n, sizeof *seg, segment_compare);
    for (size_t i = 0; i < n; i++)
        fwrite(text + seg[i].from, 1, seg[i].len, to);
    free(seg);
    return MCZ_OK;
}

int replay_exec_output(const char *temp_dir, FILE *to, uint32_t interleave)
{
    char **names;
    size_t n;
    if (tool_dir_list(temp_dir, "out.*", &names, &n) != 0)
        return MCZ_EIO;
    char *text = NULL;
    size_t len = 0;
    FILE *all = interleave > 1 ? tool_memstream_open(&text, &len) : to;
    int rc = all ? MCZ_OK : MCZ_ENOMEM;
    for (size_t i = 0; i < n && rc == MCZ_OK; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", temp_dir, names[i]);
        pass_output(path, all, false, NULL, 0);
        rc = ferror(all) ? MCZ_EIO : MCZ_OK;
    }
    tool_dir_list_free(names, n);
    if (all && all != to) {
        if (tool_stream_close(all) != 0 && rc == MCZ_OK)
            rc = MCZ_ENOMEM;
        if (rc == MCZ_OK)
            rc = write_interleaved(text ? text : "", len, interleave, to);
        free(text);
    }
    return rc == MCZ_OK && ferror(to) ? MCZ_EIO : rc;
}

/* What the exit status alone says of each context (kinds[]), and the message of the failed. */
static void judge_by_status(const exec_files *ef, int code, const mcz_mc *ctx, size_t n,
                            int *kinds, char *msg, size_t cap)
{
    int all = -1;
    if (code < 0) {
        snprintf(msg, cap, "cannot start the command: %s", strerror(errno));
        all = REPLAY_CRASH;
    } else if ((code > 3 && code < 128) || code > 128 + 64) {
        snprintf(msg, cap, "command exited with status %d", code);
        all = REPLAY_CRASH;
    } else if (code >= 128) {
        snprintf(msg, cap, "command killed by signal %d", code - 128);
        all = REPLAY_CRASH;
    }
    mcz_list l = {NULL, 0};
    mcz_diag d;
    mcz_diag_clear(&d);
    int have = all < 0 ? read_list(ef->list, &l, &d) : 0;
    if (all < 0 && (have < 0 || (have && !list_fits(ef, &l, ctx, n)))) {
        char text[MCZ_DIAG_LINE_SIZE];
        snprintf(msg, cap, "bad failing list from the command: %s",
                 have < 0 ? mcz_diag_format(&d, text, sizeof text) : "numbers outside the unit");
        all = REPLAY_FAILURE;
    }
    if (all < 0)
        snprintf(msg, cap, "command exited with status %d", code);
    int failed = code == 3 ? REPLAY_MISSING : REPLAY_FAILURE;
    bool listed_any = have > 0 && mcz_list_size(&l) > 0;
    for (size_t i = 0; i < n; i++) {
        bool listed = listed_any ? mcz_list_contains(&l, command_number(ef, ctx, i)) : code != 0;
        kinds[i] = all >= 0 ? all : !listed ? REPLAY_SUCCESS : code == 0 ? REPLAY_FAILURE : failed;
    }
    mcz_list_free(&l);
}

/* The details file of the unit's last run, read once: by the table check (toc_honoured) and
 * by the accounting (report_outcome). */
typedef struct unit_details {
    int have;             /* exec_details_read's: 1 read, 0 no file, negative unusable */
    char why[REPLAY_MESSAGE_MAX];
    replay_columns cols;
    char **rows;          /* per context of the unit; NULL where the file has none */
    uint32_t *numbers;
} unit_details;

static void details_free(unit_details *d, size_t n)
{
    for (size_t i = 0; d->rows && i < n; i++)
        free(d->rows[i]);
    free(d->rows);
    free(d->numbers);
    replay_columns_free(&d->cols);
    memset(d, 0, sizeof *d);
}

static int details_load(const replay_config *cfg, const exec_files *ef, const mcz_mc *ctx,
                        size_t n, unit_details *d)
{
    memset(d, 0, sizeof *d);
    d->rows = calloc(n, sizeof *d->rows);
    d->numbers = calloc(n, sizeof *d->numbers);
    if (!d->rows || !d->numbers) {
        details_free(d, n);
        return MCZ_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        d->numbers[i] = ctx[i].number;
    exec_numbering num = {ef->ranges != NULL, d->numbers, n};
    d->have = exec_details_read(ef->details, &num, cfg->style, &d->cols, d->rows, d->why,
                                sizeof d->why);
    return MCZ_OK;
}

/* A warning naming the unit when its details file is unusable, or lacks contexts though the
 * command ended normally: those contexts go by the exit status. */
static void details_warn(const unit_details *d, int code, const mcz_mc *ctx, size_t n)
{
    uint32_t a = ctx[0].number, b = ctx[n - 1].number;
    if (d->have < 0) {
        tool_warn("the unit of contexts %u-%u: its details file: %s; its contexts go by the "
                  "exit status (%d)", a, b, d->why, code);
        return;
    }
    size_t lacking = 0, first = 0;
    for (size_t i = 0; i < n && d->have > 0; i++)
        if (!d->rows[i] && !lacking++)
            first = i;
    if (lacking && code >= 0 && code <= 3)
        tool_warn("the unit of contexts %u-%u: its details file has no row for context %u%s; "
                  "%s by the exit status (%d)", a, b, ctx[first].number,
                  lacking > 1 ? " and others" : "", lacking > 1 ? "they go" : "it goes", code);
}

/* Each context's result: its details row, else what the exit status says. */
static int report_outcome(const replay_config *cfg, const exec_files *ef, int code,
                          const unit_details *d, const mcz_mc *ctx, size_t n, replay_chan *ch)
{
    int *kinds = calloc(n, sizeof *kinds);
    bool *first_error = calloc(n, sizeof *first_error);
    int rc = kinds && first_error ? MCZ_OK : MCZ_ENOMEM;
    char msg[REPLAY_MESSAGE_MAX];
    if (rc == MCZ_OK) {
        judge_by_status(ef, code, ctx, n, kinds, msg, sizeof msg);
        details_warn(d, code, ctx, n);
    }
    for (size_t i = 0; i < n && rc == MCZ_OK; i++) {
        bool miss = kinds[i] == REPLAY_MISSING;
        uint32_t size = (uint32_t)ctx[i].size;
        replay_rows_info info = {.kind = -1};
        if (d->rows[i])
            replay_rows_scan(&d->cols, cfg->style, d->rows[i], strlen(d->rows[i]), &info);
        int kind = info.kind;
        miss = kind >= 0 ? info.miss : miss;
        first_error[i] = info.first_error; /* no row: superpmi wrote no repro either */
        if (kind >= 0)
            rc = replay_chan_rows(ch, ctx[i].number, kind, miss, size, d->cols.header,
                                  d->rows[i]);
        else
            rc = replay_chan_result(ch, ctx[i].number, kinds[i], size,
                                    kinds[i] == REPLAY_SUCCESS ? NULL : msg);
    }
    if (rc == MCZ_OK)
        write_repros(cfg, ctx, first_error, n);
    free(kinds);
    free(first_error);
    return rc;
}

/* Why the run must stop after the command ended with code: it could not start, or it is the
 * worker's first and exited as superpmi does when the JIT fails to initialize. Empty: go on. */
static void fatal_reason(char *const argv[], int code, int exec_errno, bool first, char *why,
                         size_t cap)
{
    why[0] = '\0';
    if (exec_errno)
        snprintf(why, cap, "cannot run %s: %s", argv[0], strerror(exec_errno));
    else if (first && code == REPLAY_EXIT_INIT_FAILED)
        snprintf(why, cap, "%s exited with status %d on its first unit (superpmi: JIT failed "
                 "to initialize)", argv[0], code);
}

/* Global numbers through superpmi itself: the unit file gets an .mct whose entries carry the
 * contexts' global numbers, and the command `-c` those numbers. superpmi's reader then seeks
 * each by the table's Number and reports it by that number everywhere, the number the JIT is
 * told included (methodcontextreader.cpp, GetSpecificMethodContext). A superpmi whose table
 * loader refuses the file (tocfile.cpp at dotnet/runtime@4d0fd37a refuses every table) finds no
 * context: the unit is run again numbered 1..k, mapped back by mcz-replay, and this worker does
 * so from then on. Not with -m (superpmi ignores it under -c) or --exec-original. */
static bool toc_refused; /* this worker's superpmi reads no table: no more tries */

static int write_toc(const char *path, const mcz_mc *ctx, size_t n)
{
    mcz_toc_entry *e = calloc(n, sizeof *e);
    if (!e)
        return MCZ_ENOMEM;
    int64_t at = sizeof toc_lead;
    for (size_t i = 0; i < n; i++) {
        e[i].offset = at;
        e[i].number = (int32_t)ctx[i].number;
        at += (int64_t)ctx[i].size;
    }
    uint8_t *image = NULL;
    size_t len = 0;
    int rc = mcz_toc_encode(e, (uint32_t)n, &image, &len);
    free(e);
    FILE *f = rc == MCZ_OK ? fopen(path, "wbe") : NULL;
    bool ok = f && fwrite(image, 1, len, f) == len;
    if ((f && fclose(f) != 0) || !ok)
        rc = MCZ_EIO;
    free(image);
    return rc;
}

/* After a run under the table: whether superpmi read it (its details name some context of the
 * unit); a run that compiled nothing and ended as superpmi does then (0-3, or -1 for the file's
 * lead or a number its table lacks) did not. A crash tells nothing, nor a command that wrote no
 * details file (superpmi creates it before reading any context): taken as read. */
static bool toc_honoured(int code, const unit_details *d, size_t n)
{
    if ((code > 3 && code != 255) || d->have == 0)
        return true;
    for (size_t i = 0; d->have == 1 && i < n; i++)
        if (d->rows[i])
            return true;
    return false;
}

/* Runs the command once over the unit; its exit status (as replay_proc_command). */
static int run_once(const replay_config *cfg, exec_files *ef, int *exec_errno, char ***argv)
{
    unlink(ef->list);
    unlink(ef->details);
    free(*argv);
    *argv = build_argv(cfg, ef);
    if (!*argv)
        return MCZ_ENOMEM;
    return replay_proc_command(*argv, ef->out, ef->err, exec_errno);
}

int replay_exec_unit(const replay_config *cfg, const char *work_dir, bool first,
                     const mcz_mc *ctx, size_t n, replay_chan *ch)
{
    exec_files ef = {.ranges = NULL};
    snprintf(ef.unit, sizeof ef.unit, "%s/unit.mch", work_dir);
    snprintf(ef.toc, sizeof ef.toc, "%s/unit.mch.mct", work_dir);
    snprintf(ef.list, sizeof ef.list, "%s/failing.mcl", work_dir);
    snprintf(ef.details, sizeof ef.details, "%s/details.csv", work_dir);
    snprintf(ef.out, sizeof ef.out, "%s/stdout", work_dir);
    snprintf(ef.err, sizeof ef.err, "%s/stderr", work_dir);
    snprintf(ef.original, sizeof ef.original, "%s", cfg->plan->path);
    unlink(ef.list);
    unlink(ef.details);
    if (cfg->exec_original && !(ef.ranges = global_ranges(ctx, n)))
        return MCZ_ENOMEM;
    bool tried_toc = !cfg->exec_original && cfg->exec_toc && !toc_refused &&
                     write_toc(ef.toc, ctx, n) == MCZ_OK && (ef.ranges = global_ranges(ctx, n));
    if (!cfg->exec_original && write_unit(ef.unit, ctx, n, tried_toc) != MCZ_OK) {
        unlink(ef.unit);
        unlink(ef.toc);
        free(ef.ranges);
        return report_all(ch, ctx, n, REPLAY_ERROR, "cannot write the unit's temporary .mch");
    }
    if (tried_toc)
        snprintf(ef.original, sizeof ef.original, "%s", ef.unit);
    char **argv = NULL;
    char why[REPLAY_MESSAGE_MAX] = "";
    unit_details d = {0};
    int rc = replay_chan_start(ch, ctx[0].number, 0, true);
    if (rc == MCZ_OK) {
        int exec_errno;
        int code = run_once(cfg, &ef, &exec_errno, &argv);
        rc = argv ? details_load(cfg, &ef, ctx, n, &d) : MCZ_ENOMEM;
        /* checked on every unit: a superpmi that read no table must never pass for one that
         * compiled nothing and succeeded */
        if (rc == MCZ_OK && tried_toc && !exec_errno && code >= 0 && !toc_honoured(code, &d, n)) {
            toc_refused = true;
            free(ef.ranges);
            ef.ranges = NULL;
            unlink(ef.toc);
            details_free(&d, n);
            code = write_unit(ef.unit, ctx, n, false) == MCZ_OK
                       ? run_once(cfg, &ef, &exec_errno, &argv)
                       : 255;
            rc = argv ? details_load(cfg, &ef, ctx, n, &d) : MCZ_ENOMEM;
        }
        if (rc == MCZ_OK) {
            pass_outputs(cfg, &ef, ctx, n);
            fatal_reason(argv, code, exec_errno, first, why, sizeof why);
        }
        if (rc == MCZ_OK && !why[0])
            rc = report_outcome(cfg, &ef, code, &d, ctx, n, ch);
    }
    details_free(&d, n);
    free(argv);
    free(ef.ranges);
    unlink(ef.unit);
    unlink(ef.toc);
    unlink(ef.list);
    unlink(ef.details);
    unlink(ef.out);
    unlink(ef.err);
    if (why[0])
        replay_chan_fatal(ch, why);
    return rc;
}
