/* verb_recover.c - mcs -recover: rebuilds a complete archive from a damaged one. */
#include <inttypes.h>

#include "mcs_verbs.h"

const mcs_usage usage_recover = {
    "-recover IN.mcz OUT.mcz",
    "rebuild a complete archive from a damaged or truncated one",
    "Keeps every chunk that decodes and checks out (e.g. of a writer killed mid-run) and\n"
    "prints how many contexts were kept and lost. Fails only when nothing can be recovered.\n"};

int cmd_recover(int argc, char **argv)
{
    const char *pos[2];
    if (mcs_parse_args(argc, argv, &usage_recover, NULL, pos, 2, 2) < 0)
        return MCS_EXIT_USAGE;
    if (mcs_input_refuse_empty(pos[0]) != 0)
        return MCS_EXIT_FAIL;
    mcz_diag d;
    mcz_diag_clear(&d);
    uint64_t kept = 0, lost = 0;
    int rc = mcz_recover(pos[0], pos[1], &kept, &lost, &d);
    if (rc != MCZ_OK) {
        if (d.code == MCZ_OK)
            d.code = rc;
        mcs_error_diag(pos[0], &d);
        return MCS_EXIT_FAIL;
    }
    mcs_info("Recovered %" PRIu64 " contexts into %s; lost %" PRIu64, kept, pos[1], lost);
    if (lost)
        mcs_warn("%s: %" PRIu64 " contexts could not be recovered", pos[0], lost);
    return MCS_EXIT_OK;
}
