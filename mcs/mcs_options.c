/*
 * mcs_options.c - one option syntax for every verb: a verb's own options (its mcs_option table),
 * the options every verb takes (the table below), how an argument is matched against them, and
 * the nearest known option when it matches none.
 *
 * An option is written with one or two dashes, its value after '=' or as the next argument:
 * -level 3, --level 3, --level=3 and -LEVEL=3 are one option. An argument is first matched
 * whole against the verb's options and then the options every verb takes; only a single-dash
 * argument that matches none of them whole is read as SuperPMI's mcs reads it, as a prefix of a
 * switch in SuperPMI's order (-th is -thin, -rec is -recursive). So the whole name of an option
 * always means that option (-j is -convert's thread count, not an abbreviation of -jitflags),
 * and two dashes never abbreviate. "--" ends the options: what follows is positional.
 */
#include <assert.h>
#include <string.h>

#include "mcs_switches.h"
#include "mcs_util.h"

/* ============================================================================================ */
/* The options every verb takes                                                                 */
/* ============================================================================================ */

/* The versions --jit-ee takes, for its error message: "B, C". */
static void jit_ee_names(char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < mcz_jit_ee_count() && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "",
                                mcz_jit_ee_name(mcz_jit_ee_at(i)));
}

static int apply_jit_ee(mcs_run *run, const mcs_usage *u, const char *value)
{
    const mcz_jit_ee *v = mcz_jit_ee_find(value);
    if (!v) {
        char names[256];
        jit_ee_names(names, sizeof names);
        mcs_usage_error(u, "--jit-ee: '%s' is not a JIT-EE version or GUID mcz knows (%s; mcs "
                           "-printJITEEVersion --list lists them)", value, names);
        return -1;
    }
    run->forced_jit_ee = v;
    return 0;
}

static int apply_verbosity(mcs_run *run, const mcs_usage *u, const char *value)
{
    (void)run; /* the levels are the messages' own (tool_set_levels) */
    if (mcs_set_verbosity(value))
        return 0;
    mcs_usage_error(u, "-verbosity: unknown letters in '%s' (e w n a q)", value);
    return -1;
}

static int apply_log(mcs_run *run, const mcs_usage *u, const char *value)
{
    (void)run, (void)value;
    mcs_usage_error(u, "-writeLogFile is not implemented yet");
    return -1;
}

static int apply_force(mcs_run *run, const mcs_usage *u, const char *value)
{
    (void)u, (void)value;
    run->output_forced = true;
    return 0;
}

/* An option every verb takes: its parsing, its help and the names did-you-mean offers come from
 * this one entry. */
typedef struct global_option {
    const char *name; /* as mcs_option's */
    const char *arg;  /* its value as the help names it ("CHARS"); NULL: it takes none */
    int (*apply)(mcs_run *run, const mcs_usage *u, const char *value); /* 0, or -1: usage error */
    const char *shown; /* the help's left column when not "NAME ARG" */
    const char *help;  /* its lines; NULL: not listed (said with another, or not implemented) */
} global_option;

/* -f is --force after a verb (a whole name wins); before one it is SuperPMI's -fracture. */
static const global_option globals[] = {
    {"verbosity", "CHARS", apply_verbosity, NULL,
     "messages to show: e errors, w warnings, n info, a all,\n"
     "q quiet (default: all)"},
    {"writeLogFile", "FILE", apply_log, NULL, NULL},
    {"--jit-ee", "VERSION|GUID", apply_jit_ee, NULL,
     "read every input as that JIT-EE version instead of the\n"
     "one it records or its packets show (mcs -printJITEEVersion\n"
     "--list lists them)"},
    {"--force", NULL, apply_force, "--force, -f",
     "write binary output (an MCH file, an archive) to standard\n"
     "output even when it is a terminal; write an archive under an\n"
     ".mch name (for superpmi.py and mcz-superpmi)"},
    {"-f", NULL, apply_force, NULL, NULL},
};

#define GLOBAL_COUNT (sizeof globals / sizeof globals[0])

/* The help's columns: options from the third, their text from the twenty-third. */
#define HELP_INDENT 2
#define HELP_TEXT_COLUMN 22

/* One option's help: its left column, then its lines, the text aligned. */
static void print_option_help(FILE *f, const char *left, const char *help)
{
    int width = HELP_TEXT_COLUMN - HELP_INDENT - 2;
    fprintf(f, "%*s%-*s  ", HELP_INDENT, "", width, left);
    for (const char *line = help; *line;) {
        size_t len = strcspn(line, "\n");
        fprintf(f, "%.*s\n", (int)len, line);
        line += len;
        if (*line == '\n' && *++line)
            fprintf(f, "%*s", HELP_TEXT_COLUMN, "");
    }
}

void mcs_print_common_help(FILE *f)
{
    for (size_t i = 0; i < GLOBAL_COUNT; i++) {
        const global_option *g = &globals[i];
        if (!g->help)
            continue;
        char left[64];
        if (g->shown)
            snprintf(left, sizeof left, "%s", g->shown);
        else
            snprintf(left, sizeof left, "%s%s %s", g->name[0] == '-' ? "" : "-", g->name, g->arg);
        print_option_help(f, left, g->help);
    }
}

/* The synopsis lines' width, past which an option goes on the next line. */
#define SYNOPSIS_WIDTH 96

/* "--dict-size SIZE", "-thin": an option's left column in the help and its synopsis. */
static void option_left(const mcs_option *o, char *buf, size_t cap)
{
    char name[64];
    mcs_option_display(o->name, name, sizeof name);
    snprintf(buf, cap, "%s%s%s", name, o->arg ? " " : "", o->arg ? o->arg : "");
}

/* "usage: mcs " and the synopsis, then " [OPTION ARG]" for each option the help lists, a line
 * going on under the synopsis' first operand once it is full. */
static void print_synopsis(FILE *f, const mcs_usage *u)
{
    int column = fprintf(f, "usage: mcs %s", u->synopsis);
    const char *last_line = strrchr(u->synopsis, '\n');
    if (last_line)
        column = (int)strlen(last_line + 1);
    int indent = (int)strlen("usage: mcs ") + (int)strcspn(u->synopsis, " \n") + 1;
    for (const mcs_option *o = u->options; o && o->name; o++) {
        if (!o->help)
            continue;
        char left[80];
        option_left(o, left, sizeof left);
        if (column + 3 + (int)strlen(left) > SYNOPSIS_WIDTH)
            column = fprintf(f, "\n%*s", indent, "") - 1;
        column += fprintf(f, " [%s]", left);
    }
    fputc('\n', f);
}

void mcs_print_usage(FILE *f, const mcs_usage *u)
{
    print_synopsis(f, u);
    fprintf(f, "  %s\n", u->summary);
    if (u->details || mcs_usage_lists_options(u))
        fputc('\n', f);
    if (u->details)
        fputs(u->details, f);
    for (const mcs_option *o = u->options; o && o->name; o++) {
        char left[80];
        option_left(o, left, sizeof left);
        if (o->help)
            print_option_help(f, left, o->help);
    }
    fprintf(f, "\nOptions of every verb (one dash or two, the value after '=' or next):\n");
    mcs_print_common_help(f);
}


const char *mcs_global_option_at(size_t i, const char **help)
{
    if (i >= GLOBAL_COUNT)
        return NULL;
    *help = globals[i].help;
    return globals[i].name;
}

int mcs_apply_global(mcs_run *run, const mcs_usage *u, const char *canonical, const char *value)
{
    for (size_t i = 0; i < GLOBAL_COUNT; i++)
        if (strcmp(globals[i].name, canonical) == 0)
            return globals[i].apply(run, u, value);
    return -1;
}

/* ============================================================================================ */
/* Matching                                                                                     */
/* ============================================================================================ */

/* An argument split into its dashes, its name and the value after '=' (NULL: none). */
typedef struct typed_option {
    const char *text;
    const char *name;
    size_t len;
    bool two_dashes;
    const char *value;
} typed_option;

static typed_option typed_split(const char *arg)
{
    typed_option t = {arg, arg + 1, 0, arg[1] == '-', NULL};
    t.name += t.two_dashes;
    const char *eq = strchr(t.name, '=');
    t.len = eq ? (size_t)(eq - t.name) : strlen(t.name);
    t.value = eq ? eq + 1 : NULL;
    return t;
}

/* An option's name without its dashes ("--level" -> "level", "thin" -> "thin"). */
static const char *bare(const char *name)
{
    return name + strspn(name, "-");
}

static bool is_whole(const char *name, const typed_option *t)
{
    const char *n = bare(name);
    return strlen(n) == t->len && tool_strncasecmp(n, t->name, t->len) == 0;
}

/* mcs_switches.h: the first switch in SuperPMI's order that arg names. */
const mcs_switch *mcs_switch_find(const mcs_run *run, const char *arg)
{
    if (arg[0] != '-')
        return NULL;
    bool two_dashes = arg[1] == '-';
    const char *text = arg + 1 + two_dashes;
    size_t len = strcspn(text, "=");
    for (size_t i = 0; i < run->switch_count; i++) {
        const mcs_switch *s = &run->switches[i];
        size_t name_len = strlen(s->name);
        if ((two_dashes ? len == name_len : len <= name_len) &&
            tool_strncasecmp(text, s->name, len) == 0)
            return s;
    }
    return NULL;
}

/* The SuperPMI switch a single-dash t abbreviates (the run's switch table), or NULL. */
static const char *superpmi_name(const mcs_run *run, const typed_option *t)
{
    char buf[64];
    if (t->two_dashes || t->len == 0 || t->len + 2 > sizeof buf)
        return NULL;
    snprintf(buf, sizeof buf, "-%.*s", (int)t->len, t->name);
    const mcs_switch *s = mcs_switch_find(run, buf);
    return s ? s->name : NULL;
}

/* What an argument matched: one of the verb's options, or one every verb takes. */
/* What an option matched: exactly one of the two is set once option_find found it. */
typedef struct option_match {
    const mcs_option *own;
    const global_option *global;
} option_match;

static bool option_takes_value(const option_match *m)
{
    if (m->global)
        return m->global->arg != NULL;
    assert(m->own);
    return m->own->type != MCS_OPT_FLAG;
}

static bool match_name(const mcs_option *opts, bool (*same)(const char *, const void *),
                       const void *key, option_match *m)
{
    for (const mcs_option *o = opts; o && o->name; o++)
        if (same(o->name, key)) {
            m->own = o;
            return true;
        }
    for (size_t i = 0; i < GLOBAL_COUNT; i++)
        if (same(globals[i].name, key)) {
            m->global = &globals[i];
            return true;
        }
    return false;
}

static bool same_whole(const char *name, const void *key)
{
    return is_whole(name, key);
}

/* A SuperPMI switch in a table is named without dashes; key is its canonical name. */
static bool same_superpmi(const char *name, const void *key)
{
    return name[0] != '-' && strcmp(name, key) == 0;
}

static bool option_find(const mcs_run *run, const mcs_option *opts, const typed_option *t,
                        option_match *m)
{
    memset(m, 0, sizeof *m);
    if (match_name(opts, same_whole, t, m))
        return true;
    const char *canonical = superpmi_name(run, t);
    return canonical && match_name(opts, same_superpmi, canonical, m);
}

/* ============================================================================================ */
/* The nearest known name                                                                       */
/* ============================================================================================ */

void mcs_nearest_offer(mcs_nearest *n, const char *candidate)
{
    const char *b = bare(candidate);
    size_t blen = strlen(b);
    size_t d = tool_edit_distance(n->typed, n->len, b);
    /* A beginning of a longer name (--chunk for --chunk-size) counts as near. */
    if (n->len >= 3 && n->len < blen && tool_strncasecmp(n->typed, b, n->len) == 0)
        d = 1;
    if (d > 2 || d * 2 >= blen || d >= n->distance)
        return;
    n->distance = d;
    n->best = candidate;
}

void mcs_nearest_init(mcs_nearest *n, const char *arg)
{
    typed_option t = typed_split(arg);
    n->typed = t.name;
    n->len = t.len;
    n->distance = SIZE_MAX;
    n->best = NULL;
}

/* How a table name is written in a message: "--level", "-j", "-thin". */
void mcs_option_display(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s", name[0] == '-' ? "" : "-", name);
}

static int unknown_option(const mcs_usage *u, const mcs_option *opts, const char *arg)
{
    mcs_nearest n;
    mcs_nearest_init(&n, arg);
    for (const mcs_option *o = opts; o && o->name; o++)
        mcs_nearest_offer(&n, o->name);
    for (size_t i = 0; i < GLOBAL_COUNT; i++)
        mcs_nearest_offer(&n, globals[i].name);
    if (!n.best)
        return mcs_usage_error(u, "unknown option '%s'", arg);
    char shown[64];
    mcs_option_display(n.best, shown, sizeof shown);
    return mcs_usage_error(u, "unknown option '%s'; did you mean %s?", arg, shown);
}

/* ============================================================================================ */
/* A verb's arguments                                                                           */
/* ============================================================================================ */

/* "-5" or "--3,7": a range list (SuperPMI reads one after its verb whatever it starts with),
 * never an option. */
static bool is_dashed_range(const char *arg)
{
    return arg[strspn(arg, "0123456789,-")] == '\0' && strpbrk(arg, "0123456789");
}

static bool is_positional(const char *arg)
{
    return arg[0] != '-' || arg[1] == '\0' || is_dashed_range(arg);
}

/* o's value into its field of args. 0, or -1 after a usage error. */
static int store(const mcs_usage *u, const mcs_option *o, const char *value, void *args)
{
    assert(args);
    char *field = (char *)args + o->offset;
    switch (o->type) {
    case MCS_OPT_FLAG: {
        bool given = true;
        memcpy(field, &given, sizeof given);
        return 0;
    }
    case MCS_OPT_VALUE:
        memcpy(field, &value, sizeof value);
        return 0;
    case MCS_OPT_COUNT:
    case MCS_OPT_SIZE: {
        char name[64];
        uint64_t n;
        mcs_option_display(o->name, name, sizeof name);
        if (mcs_parse_number(u, name, value, o->type == MCS_OPT_SIZE, o->min, o->max, &n) != 0)
            return -1;
        memcpy(field, &n, sizeof n);
        return 0;
    }
    }
    return -1;
}

/* Applies the option at argv[*i] (advancing past a separate value) into args. 0, or -1 after a
 * usage error. */
static int take_option(mcs_run *run, int argc, char **argv, int *i, const mcs_usage *u,
                       void *args)
{
    const mcs_option *opts = u->options;
    typed_option t = typed_split(argv[*i]);
    option_match m;
    if (!option_find(run, opts, &t, &m))
        return unknown_option(u, opts, argv[*i]), -1;
    bool takes_value = option_takes_value(&m);
    const char *value = t.value;
    if (!takes_value && value)
        return mcs_usage_error(u, "%.*s takes no value", (int)(value - 1 - t.text), t.text), -1;
    if (takes_value && !value) {
        if (*i + 1 == argc)
            return mcs_usage_error(u, "%s needs a value", t.text), -1;
        value = argv[++*i];
    }
    if (m.global)
        return m.global->apply(run, u, value);
    return store(u, m.own, value, args);
}

int mcs_parse_args(mcs_run *run, int argc, char **argv, const mcs_usage *u, void *args,
                   const char **pos, int min_pos, int max_pos)
{
    int count = 0;
    bool options_end = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!options_end && strcmp(arg, "--") == 0) { /* then a file may begin with '-' */
            options_end = true;
            continue;
        }
        if (!options_end && !is_positional(arg)) {
            if (take_option(run, argc, argv, &i, u, args) != 0)
                return -1;
            continue;
        }
        if (count == max_pos) {
            mcs_usage_error(u, "unexpected argument '%s'", arg);
            return -1;
        }
        pos[count++] = arg;
    }
    if (count < min_pos) {
        mcs_usage_error(u, "missing arguments");
        return -1;
    }
    return count;
}
