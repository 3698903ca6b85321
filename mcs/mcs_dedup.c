/* mcs_dedup.c - the deduplicator of -removeDup and -merge -dedup (mcs_dedup.h). */
#include <stdlib.h>
#include <string.h>

#include "mcs_chunks.h"
#include "mcs_context.h"
#include "mcs_dedup.h"
#include "mcz_agnostic.h"

/* ---- A set of 128-bit keys: open addressing; keys are hashes, so their bytes index well ---- */

typedef struct key_set {
    mcz_hash128 *slots; /* the all-zero key marks an empty slot; it is kept in has_zero */
    size_t cap, count;
    bool has_zero;
} key_set;

static size_t key_slot(const mcz_hash128 *k, size_t cap)
{
    uint64_t h;
    memcpy(&h, k->bytes, sizeof h);
    return (size_t)h & (cap - 1);
}

static void key_place(mcz_hash128 *slots, size_t cap, const mcz_hash128 *k)
{
    size_t i = key_slot(k, cap);
    while (!mcz_hash_is_zero(&slots[i]))
        i = (i + 1) & (cap - 1);
    slots[i] = *k;
}

static int key_set_grow(key_set *s)
{
    size_t cap = s->cap ? s->cap * 2 : 4096;
    mcz_hash128 *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < s->cap; i++)
        if (!mcz_hash_is_zero(&s->slots[i]))
            key_place(slots, cap, &s->slots[i]);
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return 0;
}

/* 1 when k was added, 0 when it was there already, -1 out of memory. */
static int key_set_add(key_set *s, const mcz_hash128 *k)
{
    if (mcz_hash_is_zero(k)) {
        bool had = s->has_zero;
        s->has_zero = true;
        return had ? 0 : 1;
    }
    if (2 * (s->count + 1) > s->cap && key_set_grow(s) != 0)
        return -1;
    for (size_t i = key_slot(k, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (mcz_hash_is_zero(&s->slots[i])) {
            s->slots[i] = *k;
            s->count++;
            return 1;
        }
        if (memcmp(s->slots[i].bytes, k->bytes, sizeof k->bytes) == 0)
            return 0;
    }
}

/* ---- Keys ---- */

/* What MethodContext::Equal compares of CompileMethod, in a fixed order. */
static size_t legacy_fields(const mcs_method *m, uint8_t *out)
{
    static const unsigned info_fields[] = {
        MCZ_MI_IL_SIZE, MCZ_MI_ARGS + MCZ_SIG_NUM_ARGS, MCZ_MI_ARGS + MCZ_SIG_RET_TYPE,
        MCZ_MI_LOCALS + MCZ_SIG_NUM_ARGS, MCZ_MI_EH_COUNT, MCZ_MI_OPTIONS, MCZ_MI_MAX_STACK,
        MCZ_MI_REGION_KIND, MCZ_MI_ARGS + MCZ_SIG_CALL_CONV, MCZ_MI_ARGS + MCZ_SIG_CB_SIG,
        MCZ_MI_ARGS + MCZ_SIG_FLAGS, MCZ_MI_LOCALS + MCZ_SIG_CB_SIG, MCZ_CM_FLAGS};
    size_t n = 0;
    for (size_t i = 0; i < sizeof info_fields / sizeof info_fields[0]; i++, n += 4)
        memcpy(out + n, m->info + info_fields[i], 4);
    memset(out + n, 0, 4);
    if (m->has_os)
        memcpy(out + n, m->info + MCZ_CM_OS, 4);
    n += 4;
    const uint8_t *il;
    uint32_t il_size;
    mcz_hash128 il_hash = {{0}};
    if (mcs_method_il(m, &il, &il_size))
        mcz_murmur3_128(il, il_size, &il_hash);
    memcpy(out + n, il_hash.bytes, sizeof il_hash.bytes);
    return n + sizeof il_hash.bytes;
}

/* Map presence and item counts (the last packet of an id counts, as when SuperPMI loads it);
 * compile results count as absent when thin. */
static int legacy_maps(const mcz_jit_ee *v, const mcz_mc *mc, bool thin, uint8_t *out,
                       mcz_diag *d)
{
    memset(out, 0, 256 * 5);
    uint32_t pos = 0;
    mcz_packet p;
    int rc;
    while ((rc = mcz_packet_next(mc, &pos, &p, d)) == 1) {
        const mcz_packet_info *info = mcz_jit_ee_packet(v, p.id);
        mcz_map m;
        if (thin && info && info->compile_result)
            continue;
        rc = mcz_map_parse(v, &p, &m, d);
        if (rc != MCZ_OK)
            return rc;
        out[5 * p.id] = 1;
        memcpy(out + 5 * p.id + 1, &m.count, 4);
    }
    return rc;
}

static int legacy_key(const mcz_jit_ee *v, const mcz_mc *mc, bool thin, mcz_hash128 *key,
                      mcz_diag *d)
{
    mcs_method m;
    int rc = mcs_method_load(mc, &m, d);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        mcz_mc_dedup_key(v, mc, key); /* no identity either: the hash of the bytes */
        return MCZ_OK;
    }
    uint8_t buf[16 * 4 + 16 + 256 * 5];
    size_t n = legacy_fields(&m, buf);
    rc = legacy_maps(v, mc, thin, buf + n, d);
    if (rc == MCZ_OK)
        mcz_murmur3_128(buf, n + 256 * 5, key);
    return rc;
}

/* ---- The deduplicator ---- */

struct mcs_dedup {
    key_set seen;
    bool legacy;
    mcz_mc_builder *thin; /* NULL unless thinning */
    mcs_copy_counts counts;
    tool_progress progress;
};

mcs_dedup *mcs_dedup_create(bool legacy, bool thin)
{
    mcs_dedup *dd = calloc(1, sizeof *dd);
    if (dd && thin && !(dd->thin = mcz_mc_builder_create())) {
        free(dd);
        dd = NULL;
    }
    if (!dd)
        tool_error("out of memory");
    else
        dd->legacy = legacy;
    return dd;
}

void mcs_dedup_free(mcs_dedup *dd)
{
    if (!dd)
        return;
    free(dd->seen.slots);
    mcz_mc_builder_free(dd->thin);
    free(dd);
}

uint64_t mcs_dedup_loaded(const mcs_dedup *dd)
{
    return dd->counts.loaded;
}

uint64_t mcs_dedup_saved(const mcs_dedup *dd)
{
    return dd->counts.saved;
}

/* Records key: 1 when it is new (the context is kept), 0 when seen before, -1 (printed). */
static int record(mcs_dedup *dd, const mcz_hash128 *key, const mcs_input *in)
{
    int added = key_set_add(&dd->seen, key);
    if (added < 0)
        tool_error("%s: out of memory", in->path);
    return added;
}

/* The key of a context read from in, after the deep check. Returns 0, or -1 (printed). */
static int context_key(const mcs_dedup *dd, const mcs_input *in, const mcz_mc *mc,
                       mcz_hash128 *key)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = mcz_mc_check(mc, &d);
    if (rc == MCZ_OK && dd->legacy)
        rc = legacy_key(in->jit_ee, mc, dd->thin != NULL, key, &d);
    else if (rc == MCZ_OK)
        mcz_mc_dedup_key(in->jit_ee, mc, key);
    if (rc == MCZ_OK)
        return 0;
    mcs_input_context_error(in, mc, &d);
    return -1;
}

/* An MCH file: every context is read and keyed. */
static int dedup_sequential(mcs_dedup *dd, mcs_input *in, mcs_output *out)
{
    tool_progress_start(&dd->progress, "deduplicating", in->contexts, in->raw_bytes);
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(in, &mc)) > 0) {
        mcz_hash128 key;
        int added = context_key(dd, in, &mc, &key) == 0 ? record(dd, &key, in) : -1;
        if (added < 0 || (added > 0 && mcs_output_put_checked(out, dd->thin, in, &mc) != 0)) {
            rc = -1;
            break;
        }
        dd->counts.loaded++;
        dd->counts.saved += (uint64_t)added;
        tool_progress_update(&dd->progress, dd->counts.loaded, in->read_bytes);
    }
    tool_progress_end(&dd->progress);
    return rc;
}

/* An archive: the stored key of each context, from the index (legacy keys, and archives that
 * store no keys, need the bytes). */
typedef struct dedup_input {
    mcs_dedup *dd;
    const mcs_input *in;
} dedup_input;

static int keep_new(void *arg, mcs_chunk_walk *walk, const mcz_context_info *ci)
{
    dedup_input *di = arg;
    mcz_hash128 key;
    mcz_mc mc;
    int rc;
    if (di->dd->legacy)
        rc = mcs_chunk_walk_get(walk, ci->number, &mc) != 0
                 ? -1
                 : context_key(di->dd, di->in, &mc, &key);
    else
        rc = mcs_chunk_walk_dedup_key(walk, ci, &key);
    return rc != 0 ? -1 : record(di->dd, &key, di->in);
}

int mcs_dedup_copy(mcs_dedup *dd, mcs_input *in, mcs_output *out)
{
    if (!in->archive)
        return dedup_sequential(dd, in, out) < 0 ? -1 : 0;
    const mcs_copy_rules rules = {dd->thin, true, "deduplicating"};
    dedup_input di = {dd, in};
    return mcs_chunks_copy(in, out, &rules, keep_new, &di, &dd->counts);
}
