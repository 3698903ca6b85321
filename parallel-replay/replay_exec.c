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

#include "replay_exec.h"

/* Leads a unit file read through its .mct (--exec-toc): not a context, so a superpmi that
 * reads the file from its start instead of seeking by the table fails at once ("low
 * integrity", no context compiled) and is told apart. */
static const char toc_lead[8] = {'M', 'C', 'Z', '-', 'T', 'O', 'C', '\n'};

/* ---- The unit file, written while the worker walks its unit ---------------------------- */

static bool toc_refused; /* this worker's superpmi reads no table (below): no more tries */

/* The file is this worker's one unit file, written over in place from one unit to the next
 * (then cut to its length): the file system reuses its pages instead of allocating, and
 * freeing, a unit's worth of blocks per command. Every context is written as the worker reads
 * it, straight from the decoded chunk: no copy of the unit is held. */
int replay_exec_file_begin(const replay_config *cfg, const char *work_dir, replay_exec_file *uf)
{
    memset(uf, 0, sizeof *uf);
    if (cfg->exec_original)
        return MCZ_OK;
    uf->lead = cfg->exec_toc && !toc_refused;
    snprintf(uf->path, sizeof uf->path, "%s/unit.mch", work_dir);
    int fd = mcz_os_open(uf->path, MCZ_OS_OPEN_WRITE | MCZ_OS_OPEN_CREATE, 0600);
    uf->f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!uf->f) {
        uf->err = errno ? errno : EIO;
        if (fd >= 0)
            mcz_os_close(fd);
        return MCZ_OK;
    }
    static char buf[1 << 20]; /* one unit file open at a time per worker */
    setvbuf(uf->f, buf, _IOFBF, sizeof buf);
    if (uf->lead && fwrite(toc_lead, 1, sizeof toc_lead, uf->f) != sizeof toc_lead)
        uf->err = errno ? errno : EIO;
    uf->size = uf->lead ? sizeof toc_lead : 0;
    return MCZ_OK;
}

void replay_exec_file_add(replay_exec_file *uf, const mcz_mc *mc)
{
    if (!uf->f || uf->err)
        return;
    if (fwrite(mc->bytes, 1, mc->size, uf->f) != mc->size)
        uf->err = errno ? errno : EIO;
    uf->size += mc->size;
}

/* The file complete (flushed, cut to what was written, closed): 0, or the errno of the write
 * that failed (a full TMPDIR: ENOSPC). */
static int file_end(replay_exec_file *uf)
{
    if (!uf->f)
        return uf->err;
    if (!uf->err && (fflush(uf->f) != 0 || mcz_os_truncate(fileno(uf->f), (int64_t)uf->size) != 0))
        uf->err = errno ? errno : EIO;
    if (fclose(uf->f) != 0 && !uf->err)
        uf->err = errno ? errno : EIO;
    uf->f = NULL;
    return uf->err;
}

void replay_exec_file_flush(replay_exec_file *uf)
{
    if (uf->f && !uf->err && fflush(uf->f) != 0)
        uf->err = errno ? errno : EIO;
}

void replay_exec_file_end_unused(replay_exec_file *uf)
{
    if (uf->f)
        fclose(uf->f);
    uf->f = NULL;
}

/* The unit file without its table's lead (a superpmi that read no table): its bytes moved
 * down over the lead, in place. 0, or an errno. */
static int file_drop_lead(const char *path, uint64_t size)
{
    FILE *f = fopen(path, "r+be");
    if (!f)
        return errno ? errno : EIO;
    static char buf[1 << 16];
    int err = 0;
    for (uint64_t at = sizeof toc_lead; at < size && !err;) {
        size_t len = size - at < sizeof buf ? (size_t)(size - at) : sizeof buf;
        if (fseeko(f, (off_t)at, SEEK_SET) != 0 || fread(buf, 1, len, f) != len ||
            fseeko(f, (off_t)(at - sizeof toc_lead), SEEK_SET) != 0 ||
            fwrite(buf, 1, len, f) != len)
            err = errno ? errno : EIO;
        at += len;
    }
    if (!err &&
        (fflush(f) != 0 || mcz_os_truncate(fileno(f), (int64_t)(size - sizeof toc_lead)) != 0))
        err = errno ? errno : EIO;
    if (fclose(f) != 0 && !err)
        err = errno ? errno : EIO;
    return err;
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
    bool lead;           /* the unit file starts with the table's lead (--exec-toc) */
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
    if (!mcz_os_exists(path))
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

/* Writes one line of the command's output to f, the unit's number in it made global. */
static void write_line(FILE *f, const char *line, size_t len, const mcz_mc *ctx, size_t n)
{
    size_t at, digits;
    uint64_t local = exec_line_number(line, len, &at, &digits);
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
    ptrdiff_t len;
    while ((len = mcz_os_getline(&line, &cap, in)) > 0) {
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
    exec_out_path(cfg->temp_dir, "out", ctx[0].number, path, sizeof path);
    FILE *out = fopen(path, "wbe");
    if (out) {
        pass_output(ef->out, out, !ef->ranges, ctx, n);
        fclose(out);
    }
    pass_output(ef->err, stderr, !ef->ranges, ctx, n);
    fflush(stderr);
}

/* The bytes of ctx[i] read back: from the unit file (after the lead, the contexts before it),
 * or from the collection itself (--exec-original, at its offset). malloc'ed; NULL. */
static uint8_t *context_bytes(const exec_files *ef, const mcz_mc *ctx, size_t i)
{
    uint64_t at = ef->ranges && !ef->lead ? ctx[i].offset : ef->lead ? sizeof toc_lead : 0;
    for (size_t k = 0; k < i && (!ef->ranges || ef->lead); k++)
        at += ctx[k].size;
    FILE *f = fopen(ef->ranges && !ef->lead ? ef->original : ef->unit, "rbe");
    uint8_t *bytes = f ? malloc(ctx[i].size ? ctx[i].size : 1) : NULL;
    bool ok = bytes && fseeko(f, (off_t)at, SEEK_SET) == 0 &&
              fread(bytes, 1, ctx[i].size, f) == ctx[i].size;
    if (f)
        fclose(f);
    if (!ok) {
        free(bytes);
        return NULL;
    }
    return bytes;
}

/* -r PREFIX: each context that failed is written alone as PREFIX-N.mc, as superpmi does for its
 * errors (with its global number). */
static void write_repros(const replay_config *cfg, const exec_files *ef, const mcz_mc *ctx,
                         const bool *first_error, size_t n)
{
    for (size_t i = 0; cfg->repro && i < n; i++) {
        if (!first_error[i])
            continue;
        char path[4200];
        snprintf(path, sizeof path, "%s-%u.mc", cfg->repro, ctx[i].number);
        uint8_t *bytes = context_bytes(ef, ctx, i);
        FILE *f = bytes ? fopen(path, "wbe") : NULL;
        bool ok = f && fwrite(bytes, 1, ctx[i].size, f) == ctx[i].size;
        if ((f && fclose(f) != 0) || !ok)
            tool_warn("%s: cannot write the repro: %s", path, bytes ? strerror(errno)
                                                                     : "cannot read it back");
        free(bytes);
    }
}

/* What the exit status alone says of each context (kinds[]), and the message of the failed. */
static void judge_by_status(const exec_files *ef, int code, const mcz_mc *ctx, size_t n,
                            int *kinds, char *msg, size_t cap)
{
    int all = -1;
    if ((code > 3 && code < 128) || code > 128 + 64) {
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

/* A warning naming the unit when the command crashed and left a details file that cannot be
 * read: its contexts go by the exit status. (A command that ended normally was checked by
 * unit_accounted.) */
static void details_warn(const unit_details *d, int code, const mcz_mc *ctx, size_t n)
{
    if (d->have < 0)
        tool_warn("the unit of contexts %u-%u: its details file: %s; its contexts go by the "
                  "exit status (%d)", ctx[0].number, ctx[n - 1].number, d->why, code);
}

/* What a context's rows count as superpmi counts (one row per compile under -repeatCount). */
static void tally_rows(const unit_details *d, replay_style style, const char *rows,
                       const replay_rows_info *all, exec_tally *t)
{
    const char *end = rows + strlen(rows), *lf = memchr(rows, '\n', (size_t)(end - rows));
    if (lf && lf + 1 == end) { /* one row (one compile): what the rows say */
        *t = (exec_tally){t->number, 1, all->failed > 0, all->miss, all->kind == REPLAY_DIFF,
                          t->offset};
        return;
    }
    tool_csv_span *f = malloc(d->cols.count * sizeof *f);
    const char *p = rows;
    size_t n;
    t->compiles = t->failed = t->missed = t->diffs = 0;
    for (const char *at = p; f && tool_csv_next(&p, end, f, d->cols.count, &n) == 1; at = p) {
        replay_rows_info one;
        int kind = replay_rows_scan(&d->cols, style, at, (size_t)(p - at), &one);
        t->compiles++;
        t->failed += one.failed > 0;
        t->missed += one.miss;
        t->diffs += kind == REPLAY_DIFF;
    }
    free(f);
}

/* Each context's result: its details row, else what the exit status says; what each counts
 * in tally[]. */
static int report_outcome(const replay_config *cfg, const exec_files *ef, int code,
                          const unit_details *d, const mcz_mc *ctx, size_t n, replay_chan *ch,
                          exec_tally *tally)
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
        tally[i] = (exec_tally){ctx[i].number, 1, kinds[i] != REPLAY_SUCCESS, miss, 0,
                                ctx[i].offset};
        if (kind >= 0)
            tally_rows(d, cfg->style, d->rows[i], &info, &tally[i]);
        first_error[i] = info.first_error; /* no row: superpmi wrote no repro either */
        if (kind >= 0)
            rc = replay_chan_rows(ch, ctx[i].number, kind, miss, size, d->cols.header,
                                  d->rows[i]);
        else
            rc = replay_chan_result(ch, ctx[i].number, kinds[i], size,
                                    kinds[i] == REPLAY_SUCCESS ? NULL : msg);
    }
    if (rc == MCZ_OK)
        write_repros(cfg, ef, ctx, first_error, n);
    free(kinds);
    free(first_error);
    return rc;
}

/* Why the run must stop as superpmi's "JIT failed to initialize" after the command ended with
 * code: it is the worker's first and exited as superpmi does then. Empty: go on. */
static void fatal_reason(char *const argv[], int code, bool first, char *why, size_t cap)
{
    why[0] = '\0';
    if (first && code == REPLAY_EXIT_INIT_FAILED)
        snprintf(why, cap, "%s exited with status %d on its first unit (superpmi: JIT failed "
                 "to initialize)", argv[0], code);
}

#define KILL_SIGNAL 9 /* SIGKILL's number on every POSIX system */
/* Room for a reason naming a few paths whole (the record that carries it keeps its first
 * REPLAY_MESSAGE_MAX bytes) */
#define EXEC_WHY_MAX 16384

/* Why the unit's run tells nothing of its contexts, a failure of the run and not of the JIT
 * (replay_chan_broken); empty when it does. A command that ended as superpmi ends (0-3) has
 * written a details row for each compile, so a missing file, one that cannot be read, or a
 * context without a row (superpmi's "Loaded 0": it read none of them) is not a result. Killed
 * by SIGKILL: from outside (the OOM killer, a user), not by a crash of the JIT. */
static void unit_accounted(char *const argv[], const exec_files *ef, int code,
                           const unit_details *d, const mcz_mc *ctx, size_t n, char *why,
                           size_t cap)
{
    why[0] = '\0';
    if (code == 128 + KILL_SIGNAL) {
        snprintf(why, cap, "%s was killed by signal %d (SIGKILL) from outside", argv[0],
                 KILL_SIGNAL);
        return;
    }
    if (code < 0 || code > 3)
        return;
    if (d->have == 0) {
        snprintf(why, cap, "%s exited with status %d without writing the details file it was "
                 "asked for: %s: %s", argv[0], code, ef->details, strerror(ENOENT));
        return;
    }
    if (d->have < 0) {
        snprintf(why, cap, "%s exited with status %d; its details file %s: %s", argv[0], code,
                 ef->details, d->why);
        return;
    }
    size_t rowed = 0, first = n;
    for (size_t i = 0; i < n; i++) {
        rowed += d->rows[i] != NULL;
        if (!d->rows[i] && first == n)
            first = i;
    }
    if (rowed < n)
        snprintf(why, cap, "%s exited with status %d having accounted for %zu of the %zu "
                 "contexts it was given (%s has no row for context %u)", argv[0], code, rowed,
                 n, ef->details, ctx[first].number);
}

/* Global numbers through superpmi itself: the unit file gets an .mct whose entries carry the
 * contexts' global numbers, and the command `-c` those numbers. superpmi's reader then seeks
 * each by the table's Number and reports it by that number everywhere, the number the JIT is
 * told included (methodcontextreader.cpp, GetSpecificMethodContext). A superpmi whose table
 * loader refuses the file (tocfile.cpp at dotnet/runtime@4d0fd37a refuses every table) finds no
 * context: the unit is run again numbered 1..k, mapped back by mcz-replay, and this worker does
 * so from then on. Not with -m (superpmi ignores it under -c) or --exec-original. */

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

/* Starts the command over the unit: MCZ_OK and *proc, or (the run stopped) why it could not
 * start. */
static int start_once(const replay_config *cfg, exec_files *ef, char ***argv, int64_t *proc,
                      char *why, size_t cap)
{
    why[0] = '\0';
    mcz_os_unlink(ef->list);
    mcz_os_unlink(ef->details);
    free(*argv);
    *argv = build_argv(cfg, ef);
    if (!*argv)
        return MCZ_ENOMEM;
    int exec_errno;
    int rc = mcz_os_command_start(*argv, ef->out, ef->err, proc, &exec_errno);
    if (rc != MCZ_OK)
        snprintf(why, cap, "cannot %s %s: %s", exec_errno ? "run" : "start", (*argv)[0],
                 strerror(exec_errno ? exec_errno : errno));
    return rc;
}

/* The unit's files removed; the unit file too when `all` (it is otherwise written over by the
 * next unit, then removed with the worker's directory). */
static void unit_files_remove(const exec_files *ef, bool all)
{
    if (all)
        mcz_os_unlink(ef->unit);
    const char *const paths[] = {ef->toc, ef->list, ef->details, ef->out, ef->err};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        mcz_os_unlink(paths[i]);
}

/* Stops the run over a failure of mcz-replay's own on this unit: why, behind the unit's
 * contexts. Its files go first; the worker ends. */
static _Noreturn void unit_broken(const exec_files *ef, const mcz_mc *ctx, size_t n,
                                  const char *why, replay_chan *ch)
{
    char msg[EXEC_WHY_MAX + 64];
    snprintf(msg, sizeof msg, "contexts %u-%u: %s; they were not replayed", ctx[0].number,
             ctx[n - 1].number, why);
    unit_files_remove(ef, true);
    replay_chan_broken(ch, msg);
}

/* A command started over a unit (replay_exec_spawn), announced on the unit's turn
 * (replay_exec_announce), then waited for and accounted (replay_exec_finish). */
struct replay_exec_job {
    const replay_config *cfg;
    exec_files ef;
    char **argv;
    int64_t proc;
    uint64_t size; /* of the unit file */
    const mcz_mc *ctx;
    size_t n;
    char why[EXEC_WHY_MAX]; /* why it could not start, said on its turn; empty: it runs */
};

static void job_free(replay_exec_job *job)
{
    free(job->argv);
    free(job->ef.ranges);
    free(job);
}

/* Stops the run, the job's files removed first. */
static _Noreturn void job_broken(replay_exec_job *job, const char *why, replay_chan *ch)
{
    unit_broken(&job->ef, job->ctx, job->n, why, ch);
}

/* The unit file finished, its table written, the command started: what was in the way goes to
 * job->why, for replay_exec_announce to say on the unit's turn. MCZ_OK, or MCZ_ENOMEM. */
static int job_start(replay_exec_job *job, replay_exec_file *uf)
{
    const replay_config *cfg = job->cfg;
    exec_files *ef = &job->ef;
    ef->lead = uf->lead;
    int err = cfg->exec_original ? 0 : file_end(uf);
    if (err) {
        snprintf(job->why, sizeof job->why, "cannot write the unit's temporary .mch %s: %s",
                 ef->unit, strerror(err));
        return MCZ_OK;
    }
    if (ef->lead && toc_refused) { /* written ahead, before the table was refused */
        err = file_drop_lead(ef->unit, job->size);
        job->size -= sizeof toc_lead;
        ef->lead = false;
        if (err) {
            snprintf(job->why, sizeof job->why, "cannot write the unit's temporary .mch %s: %s",
                     ef->unit, strerror(err));
            return MCZ_OK;
        }
    }
    if (ef->lead) {
        int rc = write_toc(ef->toc, job->ctx, job->n);
        if (rc == MCZ_ENOMEM || !(ef->ranges = global_ranges(job->ctx, job->n)))
            return MCZ_ENOMEM;
        if (rc != MCZ_OK) {
            snprintf(job->why, sizeof job->why, "cannot write the unit's temporary table %s: %s",
                     ef->toc, strerror(errno ? errno : EIO));
            return MCZ_OK;
        }
        snprintf(ef->original, sizeof ef->original, "%s", ef->unit);
    }
    int rc = start_once(cfg, ef, &job->argv, &job->proc, job->why, sizeof job->why);
    return rc == MCZ_ENOMEM || (rc != MCZ_OK && !job->why[0]) ? MCZ_ENOMEM : MCZ_OK;
}

replay_exec_job *replay_exec_spawn(const replay_config *cfg, const char *work_dir,
                                   replay_exec_file *uf, const mcz_mc *ctx, size_t n)
{
    replay_exec_job *job = calloc(1, sizeof *job);
    if (!job)
        return NULL;
    job->cfg = cfg;
    job->ctx = ctx;
    job->n = n;
    job->size = uf->size;
    exec_files *ef = &job->ef;
    snprintf(ef->unit, sizeof ef->unit, "%s/unit.mch", work_dir);
    snprintf(ef->toc, sizeof ef->toc, "%s/unit.mch.mct", work_dir);
    snprintf(ef->list, sizeof ef->list, "%s/failing.mcl", work_dir);
    snprintf(ef->details, sizeof ef->details, "%s/details.csv", work_dir);
    snprintf(ef->out, sizeof ef->out, "%s/stdout", work_dir);
    snprintf(ef->err, sizeof ef->err, "%s/stderr", work_dir);
    snprintf(ef->original, sizeof ef->original, "%s", cfg->plan->path);
    if ((cfg->exec_original && !(ef->ranges = global_ranges(ctx, n))) ||
        job_start(job, uf) != MCZ_OK) {
        replay_exec_file_end_unused(uf);
        job_free(job);
        return NULL;
    }
    return job;
}

int replay_exec_announce(replay_exec_job *job, replay_chan *ch)
{
    if (job->why[0])
        job_broken(job, job->why, ch);
    return replay_chan_start(ch, job->ctx[0].number, 0, true);
}

void replay_exec_drop(replay_exec_job *job)
{
    if (job)
        job_free(job);
}

replay_exec_job *replay_exec_launch(const replay_config *cfg, const char *work_dir,
                                    replay_exec_file *uf, const mcz_mc *ctx, size_t n,
                                    replay_chan *ch)
{
    replay_exec_job *job = replay_exec_spawn(cfg, work_dir, uf, ctx, n);
    if (job && replay_exec_announce(job, ch) != MCZ_OK) {
        replay_exec_drop(job);
        return NULL;
    }
    return job;
}

/* Waits for the job's command; again without the table when its superpmi read none. Its exit
 * status, its details in d. */
static int job_wait(replay_exec_job *job, unit_details *d, int *code_out, replay_chan *ch)
{
    const replay_config *cfg = job->cfg;
    exec_files *ef = &job->ef;
    int code = mcz_os_command_wait(job->proc);
    int rc = details_load(cfg, ef, job->ctx, job->n, d);
    /* checked on every unit: a superpmi that read no table must never pass for one that
     * compiled nothing and succeeded */
    if (rc == MCZ_OK && ef->lead && code >= 0 && !toc_honoured(code, d, job->n)) {
        toc_refused = true;
        free(ef->ranges);
        ef->ranges = NULL;
        ef->lead = false;
        mcz_os_unlink(ef->toc);
        details_free(d, job->n);
        char why[EXEC_WHY_MAX];
        int err = file_drop_lead(ef->unit, job->size);
        if (err) {
            snprintf(why, sizeof why, "cannot write the unit's temporary .mch %s: %s",
                     ef->unit, strerror(err));
            job_broken(job, why, ch);
        }
        rc = start_once(cfg, ef, &job->argv, &job->proc, why, sizeof why);
        if (rc != MCZ_OK && why[0])
            job_broken(job, why, ch);
        code = rc == MCZ_OK ? mcz_os_command_wait(job->proc) : rc;
        rc = rc == MCZ_OK ? details_load(cfg, ef, job->ctx, job->n, d) : rc;
    }
    if (rc == MCZ_OK && code < 0) {
        char why[EXEC_WHY_MAX];
        snprintf(why, sizeof why, "lost track of %s: %s", job->argv[0], strerror(errno));
        job_broken(job, why, ch);
    }
    *code_out = code;
    return rc;
}

int replay_exec_finish(replay_exec_job *job, bool first, replay_chan *ch)
{
    const replay_config *cfg = job->cfg;
    exec_files *ef = &job->ef;
    const mcz_mc *ctx = job->ctx;
    size_t n = job->n;
    char why[REPLAY_MESSAGE_MAX] = "", broken[EXEC_WHY_MAX] = "";
    unit_details d = {0};
    int code = 0;
    int rc = job_wait(job, &d, &code, ch);
    if (rc == MCZ_OK) {
        pass_outputs(cfg, ef, ctx, n);
        fatal_reason(job->argv, code, first, why, sizeof why);
        if (!why[0])
            unit_accounted(job->argv, ef, code, &d, ctx, n, broken, sizeof broken);
    }
    exec_tally *tally = calloc(n, sizeof *tally);
    if (rc == MCZ_OK && !why[0] && !broken[0])
        rc = tally ? report_outcome(cfg, ef, code, &d, ctx, n, ch, tally) : MCZ_ENOMEM;
    if (rc == MCZ_OK && !why[0] && !broken[0])
        exec_tally_write(cfg->temp_dir, tally, n);
    free(tally);
    details_free(&d, n);
    if (broken[0])
        job_broken(job, broken, ch);
    unit_files_remove(ef, false);
    job_free(job);
    if (why[0])
        replay_chan_fatal(ch, why);
    return rc;
}

int replay_exec_unit(const replay_config *cfg, const char *work_dir, bool first,
                     replay_exec_file *uf, const mcz_mc *ctx, size_t n, replay_chan *ch)
{
    replay_exec_job *job = replay_exec_launch(cfg, work_dir, uf, ctx, n, ch);
    return job ? replay_exec_finish(job, first, ch) : MCZ_ENOMEM;
}
