/*
 * replay_options.h - mcz-replay's command line: its options as one typed table
 * (replay_options.c), from which the parsing, --help (and so the man page, which help2man makes
 * from it) and the nearest option offered for an unknown word all come. An option is written
 * once, as an entry of that table, plus its field below and its use.
 *
 * Every option is read as a whole word, with one dash or two (-details, --details; superpmi's
 * spelling and GNU's), its value as the next word or after '=' (--details=d.csv). No clustering:
 * -foo is an unknown option, never -f oo. "--" ends the options; options and operands mix.
 */
#ifndef MCZ_REPLAY_OPTIONS_H
#define MCZ_REPLAY_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcz.h"
#include "tool.h"

/* --exec: bytes of contexts handed to one command start (bench/replay.sh, parallel-replay/README.md). */
#define REPLAY_EXEC_BATCH_DEFAULT (16u << 20)
#define REPLAY_EXEC_BATCH_TEXT "16M"
/* .mch input: bytes of contexts per work unit when --unit-size is not given. */
#define REPLAY_UNIT_SIZE_DEFAULT (1u << 20)

/* Words given one by one (--exec-word), in order; words[count] is NULL. */
typedef struct replay_words {
    char **words;
    size_t count;
} replay_words;

/* What the command line says. Zero is "not given" for every field but exec_batch. */
typedef struct replay_options {
    uint32_t workers; /* -j; 0: one per online core */
    const char *select;
    const char *fail_list;
    const char *details;
    const char *plugin;
    const char *plugin_arg;
    const char *exec;        /* after parsing, also the first --exec-word: "an --exec run" */
    replay_words exec_words; /* --exec-word */
    const char *repro;
    uint64_t failure_limit;
    const char *verbosity; /* superpmi's -v letters: the summary line needs 'n' */
    bool exec_original;
    const char *match_hash; /* --match-hash: superpmi's -m, read from the index */
    uint32_t interleave;    /* --order-as-parallel N; 0: by context number */
    bool exec_toc;          /* the command is superpmi: units read through an .mct (--exec-toc) */
    char **operands;        /* the words that are not options, in order */
    size_t operand_count;
    double timeout;
    uint32_t shard_k, shard_n;
    const char *results;
    bool merge;
    uint64_t unit_size; /* 0: REPLAY_UNIT_SIZE_DEFAULT (or, with --exec, what the batch makes) */
    uint64_t exec_batch;
    bool quiet, stride, stats, strict;
    const mcz_jit_ee *jit_ee; /* --jit-ee; NULL: the collection's */
} replay_options;

/* How an option's value is read, and into what. */
typedef enum replay_option_type {
    REPLAY_OPT_FLAG,    /* no value: its bool becomes true */
    REPLAY_OPT_STRING,  /* the value as given (not empty when min is 1): a const char * */
    REPLAY_OPT_OUTPUT,  /* a file written at the end, checked before any work: a const char * */
    REPLAY_OPT_COUNT,   /* a decimal count in [min, max]: a uint32_t or uint64_t */
    REPLAY_OPT_SIZE,    /* a count of bytes in [min, max], K, M or G allowed: a uint64_t */
    REPLAY_OPT_SECONDS, /* a number of seconds above 0 and below 1e7: a double */
    REPLAY_OPT_WORDS,   /* each one appended: a replay_words */
    REPLAY_OPT_SETTER,  /* the entry's set() reads the value */
    REPLAY_OPT_HELP     /* prints --help; the command line then ends with exit 0 */
} replay_option_type;

/* One option. The field is given by offset and size (REPLAY_FIELD). */
typedef struct replay_option {
    const char *name;  /* without dashes; shown as -x when one letter, else as --name */
    const char *alias; /* a second name ("quiet" for q), or NULL */
    const char *arg;   /* the value as the help calls it ("N", "FILE"); NULL: it takes none */
    replay_option_type type;
    size_t offset, size; /* the field of replay_options */
    uint64_t min, max;   /* COUNT, SIZE; STRING: min 1 refuses an empty value */
    /* SETTER: false when value is not one the option takes */
    bool (*set)(replay_options *o, const char *value);
    const char *want;   /* what a bad value is told: "NAME VALUE: want" */
    const char *others; /* other programs' words for it (superpmi's, make's), blank-separated,
                           for the nearest option: too far from its name for an edit distance */
    const char *help;   /* the help's lines ('\n' between them) */
    bool hidden;        /* not in --help (the entry says why) */
} replay_option;

/* The table, in --help's order. */
const replay_option *replay_option_at(size_t i);
size_t replay_option_count(void);

/* "-j" or "--details": how messages and the help write the option's name. */
const char *replay_option_dashes(const char *name);

/* The whole of --help, malloc'ed (NULL: out of memory). */
char *replay_options_help(void);

/* What an unknown option name (without its dashes) most likely meant, as "-f FILE" or
 * "--details", into buf; NULL when nothing is near enough. */
const char *replay_options_nearest(const char *name, char *buf, size_t cap);

/* Reads argv into *o (which it zeroes first): the options, the operands, and the rules between
 * options. Returns -1 to go on, or the exit code: 0 after --help, 255 after a usage error (said
 * on stderr). o->operands and o->exec_words.words are owned by *o (replay_options_free) however
 * it returns. */
int replay_options_parse(int argc, char **argv, replay_options *o);
void replay_options_free(replay_options *o);

/* Calls check(display name, path) for each output option given (REPLAY_OPT_OUTPUT), in table
 * order, until one returns a value other than -1, which is returned; -1 when all did. */
int replay_options_each_output(const replay_options *o,
                               int (*check)(const char *option, const char *path));

/* "mcz-replay: MESSAGE" on stderr (and, for a usage error, where to find the usage); both
 * return superpmi's code for a general failure. */
int replay_fail(const char *fmt, ...) TOOL_PRINTF(1, 2);
int replay_fail_usage(const char *fmt, ...) TOOL_PRINTF(1, 2);

#endif /* MCZ_REPLAY_OPTIONS_H */
