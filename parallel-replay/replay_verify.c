/*
 * replay_verify.c - the built-in replayer: a context passes when it survives mcs -integ's check
 * (tool_check_context: every packet, map, canary, pool and key order) and its method identity,
 * rebuilt from its packets, matches the one the collection stores (archive index or .mct). A
 * stored "no identity" (all zero) must be matched by a context that indeed lacks what the
 * identity needs (MCZ_EMISSING). Chunk checksums are verified by the cursor before any context
 * of a chunk is seen.
 */
#include <string.h>

#include "replay_int.h"

/* REPLAY_UNKNOWN_NOTE and the unknown ids, for a context that passed with some. */
static void note_unknown(const mcz_strict_report *r, char *msg, size_t cap)
{
    size_t used = (size_t)snprintf(msg, cap, "%s", REPLAY_UNKNOWN_NOTE);
    for (unsigned id = 0; id < 256 && used < cap; id++)
        if (r->unknown[id])
            used += (size_t)snprintf(msg + used, cap - used, "%sunknown(%u)",
                                     msg[used - 1] == ' ' ? "" : ", ", id);
}

int replay_verify_context(const replay_plan *p, const mcz_mc *mc, const replay_identity *stored,
                          bool strict, char *msg, size_t cap)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    tool_check check = {.strict = strict, .jit_ee = p->jit_ee};
    mcz_strict_report report;
    if (tool_check_context(&check, mc, &report, &d) != MCZ_OK) {
        snprintf(msg, cap, "check: %s", d.message);
        return REPLAY_FAILURE;
    }
    mcz_hash128 h;
    int rc = mcz_mc_identity_hash(stored->known ? p->stored_jit_ee : p->jit_ee, mc, false, &h, &d);
    if (rc != MCZ_OK && rc != MCZ_EMISSING) {
        snprintf(msg, cap, "identity: %s", d.message);
        return REPLAY_FAILURE;
    }
    char hex[33] = "";
    if (rc == MCZ_OK)
        mcz_hash_hex(&h, hex);
    if (!stored->known || strcmp(hex, stored->hex) == 0) {
        if (report.unknown_count)
            note_unknown(&report, msg, cap);
        return REPLAY_SUCCESS;
    }
    if (rc == MCZ_EMISSING)
        snprintf(msg, cap, "identity: stored %s but the context has none (%s)", stored->hex,
                 d.message);
    else if (!stored->hex[0])
        snprintf(msg, cap, "identity: stored none but the context has %s", hex);
    else
        snprintf(msg, cap, "identity: stored %s, recomputed %s", stored->hex, hex);
    return REPLAY_FAILURE;
}
