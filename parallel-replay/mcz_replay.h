/*
 * mcz_replay.h - the plugin ABI of mcz-replay.
 *
 * A replay plugin is a shared object that mcz-replay loads with `--plugin LIB.so` and calls once
 * per method context. It exports one function, mcz_replay_plugin(), returning a description of
 * itself. mcz-replay checks abi_version (1 or 2: MCZ_REPLAY_ABI_VERSION_MIN ..
 * MCZ_REPLAY_ABI_VERSION) and struct_size (at least that version's part of the struct) at load,
 * and refuses a plugin built for another ABI. A version 1 plugin ends its struct at finish.
 *
 * Version 2, asm diffs: a plugin whose diffs(arg) is nonzero makes the run an asm-diffs run, as
 * superpmi -a: replay_diff() replays each context with two JIT configurations and says per
 * context both results, whether the code differs, and metrics (code bytes, instructions,
 * PerfScore); mcz-replay counts Diffs, exits 2 on diffs, and writes superpmi's asm-diffs details
 * (with Base PerfScore and Diff PerfScore columns).
 *
 * Life cycle, per worker process (each worker is a fork of mcz-replay; the plugin state is never
 * shared between workers):
 *   state = init(arg, msg, cap)        once, after the fork; NULL = failure (msg says why)
 *   status = replay(state, number, bytes, size, msg, cap)   once per context, in number order
 *                                      within a work unit, on any worker
 *   finish(state)                      once, when the worker has no more work
 *
 * A context that makes replay() crash or run past --timeout is reported as crashed or timed out
 * and the worker is replaced: init() runs again in the new worker, so keep no state whose loss
 * matters. Output written to stdout or stderr appears on mcz-replay's stderr, line by line.
 *
 * Minimal plugin:
 *
 *   #include "mcz_replay.h"
 *   static void *init(const char *arg, char *msg, size_t cap) { (void)arg; (void)msg; (void)cap;
 *                                                               static int s; return &s; }
 *   static int replay(void *state, uint32_t number, const uint8_t *bytes, size_t size,
 *                     char *msg, size_t cap) { ...; return MCZ_REPLAY_SUCCESS; }
 *   static void finish(void *state) { (void)state; }
 *   static const mcz_replay_plugin_desc desc = {MCZ_REPLAY_ABI_VERSION,
 *       sizeof(mcz_replay_plugin_desc), "example", init, replay, finish};
 *   const mcz_replay_plugin_desc *mcz_replay_plugin(void) { return &desc; }
 *
 * Build: cc -shared -fPIC -Iparallel-replay -o example.so example.c
 */
#ifndef MCZ_REPLAY_H
#define MCZ_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change of mcz_replay_plugin_desc or of the calling contract. */
#define MCZ_REPLAY_ABI_VERSION 2u
/* The oldest version still loaded. */
#define MCZ_REPLAY_ABI_VERSION_MIN 1u

/* The symbol mcz-replay looks up in the plugin. */
#define MCZ_REPLAY_ENTRY_SYMBOL "mcz_replay_plugin"

/* What replay() returns for one context (SuperPMI's RESULT_SUCCESS / RESULT_ERROR /
 * RESULT_MISSING). Any other value is reported as a failure. */
typedef enum mcz_replay_status {
    MCZ_REPLAY_SUCCESS = 0, /* replayed as expected */
    MCZ_REPLAY_FAILURE = 1, /* replay failed (an assert, a crash the plugin caught, ...) */
    MCZ_REPLAY_MISSING = 2  /* the context lacks data the replay needs */
} mcz_replay_status;

/* What replay_diff() says of one context (zeroed before the call). */
typedef struct mcz_replay_diff {
    int base_status;            /* mcz_replay_status of the first configuration */
    int diff_status;            /* ... and of the second */
    int has_diff;               /* nonzero: the two code outputs differ */
    int minopts;                /* nonzero: compiled with MinOpts */
    uint64_t base_code_bytes, diff_code_bytes;
    uint64_t base_instructions, diff_instructions;
    double base_perfscore, diff_perfscore;
} mcz_replay_diff;

typedef struct mcz_replay_plugin_desc {
    uint32_t abi_version; /* MCZ_REPLAY_ABI_VERSION */
    uint32_t struct_size; /* sizeof(mcz_replay_plugin_desc) */
    const char *name;     /* for messages */

    /* arg: the --plugin-arg string, or "" when none was given. Returns the plugin's state (any
     * non-NULL pointer), or NULL after writing a one-line reason into msg (cap bytes with NUL). */
    void *(*init)(const char *arg, char *msg, size_t cap);

    /* number: the context's global 1-based number in the collection. bytes/size: the whole
     * serialized context ('m' 'c' u32 len packets '4' '2'), valid during the call only.
     * msg (cap bytes, starts empty): an optional one-line explanation, kept for non-success
     * results. Returns an mcz_replay_status. */
    int (*replay)(void *state, uint32_t number, const uint8_t *bytes, size_t size, char *msg,
                  size_t cap);

    /* Releases the state; may be NULL. */
    void (*finish)(void *state);

    /* ---- version 2 ---- */

    /* arg as init()'s. Nonzero: this run is an asm-diffs run, replay_diff() is called instead of
     * replay(). Called once, in mcz-replay before any worker starts. NULL: never. */
    int (*diffs)(const char *arg);

    /* As replay(), with both configurations: fills *out; msg is kept when either result is not
     * a success. Required when diffs() can be nonzero. */
    void (*replay_diff)(void *state, uint32_t number, const uint8_t *bytes, size_t size,
                        mcz_replay_diff *out, char *msg, size_t cap);
} mcz_replay_plugin_desc;

/* The size of a version 1 description. */
#define MCZ_REPLAY_DESC_V1_SIZE offsetof(mcz_replay_plugin_desc, diffs)

/* Exported by every plugin (name MCZ_REPLAY_ENTRY_SYMBOL). */
const mcz_replay_plugin_desc *mcz_replay_plugin(void);
typedef const mcz_replay_plugin_desc *(*mcz_replay_plugin_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* MCZ_REPLAY_H */
