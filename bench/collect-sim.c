/*
 * collect-sim.c - a runtime collecting method contexts, simulated: T threads produce contexts
 * like a JIT (the contexts of a generated .mch in order, each serialized into the thread's own
 * buffer, then handed to the writer) at a fixed rate, for a fixed time, once per mode:
 *
 *   none     the same threads and work, no writer: the baseline for CPU and memory
 *   live     MCZ_WRITE_LIVE: the file at its path from the start, checkpointed
 *   memory   MCZ_WRITE_MEMORY: compressed chunks in memory, written once at close
 *   rolling  LIVE with max_bytes: the oldest chunks go, the file stays bounded
 *
 *   collect-sim SOURCE.mch [--threads T] [--rate N] [--seconds S] [--modes LIST] [--every S]
 *               [--max-bytes N] [--memory-max-bytes N] [--policy block|drop]
 *               [--compress-threads N] [--level N] [--no-dict] [--dir DIR]
 *
 * --max-bytes bounds the rolling mode (default 2 MiB), --memory-max-bytes the memory mode
 * (default: the writer's, 64 MiB). Defaults: 4 threads x 250 contexts/s, 6 s per mode.
 *
 * Each mode runs in a child process, so that its CPU time and peak RSS are its own. Printed per
 * mode: append latency p50/p99/max per thread (CLOCK_MONOTONIC around each mcz_writer_append;
 * the thread's CPU time too, which tells the writer's work from waiting for a core or a lock),
 * the writer's figures (background compression CPU, queue peak, drops), anonymous memory
 * (RssAnon: the corpus mapping is left out) every --every seconds with the retained and on-disk
 * bytes (st_blocks x 512), then the process CPU and peak RSS of each mode against "none".
 * Not a test: it measures.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector_corpus.h"

#define MAX_THREADS 64
#define MAX_MODES 8
#define MIB (1024.0 * 1024.0)

typedef enum sim_mode { SIM_NONE, SIM_LIVE, SIM_MEMORY, SIM_ROLLING } sim_mode;

static const char *const mode_names[] = {"none", "live", "memory", "rolling"};

typedef struct sim_options {
    const char *source, *dir;
    uint32_t threads, rate, compress_threads;
    int level;
    bool no_dict;
    double seconds, every;
    uint64_t max_bytes, memory_max_bytes;
    mcz_full_policy policy;
    sim_mode modes[MAX_MODES];
    int mode_count;
} sim_options;

/* One mode's run, inside its child process. */
typedef struct sim {
    const sim_options *opt;
    sim_mode mode;
    cc_corpus corpus;
    mcz_writer *w;
    char path[4096];
    atomic_uint next_source; /* contexts are produced in collection order, shared by threads */
    atomic_bool stop;
    double start;
} sim;

typedef struct producer {
    sim *s;
    pthread_t thread;
    uint8_t *buffer; /* the thread's serialization buffer */
    size_t buffer_cap;
    uint64_t *latency_ns, *cpu_ns; /* per append: wall-clock, and the thread's CPU time */
    uint64_t *floor_ns; /* per append, just before it: malloc + copy + free of the context */
    size_t count, cap;
    uint64_t refused;
    uint64_t max_ns;
    double max_at; /* seconds from the start */
} producer;

static void usage(void)
{
    fputs("usage: collect-sim SOURCE.mch [--threads T] [--rate N] [--seconds S] [--modes LIST]\n"
          "           [--every S] [--max-bytes N] [--memory-max-bytes N] [--policy block|drop]\n"
          "           [--compress-threads N] [--level N] [--no-dict] [--dir DIR]\n"
          "  LIST: comma-separated among none, live, memory, rolling (default: all four)\n",
          stderr);
    exit(2);
}

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "collect-sim: %s: %s\n", what, detail);
    exit(1);
}

static void die_diag(const char *what, const mcz_diag *d)
{
    char text[MCZ_DIAG_LINE_SIZE];
    die(what, mcz_diag_format(d, text, sizeof text));
}

/* ---- Options ---- */

static double parse_double(const char *name, const char *text)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= 0))
        die(name, "expects a non-negative number");
    return v;
}

static void parse_modes(sim_options *o, char *list)
{
    o->mode_count = 0;
    for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
        int m = 0;
        while (m < 4 && strcmp(name, mode_names[m]))
            m++;
        if (m == 4 || o->mode_count == MAX_MODES)
            die("--modes", name);
        o->modes[o->mode_count++] = (sim_mode)m;
    }
}

static bool parse_option(sim_options *o, const char *name, char *v)
{
    if (!strcmp(name, "--threads")) o->threads = (uint32_t)parse_double(name, v);
    else if (!strcmp(name, "--rate")) o->rate = (uint32_t)parse_double(name, v);
    else if (!strcmp(name, "--seconds")) o->seconds = parse_double(name, v);
    else if (!strcmp(name, "--every")) o->every = parse_double(name, v);
    else if (!strcmp(name, "--max-bytes")) o->max_bytes = (uint64_t)parse_double(name, v);
    else if (!strcmp(name, "--memory-max-bytes"))
        o->memory_max_bytes = (uint64_t)parse_double(name, v);
    else if (!strcmp(name, "--compress-threads"))
        o->compress_threads = (uint32_t)parse_double(name, v);
    else if (!strcmp(name, "--dir")) o->dir = v;
    else if (!strcmp(name, "--level")) o->level = (int)parse_double(name, v);
    else if (!strcmp(name, "--modes")) parse_modes(o, v);
    else if (!strcmp(name, "--policy") && (!strcmp(v, "block") || !strcmp(v, "drop")))
        o->policy = strcmp(v, "drop") ? MCZ_FULL_BLOCK : MCZ_FULL_DROP;
    else return false;
    return true;
}

static void parse_options(sim_options *o, int argc, char **argv)
{
    *o = (sim_options){.dir = ".", .threads = 4, .rate = 250, .seconds = 6, .every = 2,
                       .max_bytes = 2u << 20, .modes = {SIM_NONE, SIM_LIVE, SIM_MEMORY,
                                                        SIM_ROLLING}, .mode_count = 4};
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-' && !o->source)
            o->source = argv[i];
        else if (!strcmp(argv[i], "--no-dict"))
            o->no_dict = true;
        else if (i + 1 >= argc || !parse_option(o, argv[i], argv[i + 1]))
            usage();
        else
            i++;
    }
    if (!o->source || o->threads == 0 || o->threads > MAX_THREADS || o->every <= 0)
        usage();
}

/* ---- Measures ---- */

/* A field of /proc/self/status in KiB (VmRSS, RssAnon...); 0 when unavailable. */
static uint64_t status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    uint64_t kib = 0;
    size_t len = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, len) && line[len] == ':')
            kib = strtoull(line + len + 1, NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

static uint64_t disk_bytes(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_blocks * 512 : 0;
}

static double cpu_seconds(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec * 1e-6 +
           (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec * 1e-6;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* ---- Producers ---- */

static uint64_t *grow_u64(uint64_t *array, size_t cap)
{
    array = realloc(array, cap * sizeof *array);
    if (!array)
        die("latencies", "out of memory");
    return array;
}

/* Room for cap latencies, touched: the measured memory then grows with the writer's only. */
static void reserve_latencies(producer *p, size_t cap)
{
    p->cap = cap;
    p->latency_ns = grow_u64(p->latency_ns, cap);
    p->cpu_ns = grow_u64(p->cpu_ns, cap);
    p->floor_ns = grow_u64(p->floor_ns, cap);
    memset(p->floor_ns + p->count, 0, (cap - p->count) * sizeof *p->floor_ns);
    memset(p->latency_ns + p->count, 0, (cap - p->count) * sizeof *p->latency_ns);
    memset(p->cpu_ns + p->count, 0, (cap - p->count) * sizeof *p->cpu_ns);
}

static void record_latency(producer *p, uint64_t ns, uint64_t cpu_ns, uint64_t floor_ns)
{
    if (p->count == p->cap)
        reserve_latencies(p, p->cap * 2);
    p->cpu_ns[p->count] = cpu_ns;
    p->floor_ns[p->count] = floor_ns;
    p->latency_ns[p->count++] = ns;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What a JIT does before it hands a context over: serialize it into its own buffer. */
static void produce(producer *p, const uint8_t *bytes, size_t size)
{
    if (size > p->buffer_cap) {
        free(p->buffer);
        p->buffer = malloc(size);
        p->buffer_cap = p->buffer ? size : 0;
        if (!p->buffer)
            die("buffer", "out of memory");
    }
    memcpy(p->buffer, bytes, size);
}

/* The least an append can cost: a copy into fresh memory, freed (what a writer that only copies
 * would pay), timed under the same load just before the append. */
static uint64_t copy_floor_ns(const producer *p, size_t size)
{
    double t0 = cc_now();
    uint8_t *copy = malloc(size);
    if (!copy)
        die("floor", "out of memory");
    memcpy(copy, p->buffer, size);
    __asm__ volatile("" : : "r"(copy) : "memory"); /* the copy is not optimized away */
    free(copy);
    return (uint64_t)((cc_now() - t0) * 1e9);
}

static void hand_over(producer *p, size_t size)
{
    uint64_t floor_ns = copy_floor_ns(p, size);
    uint64_t cpu0 = thread_cpu_ns(); /* outside the wall-clock interval, which it would inflate */
    double t0 = cc_now();
    int rc = mcz_writer_append(p->s->w, p->buffer, size, NULL);
    uint64_t ns = (uint64_t)((cc_now() - t0) * 1e9);
    record_latency(p, ns, thread_cpu_ns() - cpu0, floor_ns);
    if (ns > p->max_ns) {
        p->max_ns = ns;
        p->max_at = t0 - p->s->start;
    }
    if (rc == MCZ_EDROPPED)
        p->refused++;
    else if (rc != MCZ_OK)
        die("append", mcz_error_name(rc));
}

static void *producer_main(void *arg)
{
    producer *p = arg;
    sim *s = p->s;
    double period = s->opt->rate ? 1.0 / s->opt->rate : 0, next = s->start;
    while (!atomic_load(&s->stop)) {
        uint32_t i = atomic_fetch_add(&s->next_source, 1) % s->corpus.count;
        produce(p, s->corpus.bytes[i], s->corpus.sizes[i]);
        if (s->w)
            hand_over(p, s->corpus.sizes[i]);
        next += period;
        if (next < cc_now() - 0.1)
            next = cc_now(); /* a stall: go on at the rate, no catch-up burst */
        cc_sleep_until(next);
    }
    return NULL;
}

static void print_latencies(producer *p, uint32_t index)
{
    if (p->count == 0)
        return;
    qsort(p->latency_ns, p->count, sizeof *p->latency_ns, compare_u64);
    qsort(p->cpu_ns, p->count, sizeof *p->cpu_ns, compare_u64);
    qsort(p->floor_ns, p->count, sizeof *p->floor_ns, compare_u64);
    size_t n = p->count, i99 = n * 99 / 100, i999 = n * 999 / 1000;
    printf("  thread %u: %zu appends, latency p50 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.3f ms"
           " at t=%.1fs; copy floor p50 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.3f ms (p99 %.1fx,"
           " p99.9 %.1fx the floor's); CPU p50 %.1f us, p99 %.1f us",
           index, n, p->latency_ns[n / 2] / 1e3, p->latency_ns[i99] / 1e3,
           p->latency_ns[i999] / 1e3, p->max_ns / 1e6, p->max_at, p->floor_ns[n / 2] / 1e3,
           p->floor_ns[i99] / 1e3, p->floor_ns[i999] / 1e3, p->floor_ns[n - 1] / 1e6,
           (double)p->latency_ns[i99] / (double)(p->floor_ns[i99] ? p->floor_ns[i99] : 1),
           (double)p->latency_ns[i999] / (double)(p->floor_ns[i999] ? p->floor_ns[i999] : 1),
           p->cpu_ns[n / 2] / 1e3, p->cpu_ns[i99] / 1e3);
    if (p->refused)
        printf(", %" PRIu64 " dropped (queue full)", p->refused);
    putchar('\n');
}

/* ---- One mode ---- */

/* The bound each mode runs under; 0: none (or, in memory mode, the writer's default). */
static uint64_t writer_max_bytes(const sim *s)
{
    return s->mode == SIM_ROLLING  ? s->opt->max_bytes
           : s->mode == SIM_MEMORY ? s->opt->memory_max_bytes
                                   : 0;
}

static void open_writer(sim *s)
{
    const sim_options *o = s->opt;
    mcz_writer_options wo = MCZ_WRITER_OPTIONS_INIT;
    wo.mode = s->mode == SIM_MEMORY ? MCZ_WRITE_MEMORY : MCZ_WRITE_LIVE;
    wo.when_full = o->policy;
    wo.threads = (int)o->compress_threads;
    wo.level = o->level;
    wo.no_dict = o->no_dict;
    wo.flush_ms = 1000; /* a collector seals at least every second, so a crash loses little */
    wo.max_bytes = writer_max_bytes(s);
    snprintf(s->path, sizeof s->path, "%s/collect-%s.mcz", o->dir, mode_names[s->mode]);
    unlink(s->path);
    mcz_diag d;
    s->w = mcz_writer_open(s->path, &wo, &d);
    if (!s->w)
        die_diag(s->path, &d);
}

/* Highest values seen while the producers ran. */
typedef struct peaks {
    uint64_t anon_kib, retained, disk;
} peaks;

static void sample_peaks(const sim *s, peaks *pk)
{
    uint64_t anon = status_kib("RssAnon"), disk = disk_bytes(s->path);
    pk->anon_kib = anon > pk->anon_kib ? anon : pk->anon_kib;
    pk->disk = disk > pk->disk ? disk : pk->disk;
    if (s->w) {
        mcz_writer_stats st;
        mcz_writer_get_stats(s->w, &st);
        pk->retained = st.retained_bytes > pk->retained ? st.retained_bytes : pk->retained;
    }
}

/* One line of progress: what is retained, on disk, and the anonymous memory. */
static void print_tick(const sim *s)
{
    /* Heap in use apart from RSS: growth of one is live data, of the other only fragmentation. */
    struct mallinfo2 heap = mallinfo2();
    printf("  t=%5.1fs  anon RSS %6.1f MiB (heap in use %6.1f MiB)", cc_now() - s->start,
           status_kib("RssAnon") / 1024.0, (heap.uordblks + heap.hblkhd) / MIB);
    if (s->w) {
        mcz_writer_stats st;
        mcz_writer_get_stats(s->w, &st);
        printf("  appended %7" PRIu64 "  retained %7.2f MiB (contexts %u..%u)  on disk %7.2f MiB",
               st.appended, st.retained_bytes / MIB, st.first_retained, st.last_retained,
               disk_bytes(s->path) / MIB);
    }
    putchar('\n');
    fflush(stdout);
}

/* Runs the producers for the configured time, printing a tick every `every` seconds and
 * sampling ten times as often for the peaks. */
static peaks run_producers(sim *s, producer *p)
{
    peaks pk = {0};
    sample_peaks(s, &pk);
    s->start = cc_now();
    const uint32_t threads = s->opt->threads; /* the threads joined are the ones started */
    for (uint32_t i = 0; i < threads; i++) {
        if (pthread_create(&p[i].thread, NULL, producer_main, &p[i]) != 0)
            die("pthread_create", strerror(errno));
    }
    double end = s->start + s->opt->seconds, next_tick = s->start + s->opt->every;
    while (cc_now() < end) {
        double step = s->opt->every / 10;
        cc_sleep_until(cc_now() + step < end ? cc_now() + step : end);
        sample_peaks(s, &pk);
        if (cc_now() >= next_tick) {
            print_tick(s);
            next_tick += s->opt->every;
        }
    }
    atomic_store(&s->stop, true);
    for (uint32_t i = 0; i < threads; i++)
        pthread_join(p[i].thread, NULL);
    return pk;
}

static void print_writer_figures(const mcz_writer_stats *st, const peaks *pk, double seconds,
                                 uint64_t max_bytes)
{
    printf("  writer: %" PRIu64 " contexts (%.1f MiB raw, %.1f MB/s), %" PRIu64
           " chunks sealed, queue peak %u, dropped %" PRIu64 " (queue full) %" PRIu64
           " (rolling, in %" PRIu64 " chunks)\n",
           st->appended, st->raw_bytes / MIB, st->raw_bytes / 1e6 / seconds, st->chunks_sealed,
           st->queue_peak, st->dropped_full, st->dropped_rolling, st->chunks_dropped);
    printf("  background compression CPU %.2f s = %.1f%% of one core; written %.2f MiB "
           "(%" PRIu64 " checkpoints), retained %.2f MiB\n",
           st->compress_cpu_ns / 1e9, st->compress_cpu_ns / 1e7 / seconds,
           st->written_bytes / MIB, st->checkpoints, st->retained_bytes / MIB);
    printf("  peaks while running: retained %.2f MiB", pk->retained / MIB);
    if (max_bytes)
        printf(" (max_bytes %.2f MiB: %s)", max_bytes / MIB,
               pk->retained <= max_bytes ? "held" : "EXCEEDED");
    printf(", on disk %.2f MiB\n", pk->disk / MIB);
}

static void close_writer(sim *s)
{
    double t0 = cc_now();
    mcz_diag d;
    if (mcz_writer_close(s->w, &d) != MCZ_OK)
        die_diag("close", &d);
    struct stat st;
    printf("  close %.1f ms; the archive: %.2f MiB, %.2f MiB on disk\n", (cc_now() - t0) * 1e3,
           stat(s->path, &st) == 0 ? st.st_size / MIB : 0.0, disk_bytes(s->path) / MIB);
}

static int run_mode(const sim_options *o, sim_mode mode)
{
    sim s = {.opt = o, .mode = mode};
    if (cc_corpus_load(&s.corpus, o->source) != 0)
        return 1;
    producer p[MAX_THREADS];
    for (uint32_t i = 0; i < o->threads; i++) {
        p[i] = (producer){.s = &s};
        reserve_latencies(&p[i], (size_t)(o->rate * o->seconds * 1.05) + 4096);
    }
    uint64_t anon_before = status_kib("RssAnon");
    if (mode != SIM_NONE)
        open_writer(&s);
    peaks pk = run_producers(&s, p);
    for (uint32_t i = 0; i < o->threads; i++)
        print_latencies(&p[i], i);
    printf("  anonymous memory: %.1f MiB before, peak %.1f MiB (+%.1f MiB)\n",
           anon_before / 1024.0, pk.anon_kib / 1024.0, (pk.anon_kib - anon_before) / 1024.0);
    if (s.w) {
        mcz_writer_stats st;
        mcz_writer_get_stats(s.w, &st);
        print_writer_figures(&st, &pk, o->seconds, writer_max_bytes(&s));
        close_writer(&s);
    }
    fflush(stdout);
    return 0;
}

/* ---- Parent: one child per mode ---- */

typedef struct mode_result {
    double cpu;
    long maxrss_kib;
} mode_result;

static mode_result run_child(const sim_options *o, sim_mode mode)
{
    printf("== %s: %u threads x %u contexts/s for %.0f s\n", mode_names[mode], o->threads,
           o->rate, o->seconds);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork", strerror(errno));
    if (pid == 0)
        _exit(run_mode(o, mode));
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR)
            die("wait4", strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die(mode_names[mode], "the run failed");
    return (mode_result){cpu_seconds(&ru), ru.ru_maxrss};
}

static void print_summary(const sim_options *o, const mode_result *r)
{
    const mode_result *base = NULL;
    for (int i = 0; i < o->mode_count; i++)
        if (o->modes[i] == SIM_NONE)
            base = &r[i];
    printf("== process CPU and peak RSS per mode (%.0f s each)\n", o->seconds);
    for (int i = 0; i < o->mode_count; i++) {
        printf("  %-8s CPU %6.2f s (%5.1f%% of one core)  peak RSS %6.1f MiB", mode_names[o->modes[i]],
               r[i].cpu, 100 * r[i].cpu / o->seconds, r[i].maxrss_kib / 1024.0);
        if (base && &r[i] != base)
            printf("  vs none: CPU +%.2f s (+%.1f%% of one core), RSS +%.1f MiB",
                   r[i].cpu - base->cpu, 100 * (r[i].cpu - base->cpu) / o->seconds,
                   (r[i].maxrss_kib - base->maxrss_kib) / 1024.0);
        putchar('\n');
    }
}

int main(int argc, char **argv)
{
    sim_options o;
    parse_options(&o, argc, argv);
    mode_result results[MAX_MODES];
    for (int i = 0; i < o.mode_count; i++)
        results[i] = run_child(&o, o.modes[i]);
    print_summary(&o, results);
    return 0;
}
