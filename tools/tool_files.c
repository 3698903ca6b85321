/* tool_files.c - inputs that are streams, and outputs checked before any work. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"

bool tool_input_is_stream(const char *path)
{
    struct stat st;
    if (strcmp(path, "-") == 0)
        return true;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

const char *tool_display_name(const char *path, bool output)
{
    if (strcmp(path, "-") != 0)
        return path;
    return output ? "standard output" : "standard input";
}

static int copy_stream(int in, int out)
{
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return (int)n;
        if (tool_write_all(out, buf, (size_t)n) != 0)
            return -1;
    }
}

static char *spool_name(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t cap = strlen(dir) + sizeof "/mcz-stdin.XXXXXX";
    char *name = malloc(cap);
    if (name)
        snprintf(name, cap, "%s/mcz-stdin.XXXXXX", dir);
    return name;
}

char *tool_spool(const char *path, char err[TOOL_ERROR_SIZE])
{
    const char *shown = tool_display_name(path, false);
    int in = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    char *name = in >= 0 ? spool_name() : NULL;
    int out = -1;
    if (name) {
        tool_undo_remove(name); /* listed before it exists: a signal cannot miss it */
        out = mkostemp(name, O_CLOEXEC);
    }
    int rc = out >= 0 ? copy_stream(in, out) : -1;
    int saved = errno;
    if (out >= 0 && close(out) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (in > STDIN_FILENO)
        close(in);
    if (rc == 0)
        return name;
    snprintf(err, TOOL_ERROR_SIZE, "%s: cannot copy it to a temporary file%s%s: %s", shown,
             name ? " in " : "", name ? name : "", strerror(saved));
    tool_spool_remove(out >= 0 ? name : NULL);
    if (out < 0 && name) {
        tool_undo_remove_forget(name);
        free(name);
    }
    return NULL;
}

void tool_spool_remove(char *spooled)
{
    if (!spooled)
        return;
    unlink(spooled);
    tool_undo_remove_forget(spooled);
    free(spooled);
}

/* ---- Outputs ---- */

bool tool_output_is_stdout(const char *path)
{
    struct stat out, st;
    if (strcmp(path, "-") == 0)
        return true;
    return fstat(STDOUT_FILENO, &out) == 0 && stat(path, &st) == 0 &&
           st.st_dev == out.st_dev && st.st_ino == out.st_ino;
}

#define NOTED_MAX 64

static struct noted_input {
    dev_t dev;
    ino_t ino;
    const char *path;
} noted[NOTED_MAX];
static size_t noted_count;

void tool_note_input(const char *path)
{
    struct stat st;
    if (noted_count == NOTED_MAX || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    noted[noted_count++] = (struct noted_input){st.st_dev, st.st_ino, path};
}

static const struct noted_input *noted_as(const struct stat *st)
{
    for (size_t i = 0; i < noted_count; i++)
        if (noted[i].dev == st->st_dev && noted[i].ino == st->st_ino)
            return &noted[i];
    return NULL;
}

int tool_output_check(const char *path, bool *stream, char err[TOOL_ERROR_SIZE])
{
    mcz_diag d;
    mcz_diag_clear(&d);
    if (mcz_outfile_check(path, stream, &d) != MCZ_OK) {
        mcz_diag_format(&d, err, TOOL_ERROR_SIZE);
        return -1;
    }
    struct stat st;
    bool known = strcmp(path, "-") == 0 ? fstat(STDOUT_FILENO, &st) == 0 : stat(path, &st) == 0;
    const struct noted_input *in = known && S_ISREG(st.st_mode) ? noted_as(&st) : NULL;
    if (!in)
        return 0;
    if (strcmp(in->path, path) == 0)
        snprintf(err, TOOL_ERROR_SIZE, "%s: is an input too: name another output", path);
    else
        snprintf(err, TOOL_ERROR_SIZE, "%s: is the same file as the input %s: name another output",
                 tool_display_name(path, true), in->path);
    return -1;
}
