/*
 * test_threads.c - platform/threads.h, the writer's threads and their waits, on whichever
 * implementation this build has (pthreads, or Win32's own primitives under Wine): a thread
 * runs its function on its argument; a condition wakes its waiters; a semaphore counts its
 * posts; waits until a deadline return at a deadline that is over.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../platform/platform.h"
#include "../../platform/threads.h"

#define WAITERS 4

struct shared {
    mcz_mutex mutex;
    mcz_cond cond;
    mcz_sem sem;
    bool go;
    int woken;
};

static void *add_one(void *arg)
{
    int *n = arg;
    (*n)++;
    return NULL;
}

static void test_thread_runs_its_function(void **state)
{
    (void)state;
    int n = 41;
    mcz_thread t;
    assert_int_equal(mcz_thread_create(&t, add_one, &n), 0);
    mcz_thread_join(&t);
    assert_int_equal(n, 42);
}

/* Waits for go under the mutex, counts itself, posts the semaphore. */
static void *waiter(void *arg)
{
    struct shared *s = arg;
    mcz_mutex_lock(&s->mutex);
    while (!s->go)
        mcz_cond_wait(&s->cond, &s->mutex);
    s->woken++;
    mcz_mutex_unlock(&s->mutex);
    mcz_sem_post(&s->sem);
    return NULL;
}

static void test_broadcast_wakes_every_waiter(void **state)
{
    (void)state;
    struct shared s = {.go = false, .woken = 0};
    mcz_mutex_init(&s.mutex);
    mcz_cond_init(&s.cond);
    assert_int_equal(mcz_sem_init(&s.sem, 0), 0);
    mcz_thread t[WAITERS];
    for (int i = 0; i < WAITERS; i++)
        assert_int_equal(mcz_thread_create(&t[i], waiter, &s), 0);
    mcz_mutex_lock(&s.mutex);
    s.go = true;
    mcz_cond_broadcast(&s.cond);
    mcz_mutex_unlock(&s.mutex);
    for (int i = 0; i < WAITERS; i++)
        mcz_sem_wait(&s.sem); /* one post per waiter: returns only when all have run */
    for (int i = 0; i < WAITERS; i++)
        mcz_thread_join(&t[i]);
    assert_int_equal(s.woken, WAITERS);
    mcz_sem_destroy(&s.sem);
    mcz_cond_destroy(&s.cond);
    mcz_mutex_destroy(&s.mutex);
}

/* Deadlines already over: the waits return (a wait that did not would hang the test). */
static void test_waits_end_at_their_deadline(void **state)
{
    (void)state;
    mcz_mutex m;
    mcz_cond c;
    mcz_sem s;
    mcz_mutex_init(&m);
    mcz_cond_init(&c);
    assert_int_equal(mcz_sem_init(&s, 0), 0);
    mcz_mutex_lock(&m);
    mcz_cond_wait_until(&c, &m, 0);
    mcz_cond_wait_until(&c, &m, mcz_os_monotonic_ns() + 1000000u); /* 1 ms on */
    mcz_mutex_unlock(&m);
    mcz_sem_wait_until(&s, mcz_os_monotonic_ns());
    mcz_sem_post(&s);
    mcz_sem_wait_until(&s, UINT64_MAX / 2); /* posted: returns at once, far deadline or not */
    mcz_sem_destroy(&s);
    mcz_cond_destroy(&c);
    mcz_mutex_destroy(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thread_runs_its_function),
        cmocka_unit_test(test_broadcast_wakes_every_waiter),
        cmocka_unit_test(test_waits_end_at_their_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
