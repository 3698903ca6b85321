/*
 * spmi_standin.c - a stand-in for superpmi in the tests of mcz-replay --exec
 * (tests/cli/test_replay_spmi.sh): superpmi's command line and outputs, with results made up
 * from each context's bytes, so a run over a whole file and runs over its parts can be compared.
 *
 *   spmi_standin [-a] [-c RANGES] [-f LIST] [-details CSV] [-p [N]] JIT [JIT2] FILE.mch
 *
 * As superpmi (superpmi.cpp, commandline.cpp): switches are any case-insensitive prefix of
 * their name; one row per compiled context in -details (replay: Context,Context size,Result,
 * MinOpts,Size,Instructions; -a: Context,Context size,Base result,Diff result,MinOpts,Has diff,
 * Base size,Diff size,Base instructions,Diff instructions, then Base PerfScore,Diff PerfScore as
 * newer versions write); -f lists the contexts that failed or missed (and with -a those with
 * diffs when there is no -details); the summary line; exit 1 on errors, else 2 on diffs (-a),
 * else 3 on misses, else 0; 255 on bad arguments or a bad file.
 *
 * Results, from an FNV-1a hash h of the context's bytes: base Error when h % 11 == 0, Miss when
 * h % 11 == 1; the diff JIT: Error when h / 11 % 13 == 0, Miss when h / 11 % 13 == 1; a diff when
 * both succeed and h / 143 % 4 == 0. Test hooks (environment): STANDIN_CRASH=1 aborts on a
 * context with h % 29 == 3 after the rows before it are written; STANDIN_SKIP=1 writes no row for
 * contexts with h % 7 == 2; STANDIN_GARBAGE=1 writes a malformed details file.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct options {
    bool diffs;
    const char *compile, *fail_list, *details, *input;
    int jits;
} options;

static bool is_switch(const char *word, const char *name)
{
    size_t len = strlen(word);
    return len <= strlen(name) && strncasecmp(word, name, len) == 0;
}

static int usage(const char *why)
{
    fprintf(stderr, "SuperPMI is a JIT compiler testing tool.\n%s\n", why);
    return 255;
}

static int parse(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        if (w[0] != '-') {
            const char *dot = strrchr(w, '.');
            if (dot && strcasecmp(dot, ".so") == 0)
                o->jits++;
            else if (dot && (!strcasecmp(dot, ".mch") || !strcasecmp(dot, ".mc")))
                o->input = w;
            else
                return usage("Unknown file type passed as argument.");
            continue;
        }
        w++;
        bool value = true;
        const char **slot = NULL;
        if (is_switch(w, "failingMCList"))
            slot = &o->fail_list;
        else if (is_switch(w, "details"))
            slot = &o->details;
        else if (is_switch(w, "applyDiff"))
            o->diffs = true, value = false;
        else if (is_switch(w, "compile"))
            slot = &o->compile;
        else if (is_switch(w, "parallel")) {
            value = false;
            if (i + 1 < argc && isdigit((unsigned char)argv[i + 1][0]))
                i++;
        } else
            return usage("Unknown switch passed as argument.");
        if (value) {
            if (++i >= argc)
                return usage("A switch lacks its value.");
            *slot = argv[i];
        }
    }
    if (!o->jits || !o->input)
        return usage("Missing name of a Jit or of an input file.");
    return 0;
}

/* -c: "a-b,c,..." */
static bool selected(const char *ranges, unsigned n)
{
    if (!ranges)
        return true;
    const char *p = ranges;
    while (*p) {
        char *end;
        unsigned long a = strtoul(p, &end, 10), b = a;
        if (*end == '-')
            b = strtoul(end + 1, &end, 10);
        if (n >= a && n <= b)
            return true;
        p = *end == ',' ? end + 1 : end;
        if (end == p && *p)
            return false;
    }
    return false;
}

static uint64_t fnv(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

enum { OK, ERROR, MISS };
static const char *const names[] = {"Success", "Error", "Miss"};

static int base_result(uint64_t h) { return h % 11 == 0 ? ERROR : h % 11 == 1 ? MISS : OK; }
static int diff_result(uint64_t h)
{
    return h / 11 % 13 == 0 ? ERROR : h / 11 % 13 == 1 ? MISS : OK;
}

typedef struct counts {
    int loaded, jitted, failed, missing, diffs, errors;
} counts;

static void one_context(const options *o, unsigned n, const unsigned char *mc, size_t size,
                        FILE *details, FILE *list, counts *c)
{
    uint64_t h = fnv(mc, size);
    if (getenv("STANDIN_CRASH") && h % 29 == 3) {
        fflush(NULL);
        abort();
    }
    c->loaded++;
    c->jitted++;
    int base = base_result(h), other = o->diffs ? diff_result(h) : OK;
    bool ok = base == OK && other == OK;
    bool diff = o->diffs && ok && h / 143 % 4 == 0;
    bool minopts = (h >> 7) & 1;
    unsigned code = (unsigned)(h >> 20) % 900 + 10;
    unsigned long long instr = (h >> 30) % 100000;
    c->errors += base == ERROR || other == ERROR;
    c->missing += base == MISS || other == MISS;
    c->failed += !ok;
    c->diffs += diff;
    if (list && (!ok || (diff && !details)))
        fprintf(list, "%u\r\n", n);
    if (!details || (getenv("STANDIN_SKIP") && h % 7 == 2))
        return;
    if (!o->diffs)
        fprintf(details, "%u,%zu,%s,%s,%u,%llu\n", n, size, names[base],
                minopts ? "True" : "False", ok ? code : 0, ok ? instr : 0);
    else
        fprintf(details, "%u,%zu,%s,%s,%s,%s,%u,%u,%llu,%llu,%.2f,%.2f\n", n, size, names[base],
                names[other], minopts ? "True" : "False", diff ? "True" : "False", code,
                code + (diff ? 4 : 0), instr, instr + (diff ? 9 : 0), code * 1.25,
                (code + (diff ? 4 : 0)) * 1.25);
    fflush(details);
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *size = len;
    return buf;
}

int main(int argc, char **argv)
{
    options o = {0};
    if (parse(argc, argv, &o))
        return 255;
    size_t size;
    unsigned char *data = read_file(o.input, &size);
    if (!data) {
        fprintf(stderr, "ERROR: cannot read %s\n", o.input);
        return 255;
    }
    FILE *details = o.details ? fopen(o.details, "w") : NULL;
    FILE *list = o.fail_list ? fopen(o.fail_list, "w") : NULL;
    if ((o.details && !details) || (o.fail_list && !list))
        return 255;
    if (details && getenv("STANDIN_GARBAGE"))
        fputs("Context,Context size,Result\n1,2,Success,surplus\n", details);
    else if (details)
        fputs(o.diffs ? "Context,Context size,Base result,Diff result,MinOpts,Has diff,Base size,"
                        "Diff size,Base instructions,Diff instructions,Base PerfScore,"
                        "Diff PerfScore\n"
                      : "Context,Context size,Result,MinOpts,Size,Instructions\n",
              details);
    counts c = {0};
    unsigned n = 0;
    for (size_t at = 0; at < size;) {
        uint32_t len;
        if (size - at < 8 || data[at] != 'm' || data[at + 1] != 'c')
            return fprintf(stderr, "ERROR: bad context at %zu\n", at), 255;
        memcpy(&len, data + at + 2, 4);
        if (len > size - at - 8)
            return fprintf(stderr, "ERROR: truncated context at %zu\n", at), 255;
        n++;
        if (selected(o.compile, n) && !getenv("STANDIN_GARBAGE"))
            one_context(&o, n, data + at, (size_t)len + 8, details, list, &c);
        else if (selected(o.compile, n))
            c.loaded++, c.jitted++;
        at += (size_t)len + 8;
    }
    printf("Loaded %d  Jitted %d  FailedCompile %d Excluded 0 Missing %d", c.loaded, c.jitted,
           c.failed, c.missing);
    printf(o.diffs ? " Diffs %d\n" : "\n", c.diffs);
    if (details)
        fclose(details);
    if (list)
        fclose(list);
    free(data);
    return c.errors ? 1 : o.diffs && c.diffs ? 2 : c.missing ? 3 : 0;
}
