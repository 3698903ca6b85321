/*
 * fuzz_index.c - the archive reader on hostile bytes. The input is a whole .mcz image: it is
 * opened from memory (the validation mcz_reader_open runs), and when it opens, every query is
 * made: info, the recorded metadata, every chunk entry, the chunk of every number, stored
 * hashes (or their absence), every context through the index and through a cursor, and deep
 * verification. Each input is opened twice: its index's per-context columns held whole, then
 * streamed from its frame (MCZ_INDEX_STREAM_MIN=0, FORMAT.md §5 "What a reader holds"); both
 * must agree on whether it opens. Nothing may crash or read outside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../reader/reader_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk_chunk(const mcz_reader *r, mcz_cursor *cur, uint64_t i)
{
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    mcz_chunk_info c;
    if (mcz_reader_chunk(r, i, &c) != MCZ_OK)
        abort();
    const uint8_t *raw;
    size_t len;
    int ok = mcz_cursor_chunk(cur, i, &raw, &len, NULL) == MCZ_OK;
    if (ok && len != c.raw_size)
        abort();
    for (uint32_t k = 0; k < c.count; k++) {
        uint32_t number = c.first_number + k;
        if (mcz_reader_chunk_of(r, number) != (int64_t)i)
            abort();
        mcz_hash128 identity, dedup;
        int stored = info.hashes ? MCZ_OK : MCZ_EMISSING;
        if (mcz_reader_hashes(r, number, &identity, &dedup) != stored)
            abort();
        mcz_mc mc;
        int rc = mcz_cursor_get(cur, number, &mc, NULL);
        /* A chunk that decoded yields all its contexts. The converse does not hold: on a
         * damaged frame zstd's verdict can depend on what the context decoded before, so a
         * chunk refused once may decode later; its XXH3 still guarantees the bytes. */
        if (ok && rc != MCZ_OK)
            abort();
        if (ok && (mc.bytes < raw || mc.bytes + mc.size > raw + len))
            abort();
    }
}

/* Every context as the index describes it, in order (each where the one before ends in the
 * equivalent MCH), then some from the end (a lean index's streams start again). */
static void walk_index(const mcz_reader *r, const mcz_archive_info *info)
{
    uint64_t next = 0;
    for (uint64_t i = 0; i < info->contexts; i++) {
        mcz_context_info ci;
        if (mcz_reader_context(r, i, &ci) != MCZ_OK || ci.mch_offset != next)
            abort(); /* the columns were checked at open */
        next += ci.size;
    }
    for (uint64_t i = info->contexts; i-- > 0 && info->contexts - i < 64;) {
        mcz_context_info ci;
        if (mcz_reader_context(r, i, &ci) != MCZ_OK)
            abort();
    }
}

static void exercise(mcz_reader *r)
{
    mcz_archive_info info;
    mcz_reader_get_info(r, &info);
    const void *dict;
    size_t dict_len;
    mcz_reader_dict(r, &dict, &dict_len);
    char guid[MCZ_GUID_TEXT_SIZE];
    const char *recorded = mcz_reader_jit_ee_guid(r), *os, *arch;
    mcz_reader_target(r, &os, &arch);
    /* what an archive that opened records is canonical (FORMAT.md §2a) */
    if (recorded && (mcz_guid_canonical(recorded, guid) != MCZ_OK || strcmp(guid, recorded)))
        abort();
    if ((os && !*os) || (arch && !*arch))
        abort();
    walk_index(r, &info);
    mcz_cursor *cur = mcz_cursor_create(r);
    for (uint64_t i = 0; cur && i < info.chunks; i++)
        walk_chunk(r, cur, i);
    (void)mcz_reader_chunk_of(r, 0);
    (void)mcz_reader_chunk_of(r, UINT32_MAX);
    if (mcz_reader_verify(r, NULL, NULL, NULL) != MCZ_OK) {
        /* damage is what a fuzzer feeds: only a crash would be a finding */
    }
    mcz_cursor_free(cur);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1); /* exact size: the sanitizer sees any overread */
    if (!copy)
        return 0;
    if (size)
        memcpy(copy, data, size);
    bool opened = false;
    for (int lean = 0; lean < 2; lean++) {
        setenv("MCZ_INDEX_STREAM_MIN", lean ? "0" : "18446744073709551615", 1);
        mcz_reader *r = mcz_reader_open_image(copy, size, NULL);
        if (lean && (r != NULL) != opened)
            abort(); /* held whole or streamed, the same checks */
        opened = r != NULL;
        if (r)
            exercise(r);
        mcz_reader_close(r);
    }
    free(copy);
    return 0;
}
