/*
 * replay_exec_args.c - an --exec command's words read as superpmi's command line reads them
 * (superpmi/commandline.cpp at filipnavara/runtime@c659a8bb): a switch is '-' and any case-insensitive prefix of its name,
 * tried against the names in superpmi's order, the first that matches winning (so -a is
 * -applyDiff, -f -failingMCList, -d -details); a few names match on a fixed length or whole.
 * Words after a switch that takes a value are that value, not switches.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "replay_exec.h"

typedef enum { MATCH_PREFIX, MATCH_FIXED, MATCH_WHOLE } match_rule;

typedef enum {
    TAKES_NONE,
    TAKES_ONE,
    TAKES_TWO,
    TAKES_COUNT,  /* -parallel: a following all-digit word */
    TAKES_OPTION  /* -jitoption: [force] key=value */
} takes;

typedef enum { ROLE_PLAIN, ROLE_OUTPUT, ROLE_SELECT, ROLE_DIFF, ROLE_RUN } role;

typedef struct spmi_switch {
    const char *name;
    match_rule rule;
    size_t fixed; /* MATCH_FIXED: characters compared */
    takes value;
    role role;
} spmi_switch;

/* superpmi's switches in the order it tries them. */
static const spmi_switch switches[] = {
    {"help", MATCH_PREFIX, 0, TAKES_NONE, ROLE_PLAIN},
    {"load", MATCH_PREFIX, 0, TAKES_ONE, ROLE_PLAIN},
    {"jit", MATCH_PREFIX, 0, TAKES_ONE, ROLE_PLAIN},
    {"reproName", MATCH_PREFIX, 0, TAKES_ONE, ROLE_OUTPUT},
    {"failingMCList", MATCH_PREFIX, 0, TAKES_ONE, ROLE_OUTPUT},
    {"details", MATCH_PREFIX, 0, TAKES_ONE, ROLE_OUTPUT},
    {"target", MATCH_FIXED, 6, TAKES_ONE, ROLE_PLAIN},
    {"boe", MATCH_FIXED, 3, TAKES_NONE, ROLE_PLAIN},
    {"boa", MATCH_FIXED, 3, TAKES_NONE, ROLE_PLAIN},
    {"box", MATCH_FIXED, 3, TAKES_NONE, ROLE_PLAIN},
    {"ignoreStoredConfig", MATCH_FIXED, 18, TAKES_NONE, ROLE_PLAIN},
    {"verbosity", MATCH_PREFIX, 0, TAKES_ONE, ROLE_PLAIN},
    {"writeLogFile", MATCH_PREFIX, 0, TAKES_ONE, ROLE_OUTPUT},
    {"emitMethodStats", MATCH_PREFIX, 0, TAKES_ONE, ROLE_OUTPUT},
    {"applyDiff", MATCH_PREFIX, 0, TAKES_NONE, ROLE_DIFF},
    {"compile", MATCH_PREFIX, 0, TAKES_ONE, ROLE_SELECT},
    {"coredistools", MATCH_PREFIX, 0, TAKES_NONE, ROLE_PLAIN},
    {"matchHash", MATCH_PREFIX, 0, TAKES_ONE, ROLE_PLAIN}, /* by content: the same in a unit */
    {"streaming", MATCH_PREFIX, 0, TAKES_ONE, ROLE_RUN},
    {"parallel", MATCH_PREFIX, 0, TAKES_COUNT, ROLE_RUN},
    {"failureLimit", MATCH_PREFIX, 0, TAKES_ONE, ROLE_RUN},
    {"skipCleanup", MATCH_WHOLE, 0, TAKES_NONE, ROLE_PLAIN},
    {"repeatCount", MATCH_WHOLE, 0, TAKES_ONE, ROLE_PLAIN},
    {"stride", MATCH_PREFIX, 0, TAKES_TWO, ROLE_SELECT},
    {"jitoption", MATCH_PREFIX, 0, TAKES_OPTION, ROLE_PLAIN},
    {"jit2option", MATCH_PREFIX, 0, TAKES_OPTION, ROLE_PLAIN},
};

static bool matches(const spmi_switch *s, const char *word)
{
    size_t len = strlen(word);
    switch (s->rule) {
    case MATCH_FIXED:
        return strncasecmp(word, s->name, s->fixed) == 0;
    case MATCH_WHOLE:
        return strcasecmp(word, s->name) == 0;
    default:
        return len <= strlen(s->name) && strncasecmp(word, s->name, len) == 0;
    }
}

static const spmi_switch *lookup(const char *word)
{
    for (size_t i = 0; i < sizeof switches / sizeof *switches; i++)
        if (matches(&switches[i], word))
            return &switches[i];
    return NULL;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* Words the switch at argv[i] takes after it. */
static size_t value_words(const spmi_switch *s, char *const argv[], size_t i)
{
    switch (s->value) {
    case TAKES_ONE:
        return 1;
    case TAKES_TWO:
        return 2;
    case TAKES_COUNT:
        return argv[i + 1] && all_digits(argv[i + 1]);
    case TAKES_OPTION:
        return argv[i + 1] && argv[i + 1][0] &&
                       strncasecmp(argv[i + 1], "force", strlen(argv[i + 1])) == 0
                   ? 2 : 1;
    default:
        return 0;
    }
}

/* What mcz-replay does instead of a switch that shapes the whole run. */
static const char *run_instead(const char *name)
{
    if (strcmp(name, "parallel") == 0)
        return "mcz-replay's -j N sets the workers";
    if (strcmp(name, "failureLimit") == 0)
        return "mcz-replay's --failure-limit N counts over the whole run";
    return "a unit has no streaming session; give superpmi the .mch";
}

int exec_args_check(char *const argv[], replay_style *style, char *why, size_t cap)
{
    *style = REPLAY_STYLE_SPMI_REPLAY;
    for (size_t i = 1; argv[i]; i++) {
        if (argv[i][0] != '-' || !argv[i][1])
            continue;
        const spmi_switch *s = lookup(argv[i] + 1);
        if (!s)
            continue;
        if (s->role == ROLE_OUTPUT) {
            snprintf(why, cap, "--exec: %s (superpmi's -%s) would write one file for every unit "
                     "at once; leave it out (mcz-replay's -f and --details are the merged "
                     "outputs)", argv[i], s->name);
            return MCZ_EINVAL;
        }
        if (s->role == ROLE_SELECT) {
            snprintf(why, cap, "--exec: %s (superpmi's -%s) selects contexts by a unit's own "
                     "numbers; use mcz-replay's -c", argv[i], s->name);
            return MCZ_EINVAL;
        }
        if (s->role == ROLE_RUN) {
            snprintf(why, cap, "--exec: %s (superpmi's -%s) would apply to every unit apart; %s",
                     argv[i], s->name, run_instead(s->name));
            return MCZ_EINVAL;
        }
        if (s->role == ROLE_DIFF)
            *style = REPLAY_STYLE_SPMI_DIFFS;
        for (size_t n = value_words(s, argv, i); n && argv[i + 1]; n--)
            i++;
    }
    return MCZ_OK;
}

bool exec_args_has(char *const argv[], const char *name)
{
    for (size_t i = 1; argv[i]; i++) {
        if (argv[i][0] != '-' || !argv[i][1])
            continue;
        const spmi_switch *s = lookup(argv[i] + 1);
        if (s && strcmp(s->name, name) == 0)
            return true;
        for (size_t n = s ? value_words(s, argv, i) : 0; n && argv[i + 1]; n--)
            i++;
    }
    return false;
}
