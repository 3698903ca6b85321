/*
 * test_diag.c - a diagnostic's parts as data (code, subject, offset, context, message) and the
 * one line every program prints for it: mcz_diag_format, and the tools' tool_where_text above it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mcz.h"
#include "../../tools/tool.h"

static const char *line(const mcz_diag *d)
{
    static char buf[MCZ_DIAG_LINE_SIZE];
    return mcz_diag_format(d, buf, sizeof buf);
}

static void failed(mcz_diag *d, int64_t offset, int64_t context, const char *subject)
{
    mcz_diag_set(d, MCZ_ECORRUPT, mcz_at_offset(offset), mcz_in_context(context), "bad magic");
    mcz_diag_set_subject(d, subject);
}

/* Each part present or absent: the line says exactly the parts the diag holds. */
static void test_format_parts(void **state)
{
    (void)state;
    mcz_diag d;
    failed(&d, 42, 7, "x.mch");
    assert_string_equal(line(&d), "x.mch: context 7 at offset 42: bad magic");
    failed(&d, 42, -1, "x.mch");
    assert_string_equal(line(&d), "x.mch: at offset 42: bad magic");
    failed(&d, 0, -1, "x.mch"); /* offset 0 is a place, not "none" */
    assert_string_equal(line(&d), "x.mch: at offset 0: bad magic");
    failed(&d, -1, 7, "x.mch");
    assert_string_equal(line(&d), "x.mch: context 7: bad magic");
    failed(&d, -1, 0, "x.mch"); /* context numbers start at 1 */
    assert_string_equal(line(&d), "x.mch: bad magic");
    failed(&d, -1, -1, "http://h/a.mcz");
    assert_string_equal(line(&d), "http://h/a.mcz: bad magic");
}

/* Without a subject (a buffer's parser does not know the file) the line starts at the location. */
static void test_format_without_subject(void **state)
{
    (void)state;
    mcz_diag d;
    failed(&d, 42, 7, NULL);
    assert_string_equal(d.subject, "");
    assert_string_equal(line(&d), "context 7 at offset 42: bad magic");
    failed(&d, -1, -1, NULL);
    assert_string_equal(line(&d), "bad magic");
    mcz_diag_set(&d, MCZ_EIO, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "x.mcz: cannot map");
    assert_string_equal(line(&d), "x.mcz: cannot map");
}

/* An empty message is the code's name; a cleared diag has no part at all. */
static void test_format_empty_message(void **state)
{
    (void)state;
    mcz_diag d;
    mcz_diag_clear(&d);
    assert_int_equal(d.offset, -1);
    assert_int_equal(d.context, -1);
    assert_string_equal(d.subject, "");
    assert_string_equal(line(&d), mcz_error_name(MCZ_OK));
    d.code = MCZ_ETRUNCATED;
    mcz_diag_set_subject(&d, "y.mcz");
    assert_string_equal(line(&d), "y.mcz: truncated input");
}

/* A failure is described anew: mcz_diag_set empties the subject a former one left. */
static void test_set_empties_subject(void **state)
{
    (void)state;
    mcz_diag d;
    failed(&d, 1, 2, "old.mch");
    mcz_diag_set(&d, MCZ_EINVAL, MCZ_NO_OFFSET, MCZ_NO_CONTEXT, "new");
    assert_string_equal(d.subject, "");
    assert_int_equal(d.offset, -1);
    assert_int_equal(d.context, -1);
    mcz_diag_set_subject(NULL, "ignored");                /* no diag: nothing */
    mcz_diag_set_subject(&d, NULL);                       /* NULL: none */
    assert_string_equal(d.subject, "");
}

/* A long subject and a small buffer are cut, never overrun, always terminated. */
static void test_format_cuts(void **state)
{
    (void)state;
    mcz_diag d;
    char name[2 * sizeof d.subject];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    failed(&d, 5, 6, name);
    assert_int_equal(strlen(d.subject), sizeof d.subject - 1);
    char small[12];
    memset(small, 'z', sizeof small);
    assert_ptr_equal(mcz_diag_format(&d, small, sizeof small), small);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_int_equal(strncmp(small, "aaaaaaaaaaa", sizeof small - 1), 0);
    char none[1] = {'z'};
    mcz_diag_format(&d, none, 0); /* cap 0: not a byte written */
    assert_int_equal(none[0], 'z');
    char whole[MCZ_DIAG_LINE_SIZE];
    mcz_diag_format(&d, whole, sizeof whole);
    assert_non_null(strstr(whole, ": context 6 at offset 5: bad magic"));
}

/* The tools: the location is the program's, the subject the library's when it named one, the
 * program's file when it did not, and a message that names the file itself is left whole. */
static void test_tool_where_text(void **state)
{
    (void)state;
    mcz_diag d;
    char buf[MCZ_DIAG_LINE_SIZE];
    failed(&d, 42, 7, NULL);
    tool_where at = {"x.mch", -1, 7, 42};
    assert_string_equal(tool_where_text(&at, &d, buf, sizeof buf),
                        "x.mch: context 7 at offset 42: bad magic");
    at = (tool_where){"x.mcz", 3, -1, -1}; /* an archive's damage: by its chunk */
    assert_string_equal(tool_where_text(&at, &d, buf, sizeof buf), "x.mcz: chunk 3: bad magic");
    at = (tool_where){NULL, -1, -1, 42}; /* a context's own line: its number said already */
    assert_string_equal(tool_where_text(&at, &d, buf, sizeof buf), "at offset 42: bad magic");
    failed(&d, -1, -1, "list.mcl"); /* the library's subject before the program's */
    at = (tool_where){"-c", -1, -1, -1};
    assert_string_equal(tool_where_text(&at, &d, buf, sizeof buf), "list.mcl: bad magic");
    mcz_diag_set(&d, MCZ_EIO, mcz_at_offset(9), MCZ_NO_CONTEXT, "cannot map");
    mcz_diag_set_subject(&d, "/tmp/spool.1"); /* the library's subject before the program's path */
    at = (tool_where){"x.mcz", -1, -1, 9};
    assert_string_equal(tool_where_text(&at, &d, buf, sizeof buf),
                        "/tmp/spool.1: at offset 9: cannot map");
}

/* A spooled "-" is named as the user wrote it: the subject when the library set one. */
static void test_tool_diag_rename(void **state)
{
    (void)state;
    mcz_diag d;
    failed(&d, -1, -1, "/tmp/spool.1");
    tool_diag_rename(&d, "/tmp/spool.1", "-");
    assert_string_equal(d.subject, "-");
    assert_string_equal(d.message, "bad magic");
    tool_diag_name(&d, "other"); /* named already: kept */
    assert_string_equal(d.subject, "-");
    failed(&d, -1, -1, NULL);
    tool_diag_name(&d, "x.mch");
    assert_string_equal(d.subject, "x.mch");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_parts),
        cmocka_unit_test(test_format_without_subject),
        cmocka_unit_test(test_format_empty_message),
        cmocka_unit_test(test_set_empties_subject),
        cmocka_unit_test(test_format_cuts),
        cmocka_unit_test(test_tool_where_text),
        cmocka_unit_test(test_tool_diag_rename),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
