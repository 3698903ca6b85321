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
    "written without hashes (-convert --no-hashes) is decoded to compute them. The table is\n"
    "written as the walk makes it, nothing held per context; when FILE.mct is a FIFO or a\n"
    "device, an MCH file is walked once more first, to count its contexts.\n",
    NULL};

/*
 * The table is written as the walk makes it, entry by entry, into the output's temporary file:
 * memory does not grow with the collection. The header's count is the archive's (known before
 * the walk); for an MCH file it is patched in at the end, or, when the table goes to a stream
 * (which cannot go back), counted by a first walk over the headers.
 */
typedef struct toc_writer {
    mcs_run *run;
    const char *path;   /* the table's, for messages */
    mcz_outfile *out;
    uint32_t announced; /* the count the header holds */
    uint32_t count;
    uint64_t without_identity;
    int32_t first_without_number; /* the first context without a hash; 0: none */
    mcz_diag first_without;       /* why it has none (when known) */
} toc_writer;

/* Ends the output after a failure to write it: the commit reports the sticky error (naming the
 * table) and leaves no table behind. Returns -1. */
static int toc_write_failed(toc_writer *w)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    if (mcz_outfile_commit(w->out, &d) != MCZ_OK)
        mcs_error_diag(w->run, w->path, &d);
    w->out = NULL;
    return -1;
}

/* Appends one entry; -1 after printing the error. */
static int toc_put(toc_writer *w, const mcz_toc_entry *e)
{
    if (w->count == UINT32_MAX) {
        tool_error("%s: a table holds at most %" PRIu32 " contexts", w->path, UINT32_MAX);
        return -1;
    }
    uint8_t el[MCZ_TOC_ELEMENT_SIZE];
    mcz_toc_element_encode(e, el);
    w->count++;
    if (e->hash[0] == '\0' && w->without_identity++ == 0)
        w->first_without_number = e->number;
    return mcz_outfile_write(w->out, el, sizeof el) == MCZ_OK ? 0 : toc_write_failed(w);
}

static int toc_begin(toc_writer *w, uint32_t announced)
{
    uint8_t header[MCZ_TOC_HEADER_SIZE];
    mcz_toc_header_encode(announced, header);
    w->announced = announced;
    return mcz_outfile_write(w->out, header, sizeof header) == MCZ_OK ? 0 : toc_write_failed(w);
}

/* The closing tag, the count patched when the header's is not it, the commit. */
static int toc_finish(toc_writer *w)
{
    uint8_t trailer[MCZ_TOC_TRAILER_SIZE], header[MCZ_TOC_HEADER_SIZE];
    mcz_toc_trailer_encode(trailer);
    mcz_toc_header_encode(w->count, header);
    if (mcz_outfile_write(w->out, trailer, sizeof trailer) != MCZ_OK ||
        (w->count != w->announced &&
         mcz_outfile_patch(w->out, 0, header, sizeof header) != MCZ_OK))
        return toc_write_failed(w);
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = mcz_outfile_commit(w->out, &d);
    w->out = NULL;
    if (rc != MCZ_OK) {
        mcs_error_diag(w->run, w->path, &d);
        return -1;
    }
    return 0;
}

/*
 * The identity with names of a context of an MCH file. A damaged context (the deep check, as
 * SuperPMI parses every context it indexes) is an error; a context whose identity cannot be
 * built gets the zero hash, exactly as the archive writer stores it, so that an MCH file and
 * its archive give the same table.
 */
static int identity_of(const mcs_input *in, const mcz_mc *mc, mcz_hash128 *h, toc_writer *w)
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
    if (d.code != MCZ_OK && w->first_without.code == MCZ_OK) /* no identity: why */
        w->first_without = d;
    return 0;
}

/* The count a stream's header needs before the first entry: one walk over the contexts'
 * headers, then back to the first. -1 after printing the error. */
static int mch_count(mcs_input *in, uint32_t *count)
{
    mcz_mc mc;
    int rc;
    uint64_t n = 0;
    while ((rc = mcs_input_next(in, &mc)) > 0)
        n++;
    if (rc < 0 || mcs_input_rewind(in) != 0)
        return -1;
    *count = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n; /* more: toc_put says so */
    return 0;
}

static int toc_from_mch(mcs_input *in, toc_writer *w)
{
    uint32_t announced = 0; /* patched at the end */
    if (mcz_outfile_is_stream(w->out) && mch_count(in, &announced) != 0)
        return -1;
    if (toc_begin(w, announced) != 0)
        return -1;
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(in, &mc)) > 0) {
        mcz_hash128 h;
        if (identity_of(in, &mc, &h, w) != 0)
            return -1;
        mcz_toc_entry e = {.offset = (int64_t)mc.offset, .number = (int32_t)mc.number};
        if (!mcz_hash_is_zero(&h))
            mcz_hash_hex(&h, e.hash);
        if (toc_put(w, &e) != 0)
            return -1;
    }
    return rc;
}

/* Why the first context of an archive without a hash has none: that one context decoded and
 * its identity tried, so the archive's warning names the packet missing as an MCH file's does. */
static void first_without_of_archive(const mcs_input *in, toc_writer *w)
{
    if (w->first_without_number <= 0)
        return;
    mcz_mc mc;
    mcz_hash128 h;
    mcz_diag d;
    mcz_diag_clear(&d);
    if (mcs_input_get(in, (uint32_t)w->first_without_number, &mc, &d) == MCZ_OK &&
        mcs_identity_as_stored(in->jit_ee, &mc, &h, &d) == MCZ_OK && d.code != MCZ_OK)
        w->first_without = d;
}

/* An archive: everything from the index, nothing decompressed (unless it stores no hashes). */
static int toc_from_index(const mcs_input *in, toc_writer *w)
{
    if (toc_begin(w, in->contexts > UINT32_MAX ? UINT32_MAX : (uint32_t)in->contexts) != 0)
        return -1;
    for (uint64_t position = 0; position < in->contexts; position++) {
        mcz_toc_entry e;
        if (mcs_input_toc_entry(in, position, &e) != 0 || toc_put(w, &e) != 0)
            return -1;
    }
    first_without_of_archive(in, w);
    return 0;
}

/* Says how many hashes were left empty, and why the first one was. */
static void report_without_identity(const char *path, const toc_writer *w)
{
    if (!w->without_identity)
        return;
    tool_warn("%s: %" PRIu64 " contexts lack what the identity needs: their hash is left empty",
             path, w->without_identity);
    char text[MCS_DIAG_TEXT_SIZE];
    if (w->first_without.code != MCZ_OK)
        tool_warn("the first: %s",
                  mcs_diag_text(w->run, path, &w->first_without, text, sizeof text));
    tool_warn("what that means: they replay as any other and are found by number; -removeDup "
              "takes one for a duplicate only of a byte-identical copy; an .exc file (identity "
              "hashes) cannot exclude them. Release collections hold such contexts too: it is "
              "no damage");
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

/* Walks the opened input into the table; the output opened here, committed or removed. */
static int toc_run(mcs_input *in, toc_writer *w)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    w->out = mcz_outfile_open(w->path, &d);
    if (!w->out) {
        mcs_error_diag(w->run, w->path, &d);
        return -1;
    }
    int rc = in->archive ? toc_from_index(in, w) : toc_from_mch(in, w);
    if (rc == 0)
        return toc_finish(w);
    mcz_outfile_abort(w->out); /* accepts NULL: a failed write has ended it */
    w->out = NULL;
    return -1;
}

int cmd_toc(mcs_run *run, int argc, char **argv)
{
    const char *pos[1];
    if (mcs_parse_args(run, argc, argv, &usage_toc, NULL, pos, 1, 1) < 0)
        return MCS_EXIT_USAGE;
    char *toc_path = toc_name(pos[0]);
    if (!toc_path)
        return MCS_EXIT_FAIL;
    toc_writer w = {.run = run, .path = toc_path};
    mcs_input in = {0};
    int rc = -1;
    /* Opened quietly first to learn what it is, then again by mcs_input_open_input, which
     * reports why one does not open and keeps the input for mcs_input_rewind (mch_count). */
    mcz_input *input = NULL;
    if (mcs_input_refuse_empty(pos[0]) != 0) {
        /* said */
    } else if (mcz_input_stream(input = mcz_input_open(pos[0], NULL))) {
        tool_error("%s: -toc writes its table beside the file: it needs a file, not a stream",
                  tool_display_name(pos[0], false));
    } else if (mcs_output_check(toc_path) == 0) {
        rc = mcs_input_open_input(run, &in, pos[0], NULL);
    }
    mcz_input_close(input);
    if (rc == 0) {
        rc = toc_run(&in, &w);
        mcs_input_close(&in);
    }
    if (rc == 0) {
        tool_info("Loaded %" PRIu32 ", added %" PRIu32 " to Table of Contents", w.count, w.count);
        report_without_identity(pos[0], &w);
    }
    free(toc_path);
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
