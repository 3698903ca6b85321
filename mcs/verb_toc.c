/* verb_toc.c - mcs -toc: writes FILE.mct, the table of contents SuperPMI seeks with (for a URL:
 * NAME.mct in the current directory). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_verbs.h"

const mcs_usage usage_toc = {
    "-toc FILE",
    "write FILE.mct: each context's offset, number and identity hash",
    "The suffix is appended (a.mch -> a.mch.mct). For an archive's URL the table is written\n"
    "in the current directory, named after the URL's last path segment (http://h/d/a.mcz ->\n"
    "./a.mcz.mct), as a download of it would be. A context whose identity cannot be built\n"
    "(it lacks the packets the identity needs) gets an empty hash; a warning says how many, why\n"
    "the first has none and what follows (replayed as any other, found by number; for\n"
    "-removeDup a duplicate only of a byte-identical copy; no .exc can exclude it). An MCH\n"
    "file's contexts are each parsed (deep-checked) on the way, as SuperPMI does. An archive's\n"
    "table comes from its\n"
    "index alone, nothing decompressed: offsets are those of the equivalent MCH file, hashes\n"
    "the stored ones, and the contents are not checked (-verify checks contents). An archive\n"
    "written without hashes (-convert --no-hashes) is decoded to compute them.\n"};

typedef struct toc_builder {
    mcz_toc_entry *entries;
    uint32_t count, cap;
    mcz_diag first_without; /* why the first of those has none */
} toc_builder;

/* A new, zeroed entry; NULL after printing the error. */
static mcz_toc_entry *toc_add(toc_builder *b, const char *path)
{
    if (b->count == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 1024;
        mcz_toc_entry *grown = cap > b->cap ? realloc(b->entries, cap * sizeof *grown) : NULL;
        if (!grown) {
            tool_error("%s: out of memory", path);
            return NULL;
        }
        b->entries = grown;
        b->cap = cap;
    }
    mcz_toc_entry *e = &b->entries[b->count++];
    memset(e, 0, sizeof *e);
    return e;
}

/*
 * The identity with names of a context of an MCH file. A damaged context (the deep check, as
 * SuperPMI parses every context it indexes) is an error; a context whose identity cannot be
 * built gets the zero hash, exactly as the archive writer stores it, so that an MCH file and
 * its archive give the same table.
 */
static int identity_of(const mcs_input *in, const mcz_mc *mc, mcz_hash128 *h, toc_builder *b)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = mcz_mc_check(mc, &d);
    if (rc == MCZ_OK)
        rc = mcs_identity_as_stored(in->jit_ee, mc, h, &d);
    if (rc != MCZ_OK) {
        mcs_input_context_error(in, mc, &d);
        return -1;
    }
    if (d.code != MCZ_OK && b->first_without.code == MCZ_OK) /* no identity: why */
        b->first_without = d;
    return 0;
}

static int toc_from_mch(mcs_input *in, toc_builder *b)
{
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(in, &mc)) > 0) {
        mcz_hash128 h;
        if (identity_of(in, &mc, &h, b) != 0)
            return -1;
        mcz_toc_entry *e = toc_add(b, in->path);
        if (!e)
            return -1;
        e->offset = (int64_t)mc.offset;
        e->number = (int32_t)mc.number;
        if (!mcz_hash_is_zero(&h))
            mcz_hash_hex(&h, e->hash);
    }
    return rc;
}

/* Why the first context of an archive without a hash has none: that one context decoded and
 * its identity tried, so the archive's warning names the packet missing as an MCH file's does. */
static void first_without_of_archive(const mcs_input *in, toc_builder *b)
{
    for (uint32_t i = 0; i < b->count; i++) {
        if (b->entries[i].hash[0] != '\0')
            continue;
        mcz_mc mc;
        mcz_hash128 h;
        mcz_diag d;
        mcz_diag_clear(&d);
        if (mcs_input_get(in, (uint32_t)b->entries[i].number, &mc, &d) == MCZ_OK &&
            mcs_identity_as_stored(in->jit_ee, &mc, &h, &d) == MCZ_OK && d.code != MCZ_OK)
            b->first_without = d;
        return;
    }
}

/* An archive: everything from the index, nothing decompressed (unless it stores no hashes). */
static int toc_from_index(const mcs_input *in, toc_builder *b)
{
    for (uint64_t position = 0; position < in->contexts; position++) {
        mcz_toc_entry *e = toc_add(b, in->path);
        if (!e || mcs_input_toc_entry(in, position, e) != 0)
            return -1;
    }
    first_without_of_archive(in, b);
    return 0;
}

/* Says how many hashes were left empty, and why the first one was (MCH input only). */
static void report_without_identity(const char *path, const toc_builder *b)
{
    uint64_t without_identity = 0;
    for (uint32_t i = 0; i < b->count; i++)
        without_identity += b->entries[i].hash[0] == '\0';
    if (!without_identity)
        return;
    tool_warn("%s: %" PRIu64 " contexts lack what the identity needs: their hash is left empty",
             path, without_identity);
    char text[MCS_DIAG_TEXT_SIZE];
    if (b->first_without.code != MCZ_OK)
        tool_warn("the first: %s", mcs_diag_text(path, &b->first_without, text, sizeof text));
    tool_warn("what that means: they replay as any other and are found by number; -removeDup "
              "takes one for a duplicate only of a byte-identical copy; an .exc file (identity "
              "hashes) cannot exclude them. Release collections hold such contexts too: it is "
              "no damage");
}

static int toc_write(const char *path, const toc_builder *b)
{
    uint8_t *image = NULL;
    size_t len = 0;
    int rc = mcz_toc_encode(b->entries, b->count, &image, &len);
    if (rc != MCZ_OK) {
        tool_error("%s: %s", path, mcz_error_name(rc));
        return -1;
    }
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_outfile *f = mcz_outfile_open(path, &d);
    if (f) {
        mcz_outfile_write(f, image, len); /* a failure is sticky: commit reports it */
        rc = mcz_outfile_commit(f, &d);
    }
    free(image);
    if (!f || rc != MCZ_OK) {
        mcs_error_diag(path, &d);
        return -1;
    }
    return 0;
}

/* The name the table of `input` gets, malloc'ed: FILE.mct beside a file; for a URL, NAME.mct in
 * the current directory, NAME the file the URL names (mcz_input_file_name). NULL after printing
 * the error. */
static char *toc_name(const char *input)
{
    size_t cap = strlen(input) + sizeof ".mct";
    char *toc_path = malloc(cap);
    size_t len = toc_path ? mcz_input_file_name(input, toc_path, cap) : 0;
    if (!toc_path)
        tool_error("out of memory");
    else if (len == 0)
        tool_error("%s: -toc names its table after the URL's file name, and this URL has none",
                   input);
    else
        memcpy(toc_path + len, ".mct", sizeof ".mct");
    if (len == 0) {
        free(toc_path);
        return NULL;
    }
    return toc_path;
}

int cmd_toc(int argc, char **argv)
{
    const char *pos[1];
    if (mcs_parse_args(argc, argv, &usage_toc, NULL, pos, 1, 1) < 0)
        return MCS_EXIT_USAGE;
    char *toc_path = toc_name(pos[0]);
    if (!toc_path)
        return MCS_EXIT_FAIL;
    toc_builder b = {0};
    mcs_input in = {0};
    int rc = -1;
    /* Opened quietly first to learn what it is; an input that does not open is opened again
     * by mcs_input_open_input, which reports why. */
    mcz_input *input = NULL;
    if (mcs_input_refuse_empty(pos[0]) != 0) {
        /* said */
    } else if (mcz_input_stream(input = mcz_input_open(pos[0], NULL))) {
        tool_error("%s: -toc writes its table beside the file: it needs a file, not a stream",
                  tool_display_name(pos[0], false));
    } else if (mcs_output_check(toc_path) == 0) {
        rc = mcs_input_open_input(&in, pos[0], input);
    }
    mcz_input_close(input);
    if (rc == 0) {
        rc = in.archive ? toc_from_index(&in, &b) : toc_from_mch(&in, &b);
        mcs_input_close(&in);
    }
    if (rc == 0)
        rc = toc_write(toc_path, &b);
    if (rc == 0) {
        tool_info("Loaded %" PRIu32 ", added %" PRIu32 " to Table of Contents", b.count, b.count);
        report_without_identity(pos[0], &b);
    }
    free(toc_path);
    free(b.entries);
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
