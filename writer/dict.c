/*
 * dict.c - zstd dictionary training for the archive: fastCover (d=8, f=20) with a fixed segment
 * size k=2000, the value zstd's own k search settles on for method contexts. The search itself
 * (ZDICT_optimizeTrainFromBuffer_fastCover) compresses held-out samples for every candidate and
 * cost 1.5 to 4 s on 2 to 4 MiB of samples; the fixed k trains on 8 MiB in about 0.2 s CPU, so
 * more samples can be afforded. The entropy tables are tuned at min(level, DICT_TABLE_LEVEL):
 * finalizing at level 19 would cost more than the conversion it serves, and in chunks of about
 * 1 MiB zstd rebuilds its tables per 128 KiB block anyway, so the dictionary pays through its
 * content (matches for the first contexts of a chunk). Figures: bench/FIGURES.md §5.
 */
#include <stdlib.h>

#define ZDICT_STATIC_LINKING_ONLY
#include <zdict.h>

#include "mcz_common.h"

#define DICT_MIN_SIZE 256u /* ZDICT_DICTSIZE_MIN: smaller capacities cannot hold a dictionary */
#define DICT_TABLE_LEVEL 3
#define DICT_SEGMENT 2000 /* k */

int mcz_dict_train(const void *samples, const size_t *sizes, unsigned n, size_t cap, int level,
                   void **dict, size_t *dict_len, mcz_diag *diag)
{
    if (!samples || !sizes || !dict || !dict_len || cap < DICT_MIN_SIZE)
        return mcz_diag_set(diag, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "mcz_dict_train: bad argument");
    *dict = NULL;
    *dict_len = 0;
    if (n == 0)
        return mcz_diag_set(diag, MCZ_EUNSUPPORTED, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "dictionary training: no samples");
    void *buf = malloc(cap);
    if (!buf)
        return mcz_diag_set(diag, MCZ_ENOMEM, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "dictionary training: out of memory");
    ZDICT_fastCover_params_t params = {0};
    params.k = cap < DICT_SEGMENT ? (unsigned)cap : DICT_SEGMENT; /* k may not exceed cap */
    params.d = 8;
    params.f = 20;
    params.accel = 1;
    params.splitPoint = 1.0; /* no held-out set: nothing is evaluated */
    params.zParams.compressionLevel = level < DICT_TABLE_LEVEL ? level : DICT_TABLE_LEVEL;
    size_t got = ZDICT_trainFromBuffer_fastCover(buf, cap, samples, sizes, n, params);
    if (ZDICT_isError(got)) {
        free(buf);
        return mcz_diag_set(diag, MCZ_EUNSUPPORTED, MCZ_NO_OFFSET, MCZ_NO_CONTEXT,
                            "dictionary training failed: %s", ZDICT_getErrorName(got));
    }
    void *fitted = realloc(buf, got);
    if (fitted) /* a failed shrink leaves the larger block, still ours */
        buf = fitted;
    *dict = buf;
    *dict_len = got;
    return MCZ_OK;
}
