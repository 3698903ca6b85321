/*
 * mcs_message.c - messages in one shape, at the bottom of mcs: verbosity, a diag as
 * "FILE: context N at offset X: message", and usage errors. It calls nothing of
 * mcs's above it (only mcs_run.c's state, the tools and the library).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_util.h"

uint64_t mcs_file_size(const char *path)
{
    mcz_os_file_info st;
    return mcz_os_stat(path, &st) == 0 ? st.size : 0; /* 0 for all but regular files */
}

bool mcs_set_verbosity(const char *chars)
{
    bool errors = false, warnings = false, info = false;
    for (const char *c = chars; *c; c++) {
        switch (*c) {
        case 'e': case 'E': errors = true; break;
        case 'w': case 'W': warnings = true; break;
        case 'n': case 'N': case 'v': case 'V': info = true; break;
        case 'a': case 'A': errors = warnings = info = true; break;
        case 'q': case 'Q': case 'm': case 'M': case 'i': case 'I': case 'd': case 'D': break;
        default: return false;
        }
    }
    tool_set_levels(errors, warnings, info);
    return true;
}

void mcs_note_input(mcs_run *run, const char *name, uint64_t size)
{
    if (mcs_file_size(name) == 0) /* a regular file's length is asked of the file */
        mcs_run_note_size(run, name, size);
}

/* file's length: a regular file's, else the one noted for that name last (0: unknown). */
static uint64_t input_size(const mcs_run *run, const char *file)
{
    uint64_t size = mcs_file_size(file);
    return size ? size : mcs_run_noted_size(run, file);
}

const char *mcs_diag_text(const mcs_run *run, const char *file, const mcz_diag *d, char *buf,
                          size_t cap)
{
    /* A location is one in the file: an offset taken from damaged bytes is not. */
    int64_t offset = d->offset >= 0 && (uint64_t)d->offset < input_size(run, file) ? d->offset : -1;
    tool_where at = {file, -1, d->context, offset};
    return tool_where_text(&at, d, buf, cap);
}

void mcs_error_diag(const mcs_run *run, const char *file, const mcz_diag *d)
{
    char text[MCS_DIAG_TEXT_SIZE];
    tool_error("%s", mcs_diag_text(run, file, d, text, sizeof text));
}

/* Length of the verb at the start of a synopsis ("-copy RANGE IN OUT" -> 5). */
static int verb_length(const mcs_usage *u)
{
    return (int)strcspn(u->synopsis, " \n");
}

bool mcs_usage_lists_options(const mcs_usage *u)
{
    for (const mcs_option *o = u->options; o && o->name; o++)
        if (o->help)
            return true;
    return false;
}

int mcs_usage_error(const mcs_usage *u, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mcs: ", stderr);
    if (u)
        fprintf(stderr, "%.*s: ", verb_length(u), u->synopsis);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (!u) {
        fputs("\nTry 'mcs --help'.\n", stderr);
        return MCS_EXIT_USAGE;
    }
    /* One line of usage: a synopsis that goes on is cut after its first line. */
    int first = (int)strcspn(u->synopsis, "\n");
    fprintf(stderr, "\nusage: mcs %.*s%s\nTry 'mcs %.*s --help'.\n", first, u->synopsis,
            u->synopsis[first] || mcs_usage_lists_options(u) ? " ..." : "", verb_length(u),
            u->synopsis);
    return MCS_EXIT_USAGE;
}
