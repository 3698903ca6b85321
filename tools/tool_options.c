/*
 * tool_options.c - a program's options table read (tool_options.h): parsing, --help, the
 * nearest option.
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_options.h"

const tool_option *tool_option_at(const tool_options_def *def, size_t i)
{
    return i < def->count ? &def->options[i] : NULL;
}

const char *tool_option_dashes(const char *name)
{
    return strlen(name) == 1 ? "-" : "--";
}

int tool_options_vusage_error(const tool_options_def *def, const char *fmt, va_list ap)
{
    tool_verror(fmt, ap);
    fprintf(stderr, "%s\n", def->usage_hint);
    return def->usage_exit;
}

int tool_options_usage_error(const tool_options_def *def, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = tool_options_vusage_error(def, fmt, ap);
    va_end(ap);
    return code;
}

static int out_of_memory(const tool_options_def *def)
{
    tool_error("out of memory");
    return def->fail_exit;
}

/* ---- --help ----------------------------------------------------------------------------------- */

/* The options' column: names from the third, their text from the twenty-second (or two blanks
 * after a longer left column). */
#define HELP_INDENT 2
#define HELP_TEXT_COLUMN 21

/* A growing text; failed once an allocation failed (the text is then dropped). */
typedef struct help_text {
    char *buf;
    size_t len, cap;
    bool failed;
} help_text;

static void add(help_text *t, const char *fmt, ...) TOOL_PRINTF(2, 3);

static void add(help_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->failed || n < 0) {
        t->failed = true;
        return;
    }
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = (t->len + (size_t)n + 1) * 2;
        char *grown = realloc(t->buf, cap);
        if (!grown) {
            t->failed = true;
            return;
        }
        t->buf = grown;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* "-j N", "-q, --quiet", "--details FILE". */
static void option_left(const tool_option *opt, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s%s", tool_option_dashes(opt->name), opt->name);
    if (opt->alias && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, ", %s%s", tool_option_dashes(opt->alias),
                      opt->alias);
    if (opt->arg && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " %s", opt->arg);
}

static void add_option(help_text *t, const tool_option *opt)
{
    char left[64];
    option_left(opt, left, sizeof left);
    add(t, "%*s%-*s  ", HELP_INDENT, "", HELP_TEXT_COLUMN - HELP_INDENT - 2, left);
    for (const char *line = opt->help; *line;) {
        size_t len = strcspn(line, "\n");
        add(t, "%.*s\n", (int)len, line);
        line += len;
        if (*line == '\n' && *++line)
            add(t, "%*s", HELP_TEXT_COLUMN, "");
    }
}

char *tool_options_help(const tool_options_def *def)
{
    help_text t = {NULL, 0, 0, false};
    add(&t, "%s", def->help_head);
    for (size_t i = 0; i < def->count; i++) {
        assert(def->options[i].help); /* every option says what it does, hidden or not */
        if (!def->options[i].hidden)
            add_option(&t, &def->options[i]);
    }
    if (def->help_tail)
        add(&t, "%s", def->help_tail);
    if (t.failed) {
        free(t.buf);
        return NULL;
    }
    return t.buf;
}

static int print_help(const tool_options_def *def)
{
    char *text = tool_options_help(def);
    if (!text)
        return out_of_memory(def);
    fputs(text, stdout);
    free(text);
    return 0;
}

/* ---- The nearest option ----------------------------------------------------------------------- */

/* Whether word is one of the blank-separated words of list, compared without case. */
static bool listed(const char *list, const char *word)
{
    size_t len = strlen(word);
    for (const char *w = list; w && *w; w += strspn(w, " ")) {
        size_t n = strcspn(w, " ");
        if (n == len && tool_strncasecmp(w, word, n) == 0)
            return true;
        w += n;
    }
    return false;
}

/* How far name is from candidate; SIZE_MAX when too far to be meant. */
static size_t distance_to(const char *name, const char *candidate)
{
    size_t d = tool_edit_distance(name, strlen(name), candidate);
    return d < strlen(candidate) + (strlen(name) > 2) ? d : SIZE_MAX;
}

const char *tool_options_nearest(const tool_options_def *def, const char *name, char *buf,
                                 size_t cap)
{
    for (size_t i = 0; i < def->count; i++) {
        const tool_option *opt = &def->options[i];
        if (listed(opt->others, name)) {
            snprintf(buf, cap, "%s%s%s%s", tool_option_dashes(opt->name), opt->name,
                     opt->arg ? " " : "", opt->arg ? opt->arg : "");
            return buf;
        }
    }
    const char *best = NULL;
    size_t best_d = 3;
    for (size_t i = 0; i < def->count; i++) {
        const char *names[] = {def->options[i].name, def->options[i].alias};
        for (size_t k = 0; k < 2; k++) {
            size_t d = names[k] ? distance_to(name, names[k]) : SIZE_MAX;
            if (d < best_d) {
                best = names[k];
                best_d = d;
            }
        }
    }
    if (!best)
        return NULL;
    snprintf(buf, cap, "%s%s", tool_option_dashes(best), best);
    return buf;
}

static int unknown_option(const tool_options_def *def, const char *word, const char *name)
{
    char near[64];
    if (tool_options_nearest(def, name, near, sizeof near))
        return tool_options_usage_error(def, "unknown option '%s'; did you mean %s?", word, near);
    return tool_options_usage_error(def, "unknown option '%s'", word);
}

/* ---- Parsing ---------------------------------------------------------------------------------- */

static void *field_of(void *options, const tool_option *opt)
{
    return (char *)options + opt->offset;
}

/* A bad value of opt: "NAME VALUE: want" (an empty one said as such). */
static int refuse(const tool_options_def *def, const tool_option *opt, const char *value)
{
    const char *dashes = tool_option_dashes(opt->name);
    if (opt->type == TOOL_OPT_JIT_EE)
        return tool_options_usage_error(def, "%s%s %s: not a JIT-EE version or GUID mcz knows "
                                        "(mcs -printJITEEVersion --list lists them)",
                                        dashes, opt->name, value);
    if (!*value)
        return tool_options_usage_error(def, "%s%s: empty value; %s", dashes, opt->name,
                                        opt->want);
    return tool_options_usage_error(def, "%s%s %s: %s", dashes, opt->name, value, opt->want);
}

static bool set_count(void *options, const tool_option *opt, const char *value)
{
    uint64_t v;
    if (tool_parse_count(value, opt->type == TOOL_OPT_SIZE, opt->min, opt->max, &v) != MCZ_OK)
        return false;
    assert(opt->size == sizeof(uint64_t) || (opt->size == sizeof(uint32_t) &&
                                             opt->max <= UINT32_MAX));
    if (opt->size == sizeof(uint32_t)) {
        uint32_t narrow = (uint32_t)v;
        memcpy(field_of(options, opt), &narrow, sizeof narrow);
    } else {
        memcpy(field_of(options, opt), &v, sizeof v);
    }
    return true;
}

static bool set_seconds(void *options, const tool_option *opt, const char *value)
{
    char *end;
    errno = 0;
    double seconds = strtod(value, &end);
    if (*end || errno || !(seconds > 0 && seconds < 1e7))
        return false;
    assert(opt->size == sizeof seconds);
    memcpy(field_of(options, opt), &seconds, sizeof seconds);
    return true;
}

/* Returns -1 to go on, or the exit code. */
static int add_word(const tool_options_def *def, void *options, const tool_option *opt,
                    char *word)
{
    tool_words *list = field_of(options, opt);
    char **grown = realloc(list->words, (list->count + 2) * sizeof *grown);
    if (!grown)
        return out_of_memory(def);
    grown[list->count++] = word;
    grown[list->count] = NULL;
    list->words = grown;
    return -1;
}

/* Stores value as opt says. Returns -1 to go on, or the exit code. */
static int apply(const tool_options_def *def, void *options, const tool_option *opt,
                 char *value)
{
    bool good = true;
    switch (opt->type) {
    case TOOL_OPT_FLAG:
        assert(opt->size == sizeof(bool));
        *(bool *)field_of(options, opt) = true;
        break;
    case TOOL_OPT_STRING:
    case TOOL_OPT_OUTPUT:
        assert(opt->size == sizeof(const char *));
        good = strlen(value) >= opt->min;
        if (good)
            *(const char **)field_of(options, opt) = value;
        break;
    case TOOL_OPT_COUNT:
    case TOOL_OPT_SIZE: good = set_count(options, opt, value); break;
    case TOOL_OPT_SECONDS: good = set_seconds(options, opt, value); break;
    case TOOL_OPT_WORDS: return add_word(def, options, opt, value);
    case TOOL_OPT_JIT_EE: {
        const mcz_jit_ee *v = mcz_jit_ee_find(value);
        assert(opt->size == sizeof v);
        memcpy(field_of(options, opt), &v, sizeof v);
        good = v != NULL;
        break;
    }
    case TOOL_OPT_SETTER: good = opt->set(options, value); break;
    case TOOL_OPT_HELP: return print_help(def);
    case TOOL_OPT_VERSION: tool_print_version(); return 0;
    }
    return good ? -1 : refuse(def, opt, value);
}

static const tool_option *option_named(const tool_options_def *def, const char *name)
{
    for (size_t i = 0; i < def->count; i++) {
        const tool_option *opt = &def->options[i];
        if (strcmp(opt->name, name) == 0 || (opt->alias && strcmp(opt->alias, name) == 0))
            return opt;
    }
    return NULL;
}

/* One option word at argv[*i] (and its value); returns -1 to go on, or the exit code. */
static int parse_word(const tool_options_def *def, int argc, char **argv, int *i,
                      void *options)
{
    char *word = argv[*i];
    char name[64];
    const char *body = word + 1 + (word[1] == '-');
    const char *eq = strchr(body, '=');
    size_t len = eq ? (size_t)(eq - body) : strlen(body);
    if (len >= sizeof name)
        return unknown_option(def, word, "");
    memcpy(name, body, len);
    name[len] = '\0';
    const tool_option *opt = option_named(def, name);
    if (!opt)
        return unknown_option(def, word, name);
    char *value = ""; /* apply's value is never NULL; options without a value ignore it */
    if (opt->arg && eq)
        value = word + (eq + 1 - word);
    else if (opt->arg && *i + 1 < argc)
        value = argv[++*i];
    else if (opt->arg)
        return tool_options_usage_error(def, "%s wants a value", word);
    else if (eq)
        return tool_options_usage_error(def, "%s%s takes no value", tool_option_dashes(name),
                                        name);
    return apply(def, options, opt, value);
}

int tool_options_parse(const tool_options_def *def, int argc, char **argv, void *options,
                       char **operands, size_t *operand_count)
{
    bool options_end = false;
    *operand_count = 0;
    for (int i = 1; i < argc; i++) {
        char *w = argv[i];
        if (!options_end && strcmp(w, "--") == 0) {
            options_end = true;
            continue;
        }
        if (options_end || w[0] != '-' || !w[1]) {
            operands[(*operand_count)++] = w;
            continue;
        }
        int rc = parse_word(def, argc, argv, &i, options);
        if (rc >= 0)
            return rc;
    }
    return -1;
}

int tool_options_each_output(const tool_options_def *def, const void *options,
                             int (*check)(const char *option, const char *path))
{
    for (size_t i = 0; i < def->count; i++) {
        const tool_option *opt = &def->options[i];
        if (opt->type != TOOL_OPT_OUTPUT)
            continue;
        const char *path;
        memcpy(&path, (const char *)options + opt->offset, sizeof path);
        char shown[64];
        snprintf(shown, sizeof shown, "%s%s", tool_option_dashes(opt->name), opt->name);
        int code = path ? check(shown, path) : -1;
        if (code >= 0)
            return code;
    }
    return -1;
}
