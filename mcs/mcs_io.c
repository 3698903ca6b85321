/* mcs_io.c - inputs (.mch or .mcz through mcz_source) and outputs that appear atomically. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mcs_util.h"

/* ============================================================================================ */
/* Inputs                                                                                       */
/* ============================================================================================ */

uint64_t mcs_file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

static bool is_empty_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
}

int mcs_input_open(mcs_input *in, const char *path)
{
    memset(in, 0, sizeof *in);
    in->path = path;
    if (is_empty_file(path)) {
        mcs_error("%s: empty file: no method contexts", path);
        return -1;
    }
    mcz_diag d;
    mcz_diag_clear(&d);
    in->source = mcz_source_open(path, &d);
    if (!in->source) {
        mcs_error_diag(path, &d);
        return -1;
    }
    in->archive = mcz_source_archive(in->source);
    if (in->archive) {
        mcz_archive_info info;
        mcz_reader_get_info(in->archive, &info);
        in->contexts = info.contexts;
        in->raw_bytes = info.raw_bytes;
    } else {
        in->raw_bytes = mcs_file_size(path);
    }
    return 0;
}

void mcs_input_context_error(const mcs_input *in, const mcz_mc *mc, mcz_diag *d)
{
    if (d->context < 0)
        d->context = mc->number;
    if (in->archive)
        d->offset = -1;
    mcs_error_diag(in->path, d);
}

int mcs_input_from_args(int argc, char **argv, const mcs_usage *u, mcs_input *in)
{
    const char *pos[1];
    if (mcs_parse_args(argc, argv, u, NULL, pos, 1, 1) < 0)
        return MCS_EXIT_USAGE;
    return mcs_input_open(in, pos[0]) == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}

void mcs_input_close(mcs_input *in)
{
    mcz_source_close(in->source);
    in->source = NULL;
    in->archive = NULL;
}

int mcs_input_next(mcs_input *in, mcz_mc *mc)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = mcz_source_next(in->source, mc, &d);
    if (rc < 0) {
        mcs_error_diag(in->path, &d);
        return -1;
    }
    if (rc > 0)
        in->read_bytes += mc->size;
    return rc > 0;
}

/* ============================================================================================ */
/* Outputs                                                                                      */
/* ============================================================================================ */

struct mcs_output {
    const char *path;
    mcz_outfile *file;  /* an MCH file, or */
    mcz_writer *writer; /* an archive; both NULL once failed */
};

mcs_output *mcs_output_open(const char *path, mcs_output_kind kind,
                            const mcz_writer_options *opt)
{
    mcs_output *o = calloc(1, sizeof *o);
    if (!o) {
        mcs_error("%s: out of memory", path);
        return NULL;
    }
    o->path = path;
    if (kind == MCS_OUTPUT_BY_EXTENSION)
        kind = mcs_has_extension(path, ".mcz") ? MCS_OUTPUT_MCZ : MCS_OUTPUT_MCH;
    mcz_writer_options defaults = MCZ_WRITER_OPTIONS_INIT;
    mcz_diag d;
    mcz_diag_clear(&d);
    if (kind == MCS_OUTPUT_MCZ)
        o->writer = mcz_writer_open(path, opt ? opt : &defaults, &d);
    else
        o->file = mcz_outfile_open(path, &d);
    if (!o->writer && !o->file) {
        mcs_error_diag(path, &d);
        free(o);
        return NULL;
    }
    return o;
}

/* Reports why mc could not be written and releases the output's file (nothing stays behind). */
static int output_failed(mcs_output *o, int code, const mcz_mc *mc)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    if (o->file) {
        mcz_outfile_commit(o->file, &d); /* with a sticky error: reports it, renames nothing */
        o->file = NULL;
    } else if (o->writer) {
        const mcz_diag *wd = mcz_writer_diag(o->writer);
        if (wd && wd->code != MCZ_OK)
            d = *wd;
        mcz_writer_abort(o->writer);
        o->writer = NULL;
    }
    if (d.code == MCZ_OK) { /* not sticky: the context itself was refused */
        d.code = code;
        d.context = mc->number;
    }
    mcs_error_diag(o->path, &d);
    return -1;
}

int mcs_output_put(mcs_output *o, const mcz_mc *mc)
{
    int rc = MCZ_ESTATE;
    if (o->file)
        rc = mcz_outfile_write(o->file, mc->bytes, mc->size);
    else if (o->writer)
        rc = mcz_writer_append(o->writer, mc->bytes, mc->size, NULL);
    return rc == MCZ_OK ? 0 : output_failed(o, rc, mc);
}

int mcs_output_commit(mcs_output *o)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = MCZ_ESTATE;
    if (o->file)
        rc = mcz_outfile_commit(o->file, &d);
    else if (o->writer)
        rc = mcz_writer_close(o->writer, &d);
    if (rc != MCZ_OK) {
        if (d.code == MCZ_OK)
            d.code = rc;
        mcs_error_diag(o->path, &d);
    }
    free(o);
    return rc == MCZ_OK ? 0 : -1;
}

void mcs_output_abort(mcs_output *o)
{
    if (!o)
        return;
    mcz_outfile_abort(o->file);
    mcz_writer_abort(o->writer);
    free(o);
}

static int copy_contexts(mcs_input *in, mcs_output *out, const char *what, uint64_t *count)
{
    mcs_progress progress;
    mcs_progress_start(&progress, what, in->contexts, in->raw_bytes);
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(in, &mc)) > 0) {
        if (mcs_output_put(out, &mc) != 0) {
            rc = -1;
            break;
        }
        ++*count;
        mcs_progress_update(&progress, *count, in->read_bytes);
    }
    mcs_progress_end(&progress);
    return rc;
}

int mcs_copy_file(const char *in_path, const char *out_path, mcs_output_kind kind,
                  const mcz_writer_options *opt, const char *what, uint64_t *contexts,
                  uint64_t *bytes)
{
    *contexts = *bytes = 0;
    mcs_input in;
    if (mcs_input_open(&in, in_path) != 0)
        return -1;
    mcs_output *out = mcs_output_open(out_path, kind, opt);
    int rc = out ? copy_contexts(&in, out, what, contexts) : -1;
    if (rc == 0)
        rc = mcs_output_commit(out);
    else
        mcs_output_abort(out);
    *bytes = in.read_bytes;
    mcs_input_close(&in);
    return rc;
}
