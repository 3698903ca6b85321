/*
 * test_mcl.c - context-number lists (superpmi/SUPERPMI.md "MCL files and range lists"): each
 * rule of SuperPMI's range syntax and .mcl reading (one case per rule), every rejection with its
 * line or column, encoding and round trips, the SuperPMI size cap on .mcl files, and the list
 * queries; counts as the tools take them (tool_parse_count).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../common/mcz_common.h"
#include "../../tools/tool.h"

static void assert_ranges(const mcz_list *l, const uint32_t (*want)[2], size_t n)
{
    assert_int_equal(l->count, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(l->ranges[i].first, want[i][0]);
        assert_int_equal(l->ranges[i].last, want[i][1]);
    }
}

static void test_ranges(void **state)
{
    (void)state;
    mcz_list l;
    assert_int_equal(mcz_list_parse_ranges("1-5,9,12-14", &l, NULL), 0);
    static const uint32_t want[][2] = {{1, 5}, {9, 9}, {12, 14}};
    assert_ranges(&l, want, 3);
    assert_int_equal(mcz_list_size(&l), 9);
    static const uint32_t in[] = {1, 3, 5, 9, 12, 14}, out[] = {0, 6, 8, 10, 11, 15, 0xFFFFFFFF};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        assert_true(mcz_list_contains(&l, in[i]));
    for (size_t i = 0; i < sizeof out / sizeof out[0]; i++)
        assert_false(mcz_list_contains(&l, out[i]));
    mcz_list_free(&l);
    assert_null(l.ranges);
    assert_int_equal(l.count, 0);
    /* touching pieces merge; the largest number SuperPMI can hold */
    assert_int_equal(mcz_list_parse_ranges("1,2,3-4,5,7-2147483647", &l, NULL), 0);
    static const uint32_t merged[][2] = {{1, 5}, {7, 2147483647}};
    assert_ranges(&l, merged, 2);
    assert_int_equal(mcz_list_size(&l), 5 + 2147483641ull);
    mcz_list_free(&l);
}

/* Each accepting rule of the range syntax, with the numbers SuperPMI produces. */
static void test_range_rules(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint32_t want[3][2];
        size_t n;
    } good[] = {
        {"7", {{7, 7}}, 1},
        {"007", {{7, 7}}, 1},                     /* leading zeros */
        {"-5", {{1, 5}}, 1},                      /* a range with no start starts at 1 */
        {"--5", {{1, 5}}, 1},                     /* more '-' say no more */
        {"1,2,", {{1, 2}}, 1},                    /* a trailing ',' */
        {",3", {{3, 3}}, 1},                      /* a leading ',' */
        {"1,,,4", {{1, 1}, {4, 4}}, 2},           /* empty parts */
        {"3,-5", {{3, 5}}, 1},                    /* '-5' after a lone 3 continues it */
        {"3-,5", {{3, 5}}, 1},                    /* the '-' holds over the ',' */
        {"2-,-,6", {{2, 6}}, 1},
        {"1,5,-7", {{1, 1}, {5, 7}}, 2},
        {"2-3,9-10,12", {{2, 3}, {9, 10}, {12, 12}}, 3},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        mcz_list l;
        mcz_diag d;
        mcz_diag_clear(&d);
        if (mcz_list_parse_ranges(good[i].text, &l, &d) != MCZ_OK)
            fail_msg("'%s' refused: %s", good[i].text, d.message);
        assert_ranges(&l, good[i].want, good[i].n);
        mcz_list_free(&l);
    }
}

static void test_range_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *message;
        int64_t column;
    } bad[] = {
        {"", "empty range list", 0},
        {",", "holds no number", 0},
        {"-", "holds no number", 0},
        {"0", "start at 1", 0},
        {"0-3", "start at 1", 0},
        {"-0", "range 0-0 must go up", 1},
        {"5-3", "range 5-3 must go up", 2},
        {"3-3", "range 3-3 must go up", 2},
        {"1,1", "1 does not follow 1", 2},
        {"4,2", "2 does not follow 4", 2},
        {"1-5,5", "5 does not follow 5", 4},
        {"1-5,3-9", "3 does not follow 5", 4},
        {"1-3-5", "ending in 5 at column 5 continues from 1, but the list is already at 3", 4},
        {"1-3,-5", "continues from 1, but the list is already at 3", 5},
        {"5-", "ends in a '-'", 1},
        {"1,5-,", "ends in a '-'", 4},
        {"7 8", "unexpected ' ' at column 2", 1},
        {"x", "unexpected 'x'", 0},
        {"1\t2", "unexpected 0x09", 1},
        {"2147483648", "more than 2147483647", 0},
        {"1-2147483648", "more than 2147483647", 2},
        {"99999999999999999999", "more than 2147483647", 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mcz_list l = {(mcz_range *)1, 5};
        mcz_diag d;
        mcz_diag_clear(&d);
        assert_int_equal(mcz_list_parse_ranges(bad[i].text, &l, &d), MCZ_EINVAL);
        if (!strstr(d.message, bad[i].message))
            fail_msg("'%s': message '%s' lacks '%s'", bad[i].text, d.message, bad[i].message);
        if (d.offset != bad[i].column)
            fail_msg("'%s': offset %lld, want %lld", bad[i].text, (long long)d.offset,
                     (long long)bad[i].column);
        assert_null(l.ranges);
        assert_int_equal(l.count, 0);
    }
    assert_int_equal(mcz_list_parse_ranges(NULL, &(mcz_list){0}, NULL), MCZ_EINVAL);
}

static int parse_mcl_copy(const char *text, size_t len, mcz_list *l, mcz_diag *d)
{
    uint8_t *copy = malloc(len ? len : 1); /* exact size: a read past the end is caught */
    assert_non_null(copy);
    memcpy(copy, text, len);
    int rc = mcz_list_parse_mcl(copy, len, l, d);
    free(copy);
    return rc;
}

/* Each accepting rule of .mcl reading: the same numbers from every form. */
static void test_mcl_text(void **state)
{
    (void)state;
    static const char *const good[] = {
        "1\r\n2\r\n5\r\n",         /* as SuperPMI writes it on Windows */
        "1\n2\n5\n",               /* and elsewhere */
        "1\n2\r\n5",               /* mixed endings, a last line without newline */
        "01\n2\n05\n",             /* leading zeros */
        "\n1\n\n2\r\n\r\n5\n\n",   /* blank lines anywhere, even at the end */
        " 1\n\t2 \n  5\t\r\n",     /* white space around a number */
        "1\n2\n \f\v\n5\n  ",      /* lines of white space only */
    };
    static const uint32_t want[][2] = {{1, 2}, {5, 5}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        mcz_list l;
        mcz_diag d;
        mcz_diag_clear(&d);
        if (parse_mcl_copy(good[i], strlen(good[i]), &l, &d) != MCZ_OK)
            fail_msg("case %zu refused: %s", i, d.message);
        assert_ranges(&l, want, 2);
        mcz_list_free(&l);
    }
    /* no number at all is the empty list here (a failure list may be empty) */
    static const char *const empty[] = {"", "\n", "\r\n \r\n"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        mcz_list l;
        assert_int_equal(parse_mcl_copy(empty[i], strlen(empty[i]), &l, NULL), 0);
        assert_int_equal(l.count, 0);
        assert_int_equal(mcz_list_size(&l), 0);
        assert_false(mcz_list_contains(&l, 1));
        mcz_list_free(&l);
    }
    mcz_list_free(NULL);
}

static void test_mcl_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t len; /* 0: strlen */
        const char *message;
        int64_t offset;
    } bad[] = {
        {"+1\n", 0, "line 1: '+' where a context number should be", 0},
        {"1\n-2\n", 0, "line 2: '-' where a context number should be", 2},
        {"1\n2\nx", 0, "line 3: 'x' where", 4},
        {"1\nabc 3\n", 0, "line 2: 'a' where", 2},
        {"1\n2 3\n", 0, "line 2: '3' after the number 2", 4},
        {"1\n2,3\n", 0, "line 2: ',' after the number 2", 3},
        {"12abc\n", 0, "line 1: 'a' after the number 12", 2},
        {"1\r2\n", 0, "line 1: '2' after the number 1", 2},
        {"1\0\n", 3, "line 1: 0x00 after the number 1", 1},
        {"0\n", 0, "line 1: context numbers start at 1", 0},
        {"2\n1\n", 0, "line 2: 1 does not follow 2", 2},
        {"1\n2\n 2\n", 0, "line 3: 2 does not follow 2", 5},
        {"3000000000\n", 0, "line 1: 3000000000 is more than 2147483647", 0},
        {"1\n99999999999999999999\n", 0, "line 2: 99999999999999999999 is more than", 2},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mcz_list l;
        mcz_diag d;
        mcz_diag_clear(&d);
        size_t len = bad[i].len ? bad[i].len : strlen(bad[i].text);
        assert_int_equal(parse_mcl_copy(bad[i].text, len, &l, &d), MCZ_EINVAL);
        if (!strstr(d.message, bad[i].message))
            fail_msg("case %zu: message '%s' lacks '%s'", i, d.message, bad[i].message);
        if (d.offset != bad[i].offset)
            fail_msg("case %zu: offset %lld, want %lld", i, (long long)d.offset,
                     (long long)bad[i].offset);
        assert_null(l.ranges);
    }
}

/* Encodes a range list and checks the text, then that the text reads back as the same list. */
static void expect_encoding(const char *ranges, const char *want)
{
    mcz_list l, back;
    char *text;
    size_t len;
    assert_int_equal(mcz_list_parse_ranges(ranges, &l, NULL), 0);
    assert_int_equal(mcz_list_encode_mcl(&l, &text, &len), 0);
    assert_int_equal(len, strlen(want));
    assert_string_equal(text, want);
    assert_int_equal(mcz_list_parse_mcl((const uint8_t *)text, len, &back, NULL), 0);
    assert_int_equal(back.count, l.count);
    assert_memory_equal(back.ranges, l.ranges, l.count * sizeof *l.ranges);
    mcz_list_free(&back);
    mcz_list_free(&l);
    free(text);
}

static void test_encode(void **state)
{
    (void)state;
    expect_encoding("1-3,7,9-11", "1\r\n2\r\n3\r\n7\r\n9\r\n10\r\n11\r\n");
    /* digit-width boundaries */
    expect_encoding("9-10,99-100,999999999-1000000000",
                    "9\r\n10\r\n99\r\n100\r\n999999999\r\n1000000000\r\n");
    /* the empty list, a list SuperPMI could not read back, a bad argument */
    mcz_list l = {NULL, 0};
    char *text;
    size_t len;
    assert_int_equal(mcz_list_encode_mcl(&l, &text, &len), 0);
    assert_int_equal(len, 0);
    assert_string_equal(text, "");
    free(text);
    assert_int_equal(mcz_list_parse_ranges("1-2000000", &l, NULL), 0);
    assert_int_equal(mcz_list_encode_mcl(&l, &text, &len), MCZ_ELIMIT);
    assert_null(text);
    mcz_list_free(&l);
    assert_int_equal(mcz_list_encode_mcl(NULL, &text, &len), MCZ_EINVAL);
}

/* The size cap: a text of exactly MCZ_MCL_MAX_SIZE bytes is written, one number more is not. */
static void test_encode_cap(void **state)
{
    (void)state;
    char *text;
    size_t len;
    /* 1..n: the longest such run whose text fits; 1..n+1 does not */
    uint64_t total = 0;
    uint32_t n = 0;
    while (1) {
        unsigned digits = (unsigned)snprintf(NULL, 0, "%u", n + 1);
        if (total + digits + 2 > MCZ_MCL_MAX_SIZE)
            break;
        total += digits + 2;
        n++;
    }
    mcz_range r = {1, n};
    mcz_list fits = {&r, 1};
    assert_int_equal(mcz_list_encode_mcl(&fits, &text, &len), 0);
    assert_int_equal(len, total);
    free(text);
    r.last = n + 1;
    assert_int_equal(mcz_list_encode_mcl(&fits, &text, &len), MCZ_ELIMIT);
}

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void test_from_arg(void **state)
{
    (void)state;
    char dir[] = "/tmp/mcz_test_mcl_XXXXXX";
    assert_non_null(mcz_os_mkdtemp(dir));
    char path[512];
    mcz_list l;
    mcz_diag d;
    assert_int_equal(mcz_list_from_arg("2-4,8", &l, NULL), 0);
    assert_int_equal(mcz_list_size(&l), 4);
    mcz_list_free(&l);
    snprintf(path, sizeof path, "%s/fail.MCL", dir);
    write_file(path, "3\r\n4\r\n", 6);
    assert_int_equal(mcz_list_from_arg(path, &l, NULL), 0);
    static const uint32_t want[][2] = {{3, 4}};
    assert_ranges(&l, want, 1);
    mcz_list_free(&l);
    write_file(path, "3\r\nabc\r\n", 8);
    assert_int_equal(mcz_list_from_arg(path, &l, &d), MCZ_EINVAL);
    /* the file is the subject, as data; the message does not repeat it */
    assert_string_equal(d.subject, path);
    assert_non_null(strstr(d.message, "line 2: 'a' where a context number should be"));
    assert_null(strstr(d.message, "fail.MCL"));
    assert_int_equal(d.offset, -1); /* the line says where */
    /* a named list without numbers is refused: SuperPMI reads the first entry it lacks */
    write_file(path, "\r\n\r\n", 4);
    assert_int_equal(mcz_list_from_arg(path, &l, &d), MCZ_EINVAL);
    assert_string_equal(d.subject, path);
    assert_string_equal(d.message, "holds no context number");
    assert_null(l.ranges);
    /* SuperPMI refuses .mcl files over 0xFFFFFF bytes */
    assert_int_equal(truncate(path, MCZ_MCL_MAX_SIZE + 1), 0);
    assert_int_equal(mcz_list_from_arg(path, &l, &d), MCZ_ELIMIT);
    assert_non_null(strstr(d.message, "16777216 bytes"));
    snprintf(path, sizeof path, "%s/missing.mcl", dir);
    assert_int_equal(mcz_list_from_arg(path, &l, &d), MCZ_EIO);
    assert_string_equal(d.subject, path);
    assert_int_equal(mcz_list_from_arg(dir, &l, &d), MCZ_EINVAL); /* neither form */
    assert_int_equal(mcz_list_from_arg("5-1", &l, &d), MCZ_EINVAL);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_is_arg(void **state)
{
    (void)state;
    static const char *const yes[] = {"1", "1-5,9", "5-1", ",", "a.mcl", "dir/x.MCL", ".mcl"};
    static const char *const no[] = {"", "1a", "a.mch", "a.mcl.mch", "1 2", "a.mc"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        assert_true(mcz_list_is_arg(yes[i]));
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        assert_false(mcz_list_is_arg(no[i]));
    assert_false(mcz_list_is_arg(NULL));
}

/* Counts as every tool takes them (tool_parse_count). */
static void test_parse_count(void **state)
{
    (void)state;
    uint64_t v = 99;
    assert_int_equal(tool_parse_count("0", false, 0, 10, &v), MCZ_OK);
    assert_int_equal(v, 0);
    assert_int_equal(tool_parse_count("18446744073709551615", false, 0, UINT64_MAX, &v), MCZ_OK);
    assert_true(v == UINT64_MAX);
    assert_int_equal(tool_parse_count("4M", true, 1, UINT64_MAX, &v), MCZ_OK);
    assert_int_equal(v, 4u << 20);
    assert_int_equal(tool_parse_count("2kib", true, 1, UINT64_MAX, &v), MCZ_OK);
    assert_int_equal(v, 2048);
    assert_int_equal(tool_parse_count("1GB", true, 1, UINT64_MAX, &v), MCZ_OK);
    assert_int_equal(v, 1u << 30);
    v = 7;
    static const char *const bad[] = {"", "-1", "+1", " 1", "1 ", "1.5M", "4X", "4MBB", "0x10",
                                      "18446744073709551616", "17179869184G"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(tool_parse_count(bad[i], true, 0, UINT64_MAX, &v), MCZ_EINVAL);
    assert_int_equal(tool_parse_count("4M", false, 0, UINT64_MAX, &v), MCZ_EINVAL); /* no suffix */
    assert_int_equal(tool_parse_count("11", false, 0, 10, &v), MCZ_EINVAL);          /* > max */
    assert_int_equal(tool_parse_count("1K", true, 2048, 4096, &v), MCZ_EINVAL);      /* < min */
    assert_int_equal(tool_parse_count(NULL, true, 0, 1, &v), MCZ_EINVAL);
    assert_int_equal(v, 7); /* untouched by every refusal */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges),      cmocka_unit_test(test_range_rules),
        cmocka_unit_test(test_range_errors),
        cmocka_unit_test(test_mcl_text),    cmocka_unit_test(test_mcl_errors),
        cmocka_unit_test(test_encode),      cmocka_unit_test(test_encode_cap),
        cmocka_unit_test(test_from_arg),    cmocka_unit_test(test_is_arg),
        cmocka_unit_test(test_parse_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
