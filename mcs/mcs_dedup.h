/*
 * mcs_dedup.h - the deduplicator of -removeDup and -merge -dedup (mcs_dedup.c), in two passes
 * over the inputs: the first records every context's 128-bit key with its place, the second
 * copies the first occurrence of each key, in input order. The keys gather in a bounded buffer
 * (128 Ki entries of 24 bytes, 3 MiB; MCZ_DEDUP_RUN=N sets N entries) that is sorted and
 * written to a temporary file under TMPDIR as a run when full; deciding merges the runs. What
 * stays in memory per context is one bit (first occurrence or not): 0.3 MiB at 2.5 M contexts.
 * The output is the same, bytes and order, whatever the bound.
 *
 * Keys (as mcs -removeDup --help tells):
 * - default: the identity hash without names (what SuperPMI compares), or, for a context whose
 *   identity cannot be built, the XXH3-128 of its bytes: the dedup key an archive stores, so
 *   that an .mch file and its archive deduplicate alike. An archive's keys come from its index
 *   (or, when it stores none, from its decoded contexts), and its chunks are copied as
 *   mcs_chunks.h says: with stored keys, a chunk of duplicates only is never read.
 * - legacy: MethodContext::Equal's fields (CompileMethod's scalars, the IL bytes, and whether
 *   each map is present with how many items) hashed together; contexts lacking CompileMethod
 *   fall back to the hash of their bytes.
 */
#ifndef MCS_DEDUP_H
#define MCS_DEDUP_H

#include "mcs_util.h"

typedef struct mcs_dedup mcs_dedup;

/* thin: compile results are dropped before comparing (legacy) and writing. NULL after printing
 * the error. */
mcs_dedup *mcs_dedup_create(bool legacy, bool thin);
void mcs_dedup_free(mcs_dedup *dd);

/* The first pass: records the key of each of in's contexts (after the earlier inputs'), and
 * leaves an MCH input rewound for the second. Returns 0, or -1 after printing the error. */
int mcs_dedup_record(mcs_dedup *dd, mcs_input *in);
/* The second pass, once every input is recorded, over the same inputs in the same order:
 * copies the contexts of in not seen before (in this input or an earlier one) to out, in
 * input order. Returns 0, or -1 after printing the error (an input holding more contexts than
 * it did when recorded). */
int mcs_dedup_copy(mcs_dedup *dd, mcs_input *in, mcs_output *out);
/* After the last mcs_dedup_copy: 0, or -1 after printing the error when the inputs held fewer
 * contexts than were recorded (a file changed between the passes). */
int mcs_dedup_finish(const mcs_dedup *dd);

/* Contexts read and written so far. */
uint64_t mcs_dedup_loaded(const mcs_dedup *dd);
uint64_t mcs_dedup_saved(const mcs_dedup *dd);

#endif /* MCS_DEDUP_H */
