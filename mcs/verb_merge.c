/* verb_merge.c - mcs -merge: one collection from many files, optionally deduplicated. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_chunks.h"
#include "mcs_context.h"
#include "mcs_dedup.h"
#include "mcs_verbs.h"

typedef struct merge_args {
    bool recursive, dedup, thin;
    mcs_compress_args compress;
} merge_args;

static const mcs_option merge_options[] = {
    {.name = "recursive", .type = MCS_OPT_FLAG, MCS_FIELD(merge_args, recursive),
     .help = "then descend into the subdirectories, in name order, with the\n"
             "same wildcard"},
    {.name = "dedup", .type = MCS_OPT_FLAG, MCS_FIELD(merge_args, dedup),
     .help = "drop duplicate methods across all files, as -removeDup does\n"
             "(the files are read twice: keys first, then the copy)"},
    {.name = "thin", .type = MCS_OPT_FLAG, MCS_FIELD(merge_args, thin),
     .help = "with -dedup: drop the compile results of the contexts written"},
    MCS_COMPRESS_OPTIONS(merge_args, compress),
    MCS_OPTIONS_END};

const mcs_usage usage_merge = {
    "-merge OUT PATTERN",
    "concatenate many files (.mch and .mcz alike) into one",
    "PATTERN is a directory (all its files), DIR/*.mch-style wildcards in the last component,\n"
    "or one file. Files are taken in name order (strcmp). Names beginning with '.' and\n"
    "symbolic links to directories are skipped; empty files are skipped with a line saying so.\n"
    "Every context is deep-checked. OUT is an archive when it ends in .mcz; it appears only\n"
    "once complete, and not at all on an error or when no file matched. Chunks are copied\n"
    "whole when none of their contexts is a duplicate.\n"
    MCS_COMPRESS_INHERIT_HELP,
    merge_options};

#define MERGE_DEPTH_MAX 64

typedef struct merge_run {
    const char *glob;
    mcs_run *run;
    bool recursive;
    mcs_dedup *dedup; /* NULL: plain concatenation */
    bool recording;   /* -dedup's first pass over the files: their keys (mcs_dedup.h) */
    mcs_output *out;
    mcz_os_file_id out_id; /* OUT as it was before the run, so it is not merged into itself */
    bool out_existed;
    uint64_t files;
    mcs_copy_counts counts;
} merge_run;

static int append_plain(merge_run *m, mcs_input *in)
{
    static const mcs_copy_rules rules = {NULL, true, "merging"};
    return mcs_copy_all(in, m->out, &rules, &m->counts);
}

static int merge_file(merge_run *m, const char *path, const mcz_os_file_info *st)
{
    mcz_os_file_id id;
    if (m->out_existed && mcz_os_file_id_of(path, &id) == 0 && tool_file_id_equal(&id, &m->out_id))
        return 0;
    if (st->size == 0) {
        if (!m->recording)
            tool_info("Skipping zero-length file %s", path);
        return 0;
    }
    mcs_input in;
    if (mcs_input_open(m->run, &in, path) != 0)
        return -1;
    int rc = m->recording ? mcs_dedup_record(m->dedup, &in)
             : m->dedup   ? mcs_dedup_copy(m->dedup, &in, m->out)
                          : append_plain(m, &in);
    mcs_input_close(&in);
    m->files += rc == 0 && !m->recording;
    return rc < 0 ? -1 : 0;
}

/* The entries of dir but those whose names begin with '.', sorted by name. */
static int list_dir(const char *dir, char ***names, size_t *count)
{
    if (tool_dir_list(dir, NULL, names, count) != 0) {
        tool_error("%s: %s", dir, strerror(errno));
        return -1;
    }
    size_t kept = 0;
    for (size_t i = 0; i < *count; i++) {
        if ((*names)[i][0] == '.')
            free((*names)[i]);
        else
            (*names)[kept++] = (*names)[i];
    }
    *count = kept;
    return 0;
}

static int merge_dir(merge_run *m, const char *dir, int depth);

/* Files of dir matching the wildcard first, then (recursive) its subdirectories. */
static int merge_entries(merge_run *m, const char *dir, char **names, size_t count, int depth)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < count; i++) {
            size_t len = strlen(dir) + strlen(names[i]) + 2;
            char *path = malloc(len);
            mcz_os_file_info st;
            if (!path) {
                tool_error("out of memory");
                return -1;
            }
            snprintf(path, len, "%s/%s", dir, names[i]);
            /* Files are followed through symbolic links; directories are not (no loops). */
            int rc = 0;
            if (pass == 0 && mcz_os_stat(path, &st) == 0 && st.type == MCZ_OS_FILE_REGULAR &&
                mcz_os_glob_match(m->glob, names[i]))
                rc = merge_file(m, path, &st);
            else if (pass == 1 && m->recursive && mcz_os_is_directory_not_link(path))
                rc = merge_dir(m, path, depth + 1);
            free(path);
            if (rc != 0)
                return -1;
        }
    }
    return 0;
}

static int merge_dir(merge_run *m, const char *dir, int depth)
{
    if (depth > MERGE_DEPTH_MAX) {
        tool_error("%s: directories nested deeper than %d", dir, MERGE_DEPTH_MAX);
        return -1;
    }
    char **names;
    size_t count;
    int rc = list_dir(dir, &names, &count);
    if (rc == 0)
        rc = merge_entries(m, dir, names, count, depth);
    tool_dir_list_free(names, count);
    return rc;
}

/* PATTERN: a directory, DIR/WILDCARD, or a single file. */
static int merge_pattern(merge_run *m, const char *pattern)
{
    mcz_os_file_info st;
    if (mcz_os_stat(pattern, &st) == 0 && st.type == MCZ_OS_FILE_DIRECTORY) {
        m->glob = "*";
        return merge_dir(m, pattern, 0);
    }
    const char *slash = strrchr(pattern, '/');
    m->glob = slash ? slash + 1 : pattern;
    if (!strpbrk(m->glob, "*?[") && !m->recursive) {
        if (mcz_os_stat(pattern, &st) != 0)
            return 0; /* nothing matches: reported by the caller */
        return merge_file(m, pattern, &st);
    }
    char *dir = slash ? tool_strndup(pattern, (size_t)(slash - pattern)) : strdup(".");
    if (dir && slash && dir[0] == '\0') {
        free(dir);
        dir = strdup("/");
    }
    if (!dir) {
        tool_error("out of memory");
        return -1;
    }
    int rc = merge_dir(m, dir, 0);
    free(dir);
    return rc;
}

int cmd_merge(mcs_run *run, int argc, char **argv)
{
    merge_args a = {0};
    const char *pos[2];
    mcz_writer_options opt = MCZ_WRITER_OPTIONS_INIT;
    if (mcs_parse_args(run, argc, argv, &usage_merge, &a, pos, 2, 2) < 0 ||
        mcs_compress_parse(&usage_merge, &a.compress, pos[0], &opt) != 0)
        return MCS_EXIT_USAGE;
    if (a.thin && !a.dedup)
        return mcs_usage_error(&usage_merge, "-thin needs -dedup");
    merge_run m = {.run = run, .recursive = a.recursive};
    m.out_existed = mcz_os_file_id_of(pos[0], &m.out_id) == 0;
    if (a.dedup && !(m.dedup = mcs_dedup_create(false, a.thin)))
        return MCS_EXIT_FAIL;
    m.out = mcs_output_open(run, pos[0], MCS_OUTPUT_BY_EXTENSION, &opt, true);
    m.recording = m.dedup != NULL;
    int rc = m.out && m.recording ? merge_pattern(&m, pos[1]) : 0;
    m.recording = false;
    if (rc == 0)
        rc = m.out ? merge_pattern(&m, pos[1]) : -1;
    if (rc == 0 && m.dedup)
        rc = mcs_dedup_finish(m.dedup);
    if (rc == 0 && m.files == 0) {
        tool_error("ERROR: No files found to merge.");
        rc = -1;
    }
    if (rc == 0)
        rc = mcs_output_commit(m.out);
    else
        mcs_output_abort(m.out);
    if (m.dedup) {
        m.counts.loaded = mcs_dedup_loaded(m.dedup);
        m.counts.saved = mcs_dedup_saved(m.dedup);
    }
    mcs_dedup_free(m.dedup);
    if (rc != 0)
        return MCS_EXIT_FAIL;
    tool_info("Merged %" PRIu64 " files: Loaded %" PRIu64 ", Saved %" PRIu64, m.files,
             m.counts.loaded, m.counts.saved);
    return MCS_EXIT_OK;
}
