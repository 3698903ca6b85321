/*
 * collector_corpus.h - what the collector harness (tests/collector/crash_harness.c) and the
 * collector simulation (bench/collect-sim.c) share: the contexts of an .mch file held as views
 * to append from, a small seeded generator, and the clock. Public API only.
 */
#ifndef COLLECTOR_CORPUS_H
#define COLLECTOR_CORPUS_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MCZ_STATIC_LINKING_ONLY /* mcz_file_map: bench and tests build with the library */
#include "mcz.h"
#include "mcz_superpmi.h"

/* The contexts of an MCH file, mapped: context i (0-based) is bytes[i], sizes[i] bytes. */
typedef struct cc_corpus {
    mcz_file file;
    uint32_t count;
    const uint8_t **bytes;
    uint32_t *sizes;
} cc_corpus;

static inline void cc_corpus_free(cc_corpus *c)
{
    free(c->bytes);
    free(c->sizes);
    mcz_file_unmap(&c->file);
}

static inline int cc_corpus_grow(cc_corpus *c, uint32_t *cap)
{
    uint32_t want = *cap ? *cap * 2 : 1024;
    const uint8_t **bytes = realloc(c->bytes, want * sizeof *bytes);
    if (bytes)
        c->bytes = bytes;
    uint32_t *sizes = realloc(c->sizes, want * sizeof *sizes);
    if (sizes)
        c->sizes = sizes;
    if (!bytes || !sizes)
        return MCZ_ENOMEM;
    *cap = want;
    return MCZ_OK;
}

/* Maps path and indexes its contexts (container check only). An empty collection is an error:
 * there would be nothing to append. Prints the problem and returns non-zero on failure. */
static inline int cc_corpus_load(cc_corpus *c, const char *path)
{
    mcz_diag d;
    *c = (cc_corpus){0};
    if (mcz_file_map(path, &c->file, &d) != MCZ_OK) {
        fprintf(stderr, "%s\n", d.message);
        return 1;
    }
    uint64_t pos = 0;
    uint32_t number = 0, cap = 0;
    mcz_mc mc;
    int rc;
    while ((rc = mcz_mch_next(c->file.data, c->file.size, &pos, &number, &mc, &d)) == 1) {
        if (c->count == cap && cc_corpus_grow(c, &cap) != MCZ_OK) {
            rc = MCZ_ENOMEM;
            snprintf(d.message, sizeof d.message, "out of memory");
            break;
        }
        c->bytes[c->count] = mc.bytes;
        c->sizes[c->count++] = (uint32_t)mc.size;
    }
    if (rc == 0 && c->count == 0) {
        rc = MCZ_EINVAL;
        snprintf(d.message, sizeof d.message, "no contexts");
    }
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", path, d.message);
    return rc;
}

/* A seeded generator (PCG-style LCG, high bits): same seed, same choices. */
static inline uint32_t cc_rand(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*state >> 33);
}

static inline double cc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleeps until `until` on the cc_now() clock (returns at once when it has passed). */
static inline void cc_sleep_until(double until)
{
    double left = until - cc_now();
    if (left <= 0)
        return;
    struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
    nanosleep(&ts, NULL);
}

#endif /* COLLECTOR_CORPUS_H */
