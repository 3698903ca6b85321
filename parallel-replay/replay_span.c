/*
 * replay_span.c - how many consecutive work units one --exec command gets: sized from what the
 * run's first commands took.
 *
 * A command costs a start S (a process, a JIT loaded: tens of milliseconds for superpmi) and c
 * per context. Starts are measured, not guessed: the wall time and contexts of every command
 * that ran alone (none of its worker's others in flight; a command started ahead shares its
 * time) are a sample, reported by the worker with the unit's end. While the samples cannot
 * tell S from c (all of about one size, or a line that puts S at or below nothing) each
 * worker's next command gets SPAN_RAMP times the units of its last; then S and c come from a
 * least-squares line through the samples, and a command gets the contexts that make its start
 * at most 1/SPAN_START_SHARE of its time (n = SHARE * S / c).
 * Always within the bound (--exec-batch: bytes of contexts, so of unit file in TMPDIR, per
 * command) and leaving each worker a share of what remains (no worker idles at the end while
 * one runs a long last command), but the share is not cut below the contexts whose work costs
 * one start (S / c): the end's commands, decided one at a time, would otherwise halve what is
 * left again and again, each half paying a whole start for less work than the start itself.
 * Cheap starts give small commands (a crash takes down fewer contexts, the end is better
 * balanced); dear ones, commands up to the bound, and a few at the end.
 */
#include "replay_proc.h"

#define SPAN_START_SHARE 50 /* a start at most 2% of its command's time */
/* While the samples cannot tell a start from a context's cost: each worker's command that many
 * times its last (1, 4, 16 units: the bound after two, a spread the line can use after one) */
#define SPAN_RAMP 4

void replay_span_sample(replay_span_model *m, uint64_t contexts, double seconds)
{
    if (contexts == 0 || seconds <= 0)
        return;
    m->sum_n += (double)contexts;
    m->sum_t += seconds;
    m->sum_nn += (double)contexts * (double)contexts;
    m->sum_nt += (double)contexts * seconds;
    m->samples++;
}

/* The start S and the cost per context c by the samples; false while they cannot tell. */
static bool start_and_cost(const replay_span_model *m, double *s, double *c)
{
    double k = (double)m->samples;
    double var = m->sum_nn - m->sum_n * m->sum_n / k;
    double mean = m->sum_n / (k > 0 ? k : 1);
    /* sizes too alike (a spread under a quarter of the mean) give a line of noise */
    if (m->samples < 2 || var < k * (mean / 4) * (mean / 4))
        return false;
    *c = (m->sum_nt - m->sum_n * m->sum_t / k) / var;
    *s = (m->sum_t - *c * m->sum_n) / k;
    return true;
}

/* The contexts a command should get; 0: unknown yet (the samples do not tell S from c). */
static double contexts_wanted(const replay_span_model *m)
{
    double s, c;
    if (!start_and_cost(m, &s, &c))
        return 0;
    if (c <= 0)
        return 1e18; /* no cost per context seen: as large as the bound allows */
    /* a start the samples put at or below nothing is noise (a replayer always costs its process):
     * unknown, so commands keep growing to the bound */
    return s <= 0 ? 0 : SPAN_START_SHARE * s / c;
}

uint32_t replay_span_next(const replay_span_model *m, const replay_plan *p, size_t next,
                          uint32_t last, uint64_t bound, size_t workers)
{
    if (!bound || next >= p->unit_count)
        return 1;
    double want = contexts_wanted(m);
    uint64_t remaining = 0;
    for (size_t i = next; i < p->unit_count; i++)
        remaining += p->units[i].raw_bytes;
    uint64_t share = remaining / (workers ? workers : 1);
    uint64_t bytes = 0, contexts = 0;
    uint32_t span = 0, most = want > 0 ? UINT32_MAX : (last ? SPAN_RAMP * last : 1);
    double start_worth = want > 0 ? want / SPAN_START_SHARE : 0; /* S / c contexts */
    for (size_t i = next; i < p->unit_count && span < most; i++) {
        const replay_unit *u = &p->units[i];
        bool adjacent = i == next || u->first == p->units[i - 1].first + p->units[i - 1].count;
        bool over_share = bytes + u->raw_bytes > share && (double)contexts >= start_worth;
        if (span && (!adjacent || bytes + u->raw_bytes > bound || over_share ||
                     (want > 0 && (double)contexts >= want)))
            break;
        bytes += u->raw_bytes;
        contexts += u->selected;
        span++;
    }
    return span ? span : 1;
}
