/*
 * report.c - what a generated corpus looks like, next to the published figures of a real
 * collection: size and IL statistics, and three zstd level-3 ratios (each context alone; each
 * context alone with a trained dictionary; contexts packed whole into 1 MiB chunks).
 *
 * Published figures (a 3027 MB collection): 6.05x per context, 6.44x per context with a
 * 110 KiB dictionary, 10.9x in 1 MiB chunks; contexts average 12.8 KB.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zdict.h>
#include <zstd.h>

#include "mcz_agnostic.h"
#include "mcz_superpmi.h"
#include "mchgen_model.h"
#include "tool.h"

#define TARGET_PER_CONTEXT 6.05
#define TARGET_DICT 6.44
#define TARGET_CHUNKED 10.9
#define ZSTD_LEVEL 3
#define CHUNK_SIZE (1u << 20)
#define DICT_CAPACITY (110u * 1024)
#define DICT_TRAIN_MAX (32u << 20)
#define DICT_SAMPLE_MAX (128u << 10)

/* ---- IL decoding: operand sizes ---- */

enum { OP_NONE = 0, OP_TOKEN = 0x80, OP_SWITCH = 0x40 };

/* Operand bytes of each one-byte opcode (OP_TOKEN: a 4-byte metadata token). */
static uint8_t operand_size(uint8_t op)
{
    if ((op >= 0x0E && op <= 0x13) || op == 0x1F || (op >= 0x2B && op <= 0x37) || op == 0xDE)
        return 1;
    if (op == 0x20 || op == 0x22 || (op >= 0x38 && op <= 0x44) || op == 0xDD)
        return 4;
    if (op == 0x21 || op == 0x23)
        return 8;
    if (op == 0x45)
        return OP_SWITCH;
    if (op == 0x27 || op == 0x28 || op == 0x29 || (op >= 0x6F && op <= 0x75) || op == 0x79 ||
        (op >= 0x7B && op <= 0x81) || op == 0x8C || op == 0x8D || op == 0x8F ||
        op == 0xA3 || op == 0xA4 || op == 0xA5 || op == 0xC2 || op == 0xC6 || op == 0xD0)
        return OP_TOKEN;
    return OP_NONE;
}

/* Operand bytes after the 0xFE prefix and its second byte. */
static uint8_t operand_size_fe(uint8_t op)
{
    if (op == 0x06 || op == 0x07 || op == 0x15 || op == 0x16 || op == 0x1C)
        return OP_TOKEN;
    if (op >= 0x09 && op <= 0x0E)
        return 2;
    if (op == 0x12 || op == 0x19)
        return 1;
    return OP_NONE;
}

uint32_t mg_il_token_count(const uint8_t *il, uint32_t len)
{
    uint32_t at = 0, tokens = 0;
    while (at < len) {
        uint8_t op = il[at++];
        uint8_t size;
        if (op == 0xFE) {
            if (at >= len)
                break;
            size = operand_size_fe(il[at++]);
        } else {
            size = operand_size(op);
        }
        if (size == OP_TOKEN) {
            tokens++;
            size = 4;
        } else if (size == OP_SWITCH) {
            if (!mcz_fits(len, at, 4))
                break;
            uint64_t n = mcz_get_le32(il + at);
            if (n > (len - at) / 4)
                break;
            size = 0;
            at += 4 + (uint32_t)n * 4;
        }
        if (!mcz_fits(len, at, size))
            break;
        at += size;
    }
    return tokens;
}

/* ---- Per-context facts ---- */

typedef struct ctx_fact {
    size_t offset, size;
    uint32_t il_size, tokens;
    uint32_t alone; /* compressed alone, bytes */
    uint32_t with_dict;
    bool small; /* TIER0 or MIN_OPT */
} ctx_fact;

static int fact_of(const mcz_mc *mc, ctx_fact *f, mcz_diag *diag)
{
    mcz_packet p;
    mcz_map m;
    const uint8_t *data;
    uint32_t len;
    f->offset = (size_t)mc->offset;
    f->size = mc->size;
    int rc = mcz_mc_check(mc, diag);
    if (rc != MCZ_OK)
        return rc;
    if (mcz_packet_find(mc, MCZ_PACKET_COMPILE_METHOD, &p, diag) == 1 &&
        mcz_map_parse(NULL, &p, &m, diag) == MCZ_OK && m.count == 1 && m.item_size >= 4 + MCZ_CM_SIZE) {
        const uint8_t *v = m.items + 4;
        uint32_t index = mcz_get_le32(v + MCZ_MI_IL_OFFSET);
        if (mcz_map_buffer(&m, index, &data, &len) == MCZ_OK) {
            f->il_size = len;
            f->tokens = mg_il_token_count(data, len);
        }
    }
    if (mcz_packet_find(mc, MCZ_PACKET_GET_JIT_FLAGS, &p, diag) == 1 &&
        mcz_map_parse(NULL, &p, &m, diag) == MCZ_OK && m.count == 1 && m.item_size == 4 + MCZ_DD_SIZE &&
        mcz_map_buffer(&m, mcz_get_le32(m.items + 4), &data, &len) == MCZ_OK && len >= 8) {
        uint64_t flags = mcz_get_le64(data);
        f->small = (flags & ((1u << 26) | (1u << 5))) != 0;
    }
    return MCZ_OK;
}

/* ---- Statistics ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(const double *sorted, size_t n, double q)
{
    size_t i = (size_t)floor(q * (double)(n - 1) + 0.5);
    return sorted[i < n ? i : n - 1];
}

static void print_distribution(const char *name, double *v, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    qsort(v, n, sizeof *v, cmp_double);
    printf("%s mean %.0f median %.0f p90 %.0f p99 %.0f max %.0f\n", name, sum / (double)n,
           percentile(v, n, 0.5), percentile(v, n, 0.9), percentile(v, n, 0.99), v[n - 1]);
}

static void print_ratio(const char *name, double ratio, double target)
{
    printf("ratio %s %.2f target %.2f dev %+.1f%%\n", name, ratio, target,
           100.0 * (ratio - target) / target);
}

/* ---- Compression ---- */

static size_t compress_alone(ZSTD_CCtx *cctx, const ZSTD_CDict *cdict, const uint8_t *image,
                             ctx_fact *facts, size_t n, void *out, size_t cap)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = cdict ? ZSTD_compress_usingCDict(cctx, out, cap, image + facts[i].offset,
                                                    facts[i].size, cdict)
                         : ZSTD_compressCCtx(cctx, out, cap, image + facts[i].offset,
                                             facts[i].size, ZSTD_LEVEL);
        if (ZSTD_isError(r))
            return 0;
        if (!cdict)
            facts[i].alone = (uint32_t)r;
        else
            facts[i].with_dict = (uint32_t)r;
        total += r;
    }
    return total;
}

/* Contexts are laid end to end in the image, so a chunk is a contiguous range. */
static size_t compress_chunks(ZSTD_CCtx *cctx, const uint8_t *image, const ctx_fact *facts,
                              size_t n, void *out, size_t cap)
{
    size_t total = 0, i = 0;
    while (i < n) {
        size_t first = i, bytes = facts[i].size;
        for (i++; i < n && bytes + facts[i].size <= CHUNK_SIZE; i++)
            bytes += facts[i].size;
        size_t r = ZSTD_compressCCtx(cctx, out, cap, image + facts[first].offset, bytes,
                                     ZSTD_LEVEL);
        if (ZSTD_isError(r))
            return 0;
        total += r;
    }
    return total;
}

/* The held-out contexts fit for training, copied end to end into *samples (malloc'ed), with
 * their sizes; returns how many. A huge context is left out: it would skew the statistics. */
static size_t gather_samples(const uint8_t *train, size_t train_size, uint8_t **samples,
                             size_t **sizes)
{
    size_t count = 0, bytes = 0, cap = 1024;
    *samples = malloc(train_size ? train_size : 1);
    *sizes = malloc(cap * sizeof **sizes);
    uint64_t pos = 0;
    uint32_t number = 0;
    mcz_mc mc;
    if (!*samples || !*sizes)
        return 0;
    while (mcz_mch_next(train, train_size, &pos, &number, &mc, NULL) == 1 &&
           bytes + mc.size <= DICT_TRAIN_MAX) {
        if (mc.size > DICT_SAMPLE_MAX)
            continue;
        if (count == cap) {
            size_t *grown = realloc(*sizes, 2 * cap * sizeof *grown);
            if (!grown)
                break;
            *sizes = grown;
            cap *= 2;
        }
        memcpy(*samples + bytes, mc.bytes, mc.size);
        (*sizes)[count++] = mc.size;
        bytes += mc.size;
    }
    return count;
}

/* Trains on whole contexts of a held-out sample: contexts from other process runs, as an
 * archive's dictionary meets contexts of runs it was not trained on. NULL on failure. */
static ZSTD_CDict *train_dictionary(const uint8_t *train, size_t train_size)
{
    uint8_t *samples;
    size_t *sizes;
    size_t count = gather_samples(train, train_size, &samples, &sizes);
    void *dict = malloc(DICT_CAPACITY);
    ZSTD_CDict *cdict = NULL;
    if (dict && count > 0) {
        size_t len = ZDICT_trainFromBuffer(dict, DICT_CAPACITY, samples, sizes, (unsigned)count);
        if (!ZDICT_isError(len)) {
            cdict = ZSTD_createCDict(dict, len, ZSTD_LEVEL);
            printf("dictionary %zu bytes from %zu held-out contexts\n", len, count);
        }
    }
    free(samples);
    free(sizes);
    free(dict);
    return cdict;
}

/* How the two kinds of contexts compress alone. */
static void print_kind_ratios(const ctx_fact *facts, size_t n)
{
    double raw[2] = {0, 0}, packed[2] = {0, 0}, dict[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        raw[facts[i].small] += (double)facts[i].size;
        packed[facts[i].small] += facts[i].alone;
        dict[facts[i].small] += facts[i].with_dict;
    }
    for (int k = 1; k >= 0; k--)
        if (packed[k] > 0 && dict[k] > 0)
            printf("by_kind %s per_context %.2f dict %.2f\n", k ? "small" : "optimized",
                   raw[k] / packed[k], raw[k] / dict[k]);
}

static int print_ratios(const uint8_t *image, ctx_fact *facts, size_t n, size_t raw,
                        const uint8_t *train, size_t train_size)
{
    size_t cap = ZSTD_compressBound(CHUNK_SIZE);
    for (size_t i = 0; i < n; i++)
        if (ZSTD_compressBound(facts[i].size) > cap)
            cap = ZSTD_compressBound(facts[i].size);
    void *out = malloc(cap);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    ZSTD_CDict *cdict = train_dictionary(train, train_size);
    int rc = MCZ_EZSTD;
    if (out && cctx && cdict) {
        size_t alone = compress_alone(cctx, NULL, image, facts, n, out, cap);
        size_t with_dict = compress_alone(cctx, cdict, image, facts, n, out, cap);
        size_t chunked = compress_chunks(cctx, image, facts, n, out, cap);
        if (alone && with_dict && chunked) {
            print_ratio("per_context", (double)raw / (double)alone, TARGET_PER_CONTEXT);
            print_ratio("dict", (double)raw / (double)with_dict, TARGET_DICT);
            print_ratio("chunked", (double)raw / (double)chunked, TARGET_CHUNKED);
            print_kind_ratios(facts, n);
            rc = MCZ_OK;
        }
    }
    if (rc != MCZ_OK)
        tool_error("compression failed");
    ZSTD_freeCDict(cdict);
    ZSTD_freeCCtx(cctx);
    free(out);
    return rc;
}

/* ---- The report ---- */

static void print_statistics(const ctx_fact *facts, size_t n, double *scratch)
{
    size_t small = 0;
    double tokens = 0, raw = 0;
    for (size_t i = 0; i < n; i++) {
        scratch[i] = (double)facts[i].size;
        small += facts[i].small;
        tokens += facts[i].tokens;
        raw += (double)facts[i].size;
    }
    size_t over_mib = 0;
    for (size_t i = 0; i < n; i++)
        over_mib += facts[i].size > (1u << 20);
    printf("contexts %zu bytes %.0f\n", n, raw);
    print_distribution("size", scratch, n);
    printf("size over_1MiB %zu target ~%.1f\n", over_mib, 2.5 * (double)n / 20000.0);
    printf("small_share %.3f target 0.39\n", (double)small / (double)n);
    for (int want_small = 1; want_small >= 0; want_small--) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (facts[i].small == want_small)
                scratch[k++] = (double)facts[i].size;
        if (k)
            print_distribution(want_small ? "size_small" : "size_optimized", scratch, k);
    }
    for (size_t i = 0; i < n; i++)
        scratch[i] = facts[i].il_size;
    print_distribution("il", scratch, n);
    printf("il target mean 64 median 18 p90 141 p99 686\n");
    printf("tokens_per_method %.2f target 7.5\n", tokens / (double)n);
}

int mg_report(const uint8_t *image, size_t size, const uint8_t *train, size_t train_size)
{
    uint64_t pos = 0;
    uint32_t number = 0;
    size_t n = 0, cap = 1024, raw = 0;
    ctx_fact *facts = malloc(cap * sizeof *facts);
    mcz_mc mc;
    mcz_diag diag;
    mcz_diag_clear(&diag);
    int rc = facts ? MCZ_OK : MCZ_ENOMEM;
    while (rc == MCZ_OK && (rc = mcz_mch_next(image, size, &pos, &number, &mc, &diag)) == 1) {
        if (n == cap) {
            ctx_fact *grown = realloc(facts, 2 * cap * sizeof *facts);
            if (!grown) {
                rc = MCZ_ENOMEM;
                break;
            }
            facts = grown;
            cap *= 2;
        }
        memset(&facts[n], 0, sizeof facts[n]);
        rc = fact_of(&mc, &facts[n], &diag);
        raw += mc.size;
        n++;
    }
    if (rc != MCZ_OK || n == 0) {
        if (rc == MCZ_ENOMEM)
            tool_error("out of memory");
        else if (rc != MCZ_OK)
            tool_error("invalid context %lld at offset %lld: %s",
                    (long long)diag.context, (long long)diag.offset, diag.message);
        else
            tool_error("no contexts");
        free(facts);
        return rc != MCZ_OK ? rc : MCZ_EINVAL;
    }
    double *scratch = malloc(n * sizeof *scratch);
    int result = MCZ_ENOMEM;
    if (scratch) {
        printf("valid %zu of %zu contexts\n", n, n);
        print_statistics(facts, n, scratch);
        result = print_ratios(image, facts, n, raw, train, train_size);
    }
    free(scratch);
    free(facts);
    return result;
}
