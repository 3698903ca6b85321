/* tool_spmi_args.c - superpmi's switch table and its matching rules (tool_spmi.h). */
#include <ctype.h>
#include <string.h>

#include "tool.h"
#include "tool_spmi.h"

typedef enum { MATCH_PREFIX, MATCH_FIXED, MATCH_WHOLE } match_rule;

typedef struct entry {
    tool_spmi_switch sw;
    match_rule rule;
    size_t fixed; /* MATCH_FIXED: characters compared */
} entry;

#define P(id, name, value, role) {{id, name, value, role}, MATCH_PREFIX, 0}
#define F(id, name, value, role) {{id, name, value, role}, MATCH_FIXED, sizeof name - 1}
#define W(id, name, value, role) {{id, name, value, role}, MATCH_WHOLE, 0}

/* In superpmi's order (CommandLine::Parse), indexed by id. */
static const entry table[TOOL_SPMI_COUNT] = {
    P(TOOL_SPMI_HELP, "help", TOOL_SPMI_TAKES_NONE, TOOL_SPMI_PLAIN),
    P(TOOL_SPMI_LOAD, "load", TOOL_SPMI_TAKES_ONE, TOOL_SPMI_PLAIN),
    P(TOOL_SPMI_JIT, "jit", TOOL_SPMI_TAKES_ONE, TOOL_SPMI_PLAIN),
    P(TOOL_SPMI_REPRO_NAME, "reproName", TOOL_SPMI_TAKES_ONE, TOOL_SPMI_OUTPUT),
    P(TOOL_SPMI_FAILING_MC_LIST, "failingMCList", TOOL_SPMI_TAKES_ONE, TOOL_SPMI_OUTPUT),
    F(TOOL_SPMI_TARGET, "target", TOOL_SPMI_TAKES_ONE, TOOL_SPMI_PLAIN),
    F(TOOL_SPMI_BOE, "boe", TOOL_SPMI_TAKES_NONE, TOOL_SPMI_PLAIN),
    F(TOOL_SPMI_BOA, "boa", TOOL_SPMI_TAKES_NONE, TOOL_SPMI_PLAIN),
    F(TOOL_SPMI_BOX, "box", TOOL_SPMI_TAKES_NONE, TOOL_SPMI_PLAIN),
    F(TOOL_SPMI_IGNORE_STORED_CONFIG, "ignoreStoredConfig", TOOL_SPMI_TAKES_NONE,
      TOOL_SPMI_PLAIN),
    P(TOOL_SPMI_VERBOSITY, "verbosity", TOOL_SPMI_TAKES_ONE, TOOL_SPMI_PLAIN),
    P(TOOL_SPMI_WRITE_LOG_FILE, "writeLogFile", TOOL_SPMI_TAKES_ONE, TOOL_SPMI_OUTPUT),
    P(TOOL_SPMI_EMIT_METHOD_STATS, "emitMethodStats", TOOL_SPMI_TAKES_ONE, TOOL_SPMI_OUTPUT),
    P(TOOL_SPMI_DETAILS, "details", TOOL_SPMI_TAKES_ONE, TOOL_SPMI_OUTPUT),
    P(TOOL_SPMI_APPLY_DIFF, "applyDiff", TOOL_SPMI_TAKES_NONE, TOOL_SPMI_DIFF),
    P(TOOL_SPMI_COMPILE, "compile", TOOL_SPMI_TAKES_ONE, TOOL_SPMI_SELECT),
    P(TOOL_SPMI_COREDISTOOLS, "coredistools", TOOL_SPMI_TAKES_NONE, TOOL_SPMI_PLAIN),
    P(TOOL_SPMI_MATCH_HASH, "matchHash", TOOL_SPMI_TAKES_ONE, TOOL_SPMI_PLAIN),
    P(TOOL_SPMI_STREAMING, "streaming", TOOL_SPMI_TAKES_ONE, TOOL_SPMI_RUN),
    P(TOOL_SPMI_PARALLEL, "parallel", TOOL_SPMI_TAKES_COUNT, TOOL_SPMI_RUN),
    P(TOOL_SPMI_FAILURE_LIMIT, "failureLimit", TOOL_SPMI_TAKES_ONE, TOOL_SPMI_RUN),
    W(TOOL_SPMI_SKIP_CLEANUP, "skipCleanup", TOOL_SPMI_TAKES_NONE, TOOL_SPMI_PLAIN),
    W(TOOL_SPMI_REPEAT_COUNT, "repeatCount", TOOL_SPMI_TAKES_ONE, TOOL_SPMI_PLAIN),
    P(TOOL_SPMI_STRIDE, "stride", TOOL_SPMI_TAKES_TWO, TOOL_SPMI_SELECT),
    P(TOOL_SPMI_JITOPTION, "jitoption", TOOL_SPMI_TAKES_OPTION, TOOL_SPMI_PLAIN),
    P(TOOL_SPMI_JIT2OPTION, "jit2option", TOOL_SPMI_TAKES_OPTION, TOOL_SPMI_PLAIN),
};

/* _strnicmp(word, name, strlen(word)) == 0: word is a case-insensitive prefix of name. */
static bool is_prefix(const char *word, const char *name)
{
    size_t len = strlen(word);
    return len <= strlen(name) && tool_strncasecmp(word, name, len) == 0;
}

static bool matches(const entry *e, const char *word)
{
    switch (e->rule) {
    case MATCH_FIXED:
        return tool_strncasecmp(word, e->sw.name, e->fixed) == 0;
    case MATCH_WHOLE:
        return tool_strcasecmp(word, e->sw.name) == 0;
    default:
        /* superpmi tries -help as "help", "HELP" and "?" */
        return is_prefix(word, e->sw.name) ||
               (e->sw.id == TOOL_SPMI_HELP && is_prefix(word, "?"));
    }
}

const tool_spmi_switch *tool_spmi_lookup(const char *word)
{
    for (size_t i = 0; i < TOOL_SPMI_COUNT; i++)
        if (matches(&table[i], word))
            return &table[i].sw;
    return NULL;
}

const tool_spmi_switch *tool_spmi_get(tool_spmi_id id)
{
    return (unsigned)id < TOOL_SPMI_COUNT ? &table[id].sw : NULL;
}

/* superpmi's worker-count test: every character a digit (an empty word passes, and then fails
 * its range check). */
static bool all_digits(const char *s)
{
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

size_t tool_spmi_value_words(const tool_spmi_switch *s, char *const argv[], size_t i)
{
    switch (s->value) {
    case TOOL_SPMI_TAKES_ONE:
        return 1;
    case TOOL_SPMI_TAKES_TWO:
        return 2;
    case TOOL_SPMI_TAKES_COUNT:
        return argv[i + 1] && all_digits(argv[i + 1]);
    case TOOL_SPMI_TAKES_OPTION:
        /* AddJitOption: _strnicmp(word, "force", strlen(word)) */
        return argv[i + 1] && is_prefix(argv[i + 1], "force") ? 2 : 1;
    default:
        return 0;
    }
}

size_t tool_spmi_find(char *const argv[], tool_spmi_id id)
{
    for (size_t i = 1; argv[i]; i++) {
        if (argv[i][0] != '-' || !argv[i][1])
            continue;
        const tool_spmi_switch *s = tool_spmi_lookup(argv[i] + 1);
        if (s && s->id == id)
            return i;
        for (size_t n = s ? tool_spmi_value_words(s, argv, i) : 0; n && argv[i + 1]; n--)
            i++; /* its value words are no switches */
    }
    return 0;
}

tool_spmi_file tool_spmi_classify(const char *word)
{
    const char *dot = strrchr(word, '.');
    if (!dot)
        return TOOL_SPMI_FILE_UNKNOWN;
    if (tool_strcasecmp(dot, mcz_os_shared_library_suffix()) == 0)
        return TOOL_SPMI_FILE_JIT;
    if (tool_strcasecmp(dot, ".mc") == 0 || tool_strcasecmp(dot, ".mch") == 0 ||
        tool_strcasecmp(dot, ".mct") == 0)
        return TOOL_SPMI_FILE_INPUT;
    return TOOL_SPMI_FILE_UNKNOWN;
}

bool tool_spmi_verbose(const char *letters)
{
    if (!letters)
        return true;
    return !strchr(letters, 'q') && (strchr(letters, 'a') || strchr(letters, 'v'));
}
