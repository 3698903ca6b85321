/* verb_jitflags.c - mcs -jitflags: which JIT flag combinations a collection holds. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_context.h"
#include "mcs_verbs.h"

const mcs_usage usage_jitflags = {
    "-jitflags FILE",
    "summarize the JIT flags used",
    "Prints each distinct combination of JIT flags (GetJitFlags, with mcs's PGO pseudo-flags\n"
    "HAS_PGO, HAS_EDGE_PROFILE... added) with its count and share, in the order SuperPMI lists\n"
    "them (memcmp order of the little-endian bytes), then how often each single flag appears.\n"
    "Contexts without GetJitFlags are left out and counted in a warning.\n",
    NULL};

typedef struct flag_combo {
    uint64_t order; /* the flags byte-swapped: numeric order = memcmp order of the LE bytes */
    uint64_t flags;
    uint32_t count;
} flag_combo;

typedef struct flag_stats {
    flag_combo *combos; /* in the order first seen; sorted by order for the report */
    size_t count, cap;
    size_t *slots;      /* open addressing by flags: index + 1 into combos, 0 free */
    size_t slot_count;  /* a power of two, at least twice count */
    uint32_t contexts, without;
    uint32_t bits[64];
} flag_stats;

static size_t slot_of(const flag_stats *s, uint64_t flags)
{
    size_t mask = s->slot_count - 1;
    size_t i = (size_t)((flags * 0x9e3779b97f4a7c15u) >> 32) & mask;
    while (s->slots[i] && s->combos[s->slots[i] - 1].flags != flags)
        i = (i + 1) & mask;
    return i;
}

/* Room for one more combination: combos and slots grown (the slots rebuilt) as needed. */
static int combo_reserve(flag_stats *s)
{
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        flag_combo *grown = realloc(s->combos, cap * sizeof *grown);
        if (!grown)
            return -1;
        s->combos = grown;
        s->cap = cap;
    }
    if (2 * (s->count + 1) <= s->slot_count)
        return 0;
    size_t slot_count = s->slot_count ? 2 * s->slot_count : 64;
    size_t *slots = calloc(slot_count, sizeof *slots);
    if (!slots)
        return -1;
    free(s->slots);
    s->slots = slots;
    s->slot_count = slot_count;
    for (size_t i = 0; i < s->count; i++)
        s->slots[slot_of(s, s->combos[i].flags)] = i + 1;
    return 0;
}

static int combo_add(flag_stats *s, uint64_t flags)
{
    if (s->slot_count) {
        size_t slot = slot_of(s, flags);
        if (s->slots[slot]) {
            s->combos[s->slots[slot] - 1].count++;
            return 0;
        }
    }
    if (combo_reserve(s) != 0)
        return -1;
    s->combos[s->count] = (flag_combo){__builtin_bswap64(flags), flags, 1};
    s->slots[slot_of(s, flags)] = ++s->count;
    return 0;
}

static int combo_compare(const void *a, const void *b)
{
    uint64_t x = ((const flag_combo *)a)->order, y = ((const flag_combo *)b)->order;
    return (x > y) - (x < y);
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

static void print_combo(const flag_combo *c, uint32_t total)
{
    char text[1024];
    mcs_jit_flags_text(c->flags, text, sizeof text);
    printf("%016" PRIx64 " %8u %7.2f%% %s\n", c->flags, c->count, percent(c->count, total),
           text);
}

static void report(flag_stats *s)
{
    char text[1024];
    printf("\nGrouped Flag Appearances (%u contexts)\n\n", s->contexts);
    printf("%-16s %8s %8s  parsed\n", "bits", "count", "percent");
    if (s->count > 1)
        qsort(s->combos, s->count, sizeof *s->combos, combo_compare);
    for (size_t i = 0; i < s->count; i++)
        print_combo(&s->combos[i], s->contexts);
    printf("\nIndividual Flag Appearances\n\n");
    for (unsigned b = 0; b < 64; b++) {
        if (!s->bits[b])
            continue;
        mcs_jit_flags_text((uint64_t)1 << b, text, sizeof text);
        printf("%8u %7.2f%% %s\n", s->bits[b], percent(s->bits[b], s->contexts), text);
    }
}

int cmd_jitflags(mcs_run *run, int argc, char **argv)
{
    const char *pos[1];
    if (mcs_parse_args(run, argc, argv, &usage_jitflags, NULL, pos, 1, 1) < 0)
        return MCS_EXIT_USAGE;
    flag_stats s = {0};
    mcz_list all = {0};
    int rc = mcs_for_each_context(run, pos[0], &all, NULL, collect_one, &s, NULL);
    if (rc == 0) {
        report(&s);
        if (s.without)
            tool_warn("%s: %u contexts have no GetJitFlags entry and are not counted", pos[0],
                     s.without);
    }
    free(s.combos);
    free(s.slots);
    return rc == 0 ? MCS_EXIT_OK : MCS_EXIT_FAIL;
}
