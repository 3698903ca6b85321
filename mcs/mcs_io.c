/* mcs_io.c - inputs (.mch or .mcz through mcz_source) and outputs that appear atomically. */
#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_util.h"

/* ============================================================================================ */
/* Inputs                                                                                       */
/* ============================================================================================ */

/* An empty regular file, or /dev/null (the same device, whatever its name). */
static bool is_empty_input(const char *path)
{
    mcz_os_file_info st;
    if (mcz_os_stat(path, &st) != 0)
        return false;
    return st.type == MCZ_OS_FILE_NULL || (st.type == MCZ_OS_FILE_REGULAR && st.size == 0);
}

int mcs_input_refuse_empty(const char *path)
{
    if (!is_empty_input(path))
        return 0;
    tool_error("%s: empty file: no method contexts", path);
    return -1;
}

/* Reports d about input path and, for an input cut short, the command that keeps what is whole. */
static void input_error(mcs_run *run, const char *path, const mcz_diag *d)
{
    mcs_error_diag(run, path, d);
    if (d->code != MCZ_ETRUNCATED)
        return;
    if (strcmp(path, tool_display_name("-", false)) == 0) /* the same bytes piped again */
        tool_error("%s: '... | mcs -recover - OUT.mcz' (or OUT.mch) keeps every complete context",
                   path);
    else
        tool_error("%s: 'mcs -recover %s OUT.mcz' (or OUT.mch) keeps every complete context",
                   path, path);
}

/* True when an input that is no archive begins as a zip does (PK\3\4, or PK\5\6 when
 * empty), whatever it is: a file, a stream, a URL. */
static bool starts_as_zip(mcz_input *input)
{
    const uint8_t *h;
    return mcz_input_size(input) >= 4 && mcz_input_view(input, 0, 4, &h, NULL) == MCZ_OK &&
           h[0] == 'P' && h[1] == 'K' && ((h[2] == 3 && h[3] == 4) || (h[2] == 5 && h[3] == 6));
}

/* Opens in's source from path (a file, "-", a FIFO, a URL: the library opens each its way,
 * once), or from `given`, path's input opened already. */
static int source_open(mcs_input *in, const char *path, mcz_input *given)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_input *input = given ? given : mcz_input_open(path, &d);
    if (input && mcz_input_size(input) == 0)
        tool_error("%s: empty file: no method contexts", in->path);
    else if (input)
        in->source = mcz_source_open_input(input, &d);
    if (in->source && !mcz_source_archive(in->source) && starts_as_zip(input)) {
        /* superpmi.py's X.mch.zip, say: no MCH, no archive */
        tool_error("%s: a zip file: -convert and -info read the .mch member of a zip named as a "
                   "file (mcs -convert X.mch.zip X.mcz)", in->path);
        mcz_source_close(in->source);
        in->source = NULL;
    }
    in->raw_bytes = mcz_input_size(input); /* an archive's is replaced by its index's figure */
    if (input)
        mcs_note_input(in->run, in->path, mcz_input_size(input)); /* its offsets in messages */
    if (!given && in->source)
        in->held = input; /* kept for mcs_input_rewind (the source holds it anyway) */
    else if (!given)
        mcz_input_close(input);
    if (!input || (!in->source && d.code != MCZ_OK)) {
        tool_diag_rename(&d, path, in->path);
        input_error(in->run, in->path, &d);
    }
    return in->source ? 0 : -1;
}

const mcz_jit_ee *mcs_input_jit_ee(const mcs_input *in) { return in->jit_ee; }

bool mcs_input_hashes_usable(const mcs_input *in)
{
    return in->archive && mcz_reader_hash_jit_ee(in->archive) == in->jit_ee;
}

const mcz_jit_ee *mcs_jit_ee_decide(mcs_run *run, const char *path, const mcz_jit_ee *found,
                                    uint32_t voted, const char **how)
{
    const mcz_jit_ee *v = run->forced_jit_ee;
    *how = "given";
    if (!v && found) {
        v = found;
        *how = "detected";
    }
    if (!v) {
        v = mcz_jit_ee_newest();
        *how = "newest";
        if (voted > 0) /* without contexts there is nothing to read wrongly */
            tool_warn("%s: its packets do not tell which JIT-EE version recorded it; reading it as "
                      "%s, the newest (--jit-ee chooses another)",
                      path, mcz_jit_ee_name(v));
    }
    run->last_input_jit_ee = v;
    return v;
}

static void choose_jit_ee(mcs_input *in)
{
    uint32_t voted = 0;
    const mcz_jit_ee *found =
        in->run->forced_jit_ee ? NULL : mcz_source_jit_ee(in->source, NULL, &voted);
    in->jit_ee = mcs_jit_ee_decide(in->run, in->path, found, voted, &in->jit_ee_how);
    if (found && in->archive && mcz_reader_jit_ee(in->archive))
        in->jit_ee_how = "recorded";
}

int mcs_input_open(mcs_run *run, mcs_input *in, const char *path)
{
    return mcs_input_open_input(run, in, path, NULL);
}

int mcs_input_open_input(mcs_run *run, mcs_input *in, const char *path, mcz_input *input)
{
    memset(in, 0, sizeof *in);
    in->run = run;
    in->path = tool_display_name(path, false);
    tool_note_input(path); /* a regular file: an output must not be it */
    if (source_open(in, path, input) != 0)
        return -1;
    in->archive = mcz_source_archive(in->source);
    if (in->archive) {
        mcz_archive_info info;
        mcz_reader_get_info(in->archive, &info);
        in->contexts = info.contexts;
        in->raw_bytes = info.raw_bytes;
    }
    choose_jit_ee(in);
    return 0;
}

void mcs_input_context_error(const mcs_input *in, const mcz_mc *mc, mcz_diag *d)
{
    if (d->context < 0)
        d->context = mc->number;
    if (in->archive)
        d->offset = -1;
    mcs_error_diag(in->run, in->path, d);
}

int mcs_input_from_args(mcs_run *run, int argc, char **argv, const mcs_usage *u, mcs_input *in)
{
    const char *pos[1];
    if (mcs_parse_args(run, argc, argv, u, NULL, pos, 1, 1) < 0)
        return MCS_EXIT_USAGE;
    return mcs_input_open(run, in, pos[0]) == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}

void mcs_input_close(mcs_input *in)
{
    mcz_source_close(in->source);
    mcz_input_close(in->held);
    in->source = NULL;
    in->archive = NULL;
    in->held = NULL;
    /* what its reader held (an index's column streams: 14 MB at 2.5 M contexts) goes back to
     * the system, not kept by the C library beside the output's index made next */
    mcz_os_heap_trim();
}

int mcs_input_rewind(mcs_input *in)
{
    if (in->archive)
        return 0;
    assert(in->held);
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_source_close(in->source);
    in->source = mcz_source_open_input(in->held, &d);
    in->read_bytes = 0;
    if (in->source)
        return 0;
    input_error(in->run, in->path, &d);
    return -1;
}

int mcs_input_next(mcs_input *in, mcz_mc *mc)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    int rc = mcz_source_next(in->source, mc, &d);
    if (rc < 0) {
        input_error(in->run, in->path, &d);
        return -1;
    }
    if (rc > 0)
        in->read_bytes += mc->size;
    return rc > 0;
}

/* Tells, once, that in's .mct was found unusable and the file is read by scanning instead. */
static void warn_toc_rejected(const mcs_input *in)
{
    mcz_diag why;
    const char *toc = mcz_source_toc_rejected(in->source, &why);
    if (!toc)
        return;
    char text[MCS_DIAG_TEXT_SIZE];
    tool_warn("%s; reading %s by scanning instead",
              mcs_diag_text(in->run, toc, &why, text, sizeof text), in->path);
}

int mcs_input_get(const mcs_input *in, uint32_t number, mcz_mc *mc, mcz_diag *d)
{
    int rc = mcz_source_get(in->source, number, mc, d);
    warn_toc_rejected(in);
    return rc;
}

int mcs_input_read_failed(const mcs_input *in, uint32_t number, int rc, mcz_diag *d)
{
    if (d->code == MCZ_OK)
        d->code = rc;
    if (d->context < 0)
        d->context = number;
    input_error(in->run, in->path, d); /* the offset, if any, is in the archive file */
    return -1;
}

int mcs_identity_as_stored(const mcz_jit_ee *v, const mcz_mc *mc, mcz_hash128 *h, mcz_diag *d)
{
    int rc = mcz_mc_identity_hash(v, mc, false, h, d);
    if (rc == MCZ_OK || rc == MCZ_ENOMEM)
        return rc;
    memset(h, 0, sizeof *h);
    return MCZ_OK;
}

/* For an archive that stores no hashes: the identity of context `number`, decoded, as the
 * writer would store it. Returns 0, or -1 after printing. */
static int computed_identity(const mcs_input *in, uint32_t number, mcz_hash128 *identity)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_mc mc;
    int rc = mcs_input_get(in, number, &mc, &d);
    if (rc == MCZ_OK)
        rc = mcs_identity_as_stored(in->jit_ee, &mc, identity, &d);
    return rc == MCZ_OK ? 0 : mcs_input_read_failed(in, number, rc, &d);
}

int mcs_input_toc_entry(const mcs_input *in, uint64_t position, mcz_toc_entry *e)
{
    assert(in->archive);
    mcz_context_info ci;
    if (mcz_reader_context_with(in->archive, position, MCZ_CONTEXT_IDENTITY, &ci) != MCZ_OK) {
        tool_error("%s: the index lacks context %llu", in->path,
                  (unsigned long long)position + 1);
        return -1;
    }
    if ((!ci.hashes || !mcs_input_hashes_usable(in)) &&
        computed_identity(in, ci.number, &ci.identity) != 0)
        return -1;
    memset(e, 0, sizeof *e);
    e->offset = (int64_t)ci.mch_offset;
    e->number = (int32_t)ci.number;
    if (!mcz_hash_is_zero(&ci.identity))
        mcz_hash_hex(&ci.identity, e->hash);
    return 0;
}

/* ============================================================================================ */
/* Outputs                                                                                      */
/* ============================================================================================ */

struct mcs_output {
    mcs_run *run;          /* the run it belongs to (--force, the input opened last) */
    const char *path;      /* for messages */
    const char *file_name; /* as given: "-" is standard output */
    mcz_outfile *file;  /* an MCH file, or */
    mcz_writer *writer; /* an archive; both NULL once failed */
    mcz_writer_options opt; /* an archive's, as asked */
    /* An archive inheriting: its writer opens when the first archive input is offered (taking
     * that archive's settings where opt leaves them at zero, its dictionary included, so its
     * chunks can be copied verbatim), or at the first context or the commit (the library's
     * defaults, training a dictionary on what comes). */
    bool pending;
    uint64_t put;     /* contexts put so far */
    bool dict_known;  /* the writer's dictionary is an input's: dict_id says which (0: none) */
    uint32_t dict_id;
    /* What the archive records (FORMAT.md §2a): the options' values (given), and the values
     * recorded (record), fixed by the first archive input offered, or when the writer opens
     * before any (record_from "" then). Every later archive input must agree. */
    mcs_record given, record;
    char record_from[4096]; /* the archive input the record came from */
};

/* Binary output on a terminal is refused unless forced (--force), as zstd and xz refuse it. */
static int refuse_terminal(const mcs_run *run, const char *path)
{
    if (!tool_output_is_stdout(path) || !mcz_os_isatty(MCZ_OS_STDOUT_FD) ||
        run->output_forced)
        return 0;
    tool_error("%s: refusing to write binary output to a terminal (redirect it, or give "
               "--force)", tool_display_name(path, true));
    return -1;
}

int mcs_output_check_binary(mcs_run *run, const char *path)
{
    return mcs_output_check(path) == 0 && refuse_terminal(run, path) == 0 ? 0 : -1;
}

int mcs_output_check(const char *path)
{
    char err[TOOL_ERROR_SIZE];
    bool stream = false;
    if (tool_output_check(path, &stream, err) != 0) {
        tool_error("%s", err);
        return -1;
    }
    if (stream && tool_output_is_stdout(path))
        tool_info_to_stderr();
    return 0;
}

/* The version an archive output records and hashes with, unless its options name one: that of
 * the input opened last before it starts writing, else --jit-ee's (else the newest). */
static void outputs_jit_ee(const mcs_run *run, mcz_writer_options *opt)
{
    if (!opt->jit_ee)
        opt->jit_ee = run->last_input_jit_ee ? run->last_input_jit_ee : run->forced_jit_ee;
}

/* ---- What an archive output records: JIT-EE GUID, target (FORMAT.md §2a) ---- */

/* The record's three fields, for walking them: name, option, offset. */
static const struct record_field {
    const char *what, *option;
    size_t at, size;
} record_fields[] = {
    {"JIT-EE GUID", "--jit-ee-guid", offsetof(mcs_record, guid), MCZ_GUID_TEXT_SIZE},
    {"target OS", "--target-os", offsetof(mcs_record, os), MCZ_TARGET_TEXT_SIZE},
    {"target architecture", "--target-arch", offsetof(mcs_record, arch), MCZ_TARGET_TEXT_SIZE},
};
#define RECORD_FIELDS (sizeof record_fields / sizeof record_fields[0])

static char *record_text(mcs_record *r, size_t i)
{
    return (char *)r + record_fields[i].at;
}

static const char *record_text_c(const mcs_record *r, size_t i)
{
    return (const char *)r + record_fields[i].at;
}

void mcs_input_record(const mcs_input *in, mcs_record *out)
{
    memset(out, 0, sizeof *out);
    if (!in->archive)
        return;
    const char *guid = mcz_reader_jit_ee_guid(in->archive), *os, *arch;
    mcz_reader_target(in->archive, &os, &arch);
    snprintf(out->guid, sizeof out->guid, "%s", guid ? guid : "");
    snprintf(out->os, sizeof out->os, "%s", os ? os : "");
    snprintf(out->arch, sizeof out->arch, "%s", arch ? arch : "");
}

/* The options' texts, canonical (mcs_compress_parse checked them). */
static void record_from_options(const mcz_writer_options *opt, mcs_record *out)
{
    memset(out, 0, sizeof *out);
    if (opt->jit_ee_guid)
        (void)mcz_guid_canonical(opt->jit_ee_guid, out->guid);
    if (opt->target_os)
        (void)mcz_target_canonical(opt->target_os, out->os);
    if (opt->target_arch)
        (void)mcz_target_canonical(opt->target_arch, out->arch);
}

/* The writer records o->record. */
static void record_into_options(mcs_output *o)
{
    o->opt.jit_ee_guid = o->record.guid[0] ? o->record.guid : NULL;
    o->opt.target_os = o->record.os[0] ? o->record.os : NULL;
    o->opt.target_arch = o->record.arch[0] ? o->record.arch : NULL;
}

/* Fixes the record before the writer opens: the options' values, else from (an input's). */
static void record_fix(mcs_output *o, const mcs_record *from, const char *from_path)
{
    o->record = o->given;
    for (size_t i = 0; from && i < RECORD_FIELDS; i++)
        if (!record_text(&o->record, i)[0])
            snprintf(record_text(&o->record, i), record_fields[i].size, "%s",
                     record_text_c(from, i));
    snprintf(o->record_from, sizeof o->record_from, "%s", from_path ? from_path : "");
    record_into_options(o);
}

/* An archive input after the record is fixed: each field it records must be the output's, or,
 * not given by the options, it must record what the output records (a value and none
 * disagree). Returns 0, or -1 after saying which field and which files. */
static int record_check(const mcs_output *o, const mcs_input *in)
{
    mcs_record rec;
    mcs_input_record(in, &rec);
    for (size_t i = 0; i < RECORD_FIELDS; i++) {
        const struct record_field *f = &record_fields[i];
        const char *mine = record_text_c(&o->record, i), *theirs = record_text_c(&rec, i);
        bool given = record_text_c(&o->given, i)[0] != '\0';
        if (strcmp(mine, theirs) == 0 || (given && !theirs[0]))
            continue;
        char said[MCZ_GUID_TEXT_SIZE + 64];
        if (theirs[0])
            snprintf(said, sizeof said, "records %s %s", f->what, theirs);
        else
            snprintf(said, sizeof said, "records no %s", f->what);
        if (given)
            tool_error("%s %s, %s gives %s: a conflict", in->path, said, f->option, mine);
        else
            tool_error("%s %s, %s%s records %s: a conflict (%s on -merge, -copy, -strip or "
                       "-convert chooses one)", in->path, said,
                       o->record_from[0] ? o->record_from : o->path,
                       o->record_from[0] ? "" : " (begun before any archive was read)",
                       mine[0] ? mine : "none", f->option);
        return -1;
    }
    return 0;
}

mcs_output *mcs_output_open(mcs_run *run, const char *path, mcs_output_kind kind,
                            const mcz_writer_options *opt, bool inherit)
{
    if (mcs_output_check_binary(run, path) != 0)
        return NULL;
    mcs_output *o = calloc(1, sizeof *o);
    if (!o) {
        tool_error("%s: out of memory", path);
        return NULL;
    }
    o->run = run;
    o->path = tool_display_name(path, true);
    o->file_name = path;
    o->opt = opt ? *opt : (mcz_writer_options)MCZ_WRITER_OPTIONS_INIT;
    record_from_options(&o->opt, &o->given);
    if (kind == MCS_OUTPUT_BY_EXTENSION)
        kind = mcs_has_extension(path, ".mcz") ? MCS_OUTPUT_MCZ : MCS_OUTPUT_MCH;
    if (kind == MCS_OUTPUT_MCZ && inherit) {
        o->pending = true;
        return o;
    }
    mcz_diag d;
    mcz_diag_clear(&d);
    outputs_jit_ee(o->run, &o->opt);
    record_fix(o, NULL, NULL);
    if (kind == MCS_OUTPUT_MCZ)
        o->writer = mcz_writer_open(path, &o->opt, &d);
    else
        o->file = mcz_outfile_open(path, &d);
    tool_diag_rename(&d, path, o->path);
    if (!o->writer && !o->file) {
        mcs_error_diag(run, path, &d);
        free(o);
        return NULL;
    }
    return o;
}

/* What opt leaves at zero, taken from archive model: its codec and layout, its level and chunk size (when they are
 * ones the options accept; else the library's default), its dictionary or its lack of one, and
 * whether it stores hashes. */
static void inherit_settings(mcz_writer_options *opt, const mcz_reader *model)
{
    mcz_archive_info info;
    mcz_reader_get_info(model, &info);
    bool same_codec = !opt->codec || opt->codec == info.codec;
    if (!opt->codec)
        opt->codec = info.codec;
    if (!opt->layout)
        opt->layout = mcz_reader_layout(model);
    int level_max = opt->codec == MCZ_CODEC_XZ ? MCS_XZ_LEVEL_MAX : MCS_LEVEL_MAX;
    if (!opt->level && same_codec && info.level >= 1 && info.level <= level_max)
        opt->level = info.level;
    if (!opt->chunk_size && info.chunk_size >= 1 && info.chunk_size <= MCS_CHUNK_SIZE_MAX)
        opt->chunk_size = info.chunk_size;
    if (!opt->no_dict && opt->codec != MCZ_CODEC_XZ)
        mcz_reader_dict(model, &opt->dict, &opt->dict_len);
    opt->no_dict = !opt->dict;
    opt->no_hashes = opt->no_hashes || !info.hashes;
}

/* Reports d about output path (file_name as given: "-" is standard output, which d may name
 * so): quietly when it is standard output and its reader is gone (| head), as -dump stops. */
void mcs_output_error(mcs_run *run, const char *file_name, const char *path, mcz_diag *d)
{
    if (tool_output_is_stdout(file_name) && mcz_os_stdout_reader_gone()) {
        run->reader_gone = true;
        return;
    }
    tool_diag_rename(d, file_name, path);
    mcs_error_diag(run, path, d);
}

/* Opens a pending archive's writer, with the settings of model where the options leave them
 * open, or the library's defaults when model is NULL. Returns 0, or -1 after printing the
 * error. */
static int output_start(mcs_output *o, const mcs_input *model_in)
{
    const mcz_reader *model = model_in ? model_in->archive : NULL;
    mcs_record rec;
    const char *model_path = NULL;
    if (model) {
        mcz_archive_info info;
        mcz_reader_get_info(model, &info);
        inherit_settings(&o->opt, model);
        o->dict_known = true;
        o->dict_id = o->opt.dict ? info.dict_id : 0;
        mcs_input_record(model_in, &rec);
        model_path = model_in->path;
    }
    record_fix(o, model ? &rec : NULL, model_path);
    o->pending = false;
    mcz_diag d;
    mcz_diag_clear(&d);
    outputs_jit_ee(o->run, &o->opt);
    o->writer = mcz_writer_open(o->file_name, &o->opt, &d);
    o->opt.dict = NULL; /* the writer has its copy; model's may go */
    o->opt.dict_len = 0;
    if (!o->writer) {
        mcs_output_error(o->run, o->file_name, o->path, &d);
        return -1;
    }
    return 0;
}

int mcs_output_offer_settings(mcs_output *o, const mcs_input *in)
{
    if (!in->archive || (!o->writer && !o->pending))
        return 0; /* an MCH file records nothing; an MCH output records nothing */
    if (o->pending)
        return output_start(o, in);
    return record_check(o, in);
}

bool mcs_output_copies_chunks_of(const mcs_output *o, const mcs_input *in)
{
    if (!o->writer || !o->dict_known || !in->archive)
        return false;
    mcz_archive_info info;
    mcz_reader_get_info(in->archive, &info);
    /* stored hashes are copied too: they must be the ones the output computes */
    mcz_layout layout = o->opt.layout == MCZ_LAYOUT_PLAIN ? MCZ_LAYOUT_PLAIN : MCZ_LAYOUT_PACKETS;
    return info.dict_id == o->dict_id && info.level == o->opt.level &&
           info.chunk_size == o->opt.chunk_size && info.codec == o->opt.codec &&
           mcz_reader_layout(in->archive) == layout &&
           o->opt.jit_ee == in->jit_ee && (!info.hashes || mcs_input_hashes_usable(in));
}

/* Reports why the output failed (its sticky error, else `code` about context `number`) and
 * releases its file: nothing stays behind. */
static int output_failed(mcs_output *o, int code, int64_t number)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    if (o->file) {
        if (mcz_outfile_commit(o->file, &d) == MCZ_OK) /* a sticky error: reports it */
            d.code = MCZ_ESTATE; /* cannot be: the failure that brought us here is sticky */
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
        d.context = number;
    }
    mcs_output_error(o->run, o->file_name, o->path, &d);
    return -1;
}

int mcs_output_put(mcs_output *o, const mcz_mc *mc)
{
    if (o->pending && output_start(o, NULL) != 0)
        return -1;
    int rc = MCZ_ESTATE;
    if (o->file)
        rc = mcz_outfile_write(o->file, mc->bytes, mc->size);
    else if (o->writer)
        rc = mcz_writer_append(o->writer, mc->bytes, mc->size, NULL);
    tool_test_signal_point(++o->put);
    return rc == MCZ_OK ? 0 : output_failed(o, rc, mc->number);
}

/* Hands chunk ch (number `index`) of in's archive to the writer as it is stored, with its
 * contexts' stored hashes (NULL when the archive stores none: the writer computes them).
 * MCZ_EDICT when the writer does not use the chunk's dictionary: nothing was appended. */
static int append_compressed(mcs_output *o, const mcs_input *in, uint64_t index,
                             const mcz_chunk_info *ch, mcz_diag *d)
{
    const uint8_t *frames;
    size_t len;
    int rc = mcz_reader_chunk_frames(in->archive, index, &frames, &len, d);
    if (rc != MCZ_OK)
        return rc;
    mcz_archive_info info;
    mcz_reader_get_info(in->archive, &info);
    mcz_hash128 *hashes = info.hashes ? malloc(2 * (size_t)ch->count * sizeof *hashes) : NULL;
    if (info.hashes && !hashes)
        return MCZ_ENOMEM;
    mcz_hash128 *identity = hashes, *dedup = hashes ? hashes + ch->count : NULL;
    for (uint32_t i = 0; hashes && i < ch->count && rc == MCZ_OK; i++)
        rc = mcz_reader_hashes(in->archive, ch->first_number + i, &identity[i], &dedup[i]);
    if (rc == MCZ_OK) {
        rc = mcz_writer_append_compressed(o->writer, frames, len, identity, dedup, ch->count, d);
        if (rc != MCZ_OK && d->offset >= 0)
            d->offset += (int64_t)ch->offset; /* the writer's is within the frames */
    }
    free(hashes);
    return rc;
}

/* Reports a failed chunk copy: the output's own failure, else the fault of in's chunk ch (at
 * d's offset in in's file, else at the chunk's), and releases the output: nothing stays
 * behind. */
static int chunk_copy_failed(mcs_output *o, const mcs_input *in, const mcz_chunk_info *ch,
                             int rc, mcz_diag *d)
{
    const mcz_diag *wd = mcz_writer_diag(o->writer);
    if (wd && wd->code != MCZ_OK)
        return output_failed(o, rc, -1);
    if (d->code == MCZ_OK)
        d->code = rc;
    if (d->offset < 0)
        d->offset = (int64_t)ch->offset;
    if (d->context < 0)
        d->context = ch->first_number;
    mcs_error_diag(in->run, in->path, d);
    mcz_writer_abort(o->writer);
    o->writer = NULL;
    return -1;
}

/* *verbatim false with 0 returned: the chunk's data frame names another dictionary than the
 * writer's, and nothing was appended; the caller appends its contexts instead. */
int mcs_output_put_chunk(mcs_output *o, const mcs_input *in, uint64_t index, bool *verbatim)
{
    assert(mcs_output_copies_chunks_of(o, in) && verbatim);
    *verbatim = false;
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_chunk_info ch = {0};
    int rc = mcz_reader_chunk(in->archive, index, &ch);
    if (rc == MCZ_OK)
        rc = append_compressed(o, in, index, &ch, &d);
    *verbatim = rc == MCZ_OK;
    if (rc == MCZ_OK || rc == MCZ_EDICT)
        return 0;
    return chunk_copy_failed(o, in, &ch, rc, &d);
}

int mcs_output_commit(mcs_output *o)
{
    if (o->pending && output_start(o, NULL) != 0) {
        free(o);
        return -1;
    }
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
        mcs_output_error(o->run, o->file_name, o->path, &d);
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
