/* verb_convert.c - mcs -convert: writes a collection (MCH or archive) as an .mcz archive. */
#include <inttypes.h>

#include "mcs_chunks.h"
#include "mcs_verbs.h"

#define DICT_SIZE_MIN 256u /* ZDICT_DICTSIZE_MIN */
#define THREADS_MAX 256

typedef struct convert_args {
    mcs_compress_args compress;
    uint64_t dict_size, threads; /* 0: not given */
    const char *dict_from;
} convert_args;

static const mcs_option convert_options[] = {
    MCS_COMPRESS_OPTIONS(convert_args, compress),
    {.name = "--dict-size", .type = MCS_OPT_SIZE, MCS_FIELD(convert_args, dict_size),
     .arg = "SIZE", .min = DICT_SIZE_MIN, .max = UINT32_MAX,
     .help = "capacity of the trained dictionary, e.g. 112K"},
    {.name = "--dict-from", .type = MCS_OPT_VALUE, MCS_FIELD(convert_args, dict_from),
     .arg = "A.mcz", .help = "reuse the dictionary of another archive instead of training one"},
    {.name = "-j", .type = MCS_OPT_COUNT, MCS_FIELD(convert_args, threads), .arg = "THREADS",
     .min = 1, .max = THREADS_MAX, .help = "compression threads (default: one per core)"},
    {.name = "--threads", .type = MCS_OPT_COUNT, MCS_FIELD(convert_args, threads),
     .arg = "THREADS", .min = 1, .max = THREADS_MAX}, /* -j's long name, told by -j */
    MCS_OPTIONS_END};

const mcs_usage usage_convert = {
    "-convert IN OUT.mcz",
    "compress a collection into a seekable .mcz archive",
    "Options left out take the library's defaults (level 12, 2 MiB chunks, a trained\n"
    "dictionary, hashes), also for an archive IN. OUT appears only once complete; a name\n"
    "ending in .mch is refused (-export writes an MCH file), unless it is a device or FIFO.\n"
    "IN may be a zip holding one member named *.mch (superpmi.py's X.mch.zip; told by its\n"
    "content, whatever its name): the member is converted as it is inflated, never unpacked.\n",
    convert_options};

/* Turns the option texts into writer options; returns 0 or -1 after a usage error. */
static int writer_options_of(const convert_args *a, mcz_writer_options *opt)
{
    const mcs_usage *u = &usage_convert;
    if (mcs_compress_parse(u, &a->compress, NULL, opt) != 0)
        return -1;
    if (a->compress.no_dict && (a->dict_from || a->dict_size)) {
        mcs_usage_error(u, "--no-dict excludes --dict-from and --dict-size");
        return -1;
    }
    if (opt->codec == MCZ_CODEC_XZ && (a->dict_from || a->dict_size)) {
        mcs_usage_error(u, "--codec xz has no dictionary: it excludes --dict-from and --dict-size");
        return -1;
    }
    opt->dict_size = (uint32_t)a->dict_size;
    opt->threads = (int)a->threads;
    return 0;
}

/* An archive under an .mch name would pass for an MCH file: refused unless the name is a
 * device or FIFO (a stream, whatever its name) or --force says it is meant (superpmi.py keeps
 * only .mch names, and mcz-superpmi serves an archive whatever its name). Returns 0, or -1
 * after a usage error. */
static int archive_name_check(mcs_run *run, const char *out)
{
    mcz_os_file_info st;
    if (!mcs_has_extension(out, ".mch") || run->output_forced ||
        (mcz_os_stat(out, &st) == 0 && st.type != MCZ_OS_FILE_REGULAR))
        return 0;
    mcs_usage_error(&usage_convert,
                    "%s: an archive would be written under an .mch name; name it .mcz "
                    "(-export writes an MCH file), or give --force to keep it for "
                    "superpmi.py and mcz-superpmi", out);
    return -1;
}

/* Opens the archive whose dictionary the output reuses; the dictionary lives as long as it. */
static mcz_reader *dictionary_source(mcs_run *run, const char *path, mcz_writer_options *opt)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_reader *r = mcz_reader_open(path, &d);
    if (!r) {
        /* An MCH file given for an archive is named as one, not as an archive without footer. */
        mcz_source *probe = mcz_source_open(path, NULL);
        if (probe && !mcz_source_archive(probe))
            tool_error("%s: an MCH file, not an archive: --dict-from takes an archive's "
                       "dictionary ('mcs -convert %s OUT.mcz' makes one)", path, path);
        else
            mcs_error_diag(run, path, &d);
        mcz_source_close(probe);
        return NULL;
    }
    mcz_reader_dict(r, &opt->dict, &opt->dict_len);
    if (!opt->dict || opt->dict_len == 0) {
        tool_error("%s: the archive has no dictionary to reuse", path);
        mcz_reader_close(r);
        return NULL;
    }
    return r;
}

/* Where standard output stands: its offset when it is a file (> out.mcz), -1 for a pipe. */
static int64_t stdout_offset(void)
{
    return mcz_os_position(MCZ_OS_STDOUT_FD);
}

static int convert_file(mcs_run *run, const char *in_path, const char *out_path,
                        const mcz_writer_options *opt)
{
    uint64_t count, raw;
    bool to_stdout = tool_input_is_stream(out_path);
    int64_t before = to_stdout ? stdout_offset() : -1;
    int rc = tool_is_zip(in_path)
                 ? mcs_convert_zip(run, in_path, out_path, opt, &count, &raw)
                 : mcs_copy_file(run, in_path, out_path, MCS_OUTPUT_MCZ, opt, "converting",
                                 &count, &raw);
    if (rc != 0)
        return -1;
    int64_t after = before >= 0 ? stdout_offset() : -1;
    uint64_t stored = !to_stdout ? mcs_file_size(out_path)
                      : after > before ? (uint64_t)(after - before) : 0;
    if (stored)
        tool_info("Converted %" PRIu64 " contexts: %" PRIu64 " bytes -> %" PRIu64
                 " bytes (ratio %.2f)",
                 count, raw, stored, (double)raw / (double)stored);
    else /* a pipe: what went through it is the reader's to count */
        tool_info("Converted %" PRIu64 " contexts: %" PRIu64 " bytes -> standard output, a pipe "
                  "(its size is what the reader receives: | wc -c counts it)", count, raw);
    return 0;
}

int cmd_convert(mcs_run *run, int argc, char **argv)
{
    convert_args a = {0};
    const char *pos[2];
    if (mcs_parse_args(run, argc, argv, &usage_convert, &a, pos, 2, 2) < 0)
        return MCS_EXIT_USAGE;
    mcz_writer_options opt = MCZ_WRITER_OPTIONS_INIT;
    if (writer_options_of(&a, &opt) != 0 || archive_name_check(run, pos[1]) != 0)
        return MCS_EXIT_USAGE;
    mcz_reader *dict_reader = NULL;
    if (a.dict_from && !(dict_reader = dictionary_source(run, a.dict_from, &opt)))
        return MCS_EXIT_FAIL;
    int rc = convert_file(run, pos[0], pos[1], &opt);
    mcz_reader_close(dict_reader);
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
