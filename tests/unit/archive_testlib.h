/*
 * archive_testlib.h - helpers for the archive tests (test_archive*.c): a deterministic corpus of
 * contexts made with the builder, writing it to an archive, reading files, temp directories.
 */
#ifndef ARCHIVE_TESTLIB_H
#define ARCHIVE_TESTLIB_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_INLINE_ALL /* xxHash compiled in: no library (common/mcz_xxhash.h) */
#include <xxhash.h>

#include "../../common/mcz_common.h"
#include "../../platform/platform.h"
#include "../../common/mcz_common.h"

/* A corpus: n contexts back to back (an MCH image), context i at offsets[i]. */
typedef struct tl_corpus {
    uint8_t *bytes;
    size_t size;
    size_t *offsets;
    size_t *sizes;
    uint32_t n;
} tl_corpus;

static inline uint64_t tl_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/*
 * Context i: a few maps of packets unknown to the packet table (so mcz_mc_check accepts any
 * sizes), with content that repeats across contexts (like real collections) and a per-context
 * part. big: one value of about 40 KB.
 */
static inline void tl_build(mcz_mc_builder *b, uint32_t i, bool big, const uint8_t **bytes,
                            size_t *size)
{
    uint64_t s = 0x9E3779B97F4A7C15ull ^ i;
    mcz_mc_builder_reset(b);
    uint32_t maps = 1 + (uint32_t)(tl_rand(&s) % 4);
    for (uint32_t m = 0; m < maps; m++) {
        uint32_t value_size = big && m == 0 ? 40000 : 8 + (uint32_t)(tl_rand(&s) % 600);
        uint8_t *value = malloc(value_size);
        for (uint32_t k = 0; k < value_size; k++)
            value[k] = (uint8_t)(k % 7 == 0 ? tl_rand(&s) : (k * 31 + m) & 0xFF);
        if (mcz_mc_builder_begin(b, (uint8_t)(240 + m), false, 8, value_size) != MCZ_OK)
            abort();
        uint32_t items = 1 + (uint32_t)(tl_rand(&s) % 5);
        for (uint32_t k = 0; k < items; k++) {
            uint64_t key = (uint64_t)i * 16 + k;
            value[0] = (uint8_t)k;
            if (mcz_mc_builder_add(b, &key, value) != MCZ_OK)
                abort();
        }
        if (mcz_mc_builder_end(b) != MCZ_OK)
            abort();
        free(value);
    }
    if (mcz_mc_builder_finish(b, bytes, size) != MCZ_OK)
        abort();
}

/* n contexts (seeds seed, seed+1, ...); every big_every-th (when non-zero) is big. */
static inline void tl_corpus_make_seeded(tl_corpus *c, uint32_t seed, uint32_t n,
                                         uint32_t big_every)
{
    mcz_mc_builder *b = mcz_mc_builder_create();
    memset(c, 0, sizeof *c);
    c->n = n;
    c->offsets = calloc(n + 1, sizeof *c->offsets);
    c->sizes = calloc(n + 1, sizeof *c->sizes);
    size_t cap = 1 << 16;
    c->bytes = malloc(cap);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *mc;
        size_t len;
        tl_build(b, seed + i, big_every && i % big_every == big_every - 1, &mc, &len);
        while (c->size + len > cap)
            c->bytes = realloc(c->bytes, cap *= 2);
        memcpy(c->bytes + c->size, mc, len);
        c->offsets[i] = c->size;
        c->sizes[i] = len;
        c->size += len;
    }
    mcz_mc_builder_free(b);
}

static inline void tl_corpus_make(tl_corpus *c, uint32_t n, uint32_t big_every)
{
    tl_corpus_make_seeded(c, 0, n, big_every);
}

static inline void tl_corpus_free(tl_corpus *c)
{
    free(c->bytes);
    free(c->offsets);
    free(c->sizes);
    memset(c, 0, sizeof *c);
}

/* Appends contexts [from, n) stepping by `step` (one appending thread per residue class);
 * source, when set, records source[number - 1] = the context given that number. */
typedef struct tl_append_job {
    mcz_writer *w;
    const tl_corpus *c;
    uint32_t from, step;
    uint32_t *source;
    int rc;
} tl_append_job;

static inline void *tl_append_thread(void *arg)
{
    tl_append_job *j = arg;
    for (uint32_t i = j->from; i < j->c->n && j->rc == MCZ_OK; i += j->step) {
        uint32_t number = 0;
        j->rc = mcz_writer_append(j->w, j->c->bytes + j->c->offsets[i], j->c->sizes[i], &number);
        if (j->source && j->rc == MCZ_OK && number >= 1 && number <= j->c->n)
            j->source[number - 1] = i; /* each number is given once: no two threads write it */
    }
    return NULL;
}

/* The whole corpus appended by TL_APPENDERS threads at once; source as in tl_append_job (may
 * be NULL). Returns the first failure, MCZ_OK when every append succeeded. */
#define TL_APPENDERS 4
static inline int tl_append_concurrently(mcz_writer *w, const tl_corpus *c, uint32_t *source)
{
    pthread_t th[TL_APPENDERS];
    tl_append_job jobs[TL_APPENDERS];
    for (uint32_t t = 0; t < TL_APPENDERS; t++) {
        jobs[t] = (tl_append_job){w, c, t, TL_APPENDERS, source, MCZ_OK};
        if (pthread_create(&th[t], NULL, tl_append_thread, &jobs[t]) != 0)
            abort();
    }
    int rc = MCZ_OK;
    for (uint32_t t = 0; t < TL_APPENDERS; t++) {
        pthread_join(th[t], NULL);
        rc = rc != MCZ_OK ? rc : jobs[t].rc;
    }
    return rc;
}

/* Fast options for small test archives: level 3, two threads, a 1 KiB dictionary trained on
 * the first 64 KiB, chunks of chunk_size bytes. */
static inline mcz_writer_options tl_small_options(uint32_t chunk_size)
{
    mcz_writer_options o = MCZ_WRITER_OPTIONS_INIT;
    o.level = 3;
    o.chunk_size = chunk_size;
    o.threads = 2;
    o.train_bytes = 64 << 10;
    o.dict_size = 1024;
    return o;
}

/* Writes the corpus in order from one thread; returns mcz_writer_close's result. */
static inline int tl_write(const char *path, const tl_corpus *c, const mcz_writer_options *opt)
{
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, opt, &d);
    if (!w)
        return d.code;
    for (uint32_t i = 0; i < c->n; i++) {
        uint32_t number = 0;
        int rc = mcz_writer_append(w, c->bytes + c->offsets[i], c->sizes[i], &number);
        uint32_t first = opt && opt->first_number ? opt->first_number : 1;
        if (rc != MCZ_OK || number != first + i) {
            mcz_writer_abort(w);
            return rc != MCZ_OK ? rc : MCZ_ESTATE;
        }
    }
    return mcz_writer_close(w, &d);
}

/* A fresh temporary directory and a path inside it. */
static inline void tl_tmpdir(char *dir, size_t cap)
{
    snprintf(dir, cap, "/tmp/mcz-test-XXXXXX");
    if (!mcz_os_mkdtemp(dir))
        abort();
}

static inline void tl_rmdir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        abort();
}

static inline uint8_t *tl_read(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
    *size = fread(buf, 1, (size_t)len, f);
    fclose(f);
    return buf;
}

static inline void tl_save(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
}

/* An exact-size heap copy (at least one byte allocated), so the sanitizer sees any overread. */
static inline uint8_t *tl_copy_of(const uint8_t *data, size_t len)
{
    uint8_t *p = malloc(len ? len : 1);
    if (!p)
        abort();
    memcpy(p, data, len);
    return p;
}

/* After an edit to an archive image: recomputes the index checksum into the footer (when the
 * footer's index lies in the image) and the footer's own checksum. */
static inline void tl_reseal(uint8_t *p, size_t size)
{
    uint8_t *foot = p + size - 56; /* the footer frame, FORMAT.md §6 */
    uint64_t off = mcz_get_le64(foot + 16), len = mcz_get_le64(foot + 24);
    if (mcz_fits(size, off, len))
        mcz_put_le64(foot + 32, XXH3_64bits(p + off, len));
    mcz_put_le32(foot + 48, (uint32_t)XXH3_64bits(foot, 48));
}

#endif /* ARCHIVE_TESTLIB_H */
