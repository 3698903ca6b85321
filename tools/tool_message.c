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

int tool_fail(mcz_diag *d, int code, int64_t context, int64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mcz_diag_vset(d, code, offset, context, fmt, ap);
    va_end(ap);
    return code;
}

/* Skips "NAME: " at the front of *text. */
static void skip_prefix(const char **text, const char *name)
{
    size_t n = strlen(name);
    if (n && strncmp(*text, name, n) == 0 && strncmp(*text + n, ": ", 2) == 0)
        *text += n + 2;
}

/* Appends to buf (of cap bytes, *len used); once full, later parts are dropped. */
static void text_append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    TOOL_PRINTF(4, 5);

static void text_append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    if (*len >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    *len = n < 0 ? cap : *len + (size_t)n;
}

const char *tool_where_text(const tool_where *w, const mcz_diag *d, char *buf, size_t cap)
{
    char chunk[32] = "", context[32] = "", known[32] = "";
    if (w->chunk >= 0)
        snprintf(chunk, sizeof chunk, "chunk %" PRId64, w->chunk);
    if (w->context > 0 && w->context != w->known)
        snprintf(context, sizeof context, "context %" PRId64, w->context);
    if (w->known > 0)
        snprintf(known, sizeof known, "context %" PRId64, w->known);
    const char *text = d->message[0] ? d->message : mcz_error_name(d->code);
    skip_prefix(&text, w->path ? w->path : "");
    skip_prefix(&text, chunk);
    skip_prefix(&text, context);
    skip_prefix(&text, known);
    size_t len = 0;
    if (cap == 0)
        return buf;
    buf[0] = '\0';
    if (w->path)
        text_append(buf, cap, &len, "%s: ", w->path);
    if (chunk[0])
        text_append(buf, cap, &len, "%s: ", chunk);
    if (context[0])
        text_append(buf, cap, &len, w->offset >= 0 ? "%s " : "%s: ", context);
    if (w->offset >= 0)
        text_append(buf, cap, &len, "at offset %" PRId64 ": ", w->offset);
    text_append(buf, cap, &len, "%s", text);
    return buf;
}

void tool_diag_rename(mcz_diag *d, const char *from, const char *to)
{
    size_t len = strlen(from);
    if (strncmp(d->message, from, len) != 0)
        return;
    char rest[sizeof d->message];
    snprintf(rest, sizeof rest, "%s", d->message + len);
    snprintf(d->message, sizeof d->message, "%s%s", to, rest);
}
