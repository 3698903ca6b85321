/* verb_jitflags.c - mcs -jitflags: which JIT flag combinations a collection holds. */
#include <inttypes.h>
#include <stdlib.h>
#include <search.h>
#include <string.h>

#include "mcs_context.h"
#include "mcs_verbs.h"

const mcs_usage usage_jitflags = {
    "-jitflags FILE",
    "summarize the JIT flags used",
    "Prints each distinct combination of JIT flags (GetJitFlags, with mcs's PGO pseudo-flags\n"
    "HAS_PGO, HAS_EDGE_PROFILE... added) with its count and share, in the order SuperPMI lists\n"
    "them (memcmp order of the little-endian bytes), then how often each single flag appears.\n"
    "Contexts without GetJitFlags are left out and counted in a warning.\n"};

typedef struct flag_combo {
    uint64_t order; /* the flags byte-swapped: numeric order = memcmp order of the LE bytes */
    uint64_t flags;
    uint32_t count;
} flag_combo;

typedef struct flag_stats {
    void *combos; /* a tsearch tree of flag_combo, ordered by order */
    uint32_t contexts, without;
    uint32_t bits[64];
} flag_stats;

static int combo_compare(const void *a, const void *b)
{
    uint64_t x = ((const flag_combo *)a)->order, y = ((const flag_combo *)b)->order;
    return (x > y) - (x < y);
}

static int combo_add(flag_stats *s, uint64_t flags)
{
    flag_combo probe = {__builtin_bswap64(flags), flags, 0};
    flag_combo **found = tfind(&probe, &s->combos, combo_compare);
    if (found) {
        (*found)->count++;
        return 0;
    }
    flag_combo *c = malloc(sizeof *c);
    if (!c)
        return -1;
    *c = probe;
    c->count = 1;
    if (!tsearch(c, &s->combos, combo_compare)) {
        free(c);
        return -1;
    }
    return 0;
}

static int collect_one(void *stats, mcs_input *in, const mcz_mc *mc)
{
    (void)in;
    flag_stats *s = stats;
    mcz_diag d;
    mcz_diag_clear(&d);
    uint64_t flags = 0;
    int found = mcs_jit_flags(mc, &flags, &d);
    if (found < 0) { /* mcz_mc_check passed: cannot happen, but never print garbage */
        tool_error("context %" PRIu32 ": %s", mc->number, d.message);
        return -1;
    }
    if (found == 0) {
        s->without++;
        return 0;
    }
    if (combo_add(s, flags) != 0) {
        tool_error("out of memory");
        return -1;
    }
    s->contexts++;
    for (unsigned b = 0; b < 64; b++)
        s->bits[b] += (flags >> b) & 1;
    return 0;
}

static double percent(uint32_t count, uint32_t total)
{
    return total ? 100.0 * count / total : 0.0;
}

/* twalk has no argument for its callback: the total the shares are of. */
static uint32_t grouped_total;

static void print_combo(const void *node, VISIT when, int depth)
{
    (void)depth;
    if (when != postorder && when != leaf)
        return;
    const flag_combo *c = *(const flag_combo *const *)node;
    char text[1024];
    mcs_jit_flags_text(c->flags, text, sizeof text);
    printf("%016" PRIx64 " %8u %7.2f%% %s\n", c->flags, c->count,
           percent(c->count, grouped_total), text);
}

static void report(const flag_stats *s)
{
    char text[1024];
    printf("\nGrouped Flag Appearances (%u contexts)\n\n", s->contexts);
    printf("%-16s %8s %8s  parsed\n", "bits", "count", "percent");
    grouped_total = s->contexts;
    twalk(s->combos, print_combo);
    printf("\nIndividual Flag Appearances\n\n");
    for (unsigned b = 0; b < 64; b++) {
        if (!s->bits[b])
            continue;
        mcs_jit_flags_text((uint64_t)1 << b, text, sizeof text);
        printf("%8u %7.2f%% %s\n", s->bits[b], percent(s->bits[b], s->contexts), text);
    }
}

int cmd_jitflags(int argc, char **argv)
{
    const char *pos[1];
    if (mcs_parse_args(argc, argv, &usage_jitflags, NULL, pos, 1, 1) < 0)
        return MCS_EXIT_USAGE;
    flag_stats s = {0};
    mcz_list all = {0};
    int rc = mcs_for_each_context(pos[0], &all, NULL, collect_one, &s, NULL);
    if (rc == 0) {
        report(&s);
        if (s.without)
            tool_warn("%s: %u contexts have no GetJitFlags entry and are not counted", pos[0],
                     s.without);
    }
    tdestroy(s.combos, free);
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
