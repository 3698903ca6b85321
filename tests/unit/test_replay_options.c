/*
 * test_replay_options.c - mcz-replay's option table (parallel-replay/replay_options.c): every
 * option is in --help but the two hidden on purpose, every entry is whole for its type, a
 * command line lands in the fields the table names, and an unknown word gets the nearest option.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay_options.h"

/* Options kept out of --help, each for a reason: bench/replay.sh's superpmi-style stride
 * sharding and per-worker I/O figures. Hiding another one is a decision to write here. */
static const char *const hidden_on_purpose[] = {"stride", "stats"};

static bool meant_hidden(const char *name)
{
    for (size_t i = 0; i < sizeof hidden_on_purpose / sizeof *hidden_on_purpose; i++)
        if (strcmp(hidden_on_purpose[i], name) == 0)
            return true;
    return false;
}

/* The line of help that begins "  -NAME" or "  --NAME" (then a blank, a comma or its end), or
 * NULL. */
static const char *option_line(const char *help, const char *name)
{
    char start[80];
    snprintf(start, sizeof start, "\n  %s%s", tool_option_dashes(name), name);
    size_t len = strlen(start);
    for (const char *at = strstr(help, start); at; at = strstr(at + 1, start))
        if (strchr(" ,\n", at[len]))
            return at + 1;
    return NULL;
}

static void test_every_option_in_help(void **state)
{
    (void)state;
    for (size_t i = 0; i < replay_options_def.count; i++) {
        const tool_option *opt = tool_option_at(&replay_options_def, i);
        if (!opt->help || !*opt->help)
            fail_msg("option %s has no help", opt->name);
        if (opt->hidden != meant_hidden(opt->name))
            fail_msg("option %s is %s --help", opt->name, opt->hidden ? "left out of" : "in");
    }
    char *help = tool_options_help(&replay_options_def);
    assert_non_null(help);
    size_t shown = 0;
    for (size_t i = 0; i < replay_options_def.count; i++) {
        const tool_option *opt = tool_option_at(&replay_options_def, i);
        const char *line = option_line(help, opt->name);
        if (opt->hidden) {
            if (line)
                fail_msg("hidden option %s is in --help", opt->name);
            continue;
        }
        if (!line)
            fail_msg("option %s is missing from --help", opt->name);
        shown++;
        char alias[80];
        snprintf(alias, sizeof alias, ", --%s", opt->alias ? opt->alias : "");
        if (opt->alias && !strstr(line, alias))
            fail_msg("option %s: its other name %s is missing from --help", opt->name, alias + 2);
        /* the first line of its text follows on the same line */
        size_t first = strcspn(opt->help, "\n");
        if (strncmp(line + strcspn(line, "\n") - first, opt->help, first) != 0)
            fail_msg("option %s: its help is not on its line", opt->name);
    }
    /* and no option line in --help that no entry makes */
    size_t lines = 0;
    for (const char *at = strstr(help, "\n  -"); at; at = strstr(at + 1, "\n  -"))
        lines++;
    assert_int_equal(lines, shown);
    free(help);
}

static void test_entries_whole(void **state)
{
    (void)state;
    for (size_t i = 0; i < replay_options_def.count; i++) {
        const tool_option *opt = tool_option_at(&replay_options_def, i);
        bool takes_value = opt->type != TOOL_OPT_FLAG && opt->type != TOOL_OPT_HELP;
        if ((opt->arg != NULL) != takes_value)
            fail_msg("option %s: a value named in help iff it takes one", opt->name);
        bool can_refuse = opt->type == TOOL_OPT_COUNT || opt->type == TOOL_OPT_SIZE ||
                          opt->type == TOOL_OPT_SECONDS || opt->type == TOOL_OPT_SETTER ||
                          (opt->type == TOOL_OPT_STRING && opt->min > 0);
        if (can_refuse != (opt->want != NULL))
            fail_msg("option %s: a refusal text iff a value can be refused", opt->name);
        if ((opt->type == TOOL_OPT_SETTER) != (opt->set != NULL))
            fail_msg("option %s: a setter iff its type says so", opt->name);
        for (size_t k = 0; k < i; k++) {
            const tool_option *other = tool_option_at(&replay_options_def, k);
            const char *names[] = {other->name, other->alias};
            for (size_t n = 0; n < 2; n++)
                if (names[n] && (strcmp(names[n], opt->name) == 0 ||
                                 (opt->alias && strcmp(names[n], opt->alias) == 0)))
                    fail_msg("option name %s twice", names[n]);
        }
    }
    assert_null(tool_option_at(&replay_options_def, replay_options_def.count));
}

static int parse(replay_options *o, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return replay_options_parse(argc, argv, o);
}

static void test_fields(void **state)
{
    (void)state;
    char *argv[] = {"mcz-replay", "-details", "d.csv", "--j=3", "c.mcz", "--exec-word", "cmd",
                    "-exec-word=-x", "--unit-size", "4M", "--timeout", "2.5", "--shard", "2/3",
                    "-q", "--failure-limit", "7", "--", "-f", NULL};
    replay_options o;
    /* two operands, c.mcz and -f (after --): refused, but every field is set by then */
    assert_int_equal(parse(&o, argv), 255);
    assert_string_equal(o.details, "d.csv");
    assert_int_equal(o.workers, 3);
    assert_int_equal(o.exec_words.count, 2);
    assert_string_equal(o.exec_words.words[0], "cmd");
    assert_string_equal(o.exec_words.words[1], "-x");
    assert_null(o.exec_words.words[2]);
    assert_int_equal(o.unit_size, 4u << 20);
    assert_true(o.timeout == 2.5);
    assert_int_equal(o.shard_k, 2);
    assert_int_equal(o.shard_n, 3);
    assert_true(o.quiet);
    assert_int_equal(o.failure_limit, 7);
    assert_int_equal(o.exec_batch, REPLAY_EXEC_BATCH_DEFAULT);
    assert_int_equal(o.operand_count, 2);
    assert_string_equal(o.operands[1], "-f");
    replay_options_free(&o);

    char *one[] = {"mcz-replay", "c.mcz", "--exec-word", "cmd", NULL};
    assert_int_equal(parse(&o, one), -1);
    assert_string_equal(o.exec, "cmd"); /* an --exec-word run is an --exec run */
    assert_int_equal(o.unit_size, 0);   /* not given */
    replay_options_free(&o);
}

static void test_refusals(void **state)
{
    (void)state;
    /* each option with a value refused and one taken, in the same line otherwise: the refusal
     * is the value's (--exec-word makes --repro's line whole) */
    static const char *const cases[][3] = {
        {"-j", "0", "1"},                  {"-j", "4097", "4096"},
        {"--timeout", "0", "0.5"},         {"--shard", "3/2", "2/2"},
        {"--shard", "1", "1/1"},           {"--match-hash", "abc", "0123456789abcdef0123456789ABCDEF"},
        {"--repro", "", "r"},              {"--unit-size", "0", "1"},
        {"--order-as-parallel", "65", "64"}, {"--jit-ee", "Q", "C"},
        {"--exec-batch", "x", "0"},        {"--failure-limit", "0", "1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        for (int good = 0; good < 2; good++) {
            char *argv[] = {"mcz-replay", (char *)(uintptr_t)cases[i][0],
                            (char *)(uintptr_t)cases[i][1 + good], "--exec-word", "x", "c.mcz",
                            NULL};
            replay_options o;
            if (parse(&o, argv) != (good ? -1 : 255))
                fail_msg("%s %s: %s", cases[i][0], cases[i][1 + good],
                         good ? "refused" : "not refused");
            replay_options_free(&o);
        }
    }
    char *no_value[] = {"mcz-replay", "c.mcz", "-j", NULL};
    char *flag_value[] = {"mcz-replay", "--quiet=1", "c.mcz", NULL};
    char *unknown[] = {"mcz-replay", "-foo", "c.mcz", NULL};
    char **lines[] = {no_value, flag_value, unknown};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        replay_options o;
        assert_int_equal(parse(&o, lines[i]), 255);
        replay_options_free(&o);
    }
}

static void test_nearest(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"detials", "--details"},         {"failureList", "-f FILE"},
        {"FAILINGMCLIST", "-f FILE"},     {"jobs", "-j N"},
        {"p", "-j N"},                    {"failurelimit", "--failure-limit N"},
        {"v", "--verbosity LETTERS"},     {"quit", "--quiet"},
        {"exec-orginal", "--exec-original"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *got = tool_options_nearest(&replay_options_def, cases[i][0], buf, sizeof buf);
        if (!got || strcmp(got, cases[i][1]) != 0)
            fail_msg("%s: offered %s, not %s", cases[i][0], got ? got : "nothing", cases[i][1]);
    }
    assert_null(tool_options_nearest(&replay_options_def, "xyzzy", buf, sizeof buf));
    assert_null(tool_options_nearest(&replay_options_def, "foo", buf, sizeof buf));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_option_in_help),
        cmocka_unit_test(test_entries_whole),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_nearest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
