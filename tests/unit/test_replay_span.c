/*
 * test_replay_span.c - how many units an --exec command gets (parallel-replay/replay_span.c):
 * one, then four times the last while the commands' times cannot tell a start from the cost per
 * context; then what makes a start 2% of a command, within the bound and a worker's share of
 * what remains (not cut below a start's worth of work), adjacent units only; a start the
 * samples put at or below nothing counts as unknown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "replay_proc.h"

#define UNITS 64
#define UNIT_BYTES (4u << 20)
#define UNIT_CONTEXTS 350

static replay_unit units[UNITS];

/* 64 adjacent units of 4 MiB and 350 contexts each. */
static replay_plan plan_of(void)
{
    for (uint32_t i = 0; i < UNITS; i++)
        units[i] = (replay_unit){.first = 1 + i * UNIT_CONTEXTS, .count = UNIT_CONTEXTS,
                                 .selected = UNIT_CONTEXTS, .chunk = i, .chunks = 1,
                                 .raw_bytes = UNIT_BYTES};
    replay_plan p = {.units = units, .unit_count = UNITS};
    return p;
}

static void test_ramps_while_unknown(void **state)
{
    (void)state;
    replay_plan p = plan_of();
    replay_span_model m = {0};
    assert_int_equal(replay_span_next(&m, &p, 0, 0, 64u << 20, 2), 1);
    assert_int_equal(replay_span_next(&m, &p, 1, 1, 64u << 20, 2), 4);
    /* samples of one size tell nothing yet */
    replay_span_sample(&m, UNIT_CONTEXTS, 0.1);
    replay_span_sample(&m, UNIT_CONTEXTS, 0.1);
    assert_int_equal(replay_span_next(&m, &p, 5, 2, 64u << 20, 2), 8);
    /* nor of nearly one size (two units of a few contexts more or less): no line of noise */
    replay_span_sample(&m, UNIT_CONTEXTS + 4, 0.3);
    assert_int_equal(replay_span_next(&m, &p, 5, 2, 64u << 20, 2), 8);
    /* the bound still holds while ramping: 16 units of 4 MiB */
    assert_int_equal(replay_span_next(&m, &p, 5, 8, 64u << 20, 2), 16);
}

static void test_dear_start_fills_the_bound(void **state)
{
    (void)state;
    replay_plan p = plan_of();
    replay_span_model m = {0};
    /* a start of 80 ms, 0.04 ms a context: 50 S / c = 100,000 contexts, more than 64M holds */
    replay_span_sample(&m, 350, 0.080 + 350 * 0.00004);
    replay_span_sample(&m, 700, 0.080 + 700 * 0.00004);
    assert_int_equal(replay_span_next(&m, &p, 0, 2, 64u << 20, 2), 16);
    assert_int_equal(replay_span_next(&m, &p, 0, 2, 16u << 20, 2), 4);
}

static void test_cheap_start_gives_small_commands(void **state)
{
    (void)state;
    replay_plan p = plan_of();
    replay_span_model m = {0};
    /* a start of 1 ms, 1 ms a context: 50 contexts would do, a unit is the least */
    replay_span_sample(&m, 350, 0.001 + 350 * 0.001);
    replay_span_sample(&m, 1400, 0.001 + 1400 * 0.001);
    assert_int_equal(replay_span_next(&m, &p, 10, 4, 64u << 20, 2), 1);
    /* a start of 100 ms at 1 ms a context: 5,000 contexts, 15 units */
    replay_span_model dear = {0};
    replay_span_sample(&dear, 350, 0.1 + 350 * 0.001);
    replay_span_sample(&dear, 1400, 0.1 + 1400 * 0.001);
    assert_int_equal(replay_span_next(&dear, &p, 10, 4, 64u << 20, 2), 15);
}

static void test_share_and_adjacency(void **state)
{
    (void)state;
    replay_plan p = plan_of();
    replay_span_model m = {0};
    /* a start of 100 ms, 1 ms a context: 5,000 contexts a command, a start's worth is 100 */
    replay_span_sample(&m, 350, 0.1 + 350 * 0.001);
    replay_span_sample(&m, 1400, 0.1 + 1400 * 0.001);
    /* 4 units left, 2 workers: at most 2 each */
    assert_int_equal(replay_span_next(&m, &p, 60, 8, 64u << 20, 2), 2);
    /* a gap after unit 5 (a -c selection kept no unit between): the span stops there */
    units[6].first += 1000;
    assert_int_equal(replay_span_next(&m, &p, 3, 8, 64u << 20, 2), 3);
    /* no bound: a unit each; past the end: one */
    assert_int_equal(replay_span_next(&m, &p, 3, 8, 0, 2), 1);
    assert_int_equal(replay_span_next(&m, &p, UNITS, 8, 64u << 20, 2), 1);
}

static void test_share_not_below_a_start(void **state)
{
    (void)state;
    replay_plan p = plan_of();
    replay_span_model m = {0};
    /* a start of 80 ms, 0.04 ms a context: a start is worth 2,000 contexts, more than the 4
     * units left (1,400): halving them again for a second worker costs more in its start than
     * it balances, so the last command takes them all */
    replay_span_sample(&m, 350, 0.080 + 350 * 0.00004);
    replay_span_sample(&m, 700, 0.080 + 700 * 0.00004);
    assert_int_equal(replay_span_next(&m, &p, 60, 8, 64u << 20, 2), 4);
    /* with 20 units left (7,000 contexts) a share (10 units, 3,500) is worth its start */
    assert_int_equal(replay_span_next(&m, &p, 44, 8, 64u << 20, 2), 10);
}

static void test_start_at_or_below_nothing(void **state)
{
    (void)state;
    replay_plan p = plan_of();
    replay_span_model m = {0};
    /* commands measured beside other work: 350 contexts in 0.22 s, 1,400 in 0.94 s, a line
     * through nothing (a start of -0.02 s): noise, not a free start, so the commands keep
     * growing (four times the last) instead of shrinking to one unit each */
    replay_span_sample(&m, 350, 0.22);
    replay_span_sample(&m, 1400, 0.94);
    assert_int_equal(replay_span_next(&m, &p, 10, 4, 64u << 20, 2), 16);
    assert_int_equal(replay_span_next(&m, &p, 10, 1, 64u << 20, 2), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ramps_while_unknown),
        cmocka_unit_test(test_dear_start_fills_the_bound),
        cmocka_unit_test(test_cheap_start_gives_small_commands),
        cmocka_unit_test(test_share_and_adjacency),
        cmocka_unit_test(test_share_not_below_a_start),
        cmocka_unit_test(test_start_at_or_below_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
