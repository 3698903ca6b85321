/*
 * replay_test_plugin.c - a replay plugin for tests/cli/test_replay.sh, and an example of the
 * plugin ABI (mcz_replay.h). Its --plugin-arg says what to do with which context:
 *
 *   fail:N  missing:N  segv:N  hang:N  exit:N   (comma-separated; N a global context number)
 *   fault:N                                     a store to an unmapped address (a real fault:
 *                                               SIGSEGV, or on Windows an access violation,
 *                                               where raise(SIGSEGV) just exits)
 *   failall                                     every other context fails, with a message as
 *                                               long as the ABI allows
 *   spin:US                                     every context first keeps the CPU busy for US
 *                                               microseconds, as a JIT would (benchmarks)
 *   initfail                                    init() fails
 *   diff                                        an asm-diffs run (ABI version 2): the rules
 *                                               above give the first configuration's result;
 *                                               the second fails where h % 13 == 0, misses
 *                                               where h % 13 == 1, and the code differs where
 *                                               both succeed and h / 13 % 4 == 0 (h: FNV-1a
 *                                               of the context's bytes)
 *
 * Without --plugin-arg the rules come from the environment variable REPLAY_TEST_RULES, so a
 * command written for any plugin (the README's cluster examples) runs with rules unchanged.
 * hang prints "hanging on N" first. Every other context succeeds when it starts with the
 * 'm' 'c' magic.
 *
 * Build: cc -shared -fPIC -Iparallel-replay -o test_plugin.so replay_test_plugin.c
 */
#define _POSIX_C_SOURCE 200809L /* strdup, strtok_r */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcz_replay.h"

enum { ACT_FAIL, ACT_MISSING, ACT_SEGV, ACT_HANG, ACT_EXIT, ACT_FAULT, ACT_COUNT };

static const char *const act_names[ACT_COUNT] = {"fail", "missing", "segv", "hang", "exit",
                                                  "fault"};

#define MAX_RULES 64

typedef struct rules {
    int n;
    bool fail_all;
    uint32_t spin_us;
    int act[MAX_RULES];
    uint32_t number[MAX_RULES];
} rules;

static int parse_rule(rules *r, const char *item, char *msg, size_t cap)
{
    if (strcmp(item, "diff") == 0)
        return 0;
    if (strcmp(item, "failall") == 0) {
        r->fail_all = true;
        return 0;
    }
    if (strncmp(item, "spin:", 5) == 0) {
        r->spin_us = (uint32_t)strtoul(item + 5, NULL, 10);
        return 0;
    }
    for (int a = 0; a < ACT_COUNT; a++) {
        size_t len = strlen(act_names[a]);
        if (strncmp(item, act_names[a], len) == 0 && item[len] == ':' && r->n < MAX_RULES) {
            r->act[r->n] = a;
            r->number[r->n++] = (uint32_t)strtoul(item + len + 1, NULL, 10);
            return 0;
        }
    }
    snprintf(msg, cap, "bad rule '%s'", item);
    return -1;
}

static void *test_init(const char *arg, char *msg, size_t cap)
{
    if (!*arg && getenv("REPLAY_TEST_RULES"))
        arg = getenv("REPLAY_TEST_RULES");
    if (strcmp(arg, "initfail") == 0) {
        snprintf(msg, cap, "asked to fail");
        return NULL;
    }
    rules *r = calloc(1, sizeof *r);
    char *copy = strdup(arg);
    if (!r || !copy) {
        free(r);
        free(copy);
        return NULL;
    }
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (parse_rule(r, item, msg, cap) != 0) {
            free(copy);
            free(r);
            return NULL;
        }
    }
    free(copy);
    return r;
}

/* Busy for us microseconds of this thread's CPU time: a stand-in for compiling a method. */
static void spin(uint32_t us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < (long)us);
}

static int test_replay(void *state, uint32_t number, const uint8_t *bytes, size_t size,
                       char *msg, size_t cap)
{
    const rules *r = state;
    if (r->spin_us)
        spin(r->spin_us);
    for (int i = 0; i < r->n; i++) {
        if (r->number[i] != number)
            continue;
        switch (r->act[i]) {
        case ACT_FAIL:
            snprintf(msg, cap, "planned failure of %u", number);
            return MCZ_REPLAY_FAILURE;
        case ACT_MISSING:
            snprintf(msg, cap, "planned missing data in %u", number);
            return MCZ_REPLAY_MISSING;
        case ACT_SEGV:
            raise(SIGSEGV);
            break;
        case ACT_HANG:
            printf("hanging on %u\n", number); /* tests wait for this line */
            fflush(stdout);
            for (;;)
                sleep(1);
        case ACT_EXIT:
            _exit(7);
        case ACT_FAULT: {
            volatile uintptr_t unmapped = 16; /* volatile: not a null store the compiler sees */
            *(volatile int *)unmapped = 1;
            break;
        }
        }
    }
    if (r->fail_all) {
        int len = snprintf(msg, cap, "planned failure of %u:", number);
        if (len >= 0 && (size_t)len < cap - 1) {
            memset(msg + len, 'x', cap - 1 - (size_t)len);
            msg[cap - 1] = '\0';
        }
        return MCZ_REPLAY_FAILURE;
    }
    if (size < 8 || bytes[0] != 'm' || bytes[1] != 'c') {
        snprintf(msg, cap, "not a method context");
        return MCZ_REPLAY_FAILURE;
    }
    return MCZ_REPLAY_SUCCESS;
}

static void test_finish(void *state) { free(state); }

static int test_diffs(const char *arg)
{
    size_t len = strlen(arg);
    return strcmp(arg, "diff") == 0 || strncmp(arg, "diff,", 5) == 0 ||
           (len >= 5 && strcmp(arg + len - 5, ",diff") == 0) || strstr(arg, ",diff,") != NULL;
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static void test_replay_diff(void *state, uint32_t number, const uint8_t *bytes, size_t size,
                             mcz_replay_diff *out, char *msg, size_t cap)
{
    uint64_t h = fnv(bytes, size);
    out->base_status = test_replay(state, number, bytes, size, msg, cap);
    out->diff_status = h % 13 == 0 ? MCZ_REPLAY_FAILURE : h % 13 == 1 ? MCZ_REPLAY_MISSING
                                                                       : MCZ_REPLAY_SUCCESS;
    bool ok = out->base_status == MCZ_REPLAY_SUCCESS && out->diff_status == MCZ_REPLAY_SUCCESS;
    out->has_diff = ok && h / 13 % 4 == 0;
    out->minopts = (int)(h >> 9 & 1);
    out->base_code_bytes = h >> 20 & 1023;
    out->diff_code_bytes = out->base_code_bytes + (out->has_diff ? 6 : 0);
    out->base_instructions = h >> 32 & 65535;
    out->diff_instructions = out->base_instructions + (out->has_diff ? 11 : 0);
    out->base_perfscore = (double)out->base_code_bytes * 0.5;
    out->diff_perfscore = (double)out->diff_code_bytes * 0.5;
}

static const mcz_replay_plugin_desc test_desc = {
    MCZ_REPLAY_ABI_VERSION, sizeof(mcz_replay_plugin_desc), "test", test_init, test_replay,
    test_finish, test_diffs, test_replay_diff,
};

const mcz_replay_plugin_desc *mcz_replay_plugin(void) { return &test_desc; }
