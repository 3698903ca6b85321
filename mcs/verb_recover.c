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
    const char *in_name = tool_display_name(pos[0], false);
    char err[TOOL_ERROR_SIZE];
    char *spooled = NULL;
    if (tool_input_is_stream(pos[0]) && !(spooled = tool_spool(pos[0], err))) {
        tool_error("%s", err);
        return MCS_EXIT_FAIL;
    }
    if (!spooled)
        tool_note_input(pos[0]);
    if (mcs_output_check(pos[1]) != 0) {
        tool_spool_remove(spooled);
        return MCS_EXIT_FAIL;
    }
    mcz_diag d;
    mcz_diag_clear(&d);
    uint64_t kept = 0, lost = 0;
    int rc = mcz_recover(spooled ? spooled : pos[0], pos[1], &kept, &lost, &d);
    if (spooled)
        tool_diag_rename(&d, spooled, in_name);
    tool_spool_remove(spooled);
    if (rc != MCZ_OK) {
        if (d.code == MCZ_OK)
            d.code = rc;
        mcs_error_diag(in_name, &d);
        return MCS_EXIT_FAIL;
    }
    tool_info("Recovered %" PRIu64 " contexts into %s; lost %" PRIu64, kept,
             tool_display_name(pos[1], true), lost);
    if (lost)
        tool_warn("%s: %" PRIu64 " contexts could not be recovered", in_name, lost);
    return MCS_EXIT_OK;
}
