/*
 * mcs_chunks.h - the copying verbs on an archive input, chunk by chunk (mcs_chunks.c).
 *
 * Which contexts to keep is decided from the index (each context's number and size), without
 * decompressing (a keep function that needs the bytes decodes: mcs_chunk_walk_get). The walk
 * reads no stored hash: over a large index that spares the reader their streams (FORMAT.md §5).
 * Then, per chunk:
 * - nothing kept: the chunk is not read at all;
 * - everything kept, into an archive output that uses the input's dictionary: the chunk is
 *   checked (its checksum, and each context when the verb deep-checks), then its compressed
 *   bytes are copied as they are: nothing is recompressed;
 * - otherwise: the chunk is decoded once and its kept contexts appended one by one.
 * One chunk is held decoded at a time, so memory does not grow with the collection.
 */
#ifndef MCS_CHUNKS_H
#define MCS_CHUNKS_H

#include "mcs_util.h"

typedef struct mcs_chunk_walk mcs_chunk_walk;

/* Decides one context from its place in the index (mcz_reader_context_with, MCZ_CONTEXT_PLACE:
 * its hashes zero): 1 keep, 0 drop, -1 error (printed). */
typedef int (*mcs_keep_fn)(void *arg, mcs_chunk_walk *walk, const mcz_context_info *ci);

/* How kept contexts are written. */
typedef struct mcs_copy_rules {
    mcz_mc_builder *thin; /* re-serialize without compile results (so never a chunk copy);
                           * NULL: contexts as they are */
    bool deep_check;      /* mcz_mc_check each kept context first, as SuperPMI's parse would */
    const char *what;     /* progress label, e.g. "stripping" */
} mcs_copy_rules;

typedef struct mcs_copy_counts {
    uint64_t loaded;          /* contexts decided */
    uint64_t saved;           /* contexts kept */
    uint64_t saved_bytes;     /* their size (in the equivalent MCH) */
    uint64_t chunks_copied;   /* chunks whose compressed bytes were copied as they are */
    uint64_t chunks_appended; /* chunks decoded and (partly) appended context by context */
} mcs_copy_counts;

/* Walks every chunk of in (an archive) in number order, asking keep about each context (keep
 * NULL: every context is kept), and writes the kept ones to out as above. Counts add up across calls (one counts for many
 * inputs). Returns 0, or -1 after printing the error. */
int mcs_chunks_copy(mcs_input *in, mcs_output *out, const mcs_copy_rules *rules, mcs_keep_fn keep,
                    void *arg, mcs_copy_counts *counts);

/* Copies every context of in to out: an archive as above, an MCH file context by context
 * (deep-checked and thinned as rules say). Returns 0, or -1 after printing the error. */
int mcs_copy_all(mcs_input *in, mcs_output *out, const mcs_copy_rules *rules,
                 mcs_copy_counts *counts);

/*
 * Copies every context of in_path to a new out_path (opt as mcs_output_open takes it, fields
 * left at zero taking the library's defaults, not the input's settings), showing
 * progress as `what` ("converting"). Fills *contexts and *bytes (the equivalent MCH size).
 * Returns 0, or -1 after printing the error, with nothing left at out_path.
 */
int mcs_copy_file(mcs_run *run, const char *in_path, const char *out_path, mcs_output_kind kind,
                  const mcz_writer_options *opt, const char *what, uint64_t *contexts,
                  uint64_t *bytes);

/*
 * mcs_copy_file into an archive for a zip in_path (tool_is_zip): its one .mch member read in
 * order and converted as it is inflated (mcs_zip.c), nothing unpacked. Returns 0, or -1 after
 * printing the error (naming the file and the member), with nothing left at out_path.
 */
int mcs_convert_zip(mcs_run *run, const char *in_path, const char *out_path,
                    const mcz_writer_options *opt, uint64_t *contexts, uint64_t *bytes);

/* What mcs -info says of a zip: its .mch member, read through once (containers checked). */
typedef struct mcs_zip_summary {
    char member[TOOL_ERROR_SIZE];
    uint64_t size, stored;  /* the member's bytes, and compressed */
    const char *method;     /* "deflate", "stored", ... */
    uint64_t contexts;      /* numbered 1..contexts */
    const mcz_jit_ee *jit_ee; /* what its packets are read as, and how it was chosen */
    const char *jit_ee_how;
} mcs_zip_summary;
/* Returns 0, or -1 after printing the error (naming the file and member). */
int mcs_zip_scan(mcs_run *run, const char *path, mcs_zip_summary *out);

/* For a keep function whose decision needs the bytes (-removeDup -legacy): the context being
 * decided, decoded (its chunk is decoded once for all its contexts) but not deep-checked. The
 * view lasts until the walk moves to another chunk. Returns 0, or -1 after printing the error. */
int mcs_chunk_walk_get(mcs_chunk_walk *w, uint32_t number, mcz_mc *mc);

#endif /* MCS_CHUNKS_H */
