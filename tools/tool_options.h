/*
 * tool_options.h - a program's options as one typed table, and everything made from it: the
 * parsing of a command line, --help (and so the man page, which help2man makes from it) and
 * the nearest option offered for an unknown word (tool_options.c). A program writes an option
 * once, as an entry of its table, plus the field the entry names and its use; mcz-replay and
 * mchgen read their command lines so. (mcs has verbs, each with a table of its own options and
 * SuperPMI's switch prefixes: mcs/mcs_options.c; mcz-superpmi reads superpmi's grammar.)
 *
 * Every option is read as a whole word, with one dash or two (-details, --details; superpmi's
 * spelling and GNU's), its value as the next word or after '=' (--details=d.csv). No clustering:
 * -foo is an unknown option, never -f oo. "--" ends the options; options and operands mix.
 */
#ifndef MCZ_TOOL_OPTIONS_H
#define MCZ_TOOL_OPTIONS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tool.h"

/* Words given one by one (a WORDS option given again and again), in order; words[count] is
 * NULL. */
typedef struct tool_words {
    char **words;
    size_t count;
} tool_words;

/* How an option's value is read, and into what. */
typedef enum tool_option_type {
    TOOL_OPT_FLAG,    /* no value: its bool becomes true */
    TOOL_OPT_STRING,  /* the value as given (not empty when min is 1): a const char * */
    TOOL_OPT_OUTPUT,  /* a file written at the end, checked before any work: a const char * */
    TOOL_OPT_COUNT,   /* a decimal count in [min, max]: a uint32_t or uint64_t */
    TOOL_OPT_SIZE,    /* a count of bytes in [min, max], K, M or G allowed: a uint64_t */
    TOOL_OPT_SECONDS, /* a number of seconds above 0 and below 1e7: a double */
    TOOL_OPT_WORDS,   /* each one appended: a tool_words */
    TOOL_OPT_JIT_EE,  /* a JIT-EE version mcz knows, by name or GUID: a const mcz_jit_ee * */
    TOOL_OPT_SETTER,  /* the entry's set() reads the value */
    TOOL_OPT_HELP,    /* prints --help; the command line then ends with exit 0 */
    TOOL_OPT_VERSION  /* prints the version; the command line then ends with exit 0 */
} tool_option_type;

/* One option. The field is given by offset and size (TOOL_FIELD) in the program's options
 * struct, which the parser is handed as a void *. */
typedef struct tool_option {
    const char *name;  /* without dashes; shown as -x when one letter, else as --name */
    const char *alias; /* a second name ("quiet" for q), or NULL */
    const char *arg;   /* the value as the help calls it ("N", "FILE"); NULL: it takes none */
    tool_option_type type;
    size_t offset, size; /* the field */
    uint64_t min, max;   /* COUNT, SIZE; STRING: min 1 refuses an empty value */
    /* SETTER: false when value is not one the option takes */
    bool (*set)(void *options, const char *value);
    const char *want;   /* what a bad value is told: "NAME VALUE: want" (JIT_EE: NULL, said) */
    const char *others; /* other programs' words for it (superpmi's, make's), blank-separated,
                           for the nearest option: too far from its name for an edit distance */
    const char *help;   /* the help's lines ('\n' between them) */
    bool hidden;        /* not in --help (the entry says why) */
} tool_option;

/* An entry's type and field, for a program's options struct T. */
#define TOOL_FIELD(T, f) .offset = offsetof(T, f), .size = sizeof(((T *)0)->f)
#define TOOL_FLAG(T, f) .type = TOOL_OPT_FLAG, TOOL_FIELD(T, f)
#define TOOL_STRING(T, f) .type = TOOL_OPT_STRING, TOOL_FIELD(T, f)
#define TOOL_OUTPUT(T, f) .type = TOOL_OPT_OUTPUT, TOOL_FIELD(T, f)
#define TOOL_COUNT(T, f, lo, hi) .type = TOOL_OPT_COUNT, TOOL_FIELD(T, f), .min = (lo), .max = (hi)
#define TOOL_SIZE(T, f, lo, hi) .type = TOOL_OPT_SIZE, TOOL_FIELD(T, f), .min = (lo), .max = (hi)
#define TOOL_JIT_EE(T, f) .type = TOOL_OPT_JIT_EE, TOOL_FIELD(T, f)
#define TOOL_SETTER(fn) .type = TOOL_OPT_SETTER, .set = (fn)

/* A program's command line: its table and the text around it. */
typedef struct tool_options_def {
    const tool_option *options; /* in --help's order */
    size_t count;
    const char *help_head; /* --help up to the options ("Usage: ..." to "options:\n") */
    const char *help_tail; /* --help after them (may be NULL) */
    int usage_exit;        /* the exit code of a usage error */
    int fail_exit;         /* of a failure (out of memory, stdout not written) */
    const char *usage_hint; /* the line after a usage error's ("(P --help for usage)") */
} tool_options_def;

/* The entry at i, or NULL past the end. */
const tool_option *tool_option_at(const tool_options_def *def, size_t i);
/* "-j" or "--details": how messages and the help write an option's name. */
const char *tool_option_dashes(const char *name);
/* The whole of --help, malloc'ed (NULL: out of memory). */
char *tool_options_help(const tool_options_def *def);
/* What an unknown option name (without its dashes) most likely meant, as "-f FILE" or
 * "--details", into buf; NULL when nothing is near enough. */
const char *tool_options_nearest(const tool_options_def *def, const char *name, char *buf,
                                 size_t cap);
/* Says a usage error (the program's name, the message, the hint line): def->usage_exit. */
int tool_options_usage_error(const tool_options_def *def, const char *fmt, ...) TOOL_PRINTF(2, 3);
int tool_options_vusage_error(const tool_options_def *def, const char *fmt, va_list ap)
    TOOL_PRINTF(2, 0);
/* Reads argv's options into *options (not zeroed: defaults set before stay unless given) and
 * its other words into operands[] (argc + 1 entries: the caller's), counted in
 * *operand_count. Returns -1 to go on, or the exit code: 0 after --help or --version,
 * def->usage_exit after a usage error (said on stderr), def->fail_exit out of memory. A WORDS
 * field's list is the caller's to free however it returns. */
int tool_options_parse(const tool_options_def *def, int argc, char **argv, void *options,
                       char **operands, size_t *operand_count);
/* Calls check("--name", path) for each OUTPUT option given, in the table's order, until one
 * returns an exit code (>= 0), which is returned; -1 when none did. */
int tool_options_each_output(const tool_options_def *def, const void *options,
                             int (*check)(const char *option, const char *path));

#endif /* MCZ_TOOL_OPTIONS_H */
