/*
 * test_spmi_args.c - superpmi's switch table (tools/tool_spmi.h) against the rules of its
 * CommandLine::Parse (filipnavara/runtime src/coreclr/tools/superpmi/superpmi/commandline.cpp at
 * c659a8bb48140ce161dd3890fd2aa4d06f2fbfac): the name a word reaches (prefixes, first name in
 * order, fixed-length and whole-word names, -? and a lone '-'), the names that are gone, the
 * value words each switch takes, and how a file word is classed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "../../tools/tool_spmi.h"

/* The switch a word (without its '-') reaches, or -1 when superpmi calls it unknown. */
static int id_of(const char *word)
{
    const tool_spmi_switch *s = tool_spmi_lookup(word);
    return s ? (int)s->id : -1;
}

static void test_prefixes_first_in_order(void **state)
{
    (void)state;
    static const struct { const char *word; int id; } cases[] = {
        {"a", TOOL_SPMI_APPLY_DIFF},     {"f", TOOL_SPMI_FAILING_MC_LIST},
        {"fail", TOOL_SPMI_FAILING_MC_LIST}, {"failu", TOOL_SPMI_FAILURE_LIMIT},
        {"d", TOOL_SPMI_DETAILS},        {"s", TOOL_SPMI_STREAMING},
        {"st", TOOL_SPMI_STREAMING},     {"stri", TOOL_SPMI_STRIDE},
        {"p", TOOL_SPMI_PARALLEL},       {"PARA", TOOL_SPMI_PARALLEL},
        {"c", TOOL_SPMI_COMPILE},        {"co", TOOL_SPMI_COMPILE},
        {"cor", TOOL_SPMI_COREDISTOOLS}, {"m", TOOL_SPMI_MATCH_HASH},
        {"j", TOOL_SPMI_JIT},            {"jit", TOOL_SPMI_JIT},
        {"jito", TOOL_SPMI_JITOPTION},   {"jit2", TOOL_SPMI_JIT2OPTION},
        {"r", TOOL_SPMI_REPRO_NAME},     {"v", TOOL_SPMI_VERBOSITY},
        {"w", TOOL_SPMI_WRITE_LOG_FILE}, {"e", TOOL_SPMI_EMIT_METHOD_STATS},
        {"l", TOOL_SPMI_LOAD},           {"h", TOOL_SPMI_HELP},
        {"HELP", TOOL_SPMI_HELP},        {"?", TOOL_SPMI_HELP},
        {"", TOOL_SPMI_HELP},            {"applydiff", TOOL_SPMI_APPLY_DIFF},
        {"applyDiffs", -1},              {"x", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (id_of(cases[i].word) != cases[i].id)
            fail_msg("-%s reaches %d, not %d", cases[i].word, id_of(cases[i].word), cases[i].id);
    }
}

static void test_fixed_and_whole(void **state)
{
    (void)state;
    assert_int_equal(id_of("target"), TOOL_SPMI_TARGET);
    assert_int_equal(id_of("TARGETx"), TOOL_SPMI_TARGET); /* 6 characters compared */
    assert_int_equal(id_of("tar"), -1);
    assert_int_equal(id_of("t"), -1);
    assert_int_equal(id_of("boeX"), TOOL_SPMI_BOE);
    assert_int_equal(id_of("boa"), TOOL_SPMI_BOA);
    assert_int_equal(id_of("box"), TOOL_SPMI_BOX);
    assert_int_equal(id_of("bo"), -1);
    assert_int_equal(id_of("ignoreStoredConfig"), TOOL_SPMI_IGNORE_STORED_CONFIG);
    assert_int_equal(id_of("ignore"), -1);
    assert_int_equal(id_of("SKIPCLEANUP"), TOOL_SPMI_SKIP_CLEANUP);
    assert_int_equal(id_of("skip"), -1);
    assert_int_equal(id_of("repeatCount"), TOOL_SPMI_REPEAT_COUNT);
    assert_int_equal(id_of("repeat"), -1);
    assert_int_equal(id_of("re"), TOOL_SPMI_REPRO_NAME);
}

static void test_gone(void **state)
{
    (void)state;
    static const char *const gone[] = {"diffsInfo", "metricsSummary", "baseMetricsSummary",
                                       "diffMetricsSummary", "diffMCList"};
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++)
        if (id_of(gone[i]) != -1)
            fail_msg("-%s is still a switch", gone[i]);
}

static void test_table_order_and_roles(void **state)
{
    (void)state;
    for (int id = 0; id < TOOL_SPMI_COUNT; id++)
        assert_int_equal(tool_spmi_get((tool_spmi_id)id)->id, id);
    assert_null(tool_spmi_get(TOOL_SPMI_COUNT));
    assert_int_equal(tool_spmi_get(TOOL_SPMI_DETAILS)->role, TOOL_SPMI_OUTPUT);
    assert_int_equal(tool_spmi_get(TOOL_SPMI_REPRO_NAME)->role, TOOL_SPMI_OUTPUT);
    assert_int_equal(tool_spmi_get(TOOL_SPMI_STREAMING)->role, TOOL_SPMI_RUN);
    assert_int_equal(tool_spmi_get(TOOL_SPMI_FAILURE_LIMIT)->role, TOOL_SPMI_RUN);
    assert_int_equal(tool_spmi_get(TOOL_SPMI_MATCH_HASH)->role, TOOL_SPMI_PLAIN);
    assert_int_equal(tool_spmi_get(TOOL_SPMI_STRIDE)->role, TOOL_SPMI_SELECT);
    assert_int_equal(tool_spmi_get(TOOL_SPMI_COMPILE)->role, TOOL_SPMI_SELECT);
    assert_int_equal(tool_spmi_get(TOOL_SPMI_APPLY_DIFF)->role, TOOL_SPMI_DIFF);
    assert_int_equal(tool_spmi_get(TOOL_SPMI_PARALLEL)->role, TOOL_SPMI_RUN);
}

static size_t words_after(char *sw, char *next, char *after)
{
    char *argv[] = {"superpmi", sw, next, after, NULL};
    return tool_spmi_value_words(tool_spmi_lookup(sw + 1), argv, 1);
}

static void test_value_words(void **state)
{
    (void)state;
    assert_int_equal(words_after("-p", "12", "x.mch"), 1);
    assert_int_equal(words_after("-p", "x.mch", NULL), 0);
    assert_int_equal(words_after("-p", NULL, NULL), 0);
    assert_int_equal(words_after("-p", "", NULL), 1); /* superpmi takes it, then refuses 0 */
    assert_int_equal(words_after("-jitoption", "force", "K=V"), 2);
    assert_int_equal(words_after("-jitoption", "FO", "K=V"), 2);
    assert_int_equal(words_after("-jit2option", "K=V", "x.mch"), 1);
    assert_int_equal(words_after("-jitoption", "forced", "K=V"), 1);
    assert_int_equal(words_after("-stride", "1", "2"), 2);
    assert_int_equal(words_after("-f", "x.mcl", NULL), 1);
    assert_int_equal(words_after("-a", "x.mcl", NULL), 0);
    assert_int_equal(words_after("-skipCleanup", "x", NULL), 0);
    assert_int_equal(words_after("-repeatCount", "2", NULL), 1);
}

/* A switch is found where superpmi reads it; a value that looks like one is no switch. */
static void test_find(void **state)
{
    (void)state;
    char *words[] = {"superpmi", "-jitoption", "-m=1", "-v", "-m", "-M", "HASH", "jit.so",
                     "-s", "stdin", NULL};
    assert_int_equal(tool_spmi_find(words, TOOL_SPMI_MATCH_HASH), 5);
    assert_int_equal(tool_spmi_find(words, TOOL_SPMI_STREAMING), 8);
    assert_int_equal(tool_spmi_find(words, TOOL_SPMI_VERBOSITY), 3);
    assert_int_equal(tool_spmi_find(words, TOOL_SPMI_PARALLEL), 0);
    char *unknown[] = {"superpmi", "-nosuch", "-p", NULL};
    assert_int_equal(tool_spmi_find(unknown, TOOL_SPMI_PARALLEL), 2);
}

/* A JIT is named as the system's shared libraries (superpmi's rule); the other system's
 * name is no JIT. */
#ifdef _WIN32
#define JIT_SUFFIX ".dll"
#define JIT_SUFFIX_UPPER ".DLL"
#define OTHER_SUFFIX ".so"
#else
#define JIT_SUFFIX ".so"
#define JIT_SUFFIX_UPPER ".SO"
#define OTHER_SUFFIX ".dll"
#endif

static void test_classify(void **state)
{
    (void)state;
    assert_int_equal(tool_spmi_classify("libclrjit" JIT_SUFFIX), TOOL_SPMI_FILE_JIT);
    assert_int_equal(tool_spmi_classify("JIT" JIT_SUFFIX_UPPER), TOOL_SPMI_FILE_JIT);
    assert_int_equal(tool_spmi_classify("x.mch" JIT_SUFFIX), TOOL_SPMI_FILE_JIT);
    assert_int_equal(tool_spmi_classify("clrjit" OTHER_SUFFIX), TOOL_SPMI_FILE_UNKNOWN);
    assert_int_equal(tool_spmi_classify("a.mch"), TOOL_SPMI_FILE_INPUT);
    assert_int_equal(tool_spmi_classify("A.MCH"), TOOL_SPMI_FILE_INPUT);
    assert_int_equal(tool_spmi_classify("a.mc"), TOOL_SPMI_FILE_INPUT);
    assert_int_equal(tool_spmi_classify("a.mch.mct"), TOOL_SPMI_FILE_INPUT);
    assert_int_equal(tool_spmi_classify("a.mcz"), TOOL_SPMI_FILE_UNKNOWN);
    assert_int_equal(tool_spmi_classify("a.mcl"), TOOL_SPMI_FILE_UNKNOWN);
    assert_int_equal(tool_spmi_classify("noext"), TOOL_SPMI_FILE_UNKNOWN);
    assert_int_equal(tool_spmi_classify("dir" JIT_SUFFIX "/x"), TOOL_SPMI_FILE_UNKNOWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefixes_first_in_order),
        cmocka_unit_test(test_fixed_and_whole),
        cmocka_unit_test(test_gone),
        cmocka_unit_test(test_table_order_and_roles),
        cmocka_unit_test(test_value_words),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_classify),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
