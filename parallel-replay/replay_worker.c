/*
 * replay_worker.c - what one worker process does with a work unit: decode it (one archive chunk,
 * or a run of an MCH file, viewed through the input the parent opened), then replay each wanted
 * context in number order, announcing it first so the parent can blame it if this process dies.
 *
 * A unit that cannot be read (a chunk failing its checksum, a damaged MCH container) accounts
 * each of its wanted contexts as an error naming the damage; the run goes on with other units.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay_proc.h"

/* --exec: a unit read and written to its file in a directory of its own, its command started
 * ahead or not yet. */
typedef struct exec_slot {
    char dir[4096];
    mcz_mc *batch;       /* the unit's contexts (their bytes are in the unit file) */
    size_t batch_cap, n;
    replay_exec_file uf;
    bool ahead;          /* written ahead: the unit below, its excluded contexts kept */
    replay_exec_job *job; /* ahead: its command, started while the one before it runs */
    replay_unit unit;
    uint32_t resume;
    replay_filter filter;
    uint32_t *excluded;  /* number and size of each excluded context, to send on its turn */
    size_t excluded_n, excluded_cap;
} exec_slot;

struct replay_worker {
    const replay_config *cfg;
    const replay_plan *plan;
    mcz_reader *reader; /* archive */
    mcz_cursor *cursor;
    const uint8_t *mch; /* MCH: the whole input, a view of the plan's */
    size_t mch_size;
    bool mapped;
    uint64_t dropped;   /* what of it left memory (mcz_input_drop_behind) */
    void *plugin_state;
    replay_stats stats;
    exec_slot slots[2];  /* --exec: the unit being run, and the next one written ahead */
    int current;         /* which slot the unit being run uses */
    replay_worker_peek peek; /* the next request, when it has come already */
    void *peek_arg;
    uint64_t commands;   /* --exec: commands run */
};

static int open_collection(replay_worker *w, char *msg, size_t cap)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    /* The input the parent opened before the fork is this process's too: a stream read once, a
     * remote one fetching through a connection of this process's own (the library's promise). */
    mcz_input *in = w->plan->input;
    if (in && w->plan->archive) {
        w->reader = mcz_reader_open_input(in, &d);
        w->cursor = w->reader ? mcz_cursor_create(w->reader) : NULL;
    } else if (in) {
        w->mch_size = (size_t)mcz_input_size(in);
        w->mapped = mcz_input_view(in, 0, w->mch_size, &w->mch, &d) == MCZ_OK;
    }
    if (w->cursor || w->mapped)
        return MCZ_OK;
    tool_where at = {w->plan->shown, -1, -1, -1};
    tool_where_text(&at, &d, msg, cap);
    return MCZ_EIO;
}

static int open_replayer(replay_worker *w, char *msg, size_t cap)
{
    const replay_config *cfg = w->cfg;
    if (cfg->mode == REPLAY_MODE_PLUGIN) {
        msg[0] = '\0';
        w->plugin_state = cfg->plugin->init(cfg->plugin_arg ? cfg->plugin_arg : "", msg, cap);
        if (!w->plugin_state) {
            if (!msg[0])
                snprintf(msg, cap, "plugin %s: init failed", cfg->plugin->name);
            return MCZ_EINVAL;
        }
    }
    for (int i = 0; i < 2 && cfg->mode == REPLAY_MODE_EXEC; i++) {
        snprintf(w->slots[i].dir, sizeof w->slots[i].dir, "%s/w%ld%s", cfg->temp_dir,
                 mcz_os_process_id(), i ? ".next" : "");
        if (mcz_os_mkdir_private(w->slots[i].dir) != 0) {
            snprintf(msg, cap, "%s: cannot create it: %s", w->slots[i].dir, strerror(errno));
            return MCZ_EIO;
        }
    }
    return MCZ_OK;
}

int replay_worker_open(const replay_config *cfg, replay_worker **out, char *msg, size_t cap)
{
    *out = NULL;
    replay_worker *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(msg, cap, "out of memory");
        return MCZ_ENOMEM;
    }
    w->cfg = cfg;
    w->plan = cfg->plan;
    int rc = open_collection(w, msg, cap);
    if (rc == MCZ_OK)
        rc = open_replayer(w, msg, cap);
    if (rc != MCZ_OK) {
        replay_worker_close(w, NULL);
        return rc;
    }
    *out = w;
    return MCZ_OK;
}

void replay_worker_stats(const replay_worker *w, replay_stats *stats)
{
    *stats = w->stats;
}

void replay_worker_close(replay_worker *w, replay_stats *stats)
{
    if (!w)
        return;
    if (stats)
        *stats = w->stats;
    if (w->plugin_state && w->cfg->plugin->finish)
        w->cfg->plugin->finish(w->plugin_state);
    for (int i = 0; i < 2; i++) {
        exec_slot *sl = &w->slots[i];
        replay_exec_drop(sl->job);
        replay_exec_file_end_unused(&sl->uf);
        if (sl->dir[0]) {
            char path[4200];
            snprintf(path, sizeof path, "%s/unit.mch", sl->dir);
            mcz_os_unlink(path);
            mcz_os_rmdir(sl->dir);
        }
        free(sl->batch);
        free(sl->excluded);
    }
    mcz_cursor_free(w->cursor);
    mcz_reader_close(w->reader);
    free(w);
}

/* ---- Reading a unit ---------------------------------------------------------------------- */

/* Where the next context of an MCH unit is; the whole walk stays inside this process's map. */
typedef struct unit_walk {
    replay_worker *w;
    const replay_unit *u;
    uint64_t pos;
    uint32_t number; /* of the context read last */
} unit_walk;

/* Decodes the unit (archive: its chunk, checksum verified by the cursor). */
static int unit_load(replay_worker *w, const replay_unit *u, unit_walk *walk, mcz_diag *d)
{
    *walk = (unit_walk){.w = w, .u = u, .pos = u->offset, .number = u->first - 1};
    w->stats.units++;
    if (!w->plan->archive) {
        w->stats.bytes_read += u->raw_bytes;
        /* units come in file order */
        mcz_input_drop_behind(w->plan->input, &w->dropped, u->offset);
        return MCZ_OK;
    }
    /* a remote archive: the unit's chunks in one request (nothing for a file) */
    int rc = mcz_reader_prefetch(w->reader, u->chunk, u->chunks, d);
    if (rc == MCZ_OK)
        rc = mcz_cursor_chunk(w->cursor, u->chunk, NULL, NULL, d);
    if (rc == MCZ_OK) {
        w->stats.bytes_read += u->stored_bytes;
        w->stats.bytes_decoded += u->raw_bytes;
    }
    return rc;
}

/* The TOC's offset for number, or -1 when there is no TOC. */
static int64_t toc_offset(const replay_plan *p, uint32_t number)
{
    return p->toc && number >= 1 && number <= p->toc_count ? p->toc[number - 1].offset : -1;
}

/* The next context of the unit, in order. */
static int unit_next(unit_walk *walk, mcz_mc *mc, mcz_diag *d)
{
    replay_worker *w = walk->w;
    if (w->plan->archive)
        return mcz_cursor_get(w->cursor, ++walk->number, mc, d);
    int rc = mcz_mch_next(w->mch, w->mch_size, &walk->pos, &walk->number, mc, d);
    if (rc == 0)
        return mcz_diag_set(d, MCZ_ETRUNCATED, mcz_at_offset((int64_t)walk->pos),
                            mcz_in_context(walk->number + 1), "the file ends before this context");
    if (rc < 0)
        return rc;
    int64_t expected = toc_offset(w->plan, mc->number);
    if (expected >= 0 && (uint64_t)expected != mc->offset)
        return mcz_diag_set(d, MCZ_ECORRUPT, mcz_at_offset((int64_t)mc->offset),
                            mcz_in_context(mc->number),
                            "the table of contents puts this context at %lld", (long long)expected);
    return MCZ_OK;
}

/* Accounts every wanted context of the unit from `from` on as unreadable. An archive's damage
 * is located by its chunk (numbers in the diagnostic may come from the damaged index), an MCH
 * file's by the walk's own context and offset. */
static int report_unreadable(replay_worker *w, const replay_unit *u, uint32_t from,
                             replay_filter f, const mcz_diag *d, replay_chan *ch)
{
    bool archive = w->plan->archive;
    tool_where at = {w->plan->shown, archive ? (int64_t)u->chunk : -1,
                     archive ? -1 : d->context, archive ? -1 : d->offset};
    char msg[REPLAY_MESSAGE_MAX];
    replay_progress_clear();
    tool_error("%s", tool_where_text(&at, d, msg, sizeof msg));
    at.path = NULL; /* each context's own message: the line above named the file */
    for (uint32_t n = from; n - u->first < u->count; n++) {
        if (!replay_plan_wants(w->plan, f, n))
            continue;
        tool_where own = at; /* a line of context n does not repeat its number */
        own.context = at.context == n ? -1 : at.context;
        tool_where_text(&own, d, msg, sizeof msg);
        if (replay_chan_result(ch, n, REPLAY_ERROR, 0, msg) != MCZ_OK)
            return MCZ_EIO;
    }
    return MCZ_OK;
}

/* ---- Identity and exclusion ---------------------------------------------------------------- */

/* The identity stored for a context (archive index, or the .mct of an .mch). Unknown when
 * nothing is stored, e.g. an archive written without hashes (MCZ_EMISSING): the verify replayer
 * then skips the comparison, and exclusion computes the identity. */
static void stored_identity(const replay_worker *w, uint32_t number, replay_identity *id)
{
    memset(id, 0, sizeof *id);
    if (w->reader) {
        mcz_hash128 h;
        if (mcz_reader_hashes(w->reader, number, &h, NULL) != MCZ_OK)
            return;
        id->known = true;
        if (!mcz_hash_is_zero(&h))
            mcz_hash_hex(&h, id->hex);
    } else if (w->plan->toc && toc_offset(w->plan, number) >= 0) {
        id->known = true;
        memcpy(id->hex, w->plan->toc[number - 1].hash, sizeof id->hex);
        id->hex[32] = '\0';
    }
}

static bool excluded(const replay_worker *w, const mcz_mc *mc)
{
    if (!w->plan->excluded_count)
        return false;
    replay_identity id;
    stored_identity(w, mc->number, &id);
    if (!id.known) {
        mcz_hash128 h;
        if (mcz_mc_identity_hash(w->plan->jit_ee, mc, false, &h, NULL) != MCZ_OK)
            return false;
        mcz_hash_hex(&h, id.hex);
    }
    return replay_plan_excluded(w->plan, id.hex);
}

/* ---- Replaying ------------------------------------------------------------------------------ */

static int replay_one(replay_worker *w, const mcz_mc *mc, char *msg, size_t cap)
{
    if (w->cfg->mode == REPLAY_MODE_PLUGIN)
        return replay_plugin_context(w->cfg->plugin, w->plugin_state, mc, msg, cap);
    replay_identity id;
    stored_identity(w, mc->number, &id);
    return replay_verify_context(w->plan, mc, &id, w->cfg->strict, msg, cap);
}

static int context_each(replay_worker *w, const mcz_mc *mc, replay_chan *ch)
{
    char msg[REPLAY_MESSAGE_MAX] = "";
    uint32_t size = (uint32_t)mc->size;
    if (excluded(w, mc))
        return replay_chan_result(ch, mc->number, REPLAY_EXCLUDED, size, NULL);
    if (replay_chan_start(ch, mc->number, size, false) != MCZ_OK)
        return MCZ_EIO;
    w->stats.contexts++;
    if (w->cfg->mode == REPLAY_MODE_PLUGIN && w->cfg->style == REPLAY_STYLE_SPMI_DIFFS) {
        char row[REPLAY_MESSAGE_MAX];
        bool miss;
        int kind = replay_plugin_diff(w->cfg->plugin, w->plugin_state, mc, row, sizeof row,
                                      &miss, msg, sizeof msg);
        if (kind != REPLAY_SUCCESS && kind != REPLAY_DIFF && msg[0])
            tool_warn("context %u: %s", mc->number, msg); /* a row holds no message */
        return replay_chan_rows(ch, mc->number, kind, miss, size,
                                replay_default_header(REPLAY_STYLE_SPMI_DIFFS), row);
    }
    int kind = replay_one(w, mc, msg, sizeof msg);
    return replay_chan_result(ch, mc->number, kind, size, msg[0] ? msg : NULL);
}

void replay_worker_set_peek(replay_worker *w, replay_worker_peek peek, void *arg)
{
    w->peek = peek;
    w->peek_arg = arg;
}

/* Keeps the context's number, size and offset; its bytes go to the unit file. */
static int batch_add(exec_slot *sl, const mcz_mc *mc)
{
    if (replay_grow(&sl->batch, &sl->batch_cap, sl->n, sizeof *sl->batch) != MCZ_OK)
        return MCZ_ENOMEM;
    replay_exec_file_add(&sl->uf, mc);
    sl->batch[sl->n] = *mc;
    sl->batch[sl->n++].bytes = NULL;
    return MCZ_OK;
}

/* An excluded context: sent now, or (written ahead) kept until its unit's turn. */
static int exclude(exec_slot *sl, const mcz_mc *mc, replay_chan *ch)
{
    if (!sl->ahead)
        return replay_chan_result(ch, mc->number, REPLAY_EXCLUDED, (uint32_t)mc->size, NULL);
    if (replay_grow(&sl->excluded, &sl->excluded_cap, sl->excluded_n + 1, 2 * sizeof(uint32_t)) !=
        MCZ_OK)
        return MCZ_ENOMEM;
    sl->excluded[2 * sl->excluded_n] = mc->number;
    sl->excluded[2 * sl->excluded_n++ + 1] = (uint32_t)mc->size;
    return MCZ_OK;
}

/* Reads the unit's wanted contexts into the slot: their bytes into its unit file, the excluded
 * ones sent (or kept, ahead). A unit that cannot be read is reported (not ahead: then
 * MCZ_EIO, and it is read again on its turn). */
static int exec_walk(replay_worker *w, exec_slot *sl, const replay_unit *u, uint32_t resume,
                     replay_filter f, replay_chan *ch)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    unit_walk walk;
    sl->n = sl->excluded_n = 0;
    sl->unit = *u;
    sl->resume = resume;
    sl->filter = f;
    if (unit_load(w, u, &walk, &d) != MCZ_OK)
        return sl->ahead ? MCZ_EIO : report_unreadable(w, u, resume, f, &d, ch);
    replay_exec_file_begin(w->cfg, sl->dir, &sl->uf);
    while (walk.number + 1 - u->first < u->count) {
        mcz_mc mc;
        uint32_t next = walk.number + 1;
        if (unit_next(&walk, &mc, &d) != MCZ_OK) {
            if (sl->ahead)
                return MCZ_EIO;
            int rc = report_unreadable(w, u, next > resume ? next : resume, f, &d, ch);
            if (rc != MCZ_OK)
                return rc;
            break;
        }
        if (mc.number < resume || !replay_plan_wants(w->plan, f, mc.number))
            continue;
        int rc = excluded(w, &mc) ? exclude(sl, &mc, ch) : batch_add(sl, &mc);
        if (rc != MCZ_OK)
            return rc;
    }
    replay_exec_file_flush(&sl->uf); /* written now, while a command runs, not at its turn */
    return MCZ_OK;
}

/* The slot written ahead for this very request, or none. */
static exec_slot *ahead_for(replay_worker *w, const replay_unit *u, uint32_t resume,
                            replay_filter f)
{
    exec_slot *sl = &w->slots[1 - w->current];
    bool same = sl->ahead && sl->unit.first == u->first && sl->unit.count == u->count &&
                sl->resume == resume && sl->filter.stride == f.stride && sl->filter.slot == f.slot;
    return same ? sl : NULL;
}

/* The next request, when it has come, read and written ahead in the other slot while the
 * command runs, and its command started at once: two commands in flight, the next one's start
 * (a process, a JIT loaded: time a core may idle) under the current one's work. Always, not
 * when a start looks dear: a worker's commands share the cores with the other workers', so
 * what one took on its own tells the start apart from the load only now and then, and a rule
 * on it flipped from command to command (bench/FIGURES.md §12); the cost is one more replayer
 * process a worker, its unit file written ahead in any case. Nothing is sent for it until its
 * turn. Never with one worker (-j 1: one command at a time, as superpmi without -p, so what a
 * JIT writes to one file stays in context order), nor while the worker's first command runs:
 * that one tells whether superpmi reads the unit's table and whether its JIT loads at all
 * (exit 254 stops the run) before any other starts. */
static void write_ahead(replay_worker *w)
{
    replay_unit next;
    uint32_t resume;
    replay_filter f;
    exec_slot *sl = &w->slots[1 - w->current];
    sl->ahead = false;
    if (!w->peek || !w->peek(w->peek_arg, &next, &resume, &f))
        return;
    sl->ahead = true;
    if (exec_walk(w, sl, &next, resume, f, NULL) != MCZ_OK) {
        replay_exec_file_end_unused(&sl->uf);
        sl->ahead = false;
        return;
    }
    if (w->cfg->exec_overlap && w->commands > 0 && sl->n > 0) {
        sl->job = replay_exec_spawn(w->cfg, sl->dir, &sl->uf, sl->batch, sl->n);
        sl->ahead = sl->job != NULL; /* out of memory: read again on its turn */
    }
}

/* --exec: the unit's command runs while the next unit is read and written. */
static int exec_unit(replay_worker *w, const replay_unit *u, uint32_t resume, replay_filter f,
                     replay_chan *ch)
{
    exec_slot *sl = ahead_for(w, u, resume, f);
    int rc = MCZ_OK;
    /* a request is peeked only to be the next one taken: a command started ahead has its turn */
    assert(sl || !w->slots[1 - w->current].job);
    if (sl) {
        w->current = 1 - w->current;
        for (size_t i = 0; i < sl->excluded_n && rc == MCZ_OK; i++)
            rc = replay_chan_result(ch, sl->excluded[2 * i], REPLAY_EXCLUDED,
                                    sl->excluded[2 * i + 1], NULL);
    } else {
        sl = &w->slots[w->current];
        w->slots[1 - w->current].ahead = false;
        replay_exec_file_end_unused(&w->slots[1 - w->current].uf);
        rc = exec_walk(w, sl, u, resume, f, ch);
    }
    sl->ahead = false;
    replay_exec_job *job = sl->job;
    sl->job = NULL;
    if (rc != MCZ_OK || sl->n == 0) {
        replay_exec_drop(job);
        replay_exec_file_end_unused(&sl->uf);
        return rc;
    }
    w->stats.contexts += sl->n;
    bool alone = job == NULL;
    double t0 = tool_now();
    if (job)
        rc = replay_exec_announce(job, ch);
    else if (!(job = replay_exec_launch(w->cfg, sl->dir, &sl->uf, sl->batch, sl->n, ch)))
        return MCZ_ENOMEM;
    if (rc != MCZ_OK) {
        replay_exec_drop(job);
        return rc;
    }
    write_ahead(w);
    rc = replay_exec_finish(job, w->commands++ == 0, ch);
    if (alone) {
        w->stats.alone_contexts += sl->n;
        w->stats.alone_seconds += tool_now() - t0;
    }
    return rc;
}

int replay_worker_unit(replay_worker *w, const replay_unit *u, uint32_t resume, replay_filter f,
                       replay_chan *ch)
{
    if (w->cfg->mode == REPLAY_MODE_EXEC)
        return exec_unit(w, u, resume, f, ch);
    mcz_diag d;
    mcz_diag_clear(&d);
    unit_walk walk;
    if (unit_load(w, u, &walk, &d) != MCZ_OK)
        return report_unreadable(w, u, resume, f, &d, ch);
    while (walk.number + 1 - u->first < u->count) {
        mcz_mc mc;
        uint32_t next = walk.number + 1;
        if (unit_next(&walk, &mc, &d) != MCZ_OK)
            return report_unreadable(w, u, next > resume ? next : resume, f, &d, ch);
        if (mc.number < resume || !replay_plan_wants(w->plan, f, mc.number))
            continue;
        int rc = context_each(w, &mc, ch);
        if (rc != MCZ_OK)
            return rc;
    }
    return MCZ_OK;
}
