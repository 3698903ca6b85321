/* verb_convert.c - mcs -convert: writes a collection (MCH or archive) as an .mcz archive. */
#include <inttypes.h>

#include "mcs_chunks.h"
#include "mcs_verbs.h"

const mcs_usage usage_convert = {
    "-convert IN OUT.mcz [--level N] [--chunk-size SIZE] [--dict-size SIZE] [--no-dict]\n"
    "                  [--dict-from ARCHIVE.mcz] [--no-hashes] [-j THREADS]",
    "compress a collection into a seekable .mcz archive",
    "  --level N           zstd level (1-22; default: the library's)\n"
    "  --chunk-size SIZE   uncompressed bytes per chunk, e.g. 1M (default 2 MiB)\n"
    "  --dict-size SIZE    capacity of the trained dictionary, e.g. 112K\n"
    "  --no-dict           compress without a dictionary\n"
    "  --dict-from A.mcz   reuse the dictionary of another archive instead of training one\n"
    "  --no-hashes         store no identity hashes or dedup keys in the index: the smallest\n"
    "                      archive (32 bytes less per context); -toc, -removeDup and -merge\n"
    "                      -dedup then decode the chunks to compute them\n"
    "  -j THREADS          compression threads (default: one per core)\n"
    "SIZE takes a K, M or G suffix (powers of 1024). OUT appears only once complete.\n"};

/* The writer's limits, checked here too so that a bad value is a usage error before any work
 * (mcz.h does not export them yet). */
#define CHUNK_SIZE_MAX (1u << 30)
#define DICT_SIZE_MIN 256u /* ZDICT_DICTSIZE_MIN */
#define THREADS_MAX 256

typedef struct convert_args {
    const char *level, *chunk_size, *dict_size, *dict_from, *threads;
    bool no_dict, no_hashes;
} convert_args;

/* A numeric option: its text (NULL when absent), bounds, and the value parsed (0: absent,
 * which the writer reads as "the default"). */
typedef struct number_option {
    const char *name, *text;
    bool allow_suffix;
    uint64_t min, max, value;
} number_option;

/* Turns the option texts into writer options; returns 0 or -1 after a usage error. */
static int convert_options(const convert_args *a, mcz_writer_options *opt)
{
    const mcs_usage *u = &usage_convert;
    number_option n[] = {{"--level", a->level, false, 1, 22, 0},
                         {"--chunk-size", a->chunk_size, true, 1, CHUNK_SIZE_MAX, 0},
                         {"--dict-size", a->dict_size, true, DICT_SIZE_MIN, UINT32_MAX, 0},
                         {"-j", a->threads, false, 1, THREADS_MAX, 0}};
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
        if (n[i].text && mcs_parse_number(u, n[i].name, n[i].text, n[i].allow_suffix, n[i].min,
                                          n[i].max, &n[i].value) != 0)
            return -1;
    if (a->no_dict && (a->dict_from || a->dict_size)) {
        mcs_usage_error(u, "--no-dict excludes --dict-from and --dict-size");
        return -1;
    }
    opt->level = (int)n[0].value;
    opt->chunk_size = (uint32_t)n[1].value;
    opt->dict_size = (uint32_t)n[2].value;
    opt->threads = (int)n[3].value;
    opt->no_dict = a->no_dict;
    opt->no_hashes = a->no_hashes;
    return 0;
}

/* Opens the archive whose dictionary the output reuses; the dictionary lives as long as it. */
static mcz_reader *dictionary_source(const char *path, mcz_writer_options *opt)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    mcz_reader *r = mcz_reader_open(path, &d);
    if (!r) {
        mcs_error_diag(path, &d);
        return NULL;
    }
    mcz_reader_dict(r, &opt->dict, &opt->dict_len);
    if (!opt->dict || opt->dict_len == 0) {
        mcs_error("%s: the archive has no dictionary to reuse", path);
        mcz_reader_close(r);
        return NULL;
    }
    return r;
}

static int convert_file(const char *in_path, const char *out_path,
                        const mcz_writer_options *opt)
{
    uint64_t count, raw;
    if (mcs_copy_file(in_path, out_path, MCS_OUTPUT_MCZ, opt, "converting", &count, &raw) != 0)
        return -1;
    uint64_t stored = tool_input_is_stream(out_path) ? 0 : mcs_file_size(out_path);
    if (stored)
        mcs_info("Converted %" PRIu64 " contexts: %" PRIu64 " bytes -> %" PRIu64
                 " bytes (ratio %.2f)",
                 count, raw, stored, (double)raw / (double)stored);
    else /* written as a stream: its size is not ours to see */
        mcs_info("Converted %" PRIu64 " contexts: %" PRIu64 " bytes", count, raw);
    return 0;
}

int cmd_convert(int argc, char **argv)
{
    convert_args a = {0};
    const mcs_option opts[] = {{"--level", &a.level, NULL},
                               {"--chunk-size", &a.chunk_size, NULL},
                               {"--dict-size", &a.dict_size, NULL},
                               {"--dict-from", &a.dict_from, NULL},
                               {"--no-dict", NULL, &a.no_dict},
                               {"--no-hashes", NULL, &a.no_hashes},
                               {"-j", &a.threads, NULL},
                               {"--threads", &a.threads, NULL},
                               {NULL, NULL, NULL}};
    const char *pos[2];
    if (mcs_parse_args(argc, argv, &usage_convert, opts, pos, 2, 2) < 0)
        return MCS_EXIT_USAGE;
    mcz_writer_options opt = MCZ_WRITER_OPTIONS_INIT;
    if (convert_options(&a, &opt) != 0)
        return MCS_EXIT_USAGE;
    mcz_reader *dict_reader = NULL;
    if (a.dict_from && !(dict_reader = dictionary_source(a.dict_from, &opt)))
        return MCS_EXIT_FAIL;
    int rc = convert_file(pos[0], pos[1], &opt);
    mcz_reader_close(dict_reader);
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
