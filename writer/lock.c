/*
 * lock.c - the thread token lock.h records as a mutex's holder in debug builds.
 */
#include "lock.h"

#ifndef NDEBUG
uintptr_t mcz_lock_self(void)
{
    static _Thread_local char self;
    return (uintptr_t)&self;
}
#endif
