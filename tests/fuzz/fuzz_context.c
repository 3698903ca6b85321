/*
 * fuzz_context.c - the legacy MCH reader on hostile bytes. The input is walked as an MCH file;
 * every context is deep-checked (strictly too), every map parsed, every u32 of every map's
 * items followed as a pool index, and every map re-serialized: a tagged map must come back
 * byte-identical.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/mcz_common.h"

/* The version these tests' contexts are written in (their CorInfoType numbering). */
#define VB mcz_jit_ee_find("B")

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void follow_indices(const mcz_map *m)
{
    size_t items_len = (size_t)m->count * m->item_size;
    for (size_t i = 0; i + 4 <= items_len; i++) {
        const uint8_t *buf;
        uint32_t len;
        if (mcz_map_buffer(m, mcz_get_le32(m->items + i), &buf, &len) != MCZ_OK)
            continue;
        if (buf < m->pool || len > m->pool_size || buf + len > m->pool + m->pool_size)
            abort();
    }
    for (uint32_t i = 0; i < m->count; i++) {
        const uint8_t *key = mcz_map_key(m, i);
        if (key)
            (void)mcz_map_find(m, key, m->key_size);
        (void)mcz_map_value(m, i);
    }
}

/* put_map of a tagged, non-empty map reproduces the packet exactly. */
static void reserialize(mcz_mc_builder *b, const mcz_mc *mc, const mcz_packet *p,
                        const mcz_map *m)
{
    const uint8_t *bytes;
    size_t size;
    mcz_mc_builder_reset(b);
    if (mcz_mc_builder_put_map(b, p->id, m) != MCZ_OK ||
        mcz_mc_builder_finish(b, &bytes, &size) != MCZ_OK)
        abort();
    mcz_mc rebuilt;
    if (mcz_mc_from_bytes(bytes, size, 1, 0, &rebuilt, NULL) != MCZ_OK)
        abort();
    if (m->count == 0)
        return;
    mcz_packet q;
    mcz_map again;
    if (mcz_packet_find(&rebuilt, p->id, &q, NULL) != 1 || mcz_map_parse(VB, &q, &again, NULL) != 0)
        abort();
    /* a legacy dense map loses its stored u32 keys */
    uint32_t item_size = again.dense && !m->dense ? m->item_size - 4 : m->item_size;
    if (again.count != m->count || again.item_size != item_size ||
        again.pool_size != m->pool_size)
        abort();
    size_t packet_len = (size_t)p->size + 6;
    if (m->tagged && (size != packet_len + MCZ_MC_OVERHEAD ||
                      memcmp(bytes + 6, mc->bytes + p->offset, packet_len) != 0))
        abort();
}

/* The identity walks packets by content (names, signatures, PGO): both forms, and the string
 * must fit what was asked for. */
static void identities(const mcz_mc *mc)
{
    char text[512];
    for (int ignore_names = 0; ignore_names < 2; ignore_names++) {
        int64_t len = mcz_mc_identity(VB, mc, ignore_names, text, sizeof text, NULL);
        if (len >= 0 && strnlen(text, sizeof text) == sizeof text)
            abort();
        mcz_hash128 h;
        (void)mcz_mc_identity_hash(VB, mc, ignore_names, &h, NULL);
    }
}

static void exercise(mcz_mc_builder *b, const mcz_mc *mc)
{
    (void)mcz_mc_check(mc, NULL);
    (void)mcz_mc_check_table(VB, mc, NULL);
    mcz_strict_report report;
    if (mcz_mc_check_strict(VB, mc, &report, NULL) == MCZ_OK &&
        (report.unknown_count == 0) != (mcz_strict_unknown_fail(mc, &report, NULL) == MCZ_OK))
        abort();
    identities(mc);
    uint32_t pos = 0;
    mcz_packet p;
    while (mcz_packet_next(mc, &pos, &p, NULL) == 1) {
        mcz_map m;
        if (mcz_map_parse(VB, &p, &m, NULL) != MCZ_OK)
            continue;
        follow_indices(&m);
        reserialize(b, mc, &p, &m);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mcz_mc_builder *b = mcz_mc_builder_create();
    if (!b)
        return 0;
    uint64_t pos = 0;
    uint32_t number = 0;
    mcz_mc mc;
    mcz_diag d;
    while (mcz_mch_next(data, size, &pos, &number, &mc, &d) == 1)
        exercise(b, &mc);
    mcz_mc_builder_free(b);
    return 0;
}
