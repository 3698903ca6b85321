/*
 * verb_concat.c - mcs -concat: appends FILE2's contexts to FILE1.
 *
 * An MCH FILE1 grows in place (collections are built by appending many small files to a large
 * one, so copying FILE1 each time would cost its whole size); any failure truncates it back to
 * its original length, and a FILE1 created by the run is removed. An archive FILE1 cannot grow
 * in place (its index is at its end): a new archive of FILE1's chunks then FILE2's replaces it,
 * the compressed chunks copied as they are where the dictionaries allow (mcs_chunks.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "mcs_chunks.h"
#include "mcs_verbs.h"

const mcs_usage usage_concat = {
    "-concat FILE1 FILE2",
    "append FILE2's contexts to FILE1",
    "FILE1 is an MCH file, or an archive when its name ends in .mcz (created when missing);\n"
    "FILE2 an MCH file or an archive. Every context of FILE2 is checked (its container) as it\n"
    "is appended; on any failure FILE1 is left as it was. An archive FILE1 is rewritten whole\n"
    "but not recompressed: its chunks, and those of an archive FILE2 with the same dictionary,\n"
    "are copied as they are (FILE1 created by the run takes FILE2's dictionary).\n",
    NULL};

typedef struct concat_target {
    const char *path;
    int fd;
    int64_t original_size;
    bool created;
    int undo; /* a signal truncates FILE1 back (tool_undo_truncate) */
} concat_target;

/* FILE1 must be an MCH file: empty, or beginning with a context's magic. */
static int check_target_kind(const concat_target *t)
{
    uint8_t head[2];
    if (t->original_size == 0)
        return 0;
    if (t->original_size >= 2 && mcz_os_pread(t->fd, head, 2, 0) == 2 && head[0] == 'm' &&
        head[1] == 'c')
        return 0;
    tool_error("%s: at offset 0: not an MCH file (no method context at its start)", t->path);
    return -1;
}

static int target_open(concat_target *t, const char *path)
{
    t->path = path;
    t->created = false;
    t->fd = mcz_os_open(path, MCZ_OS_OPEN_READ_WRITE | MCZ_OS_OPEN_APPEND, 0);
    if (t->fd < 0 && errno == ENOENT) {
        t->fd = mcz_os_open(path,
                          MCZ_OS_OPEN_READ_WRITE | MCZ_OS_OPEN_APPEND | MCZ_OS_OPEN_CREATE |
                              MCZ_OS_OPEN_EXCLUSIVE,
                          0666);
        t->created = t->fd >= 0;
    }
    mcz_os_file_info st;
    if (t->fd < 0 || mcz_os_fstat(t->fd, &st) != 0) {
        tool_error("%s: %s", path, strerror(errno));
        return -1;
    }
    if (st.type != MCZ_OS_FILE_REGULAR) {
        tool_error("%s: not a regular file", path);
        return -1;
    }
    t->original_size = (int64_t)st.size;
    if (t->created)
        tool_undo_remove(path);
    t->undo = tool_undo_truncate(t->fd, t->original_size);
    return check_target_kind(t);
}

static void target_forget_undo(concat_target *t)
{
    tool_undo_forget(t->undo);
    t->undo = -1;
    if (t->created)
        tool_undo_remove_forget(t->path);
}

/* Undoes the run: FILE1 back to its original length (or gone, when the run created it). */
static void target_restore(concat_target *t)
{
    if (t->fd < 0)
        return;
    target_forget_undo(t);
    if (!t->created && mcz_os_truncate(t->fd, t->original_size) != 0)
        tool_error("%s: could not restore the original length %lld: %s", t->path,
                  (long long)t->original_size, strerror(errno));
    mcz_os_close(t->fd); /* first: Windows removes no open file */
    t->fd = -1;
    if (t->created)
        mcz_os_unlink(t->path);
}

static int target_finish(concat_target *t)
{
    if (mcz_os_fsync(t->fd) != 0) {
        tool_error("%s: fsync failed: %s", t->path, strerror(errno));
        return -1;
    }
    int rc = mcz_os_close(t->fd);
    t->fd = -1;
    target_forget_undo(t);
    if (rc != 0) {
        tool_error("%s: close failed: %s", t->path, strerror(errno));
        return -1;
    }
    return 0;
}

static bool same_file(const char *a, const char *b)
{
    mcz_os_file_id ia, ib;
    return mcz_os_file_id_of(a, &ia) == 0 && mcz_os_file_id_of(b, &ib) == 0 &&
           tool_file_id_equal(&ia, &ib);
}

static int append_all(mcs_input *in, concat_target *t, uint64_t *appended)
{
    tool_progress progress;
    tool_progress_start(&progress, "appending", in->contexts, in->raw_bytes);
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(in, &mc)) > 0) {
        if (mcz_os_write_all(t->fd, mc.bytes, mc.size) != 0) {
            tool_progress_end(&progress);
            tool_error("%s: write failed: %s", t->path, strerror(errno));
            return -1;
        }
        tool_test_signal_point(++*appended);
        tool_progress_update(&progress, *appended, in->read_bytes);
    }
    tool_progress_end(&progress);
    return rc;
}

/* An archive FILE1 (existing or not): a new one of its chunks then in's, put in its place. */
static int concat_archive(mcs_run *run, const char *path, mcs_input *in, uint64_t *appended,
                          uint64_t *bytes)
{
    /* The output is opened first: it replaces FILE1 on purpose, once FILE1 has been read. */
    mcs_output *out = mcs_output_open(run, path, MCS_OUTPUT_MCZ, NULL, true);
    if (!out)
        return -1;
    mcs_input base = {0};
    bool exists = mcz_os_exists(path);
    int rc = exists ? mcs_input_open(run, &base, path) : 0;
    if (rc == 0 && exists && !base.archive) {
        tool_error("%s: not an archive, though its name ends in .mcz", path);
        rc = -1;
    }
    mcs_copy_counts base_counts = {0}, counts = {0};
    const mcs_copy_rules rules = {NULL, false, "appending"};
    if (rc == 0 && exists)
        rc = mcs_copy_all(&base, out, &rules, &base_counts);
    if (rc == 0)
        rc = mcs_copy_all(in, out, &rules, &counts);
    /* FILE1 is closed before its replacement takes its name: Windows renames nothing over an
     * open (or mapped) file. */
    mcs_input_close(&base);
    if (rc == 0)
        rc = mcs_output_commit(out);
    else
        mcs_output_abort(out);
    *appended = counts.saved;
    *bytes = counts.saved_bytes;
    return rc;
}

/* An MCH FILE1, grown in place. */
static int concat_mch(const char *path, mcs_input *in, uint64_t *appended, uint64_t *bytes)
{
    concat_target t = {.fd = -1, .undo = -1};
    int rc = target_open(&t, path);
    if (rc == 0)
        rc = append_all(in, &t, appended);
    if (rc == 0)
        rc = target_finish(&t);
    if (rc != 0)
        target_restore(&t);
    *bytes = in->read_bytes;
    return rc;
}

int cmd_concat(mcs_run *run, int argc, char **argv)
{
    const char *pos[2];
    if (mcs_parse_args(run, argc, argv, &usage_concat, NULL, pos, 2, 2) < 0)
        return MCS_EXIT_USAGE;
    if (same_file(pos[0], pos[1])) {
        tool_error("%s: cannot append a file to itself", pos[0]);
        return MCS_EXIT_FAIL;
    }
    mcs_input in;
    if (mcs_input_open(run, &in, pos[1]) != 0)
        return MCS_EXIT_FAIL;
    uint64_t appended = 0, bytes = 0;
    int rc = mcs_has_extension(pos[0], ".mcz") ? concat_archive(run, pos[0], &in, &appended, &bytes)
                                                : concat_mch(pos[0], &in, &appended, &bytes);
    mcs_input_close(&in);
    if (rc != 0)
        return MCS_EXIT_FAIL;
    tool_info("Appended %" PRIu64 " contexts (%" PRIu64 " bytes) to %s", appended, bytes, pos[0]);
    char toc[4096];
    if (appended && mcz_toc_find(pos[0], toc, sizeof toc) == 1)
        tool_warn("%s lacks the appended contexts: run -toc again", toc);
    return MCS_EXIT_OK;
}
