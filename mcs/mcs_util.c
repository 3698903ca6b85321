/* mcs_util.c - arguments (numbers, ranges, compression options) and stdout for every verb
 * (mcs_message.c: messages; mcs_io.c: files). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_util.h"

/* ============================================================================================ */
/* Arguments                                                                                    */
/* ============================================================================================ */

int mcs_parse_number(const mcs_usage *u, const char *name, const char *text, bool allow_suffix,
                     uint64_t min, uint64_t max, uint64_t *out)
{
    if (tool_parse_count(text, allow_suffix, min, max, out) == MCZ_OK)
        return 0;
    mcs_usage_error(u, "%s: '%s' is not a number from %" PRIu64 " to %" PRIu64, name, text, min,
                    max);
    return -1;
}

int mcs_parse_list(mcs_run *run, const char *arg, mcz_list *out)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    if (mcz_list_from_arg(arg, out, &d) == MCZ_OK)
        return MCS_EXIT_OK;
    mcs_error_diag(run, arg, &d);
    return mcs_has_extension(arg, ".mcl") ? MCS_EXIT_FAIL : MCS_EXIT_USAGE;
}

/* The compression options' names, from their list: compress_name[COMPRESS_level] is "--level". */
#define COMPRESS_ID(t, m, type, name, field, arg, help) COMPRESS_##field
#define COMPRESS_NAME(t, m, type, name, field, arg, help) name
#define COMPRESS_COMMA() ,
enum { MCS_COMPRESS_LIST(COMPRESS_ID, COMPRESS_COMMA, -, -), COMPRESS_COUNT };
static const char *const compress_name[COMPRESS_COUNT] = {
    MCS_COMPRESS_LIST(COMPRESS_NAME, COMPRESS_COMMA, -, -)};
#undef COMPRESS_ID
#undef COMPRESS_NAME
#undef COMPRESS_COMMA

/* The presets (README.md "Presets"; the figures that chose them: bench/FIGURES.md §1). */
typedef struct compress_preset {
    const char *name;
    mcz_codec codec;
    int level;
    uint32_t chunk_size;
    bool no_hashes;
} compress_preset;

static const compress_preset presets[] = {
    {"fast", MCZ_CODEC_ZSTD, 3, 1u << 20, false},
    {"default", MCZ_CODEC_ZSTD, 0, 0, false}, /* the library's defaults */
    {"cold", MCZ_CODEC_XZ, 9, 16u << 20, true},
};

/* Applies preset `name` to opt where opt leaves a setting open (options given beside it are
 * applied after, and win). Returns 0, or -1 after a usage error. */
static int apply_preset(const mcs_usage *u, const char *name, mcz_writer_options *opt)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        const compress_preset *p = &presets[i];
        if (strcmp(name, p->name) != 0)
            continue;
        if (!opt->codec)
            opt->codec = p->codec;
        if (!opt->level && opt->codec == p->codec)
            opt->level = p->level;
        if (!opt->chunk_size)
            opt->chunk_size = p->chunk_size;
        opt->no_hashes = opt->no_hashes || p->no_hashes;
        return 0;
    }
    mcs_usage_error(u, "%s takes fast, default or cold, not '%s'", compress_name[COMPRESS_preset],
                    name);
    return -1;
}

/* An option taking one of two names: text (NULL: not given, *out unchanged) names[i] sets *out
 * to values[i]. Returns 0, or -1 after a usage error. */
static int parse_choice(const mcs_usage *u, const char *option, const char *text,
                        const char *const names[2], const int values[2], int *out)
{
    for (int i = 0; text && i < 2; i++)
        if (strcmp(text, names[i]) == 0) {
            *out = values[i];
            return 0;
        }
    if (text)
        mcs_usage_error(u, "%s takes %s or %s, not '%s'", option, names[0], names[1], text);
    return text ? -1 : 0;
}

/* --jit-ee-guid, --target-os, --target-arch into opt, their values checked (canonical texts
 * are the writer's business). Returns 0, or -1 after a usage error. */
static int parse_record(const mcs_usage *u, const mcs_compress_args *a, mcz_writer_options *opt)
{
    char guid[MCZ_GUID_TEXT_SIZE], name[MCZ_TARGET_TEXT_SIZE];
    if (a->jit_ee_guid && mcz_guid_canonical(a->jit_ee_guid, guid) != MCZ_OK)
        return mcs_usage_error(u, "%s: '%s' is not a GUID (8-4-4-4-12 hex digits)",
                               compress_name[COMPRESS_jit_ee_guid], a->jit_ee_guid), -1;
    if (a->target_os && mcz_target_canonical(a->target_os, name) != MCZ_OK)
        return mcs_usage_error(u, "%s: '%s' is not 1 to 16 letters, digits or '_'",
                               compress_name[COMPRESS_target_os], a->target_os), -1;
    if (a->target_arch && mcz_target_canonical(a->target_arch, name) != MCZ_OK)
        return mcs_usage_error(u, "%s: '%s' is not 1 to 16 letters, digits or '_'",
                               compress_name[COMPRESS_target_arch], a->target_arch), -1;
    if (a->jit_ee_guid)
        opt->jit_ee_guid = a->jit_ee_guid;
    if (a->target_os)
        opt->target_os = a->target_os;
    if (a->target_arch)
        opt->target_arch = a->target_arch;
    return 0;
}

/* The usage error of compression options given for an output that is no archive, naming them
 * all in their list's order. */
static void refuse_without_archive(const mcs_usage *u, const char *out)
{
    char names[256];
    size_t len = 0;
    for (size_t i = 0; i < COMPRESS_COUNT && len < sizeof names; i++) {
        const char *after = i + 2 < COMPRESS_COUNT ? ", " : i + 1 < COMPRESS_COUNT ? " and " : "";
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", compress_name[i], after);
    }
    mcs_usage_error(u, "%s need an archive output (a name ending in .mcz), not %s", names, out);
}

int mcs_compress_parse(const mcs_usage *u, const mcs_compress_args *a, const char *out,
                       mcz_writer_options *opt)
{
    int codec = (int)opt->codec, layout = (int)opt->layout;
    if (parse_choice(u, compress_name[COMPRESS_codec], a->codec,
                     (const char *const[]){"zstd", "xz"},
                     (const int[]){MCZ_CODEC_ZSTD, MCZ_CODEC_XZ}, &codec) != 0 ||
        parse_choice(u, compress_name[COMPRESS_layout], a->layout,
                     (const char *const[]){"packets", "plain"},
                     (const int[]){MCZ_LAYOUT_PACKETS, MCZ_LAYOUT_PLAIN}, &layout) != 0)
        return -1;
    opt->codec = (mcz_codec)codec;
    opt->layout = (mcz_layout)layout;
    if (a->preset && apply_preset(u, a->preset, opt) != 0)
        return -1;
    uint64_t level = (uint64_t)opt->level, chunk_size = opt->chunk_size;
    bool xz = opt->codec == MCZ_CODEC_XZ;
    if (a->level && mcs_parse_number(u, compress_name[COMPRESS_level], a->level, false, 1,
                                     xz ? MCS_XZ_LEVEL_MAX : MCS_LEVEL_MAX, &level) != 0)
        return -1;
    if (xz && a->no_dict) {
        mcs_usage_error(u, "%s xz has no dictionary: %s is implied", compress_name[COMPRESS_codec],
                        compress_name[COMPRESS_no_dict]);
        return -1;
    }
    if (a->chunk_size && mcs_parse_number(u, compress_name[COMPRESS_chunk_size], a->chunk_size,
                                          true, 1, MCS_CHUNK_SIZE_MAX, &chunk_size) != 0)
        return -1;
#define GIVEN(a_, unused, type, name, field, arg, help) (a_)->field
#define OR() ||
    bool given = MCS_COMPRESS_LIST(GIVEN, OR, a, -);
#undef GIVEN
#undef OR
    if (given && out && !mcs_has_extension(out, ".mcz"))
        return refuse_without_archive(u, out), -1;
    if (parse_record(u, a, opt) != 0)
        return -1;
    opt->level = (int)level;
    opt->chunk_size = (uint32_t)chunk_size;
    opt->no_dict = opt->no_dict || a->no_dict;
    opt->no_hashes = opt->no_hashes || a->no_hashes;
    return 0;
}

bool mcs_has_extension(const char *path, const char *ext)
{
    size_t len = strlen(path), ext_len = strlen(ext);
    return len >= ext_len && tool_strcasecmp(path + len - ext_len, ext) == 0;
}

/* ============================================================================================ */
/* stdout                                                                                       */
/* ============================================================================================ */

bool mcs_stdout_failed(void)
{
    return ferror(stdout) != 0;
}

int mcs_close_stdout(void)
{
    return tool_close_stdout();
}
