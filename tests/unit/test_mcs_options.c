/*
 * test_mcs_options.c - mcs's option tables (each verb's in its usage, mcs/mcs_util.h; the
 * options every verb takes, mcs/mcs_options.c): every option of every verb is in that verb's
 * help, its line and its synopsis, but those hidden on purpose named below; no option line in
 * a help that no entry makes; every entry whole for its type.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "mcs_switches.h"
#include "mcs_util.h"

/* Options kept out of a verb's help, each for a reason. Hiding another one is a decision to
 * write here. */
typedef struct hidden_option {
    const char *verb, *name, *reason;
} hidden_option;

static const hidden_option hidden_on_purpose[] = {
    {"convert", "--threads", "-j's long name, listed as -j"},
    {NULL, "writeLogFile", "not implemented: refused with a usage error"},
    {NULL, "-f", "listed with --force, as \"--force, -f\""},
};

/* verb NULL: an option every verb takes. */
static bool meant_hidden(const char *verb, const char *name)
{
    for (size_t i = 0; i < sizeof hidden_on_purpose / sizeof *hidden_on_purpose; i++) {
        const hidden_option *h = &hidden_on_purpose[i];
        if ((h->verb && verb ? strcmp(h->verb, verb) == 0 : h->verb == verb) &&
            strcmp(h->name, name) == 0)
            return true;
    }
    return false;
}

/* A verb's help as mcs --help VERB prints it, cut in three: the synopsis (the usage line and
 * those continuing it), the verb's own part, and the options every verb takes. */
typedef struct verb_help {
    char *text; /* all of it, NUL-terminated; the parts point into it */
    const char *synopsis, *own, *common;
} verb_help;

static void help_of(const mcs_usage *u, verb_help *h)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    mcs_print_usage(f, u);
    long size = ftell(f);
    assert_true(size > 0);
    rewind(f);
    h->text = malloc((size_t)size + 1);
    assert_non_null(h->text);
    assert_int_equal(fread(h->text, 1, (size_t)size, f), (size_t)size);
    h->text[size] = '\0';
    fclose(f);
    /* the summary is the first line indented by two blanks exactly */
    char *summary = h->text;
    while ((summary = strstr(summary, "\n  ")) && summary[3] == ' ')
        summary++;
    assert_non_null(summary);
    char *common = strstr(summary, "\nOptions of every verb");
    assert_non_null(common);
    *summary = '\0';
    *common = '\0';
    h->synopsis = h->text;
    h->own = summary + 1;
    h->common = common + 1;
}

/* The line of part that begins "  LEFT" and then `after` (two blanks before an entry's text,
 * one before the value of an option every verb takes) or a comma (another name follows), or
 * NULL. part begins with a line of its own, never an option's. */
static const char *line_of(const char *part, const char *left, const char *after)
{
    char start[96];
    snprintf(start, sizeof start, "\n  %s", left);
    size_t len = strlen(start);
    for (const char *at = strstr(part, start); at; at = strstr(at + 1, start))
        if (strncmp(at + len, after, strlen(after)) == 0 || at[len] == ',')
            return at + 1;
    return NULL;
}

static const char *option_line(const char *part, const char *left)
{
    return line_of(part, left, "  ");
}

/* "--dict-size SIZE", "-thin": an entry's left column in its verb's help. */
static void left_of(const mcs_option *o, char *buf, size_t cap)
{
    char name[64];
    mcs_option_display(o->name, name, sizeof name);
    snprintf(buf, cap, "%s%s%s", name, o->arg ? " " : "", o->arg ? o->arg : "");
}

static size_t count_of(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *at = strstr(text, what); at; at = strstr(at + 1, what))
        n++;
    return n;
}

/* o's help begins on its line, after its left column. */
static bool help_on_its_line(const char *line, const char *help)
{
    size_t first = strcspn(help, "\n");
    const char *end = line + strcspn(line, "\n");
    return (size_t)(end - line) >= first && strncmp(end - first, help, first) == 0;
}

static void check_verb(const mcs_switch *s)
{
    verb_help h;
    help_of(s->usage, &h);
    size_t listed = 0;
    for (const mcs_option *o = s->usage->options; o && o->name; o++) {
        char left[96], bracketed[100];
        left_of(o, left, sizeof left);
        snprintf(bracketed, sizeof bracketed, "[%s]", left);
        const char *line = option_line(h.own, left);
        bool in_synopsis = strstr(h.synopsis, bracketed) != NULL;
        if (!o->help) {
            if (!meant_hidden(s->name, o->name))
                fail_msg("-%s: option %s has no help", s->name, o->name);
            if (line || in_synopsis)
                fail_msg("-%s: hidden option %s is in its help", s->name, o->name);
            continue;
        }
        if (meant_hidden(s->name, o->name))
            fail_msg("-%s: option %s is meant hidden but has help", s->name, o->name);
        if (!line)
            fail_msg("-%s: option %s is missing from its help", s->name, o->name);
        if (!help_on_its_line(line, o->help))
            fail_msg("-%s: option %s: its help is not on its line", s->name, o->name);
        if (!in_synopsis)
            fail_msg("-%s: option %s is missing from its synopsis", s->name, o->name);
        listed++;
    }
    /* and no option written by hand beside the table: every option line is an entry's */
    if (count_of(h.own, "\n  -") != listed)
        fail_msg("-%s: %zu option lines in its help for %zu listed entries", s->name,
                 count_of(h.own, "\n  -"), listed);
    /* the options every verb takes, in every verb's help */
    const char *global, *help;
    for (size_t i = 0; (global = mcs_global_option_at(i, &help)); i++) {
        char name[64];
        mcs_option_display(global, name, sizeof name);
        if (!help != meant_hidden(NULL, global))
            fail_msg("option %s of every verb: help iff not hidden on purpose", name);
        if (!help != !line_of(h.common, name, " "))
            fail_msg("-%s: option %s of every verb is %s its help", s->name, name,
                     help ? "missing from" : "in");
    }
    assert_non_null(strstr(h.common, "\n  --force, -f  ")); /* -f, hidden, told with --force */
    free(h.text);
}

static void test_every_option_in_help(void **state)
{
    (void)state;
    size_t verbs = 0;
    for (size_t i = 0; i < mcs_switch_count; i++) {
        const mcs_switch *s = &mcs_switches[i];
        if (s->kind != MCS_SWITCH_VERB || !s->usage)
            continue;
        check_verb(s);
        verbs++;
    }
    assert_true(verbs >= 20);
}

/* An option's name as the parser matches it: without dashes, in any case. */
static bool same_name(const char *a, const char *b)
{
    return strcasecmp(a + strspn(a, "-"), b + strspn(b, "-")) == 0;
}

static void check_entries(const mcs_switch *s)
{
    for (const mcs_option *o = s->usage->options; o && o->name; o++) {
        if ((o->arg != NULL) != (o->type != MCS_OPT_FLAG))
            fail_msg("-%s: option %s: a value named in help iff it takes one", s->name, o->name);
        bool counted = o->type == MCS_OPT_COUNT || o->type == MCS_OPT_SIZE;
        if (counted ? !(o->min <= o->max && o->max > 0) : (o->min || o->max))
            fail_msg("-%s: option %s: bounds iff a count, and in order", s->name, o->name);
        if (o->help && (!*o->help || o->help[strlen(o->help) - 1] == '\n'))
            fail_msg("-%s: option %s: help lines without a newline at the end", s->name,
                     o->name);
        for (const mcs_option *other = s->usage->options; other != o; other++)
            if (same_name(other->name, o->name))
                fail_msg("-%s: option name %s twice", s->name, o->name);
        const char *help;
        for (size_t i = 0; mcs_global_option_at(i, &help); i++)
            if (same_name(mcs_global_option_at(i, &help), o->name))
                fail_msg("-%s: option %s is also an option of every verb", s->name, o->name);
    }
}

static void test_entries_whole(void **state)
{
    (void)state;
    for (size_t i = 0; i < mcs_switch_count; i++)
        if (mcs_switches[i].kind == MCS_SWITCH_VERB && mcs_switches[i].usage)
            check_entries(&mcs_switches[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_option_in_help),
        cmocka_unit_test(test_entries_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
