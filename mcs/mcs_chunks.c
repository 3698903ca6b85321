/* mcs_chunks.c - the copying verbs on an archive input, chunk by chunk (mcs_chunks.h). */
#include <stdlib.h>

#include "mcs_chunks.h"
#include "mcs_context.h"

struct mcs_chunk_walk {
    mcs_input *in;
    mcs_output *out;
    const mcs_copy_rules *rules;
    mcs_copy_counts *counts;
    mcz_cursor *cursor;
    bool *keep; /* one per context of the chunk being walked */
    size_t keep_cap;
    tool_progress progress;
    uint64_t raw_done; /* raw bytes of the chunks walked, for the progress line */
    uint64_t dropped;  /* what of the archive left memory (mcz_reader_drop_behind) */
};

int mcs_chunk_walk_get(mcs_chunk_walk *w, uint32_t number, mcz_mc *mc)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = mcz_cursor_get(w->cursor, number, mc, &d);
    if (rc == MCZ_OK)
        return 0;
    tool_progress_end(&w->progress);
    return mcs_input_read_failed(w->in, number, rc, &d);
}

/* Fills w->keep for the chunk's contexts (positions from `position`); returns how many are
 * kept, or -1 (printed). */
static int64_t decide_chunk(mcs_chunk_walk *w, const mcz_chunk_info *ch, uint64_t position,
                            mcs_keep_fn keep, void *arg)
{
    if (ch->count > w->keep_cap) {
        bool *grown = realloc(w->keep, ch->count * sizeof *grown);
        if (!grown) {
            tool_error("%s: out of memory", w->in->path);
            return -1;
        }
        w->keep = grown;
        w->keep_cap = ch->count;
    }
    int64_t kept = 0;
    for (uint32_t i = 0; i < ch->count; i++) {
        mcz_context_info ci;
        if (mcz_reader_context_with(w->in->archive, position + i, MCZ_CONTEXT_PLACE, &ci) !=
            MCZ_OK) {
            tool_error("%s: the index lacks context %u", w->in->path, ch->first_number + i);
            return -1;
        }
        int rc = keep ? keep(arg, w, &ci) : 1;
        if (rc < 0)
            return -1;
        w->keep[i] = rc > 0;
        kept += rc > 0;
        w->counts->saved_bytes += rc > 0 ? ci.size : 0;
    }
    return kept;
}

/* Otherwise (or when a whole chunk cannot be copied): the chunk decoded once, its kept contexts
 * appended (checked, thinned). */
static int append_kept(mcs_chunk_walk *w, const mcz_chunk_info *ch)
{
    for (uint32_t i = 0; i < ch->count; i++) {
        mcz_mc mc;
        if (!w->keep[i])
            continue;
        if (mcs_chunk_walk_get(w, ch->first_number + i, &mc) != 0)
            return -1;
        int rc = w->rules->thin || w->rules->deep_check
                     ? mcs_output_put_checked(w->out, w->rules->thin, w->in, &mc)
                     : mcs_output_put(w->out, &mc);
        if (rc != 0)
            return -1;
    }
    w->counts->chunks_appended++;
    return 0;
}

/* Every context kept, into an archive with the same dictionary: the compressed bytes are
 * copied. The writer verifies the chunk (checksum, containers) before it copies anything; the
 * deep check of each context, when the verb wants it, decodes the chunk here. A chunk whose data
 * frame names another dictionary is not copied: it is decoded and appended instead. */
static int copy_whole(mcs_chunk_walk *w, uint64_t index, const mcz_chunk_info *ch)
{
    for (uint32_t i = 0; w->rules->deep_check && i < ch->count; i++) {
        mcz_mc mc;
        if (mcs_chunk_walk_get(w, ch->first_number + i, &mc) != 0 ||
            mcs_input_check_context(w->in, &mc) != 0)
            return -1;
    }
    bool verbatim = false;
    if (mcs_output_put_chunk(w->out, w->in, index, &verbatim) != 0)
        return -1;
    if (!verbatim)
        return append_kept(w, ch);
    w->counts->chunks_copied++;
    return 0;
}

/* Chunk `index`, whose first context sits at *position (advanced past the chunk). */
static int walk_chunk(mcs_chunk_walk *w, uint64_t index, uint64_t *position, mcs_keep_fn keep,
                      void *arg)
{
    mcz_chunk_info ch;
    if (mcz_reader_chunk(w->in->archive, index, &ch) != MCZ_OK) {
        tool_error("%s: the index lacks chunk %llu", w->in->path, (unsigned long long)index);
        return -1;
    }
    mcz_reader_drop_behind(w->in->archive, &w->dropped, ch.offset); /* flat memory */
    int64_t kept = decide_chunk(w, &ch, *position, keep, arg);
    if (kept < 0)
        return -1;
    *position += ch.count;
    int rc = 0;
    if (kept == ch.count && !w->rules->thin && mcs_output_copies_chunks_of(w->out, w->in))
        rc = copy_whole(w, index, &ch);
    else if (kept > 0)
        rc = append_kept(w, &ch);
    w->counts->loaded += ch.count;
    w->counts->saved += (uint64_t)kept;
    w->raw_done += ch.raw_size;
    tool_progress_update(&w->progress, w->counts->loaded, w->raw_done);
    return rc;
}

int mcs_chunks_copy(mcs_input *in, mcs_output *out, const mcs_copy_rules *rules, mcs_keep_fn keep,
                    void *arg, mcs_copy_counts *counts)
{
    if (mcs_output_offer_settings(out, in) != 0)
        return -1;
    mcs_chunk_walk w = {.in = in, .out = out, .rules = rules, .counts = counts};
    w.cursor = mcz_cursor_create(in->archive);
    if (!w.cursor) {
        tool_error("%s: out of memory", in->path);
        return -1;
    }
    mcz_archive_info info;
    mcz_reader_get_info(in->archive, &info);
    tool_progress_start(&w.progress, rules->what, info.contexts, info.raw_bytes);
    uint64_t position = 0;
    int rc = 0;
    for (uint64_t index = 0; index < info.chunks && rc == 0; index++)
        rc = walk_chunk(&w, index, &position, keep, arg);
    tool_progress_end(&w.progress);
    mcz_cursor_free(w.cursor);
    free(w.keep);
    return rc;
}

/* An MCH file: context by context. */
static int copy_contexts(mcs_input *in, mcs_output *out, const mcs_copy_rules *rules,
                         mcs_copy_counts *counts)
{
    tool_progress progress;
    tool_progress_start(&progress, rules->what, in->contexts, in->raw_bytes);
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(in, &mc)) > 0) {
        int put = rules->thin || rules->deep_check
                      ? mcs_output_put_checked(out, rules->thin, in, &mc)
                      : mcs_output_put(out, &mc);
        if (put != 0) {
            rc = -1;
            break;
        }
        counts->loaded++;
        counts->saved++;
        counts->saved_bytes += mc.size;
        tool_progress_update(&progress, counts->loaded, in->read_bytes);
    }
    tool_progress_end(&progress);
    return rc < 0 ? -1 : 0;
}

int mcs_copy_all(mcs_input *in, mcs_output *out, const mcs_copy_rules *rules,
                 mcs_copy_counts *counts)
{
    return in->archive ? mcs_chunks_copy(in, out, rules, NULL, NULL, counts)
                       : copy_contexts(in, out, rules, counts);
}

int mcs_copy_file(mcs_run *run, const char *in_path, const char *out_path, mcs_output_kind kind,
                  const mcz_writer_options *opt, const char *what, uint64_t *contexts,
                  uint64_t *bytes)
{
    *contexts = *bytes = 0;
    mcs_input in;
    if (mcs_input_open(run, &in, in_path) != 0)
        return -1;
    const mcs_copy_rules rules = {NULL, false, what};
    mcs_copy_counts counts = {0};
    mcz_writer_options sized = opt ? *opt : (mcz_writer_options)MCZ_WRITER_OPTIONS_INIT;
    if (!sized.expected_bytes)
        sized.expected_bytes = in.raw_bytes; /* the dictionary decision's horizon */
    mcs_record rec; /* what an archive input records goes on, where the options say nothing */
    mcs_input_record(&in, &rec);
    if (!sized.jit_ee_guid && rec.guid[0])
        sized.jit_ee_guid = rec.guid;
    if (!sized.target_os && rec.os[0])
        sized.target_os = rec.os;
    if (!sized.target_arch && rec.arch[0])
        sized.target_arch = rec.arch;
    mcs_output *out = mcs_output_open(run, out_path, kind, &sized, false);
    int rc = out ? mcs_copy_all(&in, out, &rules, &counts) : -1;
    if (rc == 0)
        rc = mcs_output_commit(out);
    else
        mcs_output_abort(out);
    mcs_input_close(&in);
    *contexts = counts.saved;
    *bytes = counts.saved_bytes;
    return rc;
}
