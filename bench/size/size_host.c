/*
 * size_host.c - the programs bench/collector-size.sh links to measure what the collector adds
 * to a program (a runtime) that already links zstd statically. One source, three programs by
 * what is defined:
 *   SIZE_ZSTD_COMPRESSOR  zstd's compressor alone (what a runtime that only compresses links)
 *   SIZE_ZSTD_ALL         every zstd function the collector calls: compression, dictionaries,
 *                         decompression, the dictionary builder (a runtime vendoring all of
 *                         zstd has them)
 *   SIZE_COLLECTOR        SIZE_ZSTD_ALL and the collector API (include/mcz.h); with
 *                         SIZE_NO_CRASH_DUMP, without mcz_writer_dump_on_signal
 * The calls run only when asked (argv), so nothing is optimized away; the program is never
 * run for its result.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZDICT_STATIC_LINKING_ONLY
#include <zdict.h>
#include <zstd.h>
#ifdef SIZE_COLLECTOR
#include "mcz.h"
#endif

static size_t zstd_compressor(const char *in, size_t len, char *out, size_t cap)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, (int)len & 7);
    size_t n = ZSTD_compress2(c, out, cap, in, len);
    ZSTD_freeCCtx(c);
    return ZSTD_isError(n) ? 0 : n;
}

#if defined(SIZE_ZSTD_ALL) || defined(SIZE_COLLECTOR)
static size_t zstd_rest(const char *in, size_t len, char *out, size_t cap)
{
    unsigned char dict[1024];
    size_t sizes[4] = {len / 4, len / 4, len / 4, len - 3 * (len / 4)};
    ZDICT_fastCover_params_t p;
    memset(&p, 0, sizeof p);
    size_t d = ZDICT_trainFromBuffer_fastCover(dict, sizeof dict, in, sizes, 4, p);
    if (ZDICT_isError(d))
        return 0;
    ZSTD_CDict *cd = ZSTD_createCDict(dict, d, 3);
    ZSTD_DDict *dd = ZSTD_createDDict(dict, d);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_DCtx *x = ZSTD_createDCtx();
    ZSTD_CCtx_refCDict(c, cd);
    size_t n = ZSTD_compress2(c, out, cap, in, len);
    size_t m = ZSTD_decompress_usingDDict(x, out + n, cap - n, out, n, dd);
    m += ZSTD_decompressDCtx(x, out + n, cap - n, out, n);
    m += (size_t)ZSTD_getFrameContentSize(out, n) + ZSTD_findFrameCompressedSize(out, n) +
         ZSTD_getDictID_fromFrame(out, n) + ZDICT_getDictID(dict, d);
    ZSTD_outBuffer ob = {out, cap, 0};
    ZSTD_inBuffer ib = {in, len, 0};
    m += ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_end);
    ZSTD_freeCCtx(c);
    ZSTD_freeDCtx(x);
    ZSTD_freeCDict(cd);
    ZSTD_freeDDict(dd);
    return m;
}
#endif

#ifdef SIZE_COLLECTOR
static int collect(const char *path, const char *mc, size_t len, int mode)
{
    mcz_writer_options o = MCZ_WRITER_OPTIONS_INIT;
    o.mode = (mcz_writer_mode)mode;
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(path, &o, &d);
    if (!w) {
        fprintf(stderr, "%s: %s\n", mcz_error_name(d.code), d.message);
        return 1;
    }
#ifndef SIZE_NO_CRASH_DUMP
    if (mcz_writer_dump_on_signal(w, "crash.mcz", 0, true, &d) != MCZ_OK)
        mcz_diag_clear(&d);
#endif
    int rc = mcz_writer_append(w, mc, len, NULL) != MCZ_OK || mcz_writer_flush(w) != MCZ_OK ||
             mcz_writer_dump(w, "now.mcz", &d) != MCZ_OK;
    mcz_writer_stats s;
    mcz_writer_get_stats(w, &s);
    if (rc) {
        char line[512];
        mcz_diag_format(mcz_writer_diag(w), line, sizeof line);
        fputs(line, stderr);
        mcz_writer_abort(w);
        return 1;
    }
    return mcz_writer_close(w, &d) != MCZ_OK;
}
#endif

int main(int argc, char **argv)
{
    if (argc < 3)
        return 0;
    size_t len = strlen(argv[2]), cap = 2 * len + 4096;
    char *out = malloc(cap);
    if (!out)
        return 1;
    size_t n = zstd_compressor(argv[2], len, out, cap);
#if defined(SIZE_ZSTD_ALL) || defined(SIZE_COLLECTOR)
    n += zstd_rest(argv[2], len, out, cap);
#endif
    int rc = n == 0;
#ifdef SIZE_COLLECTOR
    rc |= collect(argv[1], argv[2], len, argc);
#endif
    free(out);
    return rc;
}
