/*
 * mcs_dedup.h - the deduplicator of -removeDup and -merge -dedup (mcs_dedup.c): one set of
 * 128-bit keys, shared across every input, so memory grows with the unique contexts' keys
 * (16 bytes each), never with the contexts themselves.
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

/* Copies the contexts of in not seen before (in this input or an earlier one) to out, in
 * input order. Returns 0, or -1 after printing the error. */
int mcs_dedup_copy(mcs_dedup *dd, mcs_input *in, mcs_output *out);

/* Contexts read and written so far. */
uint64_t mcs_dedup_loaded(const mcs_dedup *dd);
uint64_t mcs_dedup_saved(const mcs_dedup *dd);

#endif /* MCS_DEDUP_H */
