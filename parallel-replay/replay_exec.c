/*
 * replay_exec.c - the --exec replayer: an external command per work unit, in SuperPMI's shape.
 *
 * Contract (also in --help and README.md):
 *   CMD ARGS... -f LIST UNIT.mch
 * UNIT.mch holds the unit's selected, non-excluded contexts, renumbered 1..k in order. With
 * --exec-original (MCH input only) the command gets the original file and the global numbers:
 *   CMD ARGS... -c RANGES -f LIST ORIGINAL.mch
 * Exit 0: every context passed (any listed in LIST failed). Exit 1 or 2: the contexts listed in
 * LIST failed, the others passed; with no list, all failed. Exit 3: the same, but "missing data".
 * Any other exit, or death by a signal: every context of the unit crashed. The numbers in LIST
 * are mapped back to global numbers. A command that cannot start (its exec fails), or that exits
 * 254 (superpmi: the JIT failed to initialize) on a worker's first unit, stops the whole run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay_int.h"

static int write_unit(const char *path, const mcz_mc *ctx, size_t n)
{
    FILE *f = fopen(path, "wbe");
    if (!f)
        return MCZ_EIO;
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
    char list[4200];
    char original[4200]; /* --exec-original: the collection's path */
    char *ranges;        /* --exec-original: the unit's numbers */
} exec_files;

static char **build_argv(const replay_config *cfg, exec_files *ef)
{
    size_t words = 0;
    while (cfg->exec_argv[words])
        words++;
    char **argv = calloc(words + 6, sizeof *argv);
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

static int report_outcome(const exec_files *ef, int code, const mcz_mc *ctx, size_t n,
                          replay_chan *ch)
{
    char msg[REPLAY_MESSAGE_MAX];
    if (code < 0) {
        snprintf(msg, sizeof msg, "cannot start the command: %s", strerror(errno));
        return report_all(ch, ctx, n, REPLAY_CRASH, msg);
    }
    if ((code > 3 && code < 128) || code > 128 + 64) {
        snprintf(msg, sizeof msg, "command exited with status %d", code);
        return report_all(ch, ctx, n, REPLAY_CRASH, msg);
    }
    if (code >= 128) {
        snprintf(msg, sizeof msg, "command killed by signal %d", code - 128);
        return report_all(ch, ctx, n, REPLAY_CRASH, msg);
    }
    mcz_list l;
    mcz_diag d;
    mcz_diag_clear(&d);
    int have = read_list(ef->list, &l, &d);
    if (have < 0 || (have && !list_fits(ef, &l, ctx, n))) {
        snprintf(msg, sizeof msg, "bad failing list from the command: %s",
                 have < 0 ? d.message : "numbers outside the unit");
        mcz_list_free(&l);
        return report_all(ch, ctx, n, REPLAY_FAILURE, msg);
    }
    int failed = code == 3 ? REPLAY_MISSING : REPLAY_FAILURE;
    snprintf(msg, sizeof msg, "command exited with status %d", code);
    int rc = MCZ_OK;
    bool listed_any = have && mcz_list_size(&l) > 0;
    for (size_t i = 0; i < n && rc == MCZ_OK; i++) {
        bool listed = listed_any ? mcz_list_contains(&l, command_number(ef, ctx, i)) : code != 0;
        int kind = !listed ? REPLAY_SUCCESS : code == 0 ? REPLAY_FAILURE : failed;
        rc = replay_chan_result(ch, ctx[i].number, kind, (uint32_t)ctx[i].size,
                                kind == REPLAY_SUCCESS ? NULL : msg);
    }
    mcz_list_free(&l);
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

int replay_exec_unit(const replay_config *cfg, const char *work_dir, bool first,
                     const mcz_mc *ctx, size_t n, replay_chan *ch)
{
    exec_files ef = {.ranges = NULL};
    snprintf(ef.unit, sizeof ef.unit, "%s/unit.mch", work_dir);
    snprintf(ef.list, sizeof ef.list, "%s/failing.mcl", work_dir);
    snprintf(ef.original, sizeof ef.original, "%s", cfg->plan->path);
    unlink(ef.list);
    if (cfg->exec_original && !(ef.ranges = global_ranges(ctx, n)))
        return MCZ_ENOMEM;
    if (!ef.ranges && write_unit(ef.unit, ctx, n) != MCZ_OK) {
        unlink(ef.unit);
        return report_all(ch, ctx, n, REPLAY_ERROR, "cannot write the unit's temporary .mch");
    }
    char **argv = build_argv(cfg, &ef);
    char why[REPLAY_MESSAGE_MAX] = "";
    int rc = MCZ_ENOMEM;
    if (argv && (rc = replay_chan_start(ch, ctx[0].number, 0, true)) == MCZ_OK) {
        int exec_errno;
        int code = replay_proc_command(argv, &exec_errno);
        fatal_reason(argv, code, exec_errno, first, why, sizeof why);
        if (!why[0])
            rc = report_outcome(&ef, code, ctx, n, ch);
    }
    free(argv);
    free(ef.ranges);
    unlink(ef.unit);
    unlink(ef.list);
    if (why[0])
        replay_chan_fatal(ch, why);
    return rc;
}
