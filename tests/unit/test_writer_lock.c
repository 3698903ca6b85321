/*
 * test_writer_lock.c - the writer's mutex records its holder in debug builds (writer/lock.h), so
 * the "lock held" contracts of writer/ are assertions: held by the thread that took it, not by
 * another thread, not after it is given back, and again after a wait on a condition.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../writer/lock.h"

#ifndef NDEBUG
static void *held_here(void *arg)
{
    return (void *)(uintptr_t)mcz_lock_held(arg);
}

static bool held_by_another_thread(mcz_lock *l)
{
    pthread_t t;
    void *held = NULL;
    assert_int_equal(pthread_create(&t, NULL, held_here, l), 0);
    pthread_join(t, &held);
    return (uintptr_t)held != 0;
}

static void test_holder_recorded(void **state)
{
    (void)state;
    mcz_lock l;
    mcz_lock_init(&l);
    assert_false(mcz_lock_held(&l));
    mcz_lock_take(&l);
    assert_true(mcz_lock_held(&l));
    assert_false(held_by_another_thread(&l));
    mcz_lock_drop(&l);
    assert_false(mcz_lock_held(&l));
    mcz_lock_destroy(&l);
}

/* A wait gives the mutex up and takes it back: the holder is this thread again afterwards. */
static void test_wait_takes_it_back(void **state)
{
    (void)state;
    mcz_lock l;
    pthread_cond_t cond;
    mcz_lock_init(&l);
    pthread_cond_init(&cond, NULL);
    mcz_lock_take(&l);
    struct timespec past = {0, 0}; /* CLOCK_MONOTONIC 0: already over, so it times out */
    mcz_lock_wait_until(&l, &cond, &past);
    assert_true(mcz_lock_held(&l));
    assert_false(held_by_another_thread(&l));
    mcz_lock_drop(&l);
    assert_false(mcz_lock_held(&l));
    pthread_cond_destroy(&cond);
    mcz_lock_destroy(&l);
}
#endif

int main(void)
{
#ifndef NDEBUG
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_holder_recorded),
        cmocka_unit_test(test_wait_takes_it_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
#else
    return 0; /* a release build records no holder */
#endif
}
