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
struct probe {
    mcz_lock *lock;
    bool held;
};

static void *held_here(void *arg)
{
    struct probe *p = arg;
    p->held = mcz_lock_held(p->lock);
    return NULL;
}

static bool held_by_another_thread(mcz_lock *l)
{
    mcz_thread t;
    struct probe p = {l, true};
    assert_int_equal(mcz_thread_create(&t, held_here, &p), 0);
    mcz_thread_join(&t);
    return p.held;
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
    mcz_cond cond;
    mcz_lock_init(&l);
    mcz_cond_init(&cond);
    mcz_lock_take(&l);
    mcz_lock_wait_until(&l, &cond, 0); /* monotonic time 0: already over, so it times out */
    assert_true(mcz_lock_held(&l));
    assert_false(held_by_another_thread(&l));
    mcz_lock_drop(&l);
    assert_false(mcz_lock_held(&l));
    mcz_cond_destroy(&cond);
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
