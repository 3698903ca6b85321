/*
 * tool_message.c - how every program speaks: "PROG: text" on stderr for errors and warnings,
 * informational lines on stdout, each location in a message said once, and a diag filled the
 * same way everywhere.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tool.h"

static const char *program = "mcz";
/* SuperPMI's default shows everything but debug output. */
static bool show_errors = true, show_warnings = true, show_info = true;
static bool info_on_stderr;

void tool_set_program(const char *name)
{
    program = name;
}

const char *tool_program(void)
{
    return program;
}

void tool_set_levels(bool errors, bool warnings, bool info)
{
    show_errors = errors;
    show_warnings = warnings;
    show_info = info;
}

bool tool_info_shown(void)
{
    return show_info;
}

void tool_info_to_stderr(void)
{
    info_on_stderr = true;
}

static void say(bool show, FILE *f, const char *prefix, const char *fmt, va_list ap)
    TOOL_PRINTF(4, 0);

static void say(bool show, FILE *f, const char *prefix, const char *fmt, va_list ap)
{
    if (!show)
        return;
    if (prefix)
        fprintf(f, "%s: %s", program, prefix);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
}

void tool_verror(const char *fmt, va_list ap)
{
    say(show_errors, stderr, "", fmt, ap);
}

void tool_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tool_verror(fmt, ap);
    va_end(ap);
}

void tool_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(show_warnings, stderr, "warning: ", fmt, ap);
    va_end(ap);
}

void tool_info(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(show_info, info_on_stderr ? stderr : stdout, NULL, fmt, ap);
    va_end(ap);
}

const char *tool_where_text(const tool_where *w, const mcz_diag *d, char *buf, size_t cap)
{
    mcz_diag shown = *d;
    shown.context = w->context;
    shown.offset = w->offset;
    if (!shown.subject[0] && w->path)
        mcz_diag_set_subject(&shown, w->path);
    if (w->chunk >= 0) {
        char subject[sizeof shown.subject + 32];
        snprintf(subject, sizeof subject, "%s%schunk %" PRId64, shown.subject,
                 shown.subject[0] ? ": " : "", w->chunk);
        mcz_diag_set_subject(&shown, subject);
    }
    return mcz_diag_format(&shown, buf, cap);
}

void tool_diag_name(mcz_diag *d, const char *path)
{
    if (!d->subject[0])
        mcz_diag_set_subject(d, path);
}

void tool_diag_rename(mcz_diag *d, const char *from, const char *to)
{
    if (strcmp(d->subject, from) == 0)
        mcz_diag_set_subject(d, to);
}
