/*
 * mczbench.c - the archive benchmark: one run prints, side by side on the same input, the sizes
 * of the baselines (per-context zstd with and without a dictionary, 1 MiB zstd chunks, whole-file
 * `zstd -19 --long=27`) and of mcz at its default and strongest settings, then mcz's convert
 * speed and peak memory (in a child, at two input sizes), full decompression against plain zstd
 * on the same chunks, random-access latency, and a sweep of level x chunk size x dictionary.
 *
 *   mczbench INPUT.mch [HALF.mch] [--sweep-mb N] [--no-cli] [--no-strong]
 *
 * Not a test: it measures, and prints figures with the baseline each is compared to.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#define MCZ_STATIC_LINKING_ONLY /* mcz_file_map, mcz_dict_train: built with the library */
#include "mcz.h"
#include "mcz_superpmi.h"

#define MIB (1024.0 * 1024.0)
#define RANDOM_READS 10000

typedef struct corpus {
    mcz_file file;
    size_t n;
    uint64_t *offsets;
    uint32_t *sizes;
} corpus;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the calling thread: immune to other processes on a loaded machine. */
static double now_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const mcz_diag *d)
{
    char text[MCZ_DIAG_LINE_SIZE];
    fprintf(stderr, "mczbench: %s: %s\n", what,
            d ? mcz_diag_format(d, text, sizeof text) : strerror(errno));
    exit(1);
}

static void corpus_load(corpus *c, const char *path)
{
    mcz_diag d;
    if (mcz_file_map(path, &c->file, &d) != MCZ_OK)
        die(path, &d);
    size_t cap = 1024;
    c->offsets = calloc(cap, sizeof *c->offsets);
    c->sizes = calloc(cap, sizeof *c->sizes);
    uint64_t pos = 0;
    uint32_t number = 0;
    mcz_mc mc;
    int rc;
    while ((rc = mcz_mch_next(c->file.data, c->file.size, &pos, &number, &mc, &d)) == 1) {
        if (c->n == cap) {
            cap *= 2;
            c->offsets = realloc(c->offsets, cap * sizeof *c->offsets);
            c->sizes = realloc(c->sizes, cap * sizeof *c->sizes);
        }
        c->offsets[c->n] = mc.offset;
        c->sizes[c->n++] = (uint32_t)mc.size;
    }
    if (rc < 0)
        die(path, &d);
}

/* ---- Baselines ---- */

/* Each context its own zstd frame; with cdict when given. */
static uint64_t per_context(const corpus *c, int level, const ZSTD_CDict *cdict)
{
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    size_t cap = ZSTD_compressBound(MCZ_MC_MAX_SIZE / 64);
    uint8_t *out = malloc(cap);
    uint64_t total = 0;
    for (size_t i = 0; i < c->n; i++) {
        const uint8_t *src = c->file.data + c->offsets[i];
        if (ZSTD_compressBound(c->sizes[i]) > cap) {
            cap = ZSTD_compressBound(c->sizes[i]);
            out = realloc(out, cap);
        }
        size_t r = cdict ? ZSTD_compress_usingCDict(cctx, out, cap, src, c->sizes[i], cdict)
                         : ZSTD_compressCCtx(cctx, out, cap, src, c->sizes[i], level);
        total += ZSTD_isError(r) ? c->sizes[i] : r;
    }
    free(out);
    ZSTD_freeCCtx(cctx);
    return total;
}

/* Contexts grouped into chunks exactly as the writer seals them, each a plain zstd frame. */
static uint64_t plain_chunks(const corpus *c, int level, uint32_t target)
{
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    uint64_t total = 0;
    size_t i = 0;
    uint8_t *out = NULL;
    size_t cap = 0;
    while (i < c->n) {
        size_t first = i, len = c->sizes[i++];
        while (i < c->n && len + c->sizes[i] <= target)
            len += c->sizes[i++];
        if (ZSTD_compressBound(len) > cap) {
            cap = ZSTD_compressBound(len);
            out = realloc(out, cap);
        }
        size_t r = ZSTD_compressCCtx(cctx, out, cap, c->file.data + c->offsets[first], len, level);
        total += ZSTD_isError(r) ? len : r;
    }
    free(out);
    ZSTD_freeCCtx(cctx);
    return total;
}

/* A dictionary trained like the writer trains it (first train_bytes of whole contexts). */
static void *train(const corpus *c, uint64_t train_bytes, size_t cap, int level, size_t *len)
{
    size_t n = 0;
    uint64_t bytes = 0;
    while (n < c->n && bytes < train_bytes)
        bytes += c->sizes[n++];
    size_t *sizes = malloc((n ? n : 1) * sizeof *sizes);
    for (size_t i = 0; i < n; i++)
        sizes[i] = c->sizes[i];
    void *dict = NULL;
    mcz_diag d;
    if (mcz_dict_train(c->file.data, sizes, (unsigned)n, cap, level, &dict, len, &d) != MCZ_OK)
        die("training", &d);
    free(sizes);
    return dict;
}

static int cli_whole_file(const char *path, uint64_t *size, double *secs)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "zstd -q -19 --long=27 -T2 -c '%s'", path);
    double t0 = now();
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    static uint8_t buf[1 << 16];
    size_t got;
    *size = 0;
    while ((got = fread(buf, 1, sizeof buf, p)) > 0)
        *size += got;
    *secs = now() - t0;
    return pclose(p) == 0 ? 0 : -1;
}

/* ---- Convert (in a child: time and peak memory) ---- */

typedef struct convert_result {
    uint64_t file_bytes;
    double secs;     /* wall */
    double cpu_secs; /* user + system of the child, all threads */
    long maxrss_kb;
} convert_result;

/* Streams the MCH with read(): the child's memory is then the writer's, not the input's. The
 * writer expects the input's size, as `mcs -convert` tells it (its dictionary decision). */
static int stream_convert(const char *in, const char *out, const mcz_writer_options *given)
{
    mcz_writer_options o = *given;
    struct stat st;
    if (!o.expected_bytes && stat(in, &st) == 0)
        o.expected_bytes = (uint64_t)st.st_size;
    FILE *f = fopen(in, "rb");
    mcz_writer *w = f ? mcz_writer_open(out, &o, NULL) : NULL;
    if (!w)
        return 1;
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    while (fread(buf, 1, 6, f) == 6) {
        size_t len = (size_t)buf[2] | (size_t)buf[3] << 8 | (size_t)buf[4] << 16 |
                     (size_t)buf[5] << 24;
        if (len + 8 > cap)
            buf = realloc(buf, cap = len + 8);
        if (fread(buf + 6, 1, len + 2, f) != len + 2 || mcz_writer_append(w, buf, len + 8, NULL))
            return 1;
    }
    free(buf);
    fclose(f);
    return mcz_writer_close(w, NULL) == MCZ_OK ? 0 : 1;
}

static convert_result convert(const char *in, const char *out, const mcz_writer_options *o)
{
    convert_result res = {0, 0, 0, 0};
    fflush(NULL);
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0)
        _exit(stream_convert(in, out, o));
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        die("convert", NULL);
    res.secs = now() - t0;
    res.maxrss_kb = ru.ru_maxrss;
    res.cpu_secs = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    struct stat st;
    res.file_bytes = stat(out, &st) == 0 ? (uint64_t)st.st_size : 0;
    return res;
}

/* ---- Reading ---- */

/* Best of three passes: every chunk through a cursor (all checks) and through plain zstd. */
static void full_decode(const char *archive, double *mcz_mbs, double *plain_mbs)
{
    mcz_diag d;
    mcz_reader *r = mcz_reader_open(archive, &d);
    if (!r)
        die(archive, &d);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    mcz_file f;
    mcz_file_map(archive, &f, NULL);
    const void *dict;
    size_t dict_len;
    mcz_reader_dict(r, &dict, &dict_len);
    ZSTD_DDict *ddict = dict ? ZSTD_createDDict(dict, dict_len) : NULL;
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    size_t out_cap = MCZ_MC_MAX_SIZE / 16; /* a chunk's data: raw bytes or their packet layout */
    uint8_t *out = malloc(out_cap);
    double best_mcz = 1e9, best_plain = 1e9;
    for (int pass = 0; pass < 3; pass++) {
        mcz_cursor *cur = mcz_cursor_create(r);
        double t0 = now_cpu();
        for (uint64_t i = 0; i < info.chunks; i++)
            if (mcz_cursor_chunk(cur, i, NULL, NULL, &d) != MCZ_OK)
                die("decode", &d);
        double t1 = now_cpu();
        mcz_cursor_free(cur);
        for (uint64_t i = 0; i < info.chunks; i++) {
            mcz_chunk_info c;
            mcz_reader_chunk(r, i, &c);
            size_t head = 40 + 4 * (size_t)c.count;
            const uint8_t *src = f.data + c.offset + head;
            size_t got = ddict ? ZSTD_decompress_usingDDict(dctx, out, out_cap, src,
                                                            c.stored_size - head, ddict)
                               : ZSTD_decompressDCtx(dctx, out, out_cap, src,
                                                     c.stored_size - head);
            if (ZSTD_isError(got))
                die("plain zstd decode", NULL);
        }
        double t2 = now_cpu();
        best_mcz = t1 - t0 < best_mcz ? t1 - t0 : best_mcz;
        best_plain = t2 - t1 < best_plain ? t2 - t1 : best_plain;
    }
    *mcz_mbs = (double)info.raw_bytes / MIB / best_mcz;
    *plain_mbs = (double)info.raw_bytes / MIB / best_plain;
    free(out);
    ZSTD_freeDCtx(dctx);
    ZSTD_freeDDict(ddict);
    mcz_file_unmap(&f);
    mcz_reader_close(r);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Latency of one random context: open once, one cursor, RANDOM_READS gets; wall and CPU time
 * (the thread's own, which excludes time the machine gave to other processes). */
static void random_access(const char *archive, double wall_ms[2], double cpu_ms[2])
{
    mcz_reader *r = mcz_reader_open(archive, NULL);
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    mcz_cursor *cur = mcz_cursor_create(r);
    double *wall = malloc(RANDOM_READS * sizeof *wall), *cpu = malloc(RANDOM_READS * sizeof *cpu);
    uint64_t s = 1;
    for (int i = 0; i < RANDOM_READS; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t number = info.first_number + (uint32_t)((s >> 33) % info.contexts);
        mcz_mc mc;
        double t0 = now(), c0 = now_cpu();
        if (mcz_cursor_get(cur, number, &mc, NULL) != MCZ_OK)
            die("random read", NULL);
        cpu[i] = (now_cpu() - c0) * 1e3;
        wall[i] = (now() - t0) * 1e3;
    }
    qsort(wall, RANDOM_READS, sizeof *wall, cmp_double);
    qsort(cpu, RANDOM_READS, sizeof *cpu, cmp_double);
    wall_ms[0] = wall[RANDOM_READS / 2];
    wall_ms[1] = wall[RANDOM_READS * 99 / 100];
    cpu_ms[0] = cpu[RANDOM_READS / 2];
    cpu_ms[1] = cpu[RANDOM_READS * 99 / 100];
    free(wall);
    free(cpu);
    mcz_cursor_free(cur);
    mcz_reader_close(r);
}

/* ---- Report ---- */

static void line(const char *what, uint64_t bytes, uint64_t raw, uint64_t ref)
{
    printf("  %-44s %12llu B  ratio %6.3f  vs 1MiB-zstd3 %5.3fx\n", what,
           (unsigned long long)bytes, (double)raw / (double)bytes,
           (double)ref / (double)bytes);
}

static mcz_writer_options opts(int level, uint32_t chunk, bool dict)
{
    mcz_writer_options o = MCZ_WRITER_OPTIONS_INIT;
    o.level = level;
    o.chunk_size = chunk;
    o.no_dict = !dict;
    return o;
}

/* Writes the first `bytes` of the corpus as an MCH (whole contexts). */
static void write_prefix(const corpus *c, uint64_t bytes, const char *path)
{
    size_t n = 0;
    uint64_t len = 0;
    while (n < c->n && len + c->sizes[n] <= bytes)
        len += c->sizes[n++];
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(c->file.data, 1, len, f) != len || fclose(f) != 0)
        die(path, NULL);
}

static void sweep(const corpus *c, uint64_t bytes, const char *tmpdir)
{
    static const int levels[] = {1, 3, 6, 9, 12, 15, 19};
    static const uint32_t chunks[] = {256u << 10, 1u << 20, 4u << 20};
    char in[512], out[512];
    snprintf(in, sizeof in, "%s/sweep.mch", tmpdir);
    snprintf(out, sizeof out, "%s/sweep.mcz", tmpdir);
    write_prefix(c, bytes, in);
    struct stat st;
    stat(in, &st);
    printf("\nsweep on the first %.1f MiB: ratio (convert MB per CPU-second, training included)\n",
           (double)st.st_size / MIB);
    printf("  %-6s", "level");
    for (size_t k = 0; k < 3; k++)
        printf("  %4uK nodict       %4uK dict        ", chunks[k] >> 10, chunks[k] >> 10);
    printf("\n");
    for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
        printf("  %-6d", levels[l]);
        for (size_t k = 0; k < 3; k++) {
            for (int dict = 0; dict < 2; dict++) {
                mcz_writer_options o = opts(levels[l], chunks[k], dict);
                convert_result r = convert(in, out, &o);
                printf("  %6.3f (%6.1f)   ", (double)st.st_size / (double)r.file_bytes,
                       (double)st.st_size / MIB / r.cpu_secs);
            }
        }
        printf("\n");
        fflush(stdout);
    }
    unlink(in);
    unlink(out);
}

static void mcz_report(const char *name, const char *in, const char *out, uint64_t raw,
                       uint64_t ref, const mcz_writer_options *o)
{
    convert_result r = convert(in, out, o);
    /* Default options (level 0) are named by what the writer records, printed after. */
    char label[128];
    if (o->level == 0)
        snprintf(label, sizeof label, "%s options", name);
    else
        snprintf(label, sizeof label, "%s (L%d, %uM, %s%s)", name, o->level, o->chunk_size >> 20,
                 o->no_dict ? "no dict" : "dict", o->no_hashes ? "/hashes" : "");
    line(label, r.file_bytes, raw, ref);
    printf("  %-44s convert %.1f MB/s wall, %.1f MB per CPU-second (%.1f CPU-s), peak memory "
           "%.1f MiB\n", "", (double)raw / MIB / r.secs, (double)raw / MIB / r.cpu_secs,
           r.cpu_secs, (double)r.maxrss_kb / 1024.0);
}

int main(int argc, char **argv)
{
    const char *input = NULL, *half = NULL;
    double sweep_mb = 24;
    bool cli = true, strongest = true;
    static const char usage[] =
        "usage: mczbench INPUT.mch [HALF.mch] [--sweep-mb N] [--no-cli] [--no-strong]\n"
        "  Prints the archive's size, speed and memory figures side by side with per-context\n"
        "  zstd, 1 MiB zstd chunks and whole-file zstd -19 --long=27 (FORMAT.md §10-11).\n"
        "  HALF.mch: a smaller input, to show that convert memory does not grow with input.\n"
        "  --sweep-mb N: the level/chunk sweep on the first N MiB (0: none; default 24)\n"
        "  --no-cli: skip the zstd command-line baseline; --no-strong: skip the strongest setting\n";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--sweep-mb") && i + 1 < argc)
            sweep_mb = atof(argv[++i]);
        else if (!strcmp(argv[i], "--no-cli"))
            cli = false;
        else if (!strcmp(argv[i], "--no-strong"))
            strongest = false;
        else if (!input)
            input = argv[i];
        else
            half = argv[i];
    }
    if (!input) {
        fputs(usage, stderr);
        return 2;
    }
    const char *tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char out[512], out_strong[512];
    snprintf(out, sizeof out, "%s/mczbench-%d.mcz", tmpdir, (int)getpid());
    snprintf(out_strong, sizeof out_strong, "%s/mczbench-%d-strong.mcz", tmpdir, (int)getpid());
    corpus c = {0};
    corpus_load(&c, input);
    uint64_t raw = c.file.size;
    double load[1] = {0};
    getloadavg(load, 1);
    printf("load average at start %.2f on %ld cores\n", load[0], sysconf(_SC_NPROCESSORS_ONLN));
    printf("input %s: %zu contexts, %llu bytes (%.1f MiB, %.0f B/context), zstd %s\n", input,
           c.n, (unsigned long long)raw, (double)raw / MIB, (double)raw / (double)c.n,
           ZSTD_versionString());

    printf("\nsizes (ratio = raw / compressed)\n");
    uint64_t ref = plain_chunks(&c, 3, 1u << 20);
    line("raw", raw, raw, ref);
    line("per-context zstd-3", per_context(&c, 3, NULL), raw, ref);
    size_t dict_len;
    void *dict = train(&c, 8u << 20, 128u << 10, 3, &dict_len);
    ZSTD_CDict *cdict = ZSTD_createCDict(dict, dict_len, 3);
    line("per-context zstd-3 + 128K dict (incl. dict)", per_context(&c, 3, cdict) + dict_len, raw,
         ref);
    ZSTD_freeCDict(cdict);
    free(dict);
    line("1 MiB chunks zstd-3, no dict", ref, raw, ref);
    line("1 MiB chunks zstd-9, no dict", plain_chunks(&c, 9, 1u << 20), raw, ref);
    uint64_t whole = 0;
    double whole_secs = 0;
    if (cli && cli_whole_file(input, &whole, &whole_secs) == 0) {
        line("whole file zstd -19 --long=27 (CLI, -T2)", whole, raw, ref);
        printf("  %-44s %.1f MB/s\n", "", (double)raw / MIB / whole_secs);
    }

    mcz_writer_options def = MCZ_WRITER_OPTIONS_INIT;
    mcz_archive_info info;
    mcz_reader *r = NULL;
    mcz_report("mcz default", input, out, raw, ref, &def);
    if ((r = mcz_reader_open(out, NULL)) != NULL) {
        mcz_reader_get_info(r, &info);
        printf("  %-44s level %d, chunk %uK, dict %u B, %llu chunks\n", "  (recorded)",
               info.level, info.chunk_size >> 10, info.dict_size,
               (unsigned long long)info.chunks);
        mcz_reader_close(r);
    }
    if (strongest) {
        mcz_writer_options strong = opts(22, 128u << 20, false);
        strong.no_hashes = true; /* archival: the 32 hash bytes per context are 5-6% of it */
        mcz_report("mcz strongest", input, out_strong, raw, ref, &strong);
        struct stat st;
        if (whole && stat(out_strong, &st) == 0)
            printf("  %-44s %.1f%% larger than whole-file zstd -19 --long\n", "",
                   100.0 * ((double)st.st_size / (double)whole - 1.0));
        unlink(out_strong);
    }

    if (half) {
        char half_out[600];
        snprintf(half_out, sizeof half_out, "%s.half", out);
        convert_result h = convert(half, half_out, &def), f = convert(input, half_out, &def);
        struct stat hs;
        stat(half, &hs);
        printf("\nconvert peak memory (default options): %.1f MiB input -> %.1f MiB RSS; "
               "%.1f MiB input -> %.1f MiB RSS\n", (double)hs.st_size / MIB,
               (double)h.maxrss_kb / 1024.0, (double)raw / MIB, (double)f.maxrss_kb / 1024.0);
        unlink(half_out);
    }

    /* The default layout (packets) against the plain one: the same archive but for the layout. */
    mcz_writer_options plain = MCZ_WRITER_OPTIONS_INIT;
    plain.layout = MCZ_LAYOUT_PLAIN;
    char out_plain[600];
    snprintf(out_plain, sizeof out_plain, "%s.plain", out);
    mcz_report("mcz default, --layout plain", input, out_plain, raw, ref, &plain);

    double mcz_mbs, plain_mbs, layout_plain_mbs, zstd_plain_mbs, wall[2], cpu[2];
    full_decode(out, &mcz_mbs, &plain_mbs);
    full_decode(out_plain, &layout_plain_mbs, &zstd_plain_mbs);
    double plain_wall[2], plain_cpu[2];
    random_access(out_plain, plain_wall, plain_cpu);
    unlink(out_plain);
    printf("\nfull decompression (default archive, CPU time): mcz %.0f MB/s (all checks), plain "
           "zstd on the same chunks %.0f MB/s: %.2fx\n", mcz_mbs, plain_mbs, mcz_mbs / plain_mbs);
    printf("  with --layout plain: mcz %.0f MB/s, plain zstd on its chunks %.0f MB/s: %.2fx; the "
           "default against plain zstd on plain chunks: %.2fx\n", layout_plain_mbs,
           zstd_plain_mbs, layout_plain_mbs / zstd_plain_mbs, mcz_mbs / zstd_plain_mbs);
    random_access(out, wall, cpu);
    printf("random access over %d contexts (open once, one cursor): p50 %.3f ms, p99 %.3f ms wall;"
           " p50 %.3f ms, p99 %.3f ms CPU\n", RANDOM_READS, wall[0], wall[1], cpu[0], cpu[1]);
    printf("  with --layout plain: p50 %.3f ms, p99 %.3f ms wall; p50 %.3f ms, p99 %.3f ms CPU\n",
           plain_wall[0], plain_wall[1], plain_cpu[0], plain_cpu[1]);
    unlink(out);
    if (sweep_mb > 0)
        sweep(&c, (uint64_t)(sweep_mb * MIB), tmpdir);
    mcz_file_unmap(&c.file);
    free(c.offsets);
    free(c.sizes);
    return 0;
}
