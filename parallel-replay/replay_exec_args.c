/*
 * replay_exec_args.c - an --exec command's words read as superpmi's command line reads them,
 * through the one table of superpmi's switches (tools/tool_spmi.h): its prefix and case rules,
 * its order (so -a is -applyDiff, -f -failingMCList, -d -details), and the words a switch takes
 * as its value, which are not switches.
 */
#include <stdio.h>
#include <string.h>

#include "replay_exec.h"
#include "tool_spmi.h"

/* What mcz-replay does instead of a switch that shapes the whole run. */
static const char *run_instead(tool_spmi_id id)
{
    if (id == TOOL_SPMI_PARALLEL)
        return "mcz-replay's -j N sets the workers";
    if (id == TOOL_SPMI_FAILURE_LIMIT)
        return "mcz-replay's --failure-limit N counts over the whole run";
    return "a unit has no streaming session; give superpmi the .mch";
}

int exec_args_check(char *const argv[], replay_style *style, char *why, size_t cap)
{
    *style = REPLAY_STYLE_SPMI_REPLAY;
    for (size_t i = 1; argv[i]; i++) {
        if (argv[i][0] != '-' || !argv[i][1])
            continue;
        const tool_spmi_switch *s = tool_spmi_lookup(argv[i] + 1);
        if (!s)
            continue;
        if (s->role == TOOL_SPMI_OUTPUT) {
            snprintf(why, cap, "--exec: %s (superpmi's -%s) would write one file for every unit "
                     "at once; leave it out (mcz-replay's -f and --details are the merged "
                     "outputs)", argv[i], s->name);
            return MCZ_EINVAL;
        }
        if (s->role == TOOL_SPMI_SELECT) {
            snprintf(why, cap, "--exec: %s (superpmi's -%s) selects contexts by a unit's own "
                     "numbers; use mcz-replay's -c", argv[i], s->name);
            return MCZ_EINVAL;
        }
        if (s->role == TOOL_SPMI_RUN) {
            snprintf(why, cap, "--exec: %s (superpmi's -%s) would apply to every unit apart; %s",
                     argv[i], s->name, run_instead(s->id));
            return MCZ_EINVAL;
        }
        if (s->role == TOOL_SPMI_DIFF)
            *style = REPLAY_STYLE_SPMI_DIFFS;
        for (size_t n = tool_spmi_value_words(s, argv, i); n && argv[i + 1]; n--)
            i++;
    }
    return MCZ_OK;
}
