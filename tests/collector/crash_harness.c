/*
 * crash_harness.c - an embedded collector under fire (tests/cli/test_collector_crash.sh).
 *
 *   crash_harness run --source S.mch --out A.mcz --log L --mode live|memory|stream
 *                     [--threads N]
 *                     [--seed N] [--rate N] [--crash-ms N] [--contexts N] [--max-bytes N]
 *                     [--max-seconds N] [--drop]
 *   crash_harness check --source S.mch --log L [--archive A.mcz] [--complete] [--rolling]
 *                       [--max-bytes N] [--original O.mcz --cut N [--reference R.mcz]]
 *
 * run: N threads hand contexts of S, picked at random, to one writer in LIVE or MEMORY mode, as
 * JIT threads hand theirs to a collector inside a runtime; the writer options (level, chunk
 * size, dictionary, flush and checkpoint periods, queue) are drawn from the seed. The main
 * thread now and then flushes and, for every context the writer then reports retained
 * (stats.last_retained), appends "NUMBER SOURCE" to the log with write(2) and fdatasync: the
 * log is what the process knew to be safe when it died. The process runs until it is killed
 * (--max-seconds bounds that) or, with --contexts, appends that many and closes the writer.
 * --drop: when_full is MCZ_FULL_DROP (refused contexts are not failures). STREAM mode sends the frames to stdout (--out names the stream); what the writer reports
 * retained is what it sent. With --crash-ms (MEMORY mode, dump on fatal signals) one appending thread dies of a real
 * SIGSEGV, a write to a PROT_NONE page, that long after the start.
 *
 * check: the archive must hold every logged context with the bytes of its source context, and
 * nothing that is not a context of S. --complete: nothing more than the log. --rolling: logged
 * contexts older than the archive's first are allowed to be gone (max_bytes dropped them).
 * --max-bytes: the chunks but the newest hold at most that many bytes. --original/--cut: the
 * archive was recovered from O cut to its first N bytes; every chunk that lay whole below N in
 * O must be there (R, O itself when it opens or else its recovery, lists O's chunks).
 *
 * Exit codes: 0 success, 1 a check or the run failed, 2 usage, 3 the writer broke a promise
 * while running (the message says which).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../bench/collector_corpus.h"

#define EXIT_BROKEN_PROMISE 3
#define MAX_THREADS 64
#define DEFAULT_CAPACITY (1u << 22) /* contexts a run may append: 16 MiB of bookkeeping */

/* ---- Options ---- */

typedef struct options {
    const char *source, *out, *log, *archive, *original, *reference;
    mcz_writer_mode mode;
    uint32_t threads, rate, crash_ms, contexts, max_seconds;
    uint64_t seed, max_bytes, cut;
    bool complete, rolling, has_cut, drop;
} options;

static void usage(void)
{
    fputs("usage: crash_harness run --source S.mch --out A.mcz --log L\n"
          "           --mode live|memory|stream\n"
          "           [--threads N] [--seed N] [--rate N] [--crash-ms N] [--contexts N]\n"
          "           [--max-bytes N] [--max-seconds N] [--drop]\n"
          "       crash_harness check --source S.mch --log L [--archive A.mcz] [--complete]\n"
          "           [--rolling] [--max-bytes N] [--original O.mcz --cut N [--reference R]]\n",
          stderr);
    exit(2);
}

static uint64_t parse_number(const char *name, const char *text)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-') {
        fprintf(stderr, "crash_harness: %s: not a number: %s\n", name, text);
        usage();
    }
    return v;
}

static uint32_t parse_u32(const char *name, const char *text)
{
    uint64_t v = parse_number(name, text);
    if (v > UINT32_MAX) {
        fprintf(stderr, "crash_harness: %s: too large: %s\n", name, text);
        usage();
    }
    return (uint32_t)v;
}

static mcz_writer_mode parse_mode(const char *text)
{
    if (!strcmp(text, "live"))
        return MCZ_WRITE_LIVE;
    if (!strcmp(text, "memory"))
        return MCZ_WRITE_MEMORY;
    if (!strcmp(text, "stream"))
        return MCZ_WRITE_STREAM;
    fprintf(stderr, "crash_harness: --mode: live, memory or stream, not %s\n", text);
    usage();
    return MCZ_WRITE_ATOMIC;
}

/* Options that take a value; returns false for a name that is not one. */
static bool parse_valued(options *o, const char *name, const char *v)
{
    if (!strcmp(name, "--source")) o->source = v;
    else if (!strcmp(name, "--out")) o->out = v;
    else if (!strcmp(name, "--log")) o->log = v;
    else if (!strcmp(name, "--archive")) o->archive = v;
    else if (!strcmp(name, "--original")) o->original = v;
    else if (!strcmp(name, "--reference")) o->reference = v;
    else if (!strcmp(name, "--mode")) o->mode = parse_mode(v);
    else if (!strcmp(name, "--threads")) o->threads = parse_u32(name, v);
    else if (!strcmp(name, "--rate")) o->rate = parse_u32(name, v);
    else if (!strcmp(name, "--crash-ms")) o->crash_ms = parse_u32(name, v);
    else if (!strcmp(name, "--contexts")) o->contexts = parse_u32(name, v);
    else if (!strcmp(name, "--max-seconds")) o->max_seconds = parse_u32(name, v);
    else if (!strcmp(name, "--seed")) o->seed = parse_number(name, v);
    else if (!strcmp(name, "--max-bytes")) o->max_bytes = parse_number(name, v);
    else if (!strcmp(name, "--cut")) { o->cut = parse_number(name, v); o->has_cut = true; }
    else return false;
    return true;
}

static void parse_options(options *o, int argc, char **argv)
{
    *o = (options){.mode = MCZ_WRITE_ATOMIC, .threads = 3, .rate = 1500, .max_seconds = 60};
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--complete"))
            o->complete = true;
        else if (!strcmp(argv[i], "--drop"))
            o->drop = true;
        else if (!strcmp(argv[i], "--rolling"))
            o->rolling = true;
        else if (i + 1 >= argc || !parse_valued(o, argv[i], argv[i + 1]))
            usage();
        else
            i++;
    }
    if (!o->source || !o->log || o->threads == 0 || o->threads > MAX_THREADS)
        usage();
}

/* ---- run ---- */

typedef struct harness {
    const options *opt;
    const cc_corpus *corpus;
    mcz_writer *w;
    _Atomic uint32_t *source_of; /* [number - 1]: source index + 1; 0 until its append returns */
    uint32_t capacity;
    atomic_uint taken;          /* appends begun (none beyond capacity) */
    atomic_uint highest;        /* highest number whose source_of is set */
    atomic_bool stop;
    atomic_int failure;         /* first failure: an exit code */
    double start;
    volatile uint8_t *fault_page; /* PROT_NONE: the deliberate SIGSEGV writes here */
    uint32_t crash_thread;
    int log_fd;
    uint32_t logged;            /* numbers below this + 1 are in the log (main thread) */
} harness;

typedef struct appender {
    harness *h;
    uint32_t index;
    pthread_t thread;
} appender;

/* Prints "crash_harness: " and a message line to stderr. */
static void say(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static void say(const char *fmt, va_list ap)
{
    fputs("crash_harness: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

/* Records the first failure (its exit code) and stops the appenders. */
static void harness_fail(harness *h, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void harness_fail(harness *h, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    int none = 0;
    atomic_compare_exchange_strong(&h->failure, &none, code);
    atomic_store(&h->stop, true);
}

/* The writer options of a run, drawn from the seed so that many runs cover many settings. */
static mcz_writer_options draw_writer_options(const options *o, uint64_t *rng)
{
    mcz_writer_options wo = MCZ_WRITER_OPTIONS_INIT;
    wo.mode = o->mode;
    wo.max_bytes = o->mode == MCZ_WRITE_STREAM ? 0 : o->max_bytes; /* the receiver bounds */
    wo.stream_fd = STDOUT_FILENO;
    wo.when_full = o->drop ? MCZ_FULL_DROP : MCZ_FULL_BLOCK;
    wo.level = 1 + (int)(cc_rand(rng) % 5);
    wo.chunk_size = 32u << 10 << (cc_rand(rng) % 4);
    wo.threads = 1 + (int)(cc_rand(rng) % 2);
    wo.no_dict = cc_rand(rng) % 3 == 0;
    wo.train_bytes = 256u << 10 << (cc_rand(rng) % 3);
    wo.queue_chunks = cc_rand(rng) % 2 ? 0 : 1 + cc_rand(rng) % 6;
    wo.flush_contexts = cc_rand(rng) % 2 ? 0 : 20 + cc_rand(rng) % 300;
    wo.flush_ms = cc_rand(rng) % 2 ? 0 : 5 + cc_rand(rng) % 100;
    wo.checkpoint_ms = 5 + cc_rand(rng) % 200;
    fprintf(stderr,
            "crash_harness: seed %" PRIu64 ": level %d chunk %uK threads %d dict %s train %" PRIu64
            "K queue %u flush_contexts %u flush_ms %u checkpoint_ms %u max_bytes %" PRIu64 "\n",
            o->seed, wo.level, wo.chunk_size >> 10, wo.threads, wo.no_dict ? "no" : "yes",
            wo.train_bytes >> 10, wo.queue_chunks, wo.flush_contexts, wo.flush_ms,
            wo.checkpoint_ms, wo.max_bytes);
    return wo;
}

/* The deliberate crash: a genuine fault (not raise()), so the writer's handler sees what a
 * runtime's crash looks like. Never returns. */
static void crash_now(harness *h)
{
    fprintf(stderr, "crash_harness: SIGSEGV now\n");
    h->fault_page[0] = 1;
    fprintf(stderr, "crash_harness: survived the fault\n");
    _exit(EXIT_BROKEN_PROMISE);
}

static void record_number(harness *h, uint32_t number, uint32_t source)
{
    atomic_store(&h->source_of[number - 1], source + 1);
    unsigned seen = atomic_load(&h->highest);
    while (seen < number && !atomic_compare_exchange_weak(&h->highest, &seen, number))
        ;
}

/* Appends one random context of the corpus; false when the thread should stop. */
static bool append_one(harness *h, uint64_t *rng)
{
    if (atomic_fetch_add(&h->taken, 1) >= h->capacity)
        return false;
    uint32_t source = cc_rand(rng) % h->corpus->count;
    uint32_t number = 0;
    int rc = mcz_writer_append(h->w, h->corpus->bytes[source], h->corpus->sizes[source], &number);
    if (rc == MCZ_EDROPPED && h->opt->drop)
        return true; /* refused, no number given: nothing to log */
    if (rc != MCZ_OK) {
        harness_fail(h, 1, "append failed: %s", mcz_error_name(rc));
        return false;
    }
    if (number == 0 || number > h->capacity) {
        harness_fail(h, EXIT_BROKEN_PROMISE, "append gave the number %u", number);
        return false;
    }
    record_number(h, number, source);
    return true;
}

static void *appender_main(void *arg)
{
    appender *a = arg;
    harness *h = a->h;
    uint64_t rng = h->opt->seed * 0x9E3779B97F4A7C15ull + a->index + 1;
    double period = h->opt->rate ? 1.0 / h->opt->rate : 0, next = h->start;
    while (!atomic_load(&h->stop) && append_one(h, &rng)) {
        if (h->opt->crash_ms && a->index == h->crash_thread &&
            cc_now() - h->start >= h->opt->crash_ms / 1000.0)
            crash_now(h);
        next += period;
        if (next < cc_now() - 0.1)
            next = cc_now(); /* far behind (a stall): go on at the rate, no burst */
        cc_sleep_until(next);
    }
    return NULL;
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Waits (bounded) for the appender that was given `number` to record its source. */
static uint32_t source_of_number(harness *h, uint32_t number)
{
    double give_up = cc_now() + 10;
    uint32_t s;
    while ((s = atomic_load(&h->source_of[number - 1])) == 0 && cc_now() < give_up)
        sched_yield();
    return s;
}

/* Logs "NUMBER SOURCE" (1-based source) for every number in (logged, last], then syncs. */
static void log_up_to(harness *h, uint32_t first, uint32_t last)
{
    char buf[1 << 16];
    size_t used = 0;
    for (uint32_t n = first > h->logged ? first : h->logged + 1; n && n <= last; n++) {
        uint32_t s = source_of_number(h, n);
        if (s == 0) {
            harness_fail(h, EXIT_BROKEN_PROMISE, "the writer retains context %u, never appended",
                         n);
            return;
        }
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%u %u\n", n, s);
        if (sizeof buf - used < 32 || n == last) {
            if (write_all(h->log_fd, buf, used) != 0 || fdatasync(h->log_fd) != 0) {
                harness_fail(h, 1, "%s: %s", h->opt->log, strerror(errno));
                return;
            }
            used = 0;
        }
    }
    if (last > h->logged)
        h->logged = last;
}

/* One round of the main thread: flush (or not), then log what the writer says it retains. In
 * LIVE mode a flush promises that every context appended before it is in the file. */
static void log_round(harness *h, bool flush)
{
    uint32_t before = atomic_load(&h->highest);
    if (flush) {
        int rc = mcz_writer_flush(h->w);
        if (rc != MCZ_OK) {
            harness_fail(h, 1, "flush failed: %s", mcz_error_name(rc));
            return;
        }
    }
    mcz_writer_stats st;
    mcz_writer_get_stats(h->w, &st);
    if (flush && h->opt->mode == MCZ_WRITE_LIVE && st.last_retained < before) {
        harness_fail(h, EXIT_BROKEN_PROMISE, "flush returned: context %u is not in the file",
                     before);
        return;
    }
    log_up_to(h, st.first_retained, st.last_retained);
}

static int open_writer(harness *h, uint64_t *rng)
{
    const options *o = h->opt;
    mcz_writer_options wo = draw_writer_options(o, rng);
    mcz_diag d;
    h->w = mcz_writer_open(o->out, &wo, &d);
    if (!h->w) {
        fprintf(stderr, "crash_harness: %s: %s\n", o->out, d.message);
        return 1;
    }
    if (o->mode == MCZ_WRITE_MEMORY && mcz_writer_dump_on_signal(h->w, o->out, 0, true, &d)) {
        fprintf(stderr, "crash_harness: dump_on_signal: %s\n", d.message);
        return 1;
    }
    return 0;
}

static void start_appenders(harness *h, appender *a)
{
    for (uint32_t i = 0; i < h->opt->threads; i++) {
        a[i] = (appender){h, i, 0};
        if (pthread_create(&a[i].thread, NULL, appender_main, &a[i]) != 0) {
            perror("crash_harness: pthread_create");
            exit(1);
        }
    }
}

/* Flushes and logs at random short intervals until the appenders are done or time is up. */
static void main_loop(harness *h, uint64_t *rng)
{
    double deadline = h->start + h->opt->max_seconds;
    while (!atomic_load(&h->stop) && cc_now() < deadline) {
        cc_sleep_until(cc_now() + (2 + cc_rand(rng) % 40) / 1000.0);
        log_round(h, cc_rand(rng) % 4 != 0);
        if (h->opt->contexts && atomic_load(&h->taken) >= h->capacity)
            break;
    }
}

/* The end of a run nobody killed: close, then every context is in the archive. */
static int finish_run(harness *h, appender *a)
{
    atomic_store(&h->stop, true);
    for (uint32_t i = 0; i < h->opt->threads; i++)
        pthread_join(a[i].thread, NULL);
    int failure = atomic_load(&h->failure);
    mcz_writer_stats st;
    mcz_writer_get_stats(h->w, &st);
    mcz_diag d;
    if (mcz_writer_close(h->w, &d) != MCZ_OK) {
        fprintf(stderr, "crash_harness: close: %s\n", d.message);
        return 1;
    }
    if (failure)
        return failure;
    log_up_to(h, st.first_retained, (uint32_t)st.appended);
    fprintf(stderr, "crash_harness: closed after %" PRIu64 " contexts\n", st.appended);
    return atomic_load(&h->failure);
}

static int run(const options *o)
{
    if (!o->out || o->mode == MCZ_WRITE_ATOMIC || (o->crash_ms && o->mode != MCZ_WRITE_MEMORY))
        usage();
    cc_corpus corpus;
    if (cc_corpus_load(&corpus, o->source) != 0)
        return 1;
    harness h = {.opt = o, .corpus = &corpus, .capacity = o->contexts ? o->contexts
                                                                         : DEFAULT_CAPACITY};
    h.source_of = calloc(h.capacity, sizeof *h.source_of);
    h.fault_page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    h.log_fd = open(o->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (!h.source_of || h.fault_page == MAP_FAILED || h.log_fd < 0) {
        perror("crash_harness: setup");
        return 1;
    }
    uint64_t rng = o->seed ^ 0xC0FFEEull;
    h.crash_thread = cc_rand(&rng) % o->threads;
    if (open_writer(&h, &rng) != 0)
        return 1;
    appender a[MAX_THREADS];
    h.start = cc_now();
    start_appenders(&h, a);
    main_loop(&h, &rng);
    int rc = finish_run(&h, a);
    close(h.log_fd);
    free(h.source_of);
    cc_corpus_free(&corpus);
    return rc;
}

/* ---- check ---- */

typedef struct logged {
    uint32_t number, source; /* source is 0-based */
} logged;

typedef struct checker {
    const options *opt;
    cc_corpus corpus;
    mcz_hash128 *hashes; /* of every corpus context, sorted */
    logged *log;
    size_t log_count;
    mcz_reader *reader;
    mcz_cursor *cursor;
    mcz_archive_info info;
    uint64_t chunks_below_cut;
    int problems;
} checker;

/* Counts a failed check; the first few are printed. */
static void problem(checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(checker *c, const char *fmt, ...)
{
    if (c->problems++ >= 20)
        return;
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
}

static int compare_hashes(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(mcz_hash128));
}

static int hash_corpus(checker *c)
{
    c->hashes = malloc(c->corpus.count * sizeof *c->hashes);
    if (!c->hashes)
        return 1;
    for (uint32_t i = 0; i < c->corpus.count; i++)
        mcz_murmur3_128(c->corpus.bytes[i], c->corpus.sizes[i], &c->hashes[i]);
    qsort(c->hashes, c->corpus.count, sizeof *c->hashes, compare_hashes);
    return 0;
}

static bool in_corpus(const checker *c, const mcz_mc *mc)
{
    mcz_hash128 h;
    mcz_murmur3_128(mc->bytes, mc->size, &h);
    return bsearch(&h, c->hashes, c->corpus.count, sizeof h, compare_hashes) != NULL;
}

/* Parses one "NUMBER SOURCE" line; false for anything else. */
static bool parse_log_line(const char *line, const checker *c, logged *out)
{
    unsigned long n, s;
    char end;
    if (sscanf(line, "%lu %lu%c", &n, &s, &end) != 3 || end != '\n' || n == 0 ||
        n > UINT32_MAX || s == 0 || s > c->corpus.count)
        return false;
    *out = (logged){(uint32_t)n, (uint32_t)s - 1};
    return true;
}

/* Reads the log. A last line without its newline is a write the kill cut short: not logged. */
static int read_log(checker *c)
{
    FILE *f = fopen(c->opt->log, "r");
    if (!f) {
        perror(c->opt->log);
        return 1;
    }
    char line[128];
    size_t cap = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        if (!strchr(line, '\n'))
            break;
        if (c->log_count == cap) {
            cap = cap ? cap * 2 : 4096;
            logged *grown = realloc(c->log, cap * sizeof *grown);
            if (!grown)
                rc = 1;
            else
                c->log = grown;
        }
        if (rc == 0 && !parse_log_line(line, c, &c->log[c->log_count++])) {
            fprintf(stderr, "crash_harness: %s: bad line %zu: %s", c->opt->log, c->log_count,
                    line);
            rc = 1;
        }
    }
    fclose(f);
    return rc;
}

static int open_archive(checker *c)
{
    mcz_diag d;
    c->reader = mcz_reader_open(c->opt->archive, &d);
    if (!c->reader) {
        fprintf(stderr, "crash_harness: %s: %s\n", c->opt->archive, d.message);
        return 1;
    }
    c->cursor = mcz_cursor_create(c->reader);
    mcz_reader_get_info(c->reader, &c->info);
    return c->cursor ? 0 : 1;
}

/* Context `number` of the archive; false (and a problem) when it cannot be read. */
static bool archive_get(checker *c, uint32_t number, mcz_mc *out)
{
    mcz_diag d;
    if (mcz_cursor_get(c->cursor, number, out, &d) == MCZ_OK)
        return true;
    problem(c, "context %u cannot be read: %s", number, d.message);
    return false;
}

/* Every context in the archive is one of the corpus: the writer never invents bytes. */
static void check_all_from_corpus(checker *c)
{
    for (uint64_t i = 0; i < c->info.contexts; i++) {
        mcz_context_info ci;
        mcz_mc mc;
        if (mcz_reader_context(c->reader, i, &ci) != MCZ_OK)
            problem(c, "context at position %" PRIu64 " unreadable", i);
        else if (archive_get(c, ci.number, &mc) && !in_corpus(c, &mc))
            problem(c, "context %u (%zu bytes) is no source context", ci.number, mc.size);
    }
}

static bool may_be_gone(const checker *c, uint32_t number)
{
    return c->opt->rolling && (c->info.contexts == 0 || number < c->info.first_number);
}

/* Every logged context is there, with the bytes of the source context it was appended from. */
static void check_logged(checker *c)
{
    for (size_t i = 0; i < c->log_count; i++) {
        const logged *l = &c->log[i];
        mcz_mc mc;
        if (may_be_gone(c, l->number))
            continue;
        if (!c->reader || mcz_reader_chunk_of(c->reader, l->number) < 0)
            problem(c, "logged context %u (source %u) is missing", l->number, l->source + 1);
        else if (archive_get(c, l->number, &mc) &&
                 (mc.size != c->corpus.sizes[l->source] ||
                  memcmp(mc.bytes, c->corpus.bytes[l->source], mc.size) != 0))
            problem(c, "context %u differs from source context %u", l->number, l->source + 1);
    }
}

/* Retained chunk bytes stay within max_bytes, but for the newest chunk: the process may have
 * died between adding it and dropping the oldest. */
static void check_bound(checker *c)
{
    uint64_t stored = 0, newest = 0;
    for (uint64_t i = 0; i < c->info.chunks; i++) {
        mcz_chunk_info ch;
        if (mcz_reader_chunk(c->reader, i, &ch) == MCZ_OK) {
            stored += ch.stored_size;
            newest = ch.stored_size;
        }
    }
    if (stored - newest > c->opt->max_bytes)
        problem(c, "chunks before the newest hold %" PRIu64 " bytes, over max_bytes %" PRIu64,
                stored - newest, c->opt->max_bytes);
}

/* The contexts of a chunk of the reference must all be in the checked archive. */
static void check_chunk_kept(checker *c, const mcz_chunk_info *ch)
{
    for (uint32_t k = 0; k < ch->count; k++)
        if (!c->reader || mcz_reader_chunk_of(c->reader, ch->first_number + k) < 0) {
            problem(c, "the chunk at offset %" PRIu64 " lay whole below the cut, context %u is gone",
                    ch->offset, ch->first_number + k);
            return;
        }
}

/* Chunks of reference archive r that lie, with everything before them, byte for byte the same
 * in the original and end at or below the cut: those the cut file must give back. */
static void check_chunks_below_cut(checker *c, const mcz_reader *r, const mcz_file *orig,
                                   const mcz_file *ref)
{
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    uint64_t same = 0; /* the files agree on [0, same) */
    for (uint64_t i = 0; i < info.chunks; i++) {
        mcz_chunk_info ch;
        if (mcz_reader_chunk(r, i, &ch) != MCZ_OK)
            break;
        uint64_t end = ch.offset + ch.stored_size;
        if (end > c->opt->cut || end > orig->size || end > ref->size ||
            memcmp(orig->data + same, ref->data + same, (size_t)(end - same)) != 0)
            break;
        same = end;
        check_chunk_kept(c, &ch);
        c->chunks_below_cut++;
    }
}

/*
 * The archive was recovered from the original cut at opt->cut. The reference (the original
 * itself when it opens, else its recovery) lists the original's chunks.
 */
static void check_cut(checker *c)
{
    const char *reference = c->opt->reference ? c->opt->reference : c->opt->original;
    mcz_diag d;
    mcz_file orig = {0}, ref = {0};
    mcz_reader *r = mcz_reader_open(reference, &d);
    if (r && mcz_file_map(c->opt->original, &orig, &d) == MCZ_OK &&
        mcz_file_map(reference, &ref, &d) == MCZ_OK)
        check_chunks_below_cut(c, r, &orig, &ref);
    else
        problem(c, "cut: %s", d.message);
    mcz_file_unmap(&ref);
    mcz_file_unmap(&orig);
    mcz_reader_close(r);
}

static void checker_free(checker *c)
{
    mcz_cursor_free(c->cursor);
    mcz_reader_close(c->reader);
    free(c->log);
    free(c->hashes);
    cc_corpus_free(&c->corpus);
}

static void run_checks(checker *c)
{
    if (c->reader) {
        check_all_from_corpus(c);
        if (c->opt->max_bytes)
            check_bound(c);
    }
    check_logged(c);
    if (c->opt->complete && c->info.contexts != c->log_count)
        problem(c, "archive holds %" PRIu64 " contexts, the log %zu", c->info.contexts,
                c->log_count);
    if (c->opt->original && c->opt->has_cut)
        check_cut(c);
}

static int check(const options *o)
{
    checker c = {.opt = o};
    int rc = cc_corpus_load(&c.corpus, o->source);
    if (rc == 0)
        rc = hash_corpus(&c);
    if (rc == 0)
        rc = read_log(&c);
    if (rc == 0 && o->archive)
        rc = open_archive(&c);
    if (rc == 0) {
        run_checks(&c);
        printf("check: archive %" PRIu64 " contexts in %" PRIu64 " chunks (%u..%u), log %zu "
               "contexts", c.info.contexts, c.info.chunks, c.info.first_number,
               c.info.last_number, c.log_count);
        if (o->has_cut)
            printf(", %" PRIu64 " chunks below the cut", c.chunks_below_cut);
        printf(": %d problem(s)\n", c.problems);
        rc = c.problems ? 1 : 0;
    }
    checker_free(&c);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        usage();
    options o;
    parse_options(&o, argc, argv);
    if (!strcmp(argv[1], "run"))
        return run(&o);
    if (!strcmp(argv[1], "check"))
        return check(&o);
    usage();
}
