/*
 * collect_host.c - the host of tests/cmake-host: a program linking mcz::writer as a runtime
 * would, through the public collector API alone.
 *
 *   collect_host IN.mch OUT.mcz
 *       appends IN's method contexts in order to a collector (LIVE mode, two threads) and
 *       closes it: OUT.mcz holds them. Exit 0, or 2 with the reason on standard error.
 *   collect_host --xz OUT.mcz
 *       asks for the xz codec, which a collector build lacks: exit 0 when mcz_writer_open
 *       refuses it with MCZ_EUNSUPPORTED and prints the message; 2 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcz.h"

#define MC_HEADER 6u /* 'm' 'c' u32 length (of the packets), then the packets, then '4' '2' */

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "collect_host: %s: %s\n", what, why);
    return 2;
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1u << 20, used = 0;
    unsigned char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + used, 1, cap - used, f)) > 0) {
        used += n;
        if (used == cap) {
            unsigned char *more = realloc(buf, cap *= 2);
            if (!more)
                free(buf);
            buf = more;
        }
    }
    fclose(f);
    *len = used;
    return buf;
}

static int refuses_xz(const char *out)
{
    mcz_writer_options o = MCZ_WRITER_OPTIONS_INIT;
    o.codec = MCZ_CODEC_XZ;
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(out, &o, &d);
    if (w) {
        mcz_writer_abort(w);
        return fail(out, "the xz codec was accepted");
    }
    if (d.code != MCZ_EUNSUPPORTED)
        return fail(out, mcz_error_name(d.code));
    printf("%s\n", d.message);
    return 0;
}

/* Appends the contexts of mch[0, len) in order. */
static int append_all(mcz_writer *w, const unsigned char *mch, size_t len)
{
    size_t off = 0;
    while (off < len) {
        if (len - off < MC_HEADER + 2 || mch[off] != 'm' || mch[off + 1] != 'c')
            return -1;
        size_t body = (size_t)mch[off + 2] | (size_t)mch[off + 3] << 8 |
                      (size_t)mch[off + 4] << 16 | (size_t)mch[off + 5] << 24;
        size_t size = MC_HEADER + body + 2;
        if (size > len - off || mcz_writer_append(w, mch + off, size, NULL) != MCZ_OK)
            return -1;
        off += size;
    }
    return 0;
}

static int collect(const char *in, const char *out)
{
    size_t len;
    unsigned char *mch = read_all(in, &len);
    if (!mch)
        return fail(in, "cannot read it");
    mcz_writer_options o = MCZ_WRITER_OPTIONS_INIT;
    o.mode = MCZ_WRITE_LIVE;
    o.threads = 2;
    mcz_diag d;
    mcz_writer *w = mcz_writer_open(out, &o, &d);
    if (!w) {
        free(mch);
        return fail(out, d.message);
    }
    int rc = append_all(w, mch, len);
    free(mch);
    if (rc != 0) {
        const mcz_diag *why = mcz_writer_diag(w);
        mcz_writer_abort(w);
        return fail(in, why->code != MCZ_OK ? why->message : "not a sequence of contexts");
    }
    if (mcz_writer_close(w, &d) != MCZ_OK)
        return fail(out, d.message);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--xz") == 0)
        return refuses_xz(argv[2]);
    if (argc == 3)
        return collect(argv[1], argv[2]);
    fprintf(stderr, "usage: collect_host IN.mch OUT.mcz | collect_host --xz OUT.mcz\n");
    return 1;
}
