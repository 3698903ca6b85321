/* tool_files.c - which inputs are streams, and outputs checked before any work (a stream is
 * read by the library, mcz_input_open: no program copies one). */
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
