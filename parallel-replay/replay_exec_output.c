/*
 * replay_exec_output.c - the stdout of an --exec run: what one superpmi over the whole
 * collection prints with the same options, made from what each unit's command printed.
 *
 * superpmi.cpp's main (filipnavara/runtime@c659a8bb48140ce161dd3890fd2aa4d06f2fbfac) prints,
 * at the verbose level, a banner before it reads the input ("Using jit(JIT) with input (FILE)",
 * " indexCount=N (LIST)", " failingMCList=F"...), a progress line every 500 compiles (" P% -
 * Loaded N  Jitted N  FailedCompile N at N per second"), the summary at the info level, then
 * "Total time: Tms"; between them the lines about contexts (ISSUE, MISSING; ERROR goes to
 * stderr). Each unit's command printed its own banner naming its temporary file, progress over
 * its own part, summary and total time. Here the units' outputs, in context order, become one:
 * the first unit's banner naming the collection, the run's -c list and -f file, the others'
 * banners, progress lines, totals and summaries dropped; progress lines made again over the
 * whole run from each context's tallies (exec_tally: the compiles and failures its details rows
 * count), placed after the lines of the context whose compile crossed the 500; the summary is
 * the run's (replay_main.c), then the run's total time. Under --order-as-parallel N the lines
 * come in superpmi -p N's order, whose children print no banner and no progress (-v ewmin).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "replay_exec.h"

/* superpmi's lines that name a context by the number it was given (superpmi.cpp, and the
 * JIT's assert line): the text before the number. */
static const char *const numbered_lines[] = {
    "ISSUE: <ASSERT> #",
    "ISSUE: <ASM_DIFF> main method ",
    "MISSING: Method context ",
    "ERROR: Method ",
    "ERROR: main method ",
    "ERROR: method ",
    "INFO: main method ",
    "INFO: HINT: to repro add '-c ",
};

uint64_t exec_line_number(const char *line, size_t len, size_t *at, size_t *digits)
{
    for (size_t k = 0; k < sizeof numbered_lines / sizeof *numbered_lines; k++) {
        size_t plen = strlen(numbered_lines[k]);
        if (len <= plen || memcmp(line, numbered_lines[k], plen) != 0)
            continue;
        uint64_t number = 0;
        size_t d = 0;
        while (plen + d < len && d < 10 && line[plen + d] >= '0' && line[plen + d] <= '9')
            number = number * 10 + (uint64_t)(line[plen + d++] - '0');
        if (d) {
            *at = plen;
            *digits = d;
            return number;
        }
    }
    return 0;
}

void exec_out_path(const char *temp_dir, const char *kind, uint32_t first, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s.%010u", temp_dir, kind, first);
}

void exec_tally_write(const char *temp_dir, const exec_tally *t, size_t n)
{
    char path[4200];
    exec_out_path(temp_dir, "tally", t[0].number, path, sizeof path);
    FILE *f = fopen(path, "wbe");
    if (!f)
        return;
    size_t put = fwrite(t, sizeof *t, n, f);
    if (fclose(f) != 0 || put != n)
        remove(path);
}

/* ---- The lines of one superpmi run's banner and trailer ------------------------------------ */

/* What a line of a unit's stdout is to the run's. */
typedef enum line_role {
    LINE_PASS,     /* about a context, or anything else: passed on */
    LINE_USING,    /* "Using jit(JIT) with input (FILE)": the banner, the input named */
    LINE_INDEXES,  /* " indexCount=N (LIST)": the -c list */
    LINE_LIST,     /* " failingMCList=F": the -f file */
    LINE_ONCE,     /* the rest of the banner and the JIT's start: the first unit's only */
    LINE_DROP      /* a unit's progress, summary and total time: the run prints its own */
} line_role;

static const struct {
    const char *start;
    line_role role;
} banner_lines[] = {
    {"Using jit(", LINE_USING},
    {" indexCount=", LINE_INDEXES},
    {" failingMCList=", LINE_LIST},
    {" EmitMethodStats-Types=", LINE_ONCE},
    {" MD5Hash=", LINE_ONCE},
    {" offset=", LINE_ONCE},
    {"Using default JIT: ", LINE_ONCE},
    {"Jit startup took ", LINE_ONCE},
    {"Loaded ", LINE_DROP},
    {"Total time: ", LINE_DROP},
};

/* " 12.3% - Loaded ": superpmi's progress line. */
static bool is_progress(const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && line[i] == ' ')
        i++;
    size_t digits = i;
    while (i < len && ((line[i] >= '0' && line[i] <= '9') || line[i] == '.'))
        i++;
    return i > digits && len - i > 12 && memcmp(line + i, "% - Loaded ", 11) == 0;
}

static line_role role_of(const char *line, size_t len)
{
    if (is_progress(line, len))
        return LINE_DROP;
    for (size_t k = 0; k < sizeof banner_lines / sizeof *banner_lines; k++) {
        size_t n = strlen(banner_lines[k].start);
        if (len >= n && memcmp(line, banner_lines[k].start, n) == 0)
            return banner_lines[k].role;
    }
    return LINE_PASS;
}

/* ---- Progress over the whole run ----------------------------------------------------------- */

/* superpmi's counters as it would have them at this point of the run, and what its reader's
 * Progress() and TotalWork() are (methodcontextreader.cpp at jakobbotsch/runtime@7da2080b:
 * the position in the -c list over its length; else with a table, the number of the context
 * read last over the table's count; else the file offset over the file's size). An archive
 * counts as an .mch with its table, as superpmi.py downloads them. */
typedef struct run_state {
    const replay_exec_view *v;
    FILE *to;
    bool verbose;          /* the first unit printed a banner: the command's -v has v */
    double total;          /* TotalWork() */
    double rate;           /* compiles per second over the whole run */
    uint64_t loaded, jitted, failed, diffs;
    replay_counts *extra;  /* what -repeatCount adds to the table's one count per context */
    exec_tally *tally;     /* the current unit's */
    size_t tally_count, next;
    size_t rank_range;     /* the -c list's range holding the last number ranked, and the */
    uint64_t rank_before;  /* numbers of the ranges before it */
} run_state;

/* Progress() before the context: its position in the -c list, its predecessor's number, or
 * its offset. */
static double progress_before(run_state *s, const exec_tally *t)
{
    const replay_plan *p = s->v->plan;
    if (s->v->selected) {
        const mcz_list *l = &p->selection;
        while (s->rank_range < l->count && l->ranges[s->rank_range].last < t->number)
            s->rank_before += l->ranges[s->rank_range].last - l->ranges[s->rank_range].first + 1,
                s->rank_range++;
        uint64_t in = s->rank_range < l->count && l->ranges[s->rank_range].first <= t->number
                          ? t->number - l->ranges[s->rank_range].first : 0;
        return (double)(s->rank_before + in);
    }
    if (p->archive || p->toc)
        return (double)(t->number - 1);
    return (double)t->offset;
}

static void progress_line(run_state *s, double percent)
{
    bool diffs = s->v->style == REPLAY_STYLE_SPMI_DIFFS;
    fprintf(s->to, " %2.1f%% - Loaded %" PRIu64 "  Jitted %" PRIu64 "  ", percent, s->loaded,
            s->jitted);
    if (diffs)
        fprintf(s->to, "Diffs %" PRIu64 "  ", s->diffs);
    fprintf(s->to, "FailedCompile %" PRIu64 " at %d per second\n", s->failed, (int)s->rate);
}

/* The context's compiles counted, a progress line after each 500th (its failures taken as its
 * first compiles: superpmi's are the same for every compile of a context). */
static void count_context(run_state *s, const exec_tally *t)
{
    const unsigned interval = 500;
    uint32_t repeat = s->v->repeat ? s->v->repeat : 1;
    double before = progress_before(s, t) * repeat;
    s->loaded++;
    for (uint32_t iter = 0; iter < t->compiles; iter++) {
        s->jitted++;
        s->failed += iter < t->failed;
        s->diffs += iter < t->diffs;
        if (s->verbose && s->jitted % interval == 0)
            progress_line(s, 100.0 * (before + iter) / (s->total * repeat));
    }
    s->extra->jitted += t->compiles ? t->compiles - 1 : 0;
    s->extra->failed += t->failed ? t->failed - 1 : 0;
    s->extra->missing += t->missed ? t->missed - 1 : 0;
    s->extra->diffs += t->diffs ? t->diffs - 1 : 0;
}

/* Counts the unit's contexts numbered below `below` (all: UINT64_MAX) not counted yet. */
static void count_before(run_state *s, uint64_t below)
{
    while (s->next < s->tally_count && s->tally[s->next].number < below)
        count_context(s, &s->tally[s->next++]);
}

static void tally_load(run_state *s, const char *temp_dir, uint32_t first)
{
    char path[4200];
    exec_out_path(temp_dir, "tally", first, path, sizeof path);
    free(s->tally);
    s->tally = NULL;
    s->tally_count = s->next = 0;
    FILE *f = fopen(path, "rbe");
    exec_tally t;
    size_t cap = 0;
    while (f && fread(&t, sizeof t, 1, f) == 1 &&
           replay_grow(&s->tally, &cap, s->tally_count, sizeof t) == MCZ_OK)
        s->tally[s->tally_count++] = t;
    if (f)
        fclose(f);
}

/* ---- The banner ------------------------------------------------------------------------------ */

/* " indexCount=N (a,b,...)" of the run's -c list, or of none (superpmi: -1, nothing). */
static void print_indexes(const run_state *s)
{
    const mcz_list *l = &s->v->plan->selection;
    if (!s->v->selected) {
        fputs(" indexCount=-1 ()\n", s->to);
        return;
    }
    fprintf(s->to, " indexCount=%" PRIu64 " (", mcz_list_size(l));
    const char *sep = "";
    for (size_t r = 0; r < l->count; r++)
        for (uint64_t n = l->ranges[r].first; n <= l->ranges[r].last; n++, sep = ",")
            fprintf(s->to, "%s%" PRIu64, sep, n);
    fputs(")\n", s->to);
}

/* A banner line of the first unit, naming the run's input, list and -f file. */
static void print_banner_line(const run_state *s, line_role role, const char *line, size_t len)
{
    const char *mark = " with input (";
    const char *with = role == LINE_USING ? strstr(line, mark) : NULL; /* line: NUL-ended */
    if (with)
        fprintf(s->to, "%.*s%s)\n", (int)(with - line + strlen(mark)), line, s->v->plan->shown);
    else if (role == LINE_INDEXES)
        print_indexes(s);
    else if (role == LINE_LIST && s->v->fail_list)
        fprintf(s->to, " failingMCList=%s\n", s->v->fail_list);
    else if (role != LINE_LIST)
        fwrite(line, 1, len, s->to);
}

static bool banner_seen; /* for replay_exec_trailer */

/* One unit's stdout (numbers global already) passed on as a part of the run's. */
static int pass_unit(run_state *s, const char *path, bool first)
{
    FILE *in = fopen(path, "rbe");
    if (!in)
        return errno == ENOENT ? MCZ_OK : MCZ_EIO;
    char *line = NULL;
    size_t cap = 0;
    ptrdiff_t len;
    while ((len = mcz_os_getline(&line, &cap, in)) > 0) {
        line_role role = role_of(line, (size_t)len);
        if (first && role == LINE_USING && s->v->interleave <= 1)
            s->verbose = banner_seen = true;
        size_t at, digits;
        uint64_t number = exec_line_number(line, (size_t)len, &at, &digits);
        if (number)
            count_before(s, number);
        if (role == LINE_PASS)
            fwrite(line, 1, (size_t)len, s->to);
        else if (first && role != LINE_DROP && s->verbose)
            print_banner_line(s, role, line, (size_t)len);
    }
    free(line);
    fclose(in);
    count_before(s, UINT64_MAX);
    return ferror(s->to) ? MCZ_EIO : MCZ_OK;
}

/* ---- superpmi -p's order ---------------------------------------------------------------------- */

/*
 * superpmi -p N prints its workers' output one worker after the other, worker i's being that of
 * contexts i+1, i+1+N, ... in order. The units' lines (already in context order) are cut into
 * runs about one context each: from a line naming a context to the next line naming another,
 * the lines before the first named one going with context 1. Each run goes to its worker's
 * temporary file as it comes, and the files are copied out one after the other: what is held
 * is a file per worker, whatever the output's size.
 */
static int write_interleaved(FILE *all, uint32_t interleave, FILE *to)
{
    FILE **group = calloc(interleave, sizeof *group);
    int rc = group && fseek(all, 0, SEEK_SET) == 0 ? MCZ_OK : MCZ_EIO;
    for (uint32_t g = 0; g < interleave && rc == MCZ_OK; g++)
        rc = (group[g] = mcz_os_temp_file()) ? MCZ_OK : MCZ_EIO;
    char *line = NULL;
    size_t cap = 0;
    ptrdiff_t len;
    uint32_t current = 1;
    while (rc == MCZ_OK && (len = mcz_os_getline(&line, &cap, all)) > 0) {
        size_t at, digits;
        uint64_t number = exec_line_number(line, (size_t)len, &at, &digits);
        if (number >= 1 && number <= UINT32_MAX)
            current = (uint32_t)number;
        if (fwrite(line, 1, (size_t)len, group[(current - 1) % interleave]) != (size_t)len)
            rc = MCZ_EIO;
    }
    free(line);
    for (uint32_t g = 0; g < interleave && rc == MCZ_OK; g++) {
        char piece[1 << 14];
        size_t got;
        rc = fseek(group[g], 0, SEEK_SET) == 0 ? MCZ_OK : MCZ_EIO;
        while (rc == MCZ_OK && (got = fread(piece, 1, sizeof piece, group[g])) > 0)
            rc = fwrite(piece, 1, got, to) == got ? MCZ_OK : MCZ_EIO;
        rc = rc == MCZ_OK && ferror(group[g]) ? MCZ_EIO : rc;
    }
    for (uint32_t g = 0; group && g < interleave; g++)
        if (group[g])
            fclose(group[g]);
    free(group);
    return rc == MCZ_OK && ferror(all) ? MCZ_EIO : rc;
}

/* ---- The run's stdout ------------------------------------------------------------------------ */

int replay_exec_output(const char *temp_dir, const replay_exec_view *v, FILE *to,
                       replay_counts *extra)
{
    memset(extra, 0, sizeof *extra);
    char **names;
    size_t n;
    if (tool_dir_list(temp_dir, "out.*", &names, &n) != 0)
        return MCZ_EIO;
    FILE *all = v->interleave > 1 ? mcz_os_temp_file() : to; /* superpmi -p's order: below */
    double seconds = tool_now() - v->started;
    run_state s = {.v = v, .to = all, .extra = extra};
    const replay_plan *p = v->plan;
    s.total = v->selected ? (double)mcz_list_size(&p->selection)
              : p->archive || p->toc ? (double)p->contexts : (double)mcz_input_size(p->input);
    /* the lines' rate: the run's compiles over its time (superpmi's: the last 500's) */
    uint64_t compiles = 0;
    for (size_t i = 0; i < n; i++) {
        tally_load(&s, temp_dir, (uint32_t)strtoul(names[i] + 4, NULL, 10));
        for (size_t k = 0; k < s.tally_count; k++)
            compiles += s.tally[k].compiles;
    }
    s.rate = seconds > 0 && (double)compiles / seconds < INT_MAX ? (double)compiles / seconds : 0;
    int rc = all ? MCZ_OK : MCZ_EIO;
    for (size_t i = 0; i < n && rc == MCZ_OK; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", temp_dir, names[i]);
        tally_load(&s, temp_dir, (uint32_t)strtoul(names[i] + 4, NULL, 10));
        rc = pass_unit(&s, path, i == 0);
    }
    free(s.tally);
    tool_dir_list_free(names, n);
    if (all && all != to) {
        if (rc == MCZ_OK)
            rc = write_interleaved(all, v->interleave, to);
        fclose(all);
    }
    return rc == MCZ_OK && ferror(to) ? MCZ_EIO : rc;
}

void replay_exec_trailer(const replay_exec_view *v, FILE *to)
{
    if (banner_seen || (v->interleave > 1 && v->verbose))
        fprintf(to, "Total time: %fms\n", (tool_now() - v->started) * 1000.0);
}
