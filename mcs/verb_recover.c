/* verb_recover.c - mcs -recover: rebuilds a complete archive from a damaged one, or from a
 * memory image (a core dump) of a process that ran a MEMORY writer. */
#include <inttypes.h>

#include "mcs_verbs.h"

const mcs_usage usage_recover = {
    "-recover IN OUT.mcz",
    "rebuild a complete archive from a damaged or truncated one, or from a core dump",
    "Keeps every chunk that decodes and checks out (e.g. of a writer killed mid-run) and\n"
    "prints how many contexts were kept and lost. IN may also be a core dump (gcore, or a\n"
    "crash's core file) or any memory image of a process collecting in MEMORY mode: the\n"
    "archive header, dictionary and chunks are found wherever they lie, chunks kept in\n"
    "context-number order, each once. Fails only when nothing can be recovered.\n"};

/* What an image scan found beside what it kept. */
static void report_image(const char *in_name, const char *out_name, const mcz_recovery *rep)
{
    tool_info("%s: memory image: recovered %" PRIu64 " contexts in %" PRIu64
              " chunks into %s; %" PRIu64 " duplicate chunk copies left out, %" PRIu64
              " chunks skipped (did not verify), %" PRIu64 " contexts missing between them",
              in_name, rep->contexts, rep->chunks, out_name, rep->duplicates, rep->skipped,
              rep->lost);
}

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
    mcz_recovery rep;
    int rc = mcz_recover_report(spooled ? spooled : pos[0], pos[1], &rep, &d);
    if (spooled)
        tool_diag_rename(&d, spooled, in_name);
    tool_spool_remove(spooled);
    if (rc != MCZ_OK) {
        if (d.code == MCZ_OK)
            d.code = rc;
        mcs_error_diag(in_name, &d);
        return MCS_EXIT_FAIL;
    }
    if (rep.image)
        report_image(in_name, tool_display_name(pos[1], true), &rep);
    else
        tool_info("Recovered %" PRIu64 " contexts into %s; lost %" PRIu64, rep.contexts,
                  tool_display_name(pos[1], true), rep.lost);
    if (rep.lost && !rep.image)
        tool_warn("%s: %" PRIu64 " contexts could not be recovered", in_name, rep.lost);
    return MCS_EXIT_OK;
}
