/*
 * replay_sched.c - the scheduler of mcz-replay: which worker replays which work unit, what each
 * context's result is, and which context a dead worker is blamed for. Processes are the pool's
 * (replay_proc.c), records the protocol's (replay_record.c).
 *
 * Each worker has its current unit and one queued behind it (so it never waits for the parent);
 * the rest stay with the parent for whichever worker frees up first, so a slow unit never holds
 * others back. Each worker opens its reader after the fork, over the input the parent opened
 * once (no zstd context, FILE or reader crosses a fork; the input's mapping does). Requests are
 * 20 bytes on the worker's request pipe (u32 unit, u32 resume, u32 stride, u32 slot, u32 span:
 * --exec gives a command `span` consecutive units, as one unit, replay_span.c); closing it
 * means "no more work".
 *
 * Because a worker announces each context before replaying it, the parent knows which context
 * was in flight when the worker died or overran --timeout: that context is accounted as crashed
 * or timed out, and a fresh worker resumes the unit just after it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay_proc.h"

#define REQUEST_SIZE 20u
#define KILL_SIGNAL 9 /* SIGKILL's number on every POSIX system (Windows has none) */
#define PROGRESS_TICK_MS 250
#define SCAN_S 0.010 /* how often the rings are looked at while --timeout runs */

/* The context a worker was busy with when it died or was killed: announced, or (whole: the
 * announcement covered the rest of the unit). */
typedef struct victim {
    int kind; /* REPLAY_CRASH or REPLAY_TIMEOUT */
    uint32_t number;
    uint32_t size;
    bool whole;
} victim;

typedef struct slot {
    bool ready;        /* READY seen from the current worker */
    long unit;         /* unit being worked on, -1: none */
    uint32_t span;     /* units from it on that the worker works on as one (--exec) */
    replay_unit merged; /* those units as one */
    long queued;       /* unit requested after it (so the worker never waits), -1: none */
    uint32_t queued_span;
    uint32_t last_span; /* of the worker's last command (replay_span_next) */
    uint32_t resume;   /* where the current worker started in the unit */
    uint8_t *reported; /* per context of the unit: accounted */
    uint32_t high;     /* highest number of the unit accounted so far, 0: none */
    uint32_t inflight; /* announced context, 0: none */
    uint32_t inflight_size;
    bool inflight_unit;
    victim overdue;    /* the victim of a worker killed for overrunning --timeout */
    replay_filter filter;
    size_t stride_next;
    replay_record_reader records;
    replay_stats stats;
    int rows_fd;       /* the slot's rows file, opened when first needed; -1: not yet */
    bool columns_ok;   /* the rows coming fit the table's columns */
} slot;

typedef struct run {
    const replay_config *cfg;
    const replay_plan *plan;
    const replay_run_options *o;
    replay_table *table;
    replay_outcome *outcome;
    slot *slots;
    size_t nslots;
    size_t next_unit;
    uint64_t done;
    bool stopping;
    bool columns_warned;
    uint64_t failures;
    int error;
    replay_span_model spans; /* --exec: what the commands took */
} run;

static size_t slot_index(const run *r, const slot *s) { return (size_t)(s - r->slots); }

static void fatal(run *r, int error, const char *what)
{
    if (!r->stopping) {
        snprintf(r->outcome->message, sizeof r->outcome->message, "%s", what);
        r->error = error;
    }
    r->stopping = true;
    replay_pool_kill_all();
}

/* What a plan is, as READY carries it: a worker started again (Windows) plans the collection
 * itself, and must have found the one its parent planned (the file may change meanwhile). */
static void plan_identity(const replay_plan *p, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s units=%zu", p->fingerprint, p->unit_count);
}

/* ---- Worker side ------------------------------------------------------------------------------ */

/* Units first .. first + span - 1 of the plan as one: consecutive contexts (the scheduler spans
 * adjacent units only), their chunks or file bytes one run. */
static void units_merge(const replay_plan *p, uint32_t first, uint32_t span, replay_unit *out)
{
    const replay_unit *a = &p->units[first], *z = &p->units[first + span - 1];
    *out = *a;
    out->count = z->first + z->count - a->first;
    out->chunks = z->chunk + z->chunks - a->chunk;
    for (uint32_t i = 1; i < span; i++) {
        out->selected += p->units[first + i].selected;
        out->raw_bytes += p->units[first + i].raw_bytes;
        out->stored_bytes += p->units[first + i].stored_bytes;
    }
}

/* A unit the worker could not account for (its rows file cannot be written, memory): the run
 * stops with the errno and the file that failed, the unit's contexts not replayed. */
static _Noreturn void worker_broken(const replay_config *cfg, size_t index, const replay_unit *u,
                                    replay_chan *ch)
{
    int err = errno;
    char path[4200] = "", msg[REPLAY_MESSAGE_MAX];
    if (cfg->temp_dir)
        replay_rows_path(cfg->temp_dir, index, path, sizeof path);
    int n = snprintf(msg, sizeof msg, "contexts %u-%u: cannot account for them%s%s: %s",
                     u->first, u->first + u->count - 1, path[0] ? " in " : "", path,
                     err ? strerror(err) : "out of memory");
    if (n >= (int)sizeof msg) /* a path that long: what fits is said, cut */
        memcpy(msg + sizeof msg - 4, "...", 4);
    replay_chan_broken(ch, msg);
}

/* The worker's requests: read one by one, one of them possibly read ahead (peek_request). */
typedef struct requests {
    int fd;
    const replay_plan *plan;
    bool stashed;
    uint32_t req[REQUEST_SIZE / 4];
} requests;

static bool request_valid(const replay_plan *p, const uint32_t *req)
{
    return req[4] != 0 && req[0] < p->unit_count && req[4] <= p->unit_count - req[0];
}

/* The next request: the one read ahead, else one read now (1), 0 at the end, -1 on error. */
static int next_request(requests *q, uint32_t *req)
{
    if (q->stashed) {
        q->stashed = false;
        memcpy(req, q->req, sizeof q->req);
        return 1;
    }
    return replay_read_full(q->fd, req, REQUEST_SIZE);
}

/* replay_worker_peek: the next request, when it comes within PEEK_WAIT_MS (the parent sends it
 * when the unit before ends, so it may be on its way as the command starts; a request is
 * written whole, far below a pipe's atomic write size). */
#define PEEK_WAIT_MS 200
static int peek_request(void *arg, replay_unit *u, uint32_t *resume, replay_filter *f)
{
    requests *q = arg;
    if (q->stashed || !mcz_os_readable(q->fd, PEEK_WAIT_MS) ||
        replay_read_full(q->fd, q->req, REQUEST_SIZE) != 1 || !request_valid(q->plan, q->req))
        return 0;
    q->stashed = true;
    units_merge(q->plan, q->req[0], q->req[4], u);
    *resume = q->req[1];
    *f = (replay_filter){q->req[2], q->req[3]};
    return 1;
}

static _Noreturn void worker_main(void *arg, size_t index, int req_fd, replay_chan *ch)
{
    const replay_config *cfg = ((run *)arg)->cfg;
    replay_worker *w;
    char msg[REPLAY_MESSAGE_MAX];
    if (cfg->temp_dir) {
        char path[4200];
        replay_rows_path(cfg->temp_dir, index, path, sizeof path);
        ch->rows_fd =
            mcz_os_open(path, MCZ_OS_OPEN_WRITE | MCZ_OS_OPEN_CREATE | MCZ_OS_OPEN_APPEND, 0600);
    }
    if (replay_worker_open(cfg, &w, msg, sizeof msg) != MCZ_OK)
        replay_chan_fatal(ch, msg);
    char planned[REPLAY_MESSAGE_MAX];
    plan_identity(cfg->plan, planned, sizeof planned);
    replay_chan_send(ch, REPLAY_REC_READY, 0, 0, 0, planned, strlen(planned));
    uint32_t req[REQUEST_SIZE / 4];
    int rc;
    requests q = {req_fd, cfg->plan, false, {0}};
    replay_worker_set_peek(w, peek_request, &q);
    while ((rc = next_request(&q, req)) == 1) {
        replay_filter f = {req[2], req[3]};
        replay_unit u;
        if (!request_valid(cfg->plan, req))
            _Exit(REPLAY_EXIT_GENERAL);
        units_merge(cfg->plan, req[0], req[4], &u);
        errno = 0;
        replay_stats before;
        replay_worker_stats(w, &before);
        if (replay_worker_unit(w, &u, req[1], f, ch) != MCZ_OK)
            worker_broken(cfg, index, &u, ch);
        fflush(NULL);
        /* what its command took, and how many contexts it replayed, when it ran alone (0 0
         * else: a command started ahead shares its time with the one before): the run sizes
         * commands by it */
        replay_stats after;
        replay_worker_stats(w, &after);
        char took[64];
        int len = snprintf(took, sizeof took, "%.6f %llu",
                           after.alone_seconds - before.alone_seconds,
                           (unsigned long long)(after.alone_contexts - before.alone_contexts));
        replay_chan_send(ch, REPLAY_REC_UNIT_DONE, 0, req[0], 0, took, (size_t)len);
    }
    replay_stats st;
    replay_worker_close(w, &st);
    fflush(NULL);
    uint64_t figures[4] = {st.units, st.contexts, st.bytes_read, st.bytes_decoded};
    replay_chan_send(ch, REPLAY_REC_STATS, 0, 0, 0, figures, sizeof figures);
    _Exit(rc == 0 ? 0 : REPLAY_EXIT_GENERAL);
}

/* ---- Units handed out ------------------------------------------------------------------------ */

static const replay_unit *slot_unit(const run *r, const slot *s)
{
    (void)r;
    return s->unit >= 0 ? &s->merged : NULL;
}

static void request(const run *r, slot *s, long unit, uint32_t resume, uint32_t span)
{
    uint32_t req[REQUEST_SIZE / 4] = {(uint32_t)unit, resume, s->filter.stride, s->filter.slot,
                                      span};
    replay_pool_send(slot_index(r, s), req, sizeof req);
}

/* Makes unit the current one; send: request it (false when it was requested as the queued
 * one already). */
static void begin_unit(run *r, slot *s, long unit, uint32_t span, bool send)
{
    units_merge(r->plan, (uint32_t)unit, span, &s->merged);
    const replay_unit *u = &s->merged;
    free(s->reported);
    s->reported = calloc(u->count, 1);
    if (!s->reported) {
        fatal(r, MCZ_ENOMEM, "out of memory");
        return;
    }
    s->unit = unit;
    s->span = span;
    s->resume = u->first;
    s->high = 0;
    if (send)
        request(r, s, unit, u->first, span);
}

/* The next unit for the slot, and how many from it on its command gets (*span). */
static long take_unit(run *r, slot *s, uint32_t *span)
{
    *span = 1;
    if (r->outcome->limit_reached)
        return -1;
    size_t *next = r->o->stride ? &s->stride_next : &r->next_unit;
    if (*next >= r->plan->unit_count)
        return -1;
    if (!r->o->stride)
        *span = replay_span_next(&r->spans, r->plan, *next, s->last_span, r->o->exec_bound,
                                 r->nslots);
    s->last_span = *span;
    long unit = (long)*next;
    *next += *span;
    return unit;
}

static bool work_left(const run *r, const slot *s)
{
    size_t next = r->o->stride ? s->stride_next : r->next_unit;
    return next < r->plan->unit_count;
}

/* Keeps a unit queued behind the current one; when none is left, closes the request pipe so
 * the worker ends after the units it has. */
static void queue_next(run *r, slot *s)
{
    if (s->queued >= 0 || r->stopping)
        return;
    uint32_t span;
    long unit = take_unit(r, s, &span);
    if (unit < 0) {
        replay_pool_close_input(slot_index(r, s));
        return;
    }
    s->queued = unit;
    s->queued_span = span;
    request(r, s, unit, r->plan->units[unit].first, span);
}

/* A worker without a current unit: the queued one becomes current, or a new one is taken. */
static void assign(run *r, slot *s)
{
    bool requested = s->queued >= 0;
    uint32_t span = s->queued_span;
    long unit = requested ? s->queued : r->stopping ? -1 : take_unit(r, s, &span);
    s->queued = -1;
    if (unit < 0) {
        s->unit = -1;
        replay_pool_close_input(slot_index(r, s));
        return;
    }
    begin_unit(r, s, unit, span, !requested);
    queue_next(r, s);
}

/* A new worker has been told nothing: repeat the current unit (from where its predecessor
 * stopped) and the queued one, or start afresh. */
static void on_ready(run *r, slot *s)
{
    s->ready = true;
    long queued = s->queued; /* requested from a predecessor, if any */
    s->queued = -1;
    if (s->unit >= 0) {
        request(r, s, s->unit, s->resume, s->span);
        if (queued >= 0) {
            s->queued = queued;
            request(r, s, queued, r->plan->units[queued].first, s->queued_span);
        }
        queue_next(r, s);
    } else if (queued >= 0) {
        begin_unit(r, s, queued, s->queued_span, true);
        queue_next(r, s);
    } else {
        assign(r, s);
    }
}

/* ---- Results accounted ----------------------------------------------------------------------- */

/* text: the context's message, or (row) its details rows; miss: a JIT missed data. */
static void account_as(run *r, slot *s, uint32_t number, int kind, bool miss, uint32_t size,
                       const char *text, bool row)
{
    const replay_unit *u = slot_unit(r, s);
    if (!u || number < u->first || number - u->first >= u->count ||
        s->reported[number - u->first] || kind <= REPLAY_NONE || kind >= REPLAY_KIND_COUNT) {
        fatal(r, MCZ_ECORRUPT, "a worker reported a context it was not given");
        return;
    }
    s->reported[number - u->first] = 1;
    if (kind == REPLAY_FAILURE && ++r->failures == r->o->failure_limit) {
        /* as superpmi's -failureLimit, but over the whole run, not per process */
        r->outcome->limit_reached = true;
        replay_progress_clear();
        fprintf(stderr, "ERROR: More than %llu methods failed. Skip compiling remaining "
                "methods.\n", (unsigned long long)r->o->failure_limit);
    }
    if (number > s->high)
        s->high = number;
    int rc = row ? replay_table_add_row(r->table, number, kind, miss, size, text)
                 : replay_table_add(r->table, number, kind, size, text);
    if (rc != MCZ_OK)
        fatal(r, rc, rc == MCZ_ENOMEM ? "out of memory" : r->table->error);
    r->done++;
}

static void account(run *r, slot *s, uint32_t number, int kind, uint32_t size, const char *msg,
                    bool row)
{
    account_as(r, s, number, kind, kind == REPLAY_MISSING, size, msg, row);
}

/* The text a worker wrote to its rows file where `where` ("OFFSET LENGTH") says; malloc'ed,
 * NULL (with fatal) when it cannot be read. */
static char *rows_take(run *r, slot *s, const char *where)
{
    uint64_t at;
    size_t len;
    if (!replay_rows_where(where, &at, &len)) {
        fatal(r, MCZ_ECORRUPT, "a worker sent a bad rows record");
        return NULL;
    }
    if (s->rows_fd < 0) {
        char path[4200];
        replay_rows_path(r->cfg->temp_dir, slot_index(r, s), path, sizeof path);
        s->rows_fd = mcz_os_open(path, MCZ_OS_OPEN_READ, 0);
    }
    char *text = malloc(len + 1);
    if (!text || s->rows_fd < 0 ||
        mcz_os_pread(s->rows_fd, text, len, (int64_t)at) != (ptrdiff_t)len) {
        free(text);
        fatal(r, MCZ_EIO, "cannot read the details rows its worker wrote");
        return NULL;
    }
    text[len] = '\0';
    return text;
}

/* COLUMNS: the header of the rows the slot's worker sends next. The first becomes the
 * table's; a unit whose header differs (another superpmi?) has its rows left out, said once. */
static void on_columns(run *r, slot *s, const char *where)
{
    char *header = rows_take(r, s, where);
    if (!header)
        return;
    char why[REPLAY_MESSAGE_MAX];
    size_t len = strlen(header);
    replay_columns *c = &r->table->columns;
    s->columns_ok = replay_columns_same(c, header, len) ||
                    (!c->header && replay_columns_set(c, header, len, r->table->style, why,
                                                      sizeof why) == MCZ_OK);
    if (!s->columns_ok && !r->columns_warned) {
        r->columns_warned = true;
        replay_progress_clear();
        tool_warn("units wrote details with other columns than the first unit's; their rows "
                  "are left out of --details (their results are kept)");
    }
    free(header);
}

static void on_result(run *r, slot *s, const replay_record *rec)
{
    int kind = rec->kind & REPLAY_REC_KIND_MASK;
    bool miss = (rec->kind & REPLAY_REC_MISS) != 0 || kind == REPLAY_MISSING;
    if (!(rec->kind & REPLAY_REC_ROW)) {
        account_as(r, s, rec->number, kind, miss, rec->size, rec->text_len ? rec->text : NULL,
                   false);
        return;
    }
    char *rows = rows_take(r, s, rec->text);
    if (rows)
        account_as(r, s, rec->number, kind, miss, rec->size, s->columns_ok ? rows : NULL,
                   s->columns_ok);
    free(rows);
}

/* First wanted, unreported context of the slot's unit numbered >= from; 0 when none. */
static uint32_t first_open(const run *r, const slot *s, uint32_t from)
{
    const replay_unit *u = slot_unit(r, s);
    for (uint32_t n = from; u && n - u->first < u->count; n++)
        if (!s->reported[n - u->first] && replay_plan_wants(r->plan, s->filter, n))
            return n;
    return 0;
}

static void unit_done(run *r, slot *s, uint32_t unit, const char *took)
{
    if (s->unit < 0 || (uint32_t)s->unit != unit) {
        fatal(r, MCZ_ECORRUPT, "a worker finished a unit it was not given");
        return;
    }
    double seconds;
    unsigned long long contexts;
    if (s->resume == s->merged.first && sscanf(took, "%lf %llu", &seconds, &contexts) == 2)
        replay_span_sample(&r->spans, contexts, seconds);
    for (uint32_t n = first_open(r, s, slot_unit(r, s)->first); n; n = first_open(r, s, n + 1))
        account(r, s, n, REPLAY_ERROR, 0, "not reported by its worker", false);
    free(s->reported);
    s->reported = NULL;
    s->inflight = 0;
    replay_pool_deadline(slot_index(r, s), 0);
    s->unit = -1;
    assign(r, s);
}

typedef struct record_target {
    run *r;
    slot *s;
} record_target;

static void on_record(void *arg, const replay_record *rec)
{
    run *r = ((record_target *)arg)->r;
    slot *s = ((record_target *)arg)->s;
    size_t i = slot_index(r, s);
    switch (rec->type) {
    case REPLAY_REC_READY: {
        char planned[REPLAY_MESSAGE_MAX];
        plan_identity(r->plan, planned, sizeof planned);
        if (strcmp(rec->text, planned) != 0) {
            snprintf(planned, sizeof planned, "a worker found another collection than the one "
                     "planned (did %s change?)", r->plan->shown);
            fatal(r, MCZ_ECORRUPT, planned);
            break;
        }
        on_ready(r, s);
        break;
    }
    case REPLAY_REC_START:
        s->inflight = rec->number;
        s->inflight_size = rec->size;
        s->inflight_unit = rec->kind != 0;
        replay_pool_deadline(i, r->o->timeout > 0 ? tool_now() + r->o->timeout : 0);
        break;
    case REPLAY_REC_COLUMNS:
        on_columns(r, s, rec->text);
        break;
    case REPLAY_REC_RESULT:
        on_result(r, s, rec);
        if (rec->number == s->inflight) {
            s->inflight = 0;
            replay_pool_deadline(i, 0);
        }
        break;
    case REPLAY_REC_UNIT_DONE:
        unit_done(r, s, rec->number, rec->text_len ? rec->text : "");
        break;
    case REPLAY_REC_FATAL:
        if (rec->kind == REPLAY_FATAL_BROKEN)
            r->outcome->broken = true;
        else
            r->outcome->init_failed = true;
        fatal(r, r->outcome->broken ? MCZ_EIO : MCZ_EINVAL, rec->text);
        break;
    case REPLAY_REC_STATS:
        if (rec->text_len == 4 * sizeof(uint64_t)) {
            uint64_t f[4];
            memcpy(f, rec->text, sizeof f);
            s->stats.units += f[0];
            s->stats.contexts += f[1];
            s->stats.bytes_read += f[2];
            s->stats.bytes_decoded += f[3];
        }
        break;
    default:
        fatal(r, MCZ_ECORRUPT, "a worker sent an unknown record");
    }
}

static void on_drain(void *arg, size_t index, replay_ring *ring)
{
    run *r = arg;
    record_target t = {r, &r->slots[index]};
    const char *why;
    if (replay_records_take(&r->slots[index].records, ring, on_record, &t, &why) != MCZ_OK)
        fatal(r, MCZ_ECORRUPT, why);
}

/* ---- Deaths blamed ---------------------------------------------------------------------------- */

/* Accounts what a dead worker left: its victim (when nothing was announced, the context it
 * was about to start), unless that context got its result after all. The replacement resumes
 * after the highest context accounted, as a worker replays in number order. */
static void blame(run *r, slot *s, const victim *v, const char *how)
{
    char why[REPLAY_MESSAGE_MAX];
    if (v->kind == REPLAY_TIMEOUT)
        snprintf(why, sizeof why, "timed out after %g s", r->o->timeout);
    else
        snprintf(why, sizeof why, "%s", how);
    const replay_unit *u = slot_unit(r, s);
    if (v->whole) {
        for (uint32_t n = first_open(r, s, u->first); n; n = first_open(r, s, n + 1))
            account(r, s, n, v->kind, 0, why, false);
    } else {
        uint32_t n = v->number ? v->number : first_open(r, s, s->high ? s->high + 1 : u->first);
        if (n && !s->reported[n - u->first])
            account(r, s, n, v->kind, v->number ? v->size : 0, why, false);
    }
    s->resume = s->high ? s->high + 1 : u->first;
    s->inflight = 0;
}

static void on_overdue(void *arg, size_t index)
{
    slot *s = &((run *)arg)->slots[index];
    s->overdue = (victim){REPLAY_TIMEOUT, s->inflight, s->inflight_size, s->inflight_unit};
}

static void restart(run *r, slot *s)
{
    s->records = (replay_record_reader){0};
    s->ready = false;
    s->inflight = 0;
    if (replay_pool_start(slot_index(r, s)) != MCZ_OK) {
        char why[REPLAY_MESSAGE_MAX];
        snprintf(why, sizeof why, "cannot start a worker: %s", strerror(errno));
        fatal(r, MCZ_EIO, why);
    }
}

/* A worker's death that says nothing of the context it held: SIGKILL that this run did not
 * send (the OOM killer, a user), or its own exit on an error of mcz-replay's (it cannot write
 * its rows file, say). Crashes by other signals are the replayer's (a plugin's fault). */
static bool outside_death(int status, bool killed)
{
    return !killed && (status == 128 + KILL_SIGNAL || status == REPLAY_EXIT_GENERAL);
}

/* After a worker ended: account the context it died on, and start a replacement when work
 * remains. A timed-out worker's victim was taken before the kill; a crashed one's is whatever
 * it announced last. */
static void on_ended(void *arg, size_t index, int status, const char *how, bool killed)
{
    run *r = arg;
    slot *s = &r->slots[index];
    /* Interrupted: what a killed worker held was not replayed, so nothing is blamed on it and
     * no replacement starts. */
    if (r->stopping || replay_pool_stopping())
        return;
    if (status < 0) {
        fatal(r, MCZ_EIO, "lost track of a worker");
        return;
    }
    if (!s->ready) {
        r->outcome->init_failed = true;
        fatal(r, MCZ_EINVAL, how);
        return;
    }
    if (s->unit < 0) {
        if (status != 0) {
            replay_progress_clear();
            tool_warn("after its last unit, %s", how);
        }
        return;
    }
    if (outside_death(status, killed)) {
        char why[REPLAY_MESSAGE_MAX];
        const replay_unit *u = slot_unit(r, s);
        snprintf(why, sizeof why, "%s while replaying contexts %u-%u: %s", how, u->first,
                 u->first + u->count - 1, status == REPLAY_EXIT_GENERAL
                     ? "it could not go on (its error is above)"
                     : "killed from outside, not by its replayer");
        r->outcome->broken = true;
        fatal(r, MCZ_EIO, why);
        return;
    }
    victim v = {REPLAY_CRASH, s->inflight, s->inflight_size, s->inflight && s->inflight_unit};
    blame(r, s, killed ? &s->overdue : &v, how);
    if (!first_open(r, s, s->resume)) {
        free(s->reported);
        s->reported = NULL;
        s->unit = -1;
        if (!work_left(r, s) && s->queued < 0)
            return;
    }
    restart(r, s);
}

static void on_tick(void *arg)
{
    run *r = arg;
    if (r->o->progress)
        replay_progress_update(r->done, r->plan->selected);
}

/* ---- The run --------------------------------------------------------------------------------- */

static void print_stats(const run *r)
{
    fprintf(stderr, "cpu: parent %.3f s, workers %.3f s\n", mcz_os_cpu_seconds(false),
            mcz_os_cpu_seconds(true));
    for (size_t i = 0; i < r->nslots; i++) {
        const replay_stats *st = &r->slots[i].stats;
        fprintf(stderr,
                "worker %zu: units %llu contexts %llu bytes-read %llu bytes-decompressed %llu\n",
                i + 1, (unsigned long long)st->units, (unsigned long long)st->contexts,
                (unsigned long long)st->bytes_read, (unsigned long long)st->bytes_decoded);
    }
}

int replay_proc_run(const replay_config *cfg, const replay_run_options *o, replay_table *t,
                    replay_outcome *out)
{
    memset(out, 0, sizeof *out);
    const replay_plan *plan = cfg->plan;
    size_t nslots = o->workers ? o->workers : 1;
    if (!o->stride && nslots > plan->unit_count)
        nslots = plan->unit_count;
    if (plan->unit_count == 0)
        return MCZ_OK;
    run r = {.cfg = cfg, .plan = plan, .o = o, .table = t, .outcome = out, .nslots = nslots};
    r.slots = calloc(nslots, sizeof *r.slots);
    if (!r.slots)
        return MCZ_ENOMEM;
    for (size_t i = 0; i < nslots; i++) {
        slot *s = &r.slots[i];
        s->unit = s->queued = -1;
        s->rows_fd = -1;
        if (o->stride)
            s->filter = (replay_filter){(uint32_t)nslots, (uint32_t)i};
    }
    replay_pool_ops ops = {&r, worker_main, on_drain, on_overdue, on_ended, on_tick,
                           cfg->temp_dir};
    char why[REPLAY_MESSAGE_MAX] = "";
    int rc = replay_pool_run(&r.nslots, !o->stride, o->progress ? PROGRESS_TICK_MS : 0,
                             o->timeout > 0 ? SCAN_S : 0, &ops, &out->stop_signal, why,
                             sizeof why);
    if (rc != MCZ_OK && !r.error) {
        snprintf(out->message, sizeof out->message, "%s", why);
        r.error = rc;
    }
    if (o->progress)
        replay_progress_clear();
    if (o->stats)
        print_stats(&r);
    for (size_t i = 0; i < nslots; i++) {
        free(r.slots[i].reported);
        if (r.slots[i].rows_fd >= 0)
            mcz_os_close(r.slots[i].rows_fd);
    }
    free(r.slots);
    return r.error;
}
