/*
 * verb_concat.c - mcs -concat: appends FILE2's contexts to FILE1.
 *
 * FILE1 grows in place (collections are built by appending many small files to a large one,
 * so copying FILE1 each time would cost its whole size); any failure truncates it back to its
 * original length, and a FILE1 created by the run is removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcs_verbs.h"

const mcs_usage usage_concat = {
    "-concat FILE1 FILE2",
    "append FILE2's contexts to FILE1",
    "FILE1 is an MCH file (created when missing); FILE2 an MCH file or an archive. Every\n"
    "context of FILE2 is checked (its container) as it is appended; on any failure FILE1 is\n"
    "restored to its original length. Appending to an archive is not supported yet.\n"};

typedef struct concat_target {
    const char *path;
    int fd;
    off_t original_size;
    bool created;
} concat_target;

static int write_all(int fd, const uint8_t *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* FILE1 must be an MCH file: empty, or beginning with a context's magic. */
static int check_target_kind(const concat_target *t)
{
    uint8_t head[2];
    if (t->original_size == 0)
        return 0;
    if (t->original_size >= 2 && pread(t->fd, head, 2, 0) == 2 && head[0] == 'm' && head[1] == 'c')
        return 0;
    mcs_error("%s: at offset 0: not an MCH file (no method context at its start)", t->path);
    return -1;
}

static int target_open(concat_target *t, const char *path)
{
    if (mcs_has_extension(path, ".mcz")) {
        mcs_error("%s: appending to an archive is not supported yet", path);
        return -1;
    }
    t->path = path;
    t->created = false;
    t->fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
    if (t->fd < 0 && errno == ENOENT) {
        t->fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        t->created = t->fd >= 0;
    }
    struct stat st;
    if (t->fd < 0 || fstat(t->fd, &st) != 0) {
        mcs_error("%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        mcs_error("%s: not a regular file", path);
        return -1;
    }
    t->original_size = st.st_size;
    return check_target_kind(t);
}

/* Undoes the run: FILE1 back to its original length (or gone, when the run created it). */
static void target_restore(concat_target *t)
{
    if (t->fd < 0)
        return;
    if (t->created)
        unlink(t->path);
    else if (ftruncate(t->fd, t->original_size) != 0)
        mcs_error("%s: could not restore the original length %lld: %s", t->path,
                  (long long)t->original_size, strerror(errno));
    close(t->fd);
    t->fd = -1;
}

static int target_finish(concat_target *t)
{
    if (fsync(t->fd) != 0 && errno != EINVAL) {
        mcs_error("%s: fsync failed: %s", t->path, strerror(errno));
        return -1;
    }
    int rc = close(t->fd);
    t->fd = -1;
    if (rc != 0) {
        mcs_error("%s: close failed: %s", t->path, strerror(errno));
        return -1;
    }
    return 0;
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int append_all(mcs_input *in, concat_target *t, uint64_t *appended)
{
    mcs_progress progress;
    mcs_progress_start(&progress, "appending", in->contexts, in->raw_bytes);
    mcz_mc mc;
    int rc;
    while ((rc = mcs_input_next(in, &mc)) > 0) {
        if (write_all(t->fd, mc.bytes, mc.size) != 0) {
            mcs_progress_end(&progress);
            mcs_error("%s: write failed: %s", t->path, strerror(errno));
            return -1;
        }
        ++*appended;
        mcs_progress_update(&progress, *appended, in->read_bytes);
    }
    mcs_progress_end(&progress);
    return rc;
}

int cmd_concat(int argc, char **argv)
{
    const char *pos[2];
    if (mcs_parse_args(argc, argv, &usage_concat, NULL, pos, 2, 2) < 0)
        return MCS_EXIT_USAGE;
    if (same_file(pos[0], pos[1])) {
        mcs_error("%s: cannot append a file to itself", pos[0]);
        return MCS_EXIT_FAIL;
    }
    mcs_input in;
    if (mcs_input_open(&in, pos[1]) != 0)
        return MCS_EXIT_FAIL;
    concat_target t = {.fd = -1};
    uint64_t appended = 0;
    int rc = target_open(&t, pos[0]);
    if (rc == 0)
        rc = append_all(&in, &t, &appended);
    if (rc == 0)
        rc = target_finish(&t);
    if (rc != 0)
        target_restore(&t);
    uint64_t bytes = in.read_bytes;
    mcs_input_close(&in);
    if (rc != 0)
        return MCS_EXIT_FAIL;
    mcs_info("Appended %" PRIu64 " contexts (%" PRIu64 " bytes) to %s", appended, bytes, pos[0]);
    char toc[4096];
    if (appended && mcz_toc_find(pos[0], toc, sizeof toc) == 1)
        mcs_warn("%s lacks the appended contexts: run -toc again", toc);
    return MCS_EXIT_OK;
}
