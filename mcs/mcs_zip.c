/*
 * mcs_zip.c - converting the collection a zip holds (superpmi.py's store: X.mch.zip with one
 * member X.mch) straight into an archive, without an unpacked copy anywhere.
 *
 * A zip member is read in order only (libzip inflates it as it goes; seeking inside a deflated
 * member means inflating again from its start), so it cannot take the path a file takes
 * (mapped, read through mcz_source) nor the one a pipe takes (spooled whole to a temporary file,
 * which is the unpacked copy this avoids). The contexts are framed as they come: each is read
 * whole (its 6-byte head says its length) and checked as mcz_mch_next checks a mapped one
 * (mcz_mc_from_bytes), then appended. Memory: the first contexts are held to vote for the
 * JIT-EE version the hashes use, as any input's are (MCZ_JIT_EE_DETECT_CONTEXTS contexts or
 * MCZ_JIT_EE_DETECT_BYTES, whichever comes first), then one context at a time.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_chunks.h"
#include "mcs_util.h"
#include "mcz_agnostic.h" /* mcz_get_le32 */

typedef struct zip_input {
    tool_zip *zip;
    char name[TOOL_ERROR_SIZE]; /* "FILE, member M.mch": what messages name */
    uint64_t size;              /* the member's uncompressed size */
    uint64_t offset;            /* where the next context starts in the member */
    uint32_t number;            /* the last context's */
    uint8_t *held;              /* contexts read while voting, back to back (an MCH image) */
    size_t held_len, held_cap;
} zip_input;

static int zip_failed(const char *err)
{
    tool_error("%s", err);
    return -1;
}

/* Makes room for need more bytes after the held ones. */
static int hold_room(zip_input *z, size_t need)
{
    if (need <= z->held_cap - z->held_len)
        return 0;
    size_t cap = z->held_cap ? z->held_cap : 1u << 20;
    while (cap - z->held_len < need)
        cap *= 2;
    uint8_t *bigger = realloc(z->held, cap);
    if (!bigger) {
        tool_error("%s: out of memory for a context of %zu bytes", z->name, need);
        return -1;
    }
    z->held = bigger;
    z->held_cap = cap;
    return 0;
}

/* Prints d, about the context at z->offset: its offset is one in the member. Always -1. */
static int context_failed(const zip_input *z, const mcz_diag *d)
{
    char text[MCS_DIAG_TEXT_SIZE];
    tool_where at = {z->name, -1, d->context, d->offset};
    tool_error("%s", tool_where_text(&at, d, text, sizeof text));
    return -1;
}

/* The context whose first `have` bytes are at p is not one: the container check says why (a bad
 * magic, a cut head, a length beyond the limit or a bad end canary). Always -1. */
static int bad_context(const zip_input *z, const uint8_t *p, size_t have)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_mc mc;
    if (mcz_mc_from_bytes(p, have, z->number + 1, z->offset, &mc, &d) == MCZ_OK)
        mcz_diag_set(&d, MCZ_ECORRUPT, mcz_at_offset((int64_t)z->offset),
                     mcz_in_context(z->number + 1),
                     "not a context"); /* cannot be: have is short */
    return context_failed(z, &d);
}

/* The member ends before the context's length does. Always -1. */
static int cut_context(const zip_input *z, uint64_t total)
{
    mcz_diag d;
    mcz_diag_set(&d, MCZ_ETRUNCATED, mcz_at_offset((int64_t)z->offset + 2),
                 mcz_in_context(z->number + 1),
                 "length %llu runs past the end of the member (%llu bytes left)",
                 (unsigned long long)total - 8,
                 (unsigned long long)(z->size - z->offset - 6));
    return context_failed(z, &d);
}

/*
 * Reads the next context after the held bytes (the caller drops them when it does not keep
 * them): 1 with *mc viewing it, 0 at the member's end, -1 after printing the error.
 */
static int next_context(zip_input *z, mcz_mc *mc)
{
    char err[TOOL_ERROR_SIZE];
    if (hold_room(z, 6) != 0)
        return -1;
    uint8_t *p = z->held + z->held_len;
    int64_t got = tool_zip_read(z->zip, p, 6, err);
    if (got < 0)
        return zip_failed(err);
    if (got == 0)
        return 0;
    uint64_t total = 8 + (uint64_t)mcz_get_le32(p + 2);
    /* A length the member cannot hold is refused before anything is allocated for it. */
    if (got < 6 || p[0] != 'm' || p[1] != 'c' || total > MCZ_MC_MAX_SIZE)
        return bad_context(z, p, (size_t)got);
    if (total > z->size - z->offset)
        return cut_context(z, total);
    if (hold_room(z, (size_t)total) != 0)
        return -1;
    p = z->held + z->held_len;
    got = tool_zip_read(z->zip, p + 6, (size_t)total - 6, err);
    if (got < 0)
        return zip_failed(err);
    if ((uint64_t)got != total - 6)
        return cut_context(z, total);
    mcz_diag d;
    mcz_diag_clear(&d);
    if (mcz_mc_from_bytes(p, (size_t)total, z->number + 1, z->offset, mc, &d) != MCZ_OK)
        return bad_context(z, p, (size_t)total);
    z->number++;
    z->offset += total;
    return 1;
}

/* Holds the first contexts and votes on them: the version the output hashes with (*how: how it
 * was chosen). Returns 0, or -1 after printing the error. */
static const mcz_jit_ee *hold_and_vote(mcs_run *run, zip_input *z, const char **how)
{
    uint32_t fits = mcz_jit_ee_fits_all(), voted = 0;
    mcz_mc mc;
    int rc = 0;
    while (voted < MCZ_JIT_EE_DETECT_CONTEXTS && z->held_len < MCZ_JIT_EE_DETECT_BYTES &&
           (rc = next_context(z, &mc)) > 0) {
        if (!run->forced_jit_ee)
            mcz_jit_ee_vote(&fits, &mc);
        z->held_len += mc.size;
        voted++;
    }
    if (rc < 0)
        return NULL;
    return mcs_jit_ee_decide(run, z->name, mcz_jit_ee_from_fits(fits), voted, how);
}

/* Opens the zip's .mch member into z: 0, or -1 after printing the error. */
static int zip_input_open(zip_input *z, const char *path)
{
    char err[TOOL_ERROR_SIZE];
    tool_note_input(path);
    z->zip = tool_zip_open(path, err);
    if (!z->zip)
        return zip_failed(err);
    snprintf(z->name, sizeof z->name, "%s, member %s", path, tool_zip_member(z->zip));
    z->size = tool_zip_size(z->zip);
    return 0;
}

static void zip_input_close(zip_input *z)
{
    tool_zip_close(z->zip);
    free(z->held);
}

int mcs_zip_scan(mcs_run *run, const char *path, mcs_zip_summary *out)
{
    memset(out, 0, sizeof *out);
    zip_input z = {0};
    if (zip_input_open(&z, path) != 0)
        return -1;
    snprintf(out->member, sizeof out->member, "%s", tool_zip_member(z.zip));
    out->size = z.size;
    out->stored = tool_zip_stored_size(z.zip);
    out->method = tool_zip_method(z.zip);
    out->jit_ee = hold_and_vote(run, &z, &out->jit_ee_how);
    z.held_len = 0;
    mcz_mc mc;
    int rc = out->jit_ee ? 0 : -1;
    while (rc == 0 && (rc = next_context(&z, &mc)) > 0)
        rc = 0;
    out->contexts = z.number;
    zip_input_close(&z);
    return rc < 0 ? -1 : 0;
}

/* Puts the held contexts, then the rest as they come. Returns 0, or -1 after printing. */
static int put_all(zip_input *z, mcs_output *out, uint64_t *contexts, uint64_t *bytes)
{
    tool_progress progress;
    tool_progress_start(&progress, "converting", 0, z->size);
    uint64_t pos = 0;
    uint32_t number = 0;
    mcz_mc mc;
    int rc = 0;
    while (rc == 0 && mcz_mch_next(z->held, z->held_len, &pos, &number, &mc, NULL) > 0) {
        rc = mcs_output_put(out, &mc);
        *bytes += mc.size;
        tool_progress_update(&progress, ++*contexts, *bytes);
    }
    z->held_len = 0; /* from here the buffer holds one context at a time */
    while (rc == 0 && (rc = next_context(z, &mc)) > 0) {
        rc = mcs_output_put(out, &mc);
        *bytes += mc.size;
        tool_progress_update(&progress, ++*contexts, *bytes);
    }
    tool_progress_end(&progress);
    return rc < 0 ? -1 : 0;
}

int mcs_convert_zip(mcs_run *run, const char *in_path, const char *out_path,
                    const mcz_writer_options *opt, uint64_t *contexts, uint64_t *bytes)
{
    *contexts = *bytes = 0;
    zip_input z = {0};
    if (zip_input_open(&z, in_path) != 0)
        return -1;
    const char *how;
    int rc = hold_and_vote(run, &z, &how) ? 0 : -1;
    mcs_output *out = NULL;
    if (rc == 0) {
        mcz_writer_options sized = opt ? *opt : (mcz_writer_options)MCZ_WRITER_OPTIONS_INIT;
        if (!sized.expected_bytes)
            sized.expected_bytes = z.size; /* the dictionary decision's horizon */
        out = mcs_output_open(run, out_path, MCS_OUTPUT_MCZ, &sized, false);
        rc = out ? put_all(&z, out, contexts, bytes) : -1;
    }
    if (rc == 0)
        rc = mcs_output_commit(out);
    else
        mcs_output_abort(out);
    zip_input_close(&z);
    return rc;
}
