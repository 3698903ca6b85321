/*
 * test_tool_options.c - the programs' option tables (tools/tool_options.c) over a table of
 * every type: words land in the fields the entries name, with one dash or two, '=' or the next
 * word; a bad value, a missing one, an unknown option are usage errors with the program's exit
 * code; the help holds every option but a hidden one, the nearest option is offered.
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

#include "tool_options.h"

typedef struct opts {
    bool flag;
    const char *name, *out;
    uint32_t count;
    uint64_t size;
    double seconds;
    tool_words words;
    const mcz_jit_ee *jit_ee;
    int odd;
} opts;

static bool set_odd(void *arg, const char *value)
{
    opts *o = arg;
    o->odd = atoi(value);
    return o->odd % 2 == 1;
}

static const tool_option table[] = {
    {.name = "f", .alias = "flag", TOOL_FLAG(opts, flag), .help = "a flag"},
    {.name = "name", .arg = "S", TOOL_STRING(opts, name), .min = 1, .want = "want a name",
     .help = "a string\nover two lines"},
    {.name = "out", .arg = "FILE", TOOL_OUTPUT(opts, out), .others = "o output",
     .help = "an output"},
    {.name = "count", .arg = "N", TOOL_COUNT(opts, count, 1, 10), .want = "want 1 to 10",
     .help = "a count"},
    {.name = "size", .arg = "SIZE", TOOL_SIZE(opts, size, 0, UINT32_MAX), .want = "want a size",
     .help = "a size"},
    {.name = "seconds", .arg = "S", .type = TOOL_OPT_SECONDS, TOOL_FIELD(opts, seconds),
     .want = "want seconds", .help = "a time"},
    {.name = "word", .arg = "W", .type = TOOL_OPT_WORDS, TOOL_FIELD(opts, words),
     .help = "a word, again and again"},
    {.name = "jit-ee", .arg = "V", TOOL_JIT_EE(opts, jit_ee), .help = "a JIT-EE version"},
    {.name = "odd", .arg = "N", TOOL_SETTER(set_odd), .want = "want an odd number",
     .help = "an odd number"},
    {.name = "secret", TOOL_FLAG(opts, flag), .hidden = true, .help = "not shown"},
    {.name = "h", .alias = "help", .type = TOOL_OPT_HELP, .help = "this text"},
};

static const tool_options_def def = {
    .options = table,
    .count = sizeof table / sizeof *table,
    .help_head = "Usage: t [options]\n\noptions:\n",
    .help_tail = "the end\n",
    .usage_exit = 7,
    .fail_exit = 9,
    .usage_hint = "(t --help)",
};

static char *operands[32];
static size_t operand_count;

static int parse(opts *o, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    memset(o, 0, sizeof *o);
    return tool_options_parse(&def, argc, argv, o, operands, &operand_count);
}

static void test_words_land_in_fields(void **state)
{
    (void)state;
    char *argv[] = {"t", "-flag", "--name=x", "in1", "-out", "o.txt", "--count", "10",
                    "--size", "4K", "-seconds", "2.5", "--word", "-a", "--word=b", "--odd",
                    "3", "--jit-ee", "B", "-", "--", "--count", NULL};
    opts o;
    assert_int_equal(parse(&o, argv), -1);
    assert_true(o.flag);
    assert_string_equal(o.name, "x");
    assert_string_equal(o.out, "o.txt");
    assert_int_equal(o.count, 10);
    assert_int_equal(o.size, 4096);
    assert_true(o.seconds == 2.5);
    assert_int_equal(o.words.count, 2);
    assert_string_equal(o.words.words[0], "-a");
    assert_string_equal(o.words.words[1], "b");
    assert_null(o.words.words[2]);
    assert_int_equal(o.odd, 3);
    assert_ptr_equal(o.jit_ee, mcz_jit_ee_find("B"));
    assert_int_equal(operand_count, 3); /* in1, "-" and what follows "--" */
    assert_string_equal(operands[0], "in1");
    assert_string_equal(operands[1], "-");
    assert_string_equal(operands[2], "--count");
    free(o.words.words);
}

static void test_usage_errors(void **state)
{
    (void)state;
    char *bad[][4] = {
        {"t", "--count", "11", NULL},  {"t", "--count", "0", NULL}, {"t", "--size", "x", NULL},
        {"t", "--seconds", "0", NULL}, {"t", "--odd", "4", NULL},  {"t", "--name=", NULL},
        {"t", "--count", NULL},        {"t", "-f=1", NULL},        {"t", "--frob", NULL},
        {"t", "--jit-ee", "nope", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        opts o;
        if (parse(&o, bad[i]) != 7)
            fail_msg("case %zu (%s %s) is not a usage error", i, bad[i][1],
                     bad[i][2] ? bad[i][2] : "");
        free(o.words.words);
    }
}

static void test_help_and_nearest(void **state)
{
    (void)state;
    char *help = tool_options_help(&def);
    assert_non_null(help);
    for (size_t i = 0; i < def.count; i++) {
        const tool_option *opt = tool_option_at(&def, i);
        char start[64];
        snprintf(start, sizeof start, "\n  %s%s", tool_option_dashes(opt->name), opt->name);
        if ((strstr(help, start) != NULL) == opt->hidden)
            fail_msg("option %s is %s the help", opt->name, opt->hidden ? "in" : "not in");
    }
    assert_non_null(strstr(help, "  --name S           a string\n"
                                 "                     over two lines\n"));
    assert_non_null(strstr(help, "  -f, --flag         a flag\n"));
    assert_true(strncmp(help, def.help_head, strlen(def.help_head)) == 0);
    assert_string_equal(help + strlen(help) - strlen("the end\n"), "the end\n");
    free(help);
    assert_null(tool_option_at(&def, def.count));
    char buf[64];
    assert_string_equal(tool_options_nearest(&def, "counts", buf, sizeof buf), "--count");
    assert_string_equal(tool_options_nearest(&def, "output", buf, sizeof buf), "--out FILE");
    assert_null(tool_options_nearest(&def, "xyzzy", buf, sizeof buf));
}

static int first_output(const char *option, const char *path)
{
    return strcmp(option, "--out") == 0 && strcmp(path, "o.txt") == 0 ? 42 : 0;
}

static void test_outputs_checked(void **state)
{
    (void)state;
    char *with[] = {"t", "--out", "o.txt", NULL}, *without[] = {"t", NULL};
    opts o;
    assert_int_equal(parse(&o, with), -1);
    assert_int_equal(tool_options_each_output(&def, &o, first_output), 42);
    assert_int_equal(parse(&o, without), -1);
    assert_int_equal(tool_options_each_output(&def, &o, first_output), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words_land_in_fields),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_help_and_nearest),
        cmocka_unit_test(test_outputs_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
