/*
 * replay_verify.c - the built-in replayer: a context passes when it survives the deep check
 * (every packet, map and canary) and its method identity, rebuilt from its packets, matches the
 * one the collection stores (archive index or .mct). A stored "no identity" (all zero) must be
 * matched by a context that indeed lacks what the identity needs (MCZ_EMISSING). Chunk checksums
 * are verified by the cursor before any context of a chunk is seen.
 */
#include <string.h>

#include "replay_int.h"

int replay_verify_context(const replay_plan *p, const mcz_mc *mc, const replay_identity *stored,
                          char *msg, size_t cap)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    if (mcz_mc_check(mc, &d) != MCZ_OK) {
        snprintf(msg, cap, "check: %s", d.message);
        return REPLAY_FAILURE;
    }
    mcz_hash128 h;
    int rc = mcz_mc_identity_hash(stored->known ? p->stored_jit_ee : p->jit_ee, mc, false, &h, &d);
    if (rc != MCZ_OK && rc != MCZ_EMISSING) {
        snprintf(msg, cap, "identity: %s", d.message);
        return REPLAY_FAILURE;
    }
    if (!stored->known)
        return REPLAY_SUCCESS;
    char hex[33] = "";
    if (rc == MCZ_OK)
        mcz_hash_hex(&h, hex);
    if (strcmp(hex, stored->hex) == 0)
        return REPLAY_SUCCESS;
    if (rc == MCZ_EMISSING)
        snprintf(msg, cap, "identity: stored %s but the context has none (%s)", stored->hex,
                 d.message);
    else if (!stored->hex[0])
        snprintf(msg, cap, "identity: stored none but the context has %s", hex);
    else
        snprintf(msg, cap, "identity: stored %s, recomputed %s", stored->hex, hex);
    return REPLAY_FAILURE;
}
