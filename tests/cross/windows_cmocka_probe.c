/*
 * The unit tests' runner for Windows, proved before the unit tests themselves compile there
 * (tests/cross/run-windows.sh): cmocka, as .ci/deps-windows.sh builds it, under Wine, its
 * counts read as those of the unit tests will be. With MCZ_PROBE_FAIL set in the environment
 * (Wine passes it on) one test fails, so that the runner shows it notices a failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

static void test_arithmetic(void **state)
{
    (void)state;
    assert_int_equal(6 * 7, 42);
}

static void test_strings(void **state)
{
    (void)state;
    assert_string_equal("mcz", "mcz");
}

static void test_fails_when_asked(void **state)
{
    (void)state;
    assert_null(getenv("MCZ_PROBE_FAIL"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arithmetic),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_fails_when_asked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
