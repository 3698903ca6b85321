/*
 * replay_options.h - mcz-replay's command line: its options as one typed table
 * (replay_options.c, read by tools/tool_options.c), from which the parsing, --help (and so the
 * man page, which help2man makes from it) and the nearest option offered for an unknown word
 * all come. An option is written once, as an entry of that table, plus its field below and its
 * use. How words are read: tools/tool_options.h.
 */
#ifndef MCZ_REPLAY_OPTIONS_H
#define MCZ_REPLAY_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcz.h"
#include "tool.h"
#include "tool_options.h"

/* --exec: bytes of contexts handed to one command start (bench/replay.sh, parallel-replay/README.md). */
#define REPLAY_EXEC_BATCH_DEFAULT (16u << 20)
#define REPLAY_EXEC_BATCH_TEXT "16M"
/* .mch input: bytes of contexts per work unit when --unit-size is not given. */
#define REPLAY_UNIT_SIZE_DEFAULT (1u << 20)

/* What the command line says. Zero is "not given" for every field but exec_batch. */
typedef struct replay_options {
    uint32_t workers; /* -j; 0: one per online core */
    const char *select;
    const char *fail_list;
    const char *details;
    const char *plugin;
    const char *plugin_arg;
    const char *exec;        /* after parsing, also the first --exec-word: "an --exec run" */
    tool_words exec_words;  /* --exec-word */
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

/* The table and the text around it (tools/tool_options.h). */
extern const tool_options_def replay_options_def;

/* Reads argv into *o (which it zeroes first): the options, the operands, and the rules between
 * options. Returns -1 to go on, or the exit code: 0 after --help, 255 after a usage error (said
 * on stderr). o->operands and o->exec_words.words are owned by *o (replay_options_free) however
 * it returns. */
int replay_options_parse(int argc, char **argv, replay_options *o);
void replay_options_free(replay_options *o);

/* "mcz-replay: MESSAGE" on stderr (and, for a usage error, where to find the usage); both
 * return superpmi's code for a general failure. */
int replay_fail(const char *fmt, ...) TOOL_PRINTF(1, 2);
int replay_fail_usage(const char *fmt, ...) TOOL_PRINTF(1, 2);

#endif /* MCZ_REPLAY_OPTIONS_H */
