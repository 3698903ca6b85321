/*
 * replay_main.c - bin/mcz-replay: the command line, and what to do with a run's results.
 *
 *   mcz-replay [options] COLLECTION               replay (.mcz or .mch) across worker processes
 *   mcz-replay --merge-results [outputs] FILES... merge --shard runs' --results files
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"
#include "replay_exec.h"
#include "replay_options.h"
#include "tool_spmi.h"
#include "tool.h"

#define EXEC_UNITS_PER_WORKER 4
#define EXEC_PIECES 16 /* units per --exec-batch: the grain commands are sized in */
#define REPORT_LIMIT 20 /* failing contexts listed on stderr; the rest are in --details */

/* ---- Outputs, checked before any work -------------------------------------------------------- */

/* An output is written beside its path and renamed over it at the end of the run (or written
 * in place when it is a stream): checked before any work (tool_output_check). Returns -1 to go
 * on, or the exit code. */
static int output_check(const char *option, const char *path)
{
    char err[TOOL_ERROR_SIZE];
    if (!*path)
        return replay_fail_usage("%s: empty file name", option);
    if (tool_output_check(path, NULL, err) != 0)
        return replay_fail("%s %s", option, err);
    return -1;
}

static int outputs_check(const replay_options *o, char *const *inputs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tool_note_input(inputs[i]);
    return tool_options_each_output(&replay_options_def, o, output_check);
}

/* ---- Results ------------------------------------------------------------------------------- */

/* A collection that cannot be read: -f and --details exist, empty, as superpmi creates them
 * before it reads the input (superpmi.py reads the details after every run). */
static void outputs_empty(const replay_options *o)
{
    mcz_diag d;
    const char *paths[] = {o->fail_list, o->details};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        if (paths[i])
            (void)replay_write_empty(paths[i], &d);
}

/* d's line (mcz_diag_format). */
static int fail_diag(const mcz_diag *d)
{
    char text[REPLAY_MESSAGE_MAX];
    return replay_fail("%s", mcz_diag_format(d, text, sizeof text));
}

/* The error of writing output path. */
static int fail_output(const char *path, const mcz_diag *d)
{
    char text[REPLAY_MESSAGE_MAX];
    tool_where at = {path, -1, -1, -1};
    return replay_fail("%s", tool_where_text(&at, d, text, sizeof text));
}

/* --exec: what the commands' -repeatCount adds to the table's one count per context
 * (replay_exec_output). */
static replay_counts exec_extra;

/* Writes what the table holds: stderr report, -f, --details, --results (when id), summary. */
static int conclude(const replay_options *o, replay_table *t, const replay_shard_id *id)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    /* --exec: superpmi's own lines say what its contexts did (ISSUE, ERROR, MISSING); only
     * what no command judged is told here */
    if (replay_table_finish(t, &d) != MCZ_OK ||
        replay_table_report(t, stderr, REPORT_LIMIT, !tool_info_shown() || o->exec != NULL,
                            o->details != NULL, &d) != MCZ_OK)
        return fail_diag(&d);
    replay_counts c;
    replay_table_count(t, &c);
    c.jitted += exec_extra.jitted;
    c.failed += exec_extra.failed;
    c.missing += exec_extra.missing;
    c.diffs += exec_extra.diffs;
    /* An output that cannot be written fails the run, but the summary of the work done is
     * still printed (a full disk must not hide what the replay found). */
    int failed = -1;
    if (o->fail_list && replay_table_write_mcl(t, o->fail_list, o->details != NULL, &d) != MCZ_OK)
        failed = fail_output(o->fail_list, &d);
    if (o->details && replay_table_write_details(t, o->details, &d) != MCZ_OK)
        failed = fail_output(o->details, &d);
    if (id && o->results && replay_table_write_results(t, id, o->results, &d) != MCZ_OK)
        failed = fail_output(o->results, &d);
    if (tool_info_shown())
        replay_counts_print(&c, stdout);
    return failed >= 0 ? failed : replay_counts_exit_code(&c);
}

static int merge_check(const replay_shard_id *ids, size_t n, const char *const *paths,
                       uint64_t entries)
{
    uint32_t shards = ids[0].n;
    if (n != shards)
        return replay_fail("--merge-results: %zu files for %u shards", n, shards);
    for (size_t i = 0; i < n; i++) {
        if (ids[i].n != shards || strcmp(ids[i].fingerprint, ids[0].fingerprint) ||
            ids[i].plan_selected != ids[0].plan_selected)
            return replay_fail("--merge-results: %s comes from another plan than %s", paths[i],
                        paths[0]);
        for (size_t j = 0; j < i; j++)
            if (ids[j].k == ids[i].k)
                return replay_fail("--merge-results: %s and %s are both shard %u", paths[j], paths[i],
                            ids[i].k);
    }
    if (entries != ids[0].plan_selected)
        return replay_fail("--merge-results: the shards hold %llu contexts, the plan selects %llu",
                    (unsigned long long)entries, (unsigned long long)ids[0].plan_selected);
    return MCZ_OK;
}

static int merge_main(const replay_options *o, char **paths, size_t n)
{
    replay_table t = {.style = REPLAY_STYLE_MCZ, .interleave = o->interleave};
    replay_shard_id *ids = calloc(n, sizeof *ids);
    if (!ids)
        return replay_fail("out of memory");
    int code = REPLAY_EXIT_GENERAL;
    mcz_diag d;
    size_t i = 0;
    for (; i < n; i++) {
        if (replay_table_read_results(&t, paths[i], &ids[i], &d) != MCZ_OK) {
            fail_diag(&d);
            break;
        }
    }
    /* the shards' entries are checked (and counted) by one walk before anything is written */
    if (i == n && replay_table_finish(&t, &d) != MCZ_OK)
        fail_diag(&d);
    else if (i == n && merge_check(ids, n, (const char *const *)paths, t.count) == MCZ_OK) {
        replay_shard_id whole = ids[0];
        whole.k = whole.n = 1;
        code = conclude(o, &t, &whole);
    }
    replay_table_free(&t);
    free(ids);
    return code;
}

/* ---- Replaying ------------------------------------------------------------------------------ */

/* The --exec command as words, and a private temporary directory for the units. */
typedef struct exec_setup {
    char *words;
    char **argv;
    bool words_given; /* argv is the options' --exec-word list */
    char temp_dir[4096];
    bool borrowed; /* temp_dir is the parent's (a worker started again) */
} exec_setup;

static int exec_prepare(const replay_options *o, exec_setup *es)
{
    if (o->exec_words.words) {
        es->argv = o->exec_words.words; /* owned by the options */
        es->words_given = true;
        return -1;
    }
    const char *command = o->exec;
    es->words = strdup(command);
    es->argv = calloc(strlen(command) / 2 + 2, sizeof *es->argv);
    if (!es->words || !es->argv)
        return replay_fail("out of memory");
    size_t n = 0;
    char *save = NULL;
    for (char *w = strtok_r(es->words, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        es->argv[n++] = w;
    if (n == 0)
        return replay_fail_usage("--exec: empty command");
    return -1;
}

/* The run's private temporary directory: the units' files, the workers' details rows. */
static int temp_prepare(exec_setup *es)
{
    const char *inherited = mcz_os_worker_note();
    if (inherited) { /* a worker started again works in its parent's, which removes it */
        snprintf(es->temp_dir, sizeof es->temp_dir, "%s", inherited);
        es->borrowed = true;
        return -1;
    }
    const char *tmp = mcz_os_temp_dir();
    snprintf(es->temp_dir, sizeof es->temp_dir, "%s/mcz-replay.XXXXXX", tmp);
    if (!mcz_os_mkdtemp(es->temp_dir)) {
        es->temp_dir[0] = '\0';
        return replay_fail("%s: cannot create a temporary directory in it: %s", tmp, strerror(errno));
    }
    return -1;
}

static void exec_cleanup(exec_setup *es)
{
    if (es->temp_dir[0] && !es->borrowed)
        tool_remove_tree(es->temp_dir);
    free(es->words);
    if (!es->words_given)
        free(es->argv);
}

static unsigned workers_wanted(const replay_options *o)
{
    return o->workers ? o->workers : (unsigned)mcz_os_cores();
}

static int configure(const replay_options *o, const replay_plan *plan, replay_config *cfg,
                     exec_setup *es)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->style = REPLAY_STYLE_VERIFY;
    cfg->plan = plan;
    cfg->plugin_arg = o->plugin_arg;
    cfg->strict = o->strict;
    if (o->plugin) {
        char msg[REPLAY_MESSAGE_MAX];
        cfg->mode = REPLAY_MODE_PLUGIN;
        cfg->style = REPLAY_STYLE_MCZ;
        if (replay_plugin_load(o->plugin, &cfg->plugin, msg, sizeof msg) != MCZ_OK)
            return replay_fail("%s", msg);
        if (cfg->plugin->diffs && cfg->plugin->diffs(o->plugin_arg ? o->plugin_arg : ""))
            cfg->style = REPLAY_STYLE_SPMI_DIFFS;
    }
    if (o->plugin || o->exec) {
        int rc = temp_prepare(es);
        if (rc >= 0)
            return rc;
        cfg->temp_dir = es->temp_dir;
    }
    if (o->exec_original && (!o->exec || plan->archive))
        return replay_fail_usage("--exec-original needs --exec and an .mch collection");
    /* --exec gives the command each unit as an .mch file of its own, which mcz-replay writes
     * whatever the input is, so a stream or a URL replays as a file does. --exec-original gives
     * the command the collection's own path, and a stream or URL has none it could open: the
     * library's copy of a stream is unlinked (it leaves nothing behind however the run ends), and
     * a second download by the command would defeat reading the input once. */
    if (o->exec_original && (mcz_input_remote(plan->input) || tool_input_is_stream(plan->path)))
        return replay_fail_usage("--exec-original needs an .mch file (%s has no path to give the "
                          "command; without --exec-original each unit is given as a file)",
                          plan->shown);
    if (o->exec) {
        cfg->mode = REPLAY_MODE_EXEC;
        cfg->exec_original = o->exec_original;
        cfg->repro = o->repro;
        int rc = exec_prepare(o, es);
        if (rc >= 0)
            return rc;
        cfg->exec_argv = es->argv;
        char why[REPLAY_MESSAGE_MAX];
        if (exec_args_check(es->argv, &cfg->style, why, sizeof why) != MCZ_OK)
            return replay_fail_usage("%s", why);
        cfg->exec_toc = o->exec_toc && !o->exec_original &&
                        !tool_spmi_find(es->argv, TOOL_SPMI_MATCH_HASH);
        cfg->exec_overlap = workers_wanted(o) > 1;
    }
    return -1;
}

static int outcome_code(const replay_options *o, replay_table *t, const replay_plan *plan,
                        const replay_outcome *out)
{
    if (out->init_failed) {
        replay_fail("the replayer failed to initialize: %s", out->message);
        /* superpmi has written its details header by then, and superpmi.py reads the file
         * after every run */
        replay_table none = {.style = t->style};
        mcz_diag d;
        if (o->details && (replay_table_finish(&none, &d) != MCZ_OK ||
                           replay_table_write_details(&none, o->details, &d) != MCZ_OK))
            fail_output(o->details, &d);
        return REPLAY_EXIT_INIT_FAILED;
    }
    if (out->broken) {
        /* what was judged is reported; the rest is not replayed, and listed nowhere */
        replay_options partial = *o;
        partial.results = NULL;
        conclude(&partial, t, NULL);
        replay_fail("%s", out->message);
        replay_fail("%llu of %llu selected contexts were not replayed",
             (unsigned long long)(plan->selected - t->count),
             (unsigned long long)plan->selected);
        return REPLAY_EXIT_GENERAL;
    }
    if (out->stop_signal) {
        replay_options partial = *o;
        partial.results = NULL; /* a partial run must not pass for a shard's results */
        conclude(&partial, t, NULL);
        replay_fail("interrupted: %llu of %llu selected contexts were not replayed",
             (unsigned long long)(plan->selected - t->count),
             (unsigned long long)plan->selected);
        return 128 + out->stop_signal;
    }
    replay_shard_id id = {plan->shard_k, plan->shard_n, "", plan->plan_selected, t->style};
    snprintf(id.fingerprint, sizeof id.fingerprint, "%s", plan->fingerprint);
    return conclude(o, t, &id);
}

/* The --exec command's -repeatCount N (superpmi's progress counts N compiles a context); 0. */
static uint32_t exec_repeat(char **argv)
{
    size_t i = argv ? tool_spmi_find(argv, TOOL_SPMI_REPEAT_COUNT) : 0;
    uint64_t n;
    return i && argv[i + 1] && replay_parse_count(argv[i + 1], 1, INT32_MAX, &n) ? (uint32_t)n : 0;
}

/*
 * Workers started again (Windows: no fork) open a URL each, and without a cache each would fetch
 * the archive's opening again (footer, index, header, dictionary: a few percent of the archive,
 * growing with its contexts) and share nothing. The run gives them a cache of its own then:
 * MCZ_CACHE_DIR set to a new temporary directory before the parent opens the URL, so the
 * parent's fetches fill it and the workers, inheriting the variable, read the opening from it.
 * A cache the user named is used as it is. Returns -1 (go on), or an exit code; dir is "" when
 * no cache was made.
 */
static int worker_cache_prepare(const char *path, char *dir, size_t cap)
{
    dir[0] = '\0';
    if (mcz_os_workers_fork() || mcz_os_worker_started_again() || !mcz_path_is_url(path) ||
        getenv("MCZ_CACHE_DIR"))
        return -1;
    const char *tmp = mcz_os_temp_dir();
    snprintf(dir, cap, "%s/mcz-replay-cache.XXXXXX", tmp);
    if (!mcz_os_mkdtemp(dir) || mcz_os_setenv("MCZ_CACHE_DIR", dir) != 0) {
        int err = errno;
        if (dir[strlen(dir) - 1] != 'X')
            tool_remove_tree(dir);
        dir[0] = '\0';
        return replay_fail("%s: cannot create a temporary directory in it: %s", tmp, strerror(err));
    }
    return -1;
}

/* The collection at path ("-", a FIFO, a file, a URL) is opened once, here: the workers,
 * forked later, read that input (a stream is read once, by the library; a URL's pieces come
 * through its source), so the program has no stream or URL branch of its own. */
static int replay_main(const replay_options *o, const char *path)
{
    if (!mcz_os_workers_fork() && tool_input_is_stream(path))
        return replay_fail_usage("%s: a stream cannot be replayed here: each worker process reads the "
                          "collection itself (no fork); save it to a file first",
                          tool_display_name(path, false));
    /* A worker started again repeats the parent's setup: its warnings were the parent's. */
    bool shown = tool_info_shown();
    if (mcz_os_worker_started_again())
        tool_set_levels(true, false, false);
    replay_plan plan;
    mcz_diag d;
    /* --exec: units of exec_batch / EXEC_PIECES bytes (as long as every worker gets
     * EXEC_UNITS_PER_WORKER of them: balance), which the run gives its commands in spans of up
     * to exec_batch bytes, sized from what its first commands took (replay_span.c) */
    uint32_t min_units = (uint32_t)(EXEC_UNITS_PER_WORKER * workers_wanted(o));
    uint64_t group = o->exec ? o->exec_batch / EXEC_PIECES : 0;
    int rc = replay_plan_open(&plan, path, &d);
    plan.keep_sizes = o->shard_n != 0; /* what --shard weighs */
    uint64_t mch_group = group, size = mcz_input_size(plan.input);
    if (mch_group > size / min_units)
        mch_group = size / min_units;
    uint64_t unit_size = o->unit_size ? o->unit_size : REPLAY_UNIT_SIZE_DEFAULT;
    if (o->exec && !o->unit_size && mch_group > unit_size)
        unit_size = mch_group;
    if (rc != MCZ_OK || replay_plan_build(&plan, o->select, o->match_hash, unit_size, group,
                                          min_units, o->jit_ee, &d) != MCZ_OK) {
        replay_plan_free(&plan);
        int code = fail_diag(&d);
        outputs_empty(o);
        return code;
    }
    if (o->shard_n && replay_plan_shard(&plan, o->shard_k, o->shard_n, &d) != MCZ_OK) {
        replay_plan_free(&plan);
        return fail_diag(&d);
    }
    if (mcz_input_remote(plan.input) && !o->exec) /* --exec units: grouped by --exec-batch */
        replay_plan_group_remote(&plan, workers_wanted(o));
    replay_config cfg;
    exec_setup es = {NULL, NULL, false, "", false};
    int code = configure(o, &plan, &cfg, &es);
    if (mcz_os_worker_started_again())
        tool_set_levels(true, shown, shown);
    if (code < 0) {
        replay_run_options ro = {.workers = workers_wanted(o),
                                 .timeout = o->timeout, .stride = o->stride,
                                 .progress = !o->quiet && mcz_os_isatty(MCZ_OS_STDERR_FD),
                                 .stats = o->stats,
                                 .failure_limit = o->failure_limit,
                                 .exec_bound = o->exec ? o->exec_batch : 0};
        replay_table t = {.style = cfg.style, .interleave = o->interleave};
        replay_outcome out;
        replay_exec_view view = {&plan, cfg.style, o->fail_list, o->select != NULL,
                                 exec_repeat(cfg.exec_argv), o->interleave, tool_now(),
                                 tool_spmi_verbose(o->verbosity)};
        rc = replay_proc_run(&cfg, &ro, &t, &out);
        if (o->stats)
            replay_table_print_stats(&t, stderr);
        int output_rc = cfg.mode == REPLAY_MODE_EXEC
                        ? replay_exec_output(cfg.temp_dir, &view, stdout, &exec_extra)
                        : MCZ_OK;
        int output_errno = errno;
        if (rc != MCZ_OK && !out.init_failed && !out.broken)
            code = replay_fail("%s", out.message[0] ? out.message : mcz_error_name(rc));
        else if (output_rc != MCZ_OK) /* a fault of the run's own, never a JIT's result */
            code = replay_fail("cannot pass the commands' output on to stdout: %s",
                               strerror(output_errno));
        else
            code = outcome_code(o, &t, &plan, &out);
        if (cfg.mode == REPLAY_MODE_EXEC && !out.init_failed && tool_info_shown())
            replay_exec_trailer(&view, stdout);
        replay_table_free(&t);
    }
    exec_cleanup(&es);
    replay_plan_free(&plan);
    return code;
}

int main(int argc, char **argv)
{
    tool_set_program("mcz-replay");
    /* The same bytes as on Linux, and --exec commands' output passed on unchanged (a worker
     * started again gets it too). Workers' lines are passed on as they come: msvcrt buffers a
     * stderr that is not a console, which C's stderr never is elsewhere. */
    mcz_os_stdio_binary();
    setvbuf(stderr, NULL, _IONBF, 0);
    tool_signals_install(); /* the run itself installs its own (replay_proc.c) */
    if (tool_check_library() != 0)
        return 255;
    if (tool_wants_version(argc, argv)) {
        tool_print_version();
        return 0;
    }
    replay_options o;
    int code = replay_options_parse(argc, argv, &o);
    if (code < 0)
        code = outputs_check(&o, o.operands, o.operand_count);
    char cache[4096] = "";
    if (code < 0 && !o.merge)
        code = worker_cache_prepare(o.operands[0], cache, sizeof cache);
    if (code < 0)
        code = o.merge ? merge_main(&o, o.operands, o.operand_count)
                       : replay_main(&o, o.operands[0]);
    if (cache[0])
        tool_remove_tree(cache);
    replay_options_free(&o);
    /* A closed pipe on stdout (mcz-replay ... | head) is not an error; a full disk is. */
    if (tool_close_stdout() != 0 && code == 0)
        code = 255;
    return code;
}
