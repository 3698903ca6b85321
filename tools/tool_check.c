/*
 * tool_check.c - the strict check every verifying program runs on a context, and the warning
 * about the packet ids it does not know, counted over a run.
 */
#include <inttypes.h>
#include <string.h>

#include "tool.h"

void tool_check_count(tool_check *c, uint32_t number, const mcz_strict_report *report)
{
    for (unsigned id = 0; report->unknown_count && id < 256; id++)
        if (report->unknown[id] && c->unknown[id]++ == 0)
            c->first_unknown[id] = number;
}

int tool_check_context(tool_check *c, const mcz_mc *mc, mcz_strict_report *report, mcz_diag *d)
{
    mcz_strict_report local;
    if (!report)
        report = &local;
    int rc = mcz_mc_check_strict(c->jit_ee, mc, report, d);
    if (rc == MCZ_OK && c->strict)
        rc = mcz_strict_unknown_fail(mc, report, d);
    if (rc == MCZ_OK)
        tool_check_count(c, mc->number, report);
    return rc;
}

void tool_check_warn(const tool_check *c)
{
    for (unsigned id = 0; id < 256; id++)
        if (c->unknown[id])
            tool_warn("packet unknown(%u) in %" PRIu64 " context%s (first: context %" PRIu32
                      "): not in the packet table, not checked (--strict: an error)",
                      id, c->unknown[id], c->unknown[id] == 1 ? "" : "s", c->first_unknown[id]);
}
