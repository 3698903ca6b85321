/*
 * tool_spmi.h - superpmi's command line as superpmi itself reads it, for the programs that take
 * or build one (mcz-replay's --exec words, mcz-superpmi).
 *
 * superpmi (dotnet/runtime src/coreclr/tools/superpmi/superpmi/commandline.cpp; read at
 * filipnavara/runtime c659a8bb48140ce161dd3890fd2aa4d06f2fbfac) takes a word starting with '-' as
 * a switch and tries the names below in this order, the first that matches winning: any
 * case-insensitive prefix of the name (so -a is -applyDiff, -f -failingMCList, -d -details, -s
 * -streaming, a lone '-' -help), except a few that compare a fixed number of characters (-target,
 * -boe, -boa, -box, -ignoreStoredConfig) or the whole word (-skipCleanup, -repeatCount). A word
 * that matches none is "Unknown switch". Words after a switch that takes a value are that value.
 * Any other word is a file, classed by the text after the last '.' of the whole word: the shared
 * library suffix is a JIT; .mc, .mch and .mct the input.
 */
#ifndef MCZ_TOOL_SPMI_H
#define MCZ_TOOL_SPMI_H

#include <stdbool.h>
#include <stddef.h>

/* Every switch, in superpmi's order. */
typedef enum tool_spmi_id {
    TOOL_SPMI_HELP, /* also -? */
    TOOL_SPMI_LOAD,
    TOOL_SPMI_JIT,
    TOOL_SPMI_REPRO_NAME,
    TOOL_SPMI_FAILING_MC_LIST,
    TOOL_SPMI_TARGET,
    TOOL_SPMI_BOE,
    TOOL_SPMI_BOA,
    TOOL_SPMI_BOX,
    TOOL_SPMI_IGNORE_STORED_CONFIG,
    TOOL_SPMI_VERBOSITY,
    TOOL_SPMI_WRITE_LOG_FILE,
    TOOL_SPMI_EMIT_METHOD_STATS,
    TOOL_SPMI_DETAILS,
    TOOL_SPMI_APPLY_DIFF,
    TOOL_SPMI_COMPILE,
    TOOL_SPMI_COREDISTOOLS,
    TOOL_SPMI_MATCH_HASH,
    TOOL_SPMI_STREAMING,
    TOOL_SPMI_PARALLEL,
    TOOL_SPMI_FAILURE_LIMIT,
    TOOL_SPMI_SKIP_CLEANUP,
    TOOL_SPMI_REPEAT_COUNT,
    TOOL_SPMI_STRIDE,
    TOOL_SPMI_JITOPTION,
    TOOL_SPMI_JIT2OPTION,
    TOOL_SPMI_COUNT
} tool_spmi_id;

/* What a switch's words mean to a program that runs superpmi over parts of a collection. */
typedef enum tool_spmi_role {
    TOOL_SPMI_PLAIN,  /* changes how contexts are compiled, or nothing a part can break
                         (-matchHash picks by content: the same in a part) */
    TOOL_SPMI_OUTPUT, /* writes one file for the whole run (-f, -details, -r, -w, -e) */
    TOOL_SPMI_SELECT, /* picks contexts by their numbers in the file read (-c, -stride) */
    TOOL_SPMI_RUN,    /* shapes the whole run, not one part of it (-p, -failureLimit,
                         -streaming) */
    TOOL_SPMI_DIFF    /* asm diffs (-applyDiff) */
} tool_spmi_role;

/* How many words follow a switch as its value. */
typedef enum tool_spmi_value {
    TOOL_SPMI_TAKES_NONE,
    TOOL_SPMI_TAKES_ONE,
    TOOL_SPMI_TAKES_TWO,    /* -stride OFFSET INCREMENT */
    TOOL_SPMI_TAKES_COUNT,  /* -parallel: the next word when it is all digits */
    TOOL_SPMI_TAKES_OPTION  /* -jitoption/-jit2option: [force] KEY=VALUE */
} tool_spmi_value;

typedef struct tool_spmi_switch {
    tool_spmi_id id;
    const char *name;     /* superpmi's spelling, as its help shows it */
    tool_spmi_value value;
    tool_spmi_role role;
} tool_spmi_switch;

/* The switch a word names (the word without its leading '-'), by superpmi's rules above; NULL
 * when superpmi would call it unknown. */
const tool_spmi_switch *tool_spmi_lookup(const char *word);
/* The entry of a switch by id. */
const tool_spmi_switch *tool_spmi_get(tool_spmi_id id);

/* How many words after argv[i] (the switch s, argv NULL-terminated) are its value, as superpmi
 * counts them; may exceed the words present (superpmi then prints its usage). */
size_t tool_spmi_value_words(const tool_spmi_switch *s, char *const argv[], size_t i);

/* Where switch id first stands in argv (NULL-terminated; words from argv[1], a switch's value
 * words skipped as superpmi skips them): its index, 0 when it is not there. */
size_t tool_spmi_find(char *const argv[], tool_spmi_id id);

/* What a word that is not a switch is to superpmi. */
typedef enum tool_spmi_file {
    TOOL_SPMI_FILE_UNKNOWN, /* no '.', or a suffix superpmi refuses */
    TOOL_SPMI_FILE_JIT,     /* the shared library suffix (.so; .dylib on macOS) */
    TOOL_SPMI_FILE_INPUT    /* .mc, .mch, .mct */
} tool_spmi_file;

tool_spmi_file tool_spmi_classify(const char *word);

/* Whether superpmi logs at the verbose level with -v letters (Logger::ParseLogLevelString: q
 * none, a all, v verbose; lower case only); NULL, no -v: its default, which does. */
bool tool_spmi_verbose(const char *letters);

#endif
