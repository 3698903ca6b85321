/*
 * manyctx.c - an archive of N small contexts (58 bytes each: one packet map of one entry, its
 * value varying with the context), written by the library's writer in 16 KiB chunks (about 280
 * contexts a chunk). Its index is that of a collection of N contexts, hashes included, without
 * the collection's gigabytes: 2,500,000 contexts make a 75 MB archive in about a minute, so a
 * reader's memory at a platform's size is measured, not projected (bench/FIGURES.md §13, "The
 * reader's index in pieces").
 *
 *   manyctx N OUT.mcz
 *
 * Not a test: it writes an input for measurements.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mcz.h"
#include "mcz_superpmi.h"

/* Context i's bytes, from b (valid until b is used again); the value's first 8 bytes from *s. */
static int build(mcz_mc_builder *b, uint32_t i, uint64_t *s, const uint8_t **bytes, size_t *size)
{
    uint8_t value[24];
    for (int k = 0; k < 24; k++) {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        value[k] = (uint8_t)(k < 8 ? *s : (uint64_t)k);
    }
    uint64_t key = i;
    mcz_mc_builder_reset(b);
    int rc = mcz_mc_builder_begin(b, 240, false, 8, sizeof value);
    if (rc == MCZ_OK)
        rc = mcz_mc_builder_add(b, &key, value);
    if (rc == MCZ_OK)
        rc = mcz_mc_builder_end(b);
    return rc == MCZ_OK ? mcz_mc_builder_finish(b, bytes, size) : rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: manyctx N OUT.mcz\n");
        return 2;
    }
    uint32_t n = (uint32_t)strtoul(argv[1], NULL, 10);
    mcz_writer_options o = MCZ_WRITER_OPTIONS_INIT;
    o.chunk_size = 16 << 10;
    o.threads = 2;
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_writer *w = mcz_writer_open(argv[2], &o, &d);
    mcz_mc_builder *b = w ? mcz_mc_builder_create() : NULL;
    uint64_t s = 88172645463325252ull;
    int rc = b ? MCZ_OK : MCZ_ENOMEM;
    for (uint32_t i = 0; i < n && rc == MCZ_OK; i++) {
        const uint8_t *bytes;
        size_t size;
        rc = build(b, i, &s, &bytes, &size);
        if (rc == MCZ_OK)
            rc = mcz_writer_append(w, bytes, size, NULL);
    }
    mcz_mc_builder_free(b);
    if (w && mcz_writer_close(w, rc == MCZ_OK ? &d : NULL) != MCZ_OK && rc == MCZ_OK)
        rc = d.code;
    if (rc != MCZ_OK)
        fprintf(stderr, "manyctx: %s: %s\n", argv[2],
                d.message[0] ? d.message : mcz_error_name(rc));
    return rc == MCZ_OK ? 0 : 1;
}
