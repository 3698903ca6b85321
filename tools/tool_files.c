/* tool_files.c - which inputs are streams, and outputs checked before any work (a stream is
 * read by the library, mcz_input_open: no program copies one). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

bool tool_input_is_stream(const char *path)
{
    mcz_os_file_info st;
    if (strcmp(path, "-") == 0)
        return true;
    return mcz_os_stat(path, &st) == 0 && st.type != MCZ_OS_FILE_REGULAR &&
           st.type != MCZ_OS_FILE_DIRECTORY;
}

const char *tool_display_name(const char *path, bool output)
{
    if (strcmp(path, "-") != 0)
        return path;
    return output ? "standard output" : "standard input";
}

/* ---- Outputs ---- */

bool tool_file_id_equal(const mcz_os_file_id *a, const mcz_os_file_id *b)
{
    return a->volume == b->volume && a->file == b->file;
}

bool tool_output_is_stdout(const char *path)
{
    mcz_os_file_id out, id;
    if (strcmp(path, "-") == 0)
        return true;
    return mcz_os_file_id_of_fd(MCZ_OS_STDOUT_FD, &out) == 0 && mcz_os_file_id_of(path, &id) == 0 &&
           tool_file_id_equal(&out, &id);
}

#define NOTED_MAX 64

static struct noted_input {
    mcz_os_file_id id;
    const char *path;
} noted[NOTED_MAX];
static size_t noted_count;

void tool_note_input(const char *path)
{
    mcz_os_file_info st;
    mcz_os_file_id id;
    if (noted_count == NOTED_MAX || mcz_os_stat(path, &st) != 0 || st.type != MCZ_OS_FILE_REGULAR ||
        mcz_os_file_id_of(path, &id) != 0)
        return;
    noted[noted_count++] = (struct noted_input){id, path};
}

/* The noted input that the regular file path (or stdout, for "-") is, or NULL. */
static const struct noted_input *noted_as(const char *path)
{
    bool out = strcmp(path, "-") == 0;
    mcz_os_file_info st;
    mcz_os_file_id id;
    if ((out ? mcz_os_fstat(MCZ_OS_STDOUT_FD, &st) : mcz_os_stat(path, &st)) != 0 ||
        st.type != MCZ_OS_FILE_REGULAR ||
        (out ? mcz_os_file_id_of_fd(MCZ_OS_STDOUT_FD, &id) : mcz_os_file_id_of(path, &id)) != 0)
        return NULL;
    for (size_t i = 0; i < noted_count; i++)
        if (tool_file_id_equal(&noted[i].id, &id))
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
    const struct noted_input *in = noted_as(path);
    if (!in)
        return 0;
    if (strcmp(in->path, path) == 0)
        snprintf(err, TOOL_ERROR_SIZE, "%s: is an input too: name another output", path);
    else
        snprintf(err, TOOL_ERROR_SIZE, "%s: is the same file as the input %s: name another output",
                 tool_display_name(path, true), in->path);
    return -1;
}
