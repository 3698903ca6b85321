/*
 * dropin_stream.c - superpmi's -streaming over an mcz archive, served by random access. The
 * system's part (the temporary directory, the sparse file, the real superpmi behind a pipe, the
 * stops watched) is the platform's (platform/platform.h, program.h, worker.h).
 *
 * In streaming mode (streamingsuperpmi.cpp at dotnet/runtime@227b5367) one superpmi process
 * with one JIT reads request lines "N!Key=Value!..." from a file or stdin, fetches context N
 * through its reader (reader->Reset(&N, 1): a seek by the .mct, or a walk over the headers
 * before it), compiles it and prints "[streaming] Done. Status=S". Requests come one at a time
 * from a client that decides the next one from the last answer, so which contexts are needed is
 * known only as they are asked for.
 *
 * So the real superpmi reads a stand-in file: a sparse file of the collection's MCH size, with
 * an .mct of every context at its MCH offset, in which nothing is written until asked for. This
 * program reads the requests itself and, before passing request N on to superpmi (through a
 * pipe on its stdin), writes context N (decoded from its chunk) at its offset, and the 6-byte
 * headers of the contexts before it (a superpmi whose table loader refuses the .mct walks those
 * headers). Disk holds the contexts asked for and a block per header written, never the whole
 * collection; the temporary directory goes when superpmi ends.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dropin.h"
#include "mcz.h"
#include "mcz_superpmi.h"
#include "tool_spmi.h"

typedef struct stream {
    mcz_reader *reader;
    mcz_cursor *cursor;
    mcz_archive_info info;
    int fd;                /* the sparse MCH file */
    uint8_t *written;      /* per position: 0 nothing, 1 its header, 2 the whole context (the
                            * one byte a context this program keeps: places come from the
                            * reader's index, mcz_reader_context_with) */
    uint64_t headers_upto; /* headers written for every position below this */
    char dir[4096], mch[4200], toc[4200];
} stream;

/* "WHAT: WHY" on stderr; superpmi's code for a fatal error. */
static int fail_on(const char *what, const char *why)
{
    tool_error("%s: %s", what, why);
    return DROPIN_FATAL;
}

static int fail_diag(const char *what, const mcz_diag *d)
{
    char text[MCZ_DIAG_LINE_SIZE];
    return fail_on(what, mcz_diag_format(d, text, sizeof text));
}

/* Where context `pos` lies in the collection's MCH (its size, offset and number). */
static int place(const stream *st, const char *archive, uint64_t pos, mcz_context_info *ci)
{
    if (mcz_reader_context_with(st->reader, pos, MCZ_CONTEXT_PLACE, ci) == MCZ_OK)
        return 0;
    return fail_on(archive, "a context of its index cannot be read");
}

/* The .mct of every context at its MCH offset, written entry by entry. */
static int write_toc(const stream *st, const char *archive)
{
    FILE *f = dropin_fopen_create(st->toc);
    if (!f)
        return fail_on(st->toc, strerror(errno));
    uint64_t n = st->info.contexts;
    uint8_t head[MCZ_TOC_HEADER_SIZE], element[MCZ_TOC_ELEMENT_SIZE], tail[MCZ_TOC_TRAILER_SIZE];
    mcz_toc_header_encode((uint32_t)n, head);
    bool ok = fwrite(head, 1, sizeof head, f) == sizeof head;
    int rc = 0;
    for (uint64_t i = 0; i < n && ok && rc == 0; i++) {
        mcz_context_info ci;
        if ((rc = place(st, archive, i, &ci)) != 0)
            break;
        mcz_toc_entry e = {.offset = (int64_t)ci.mch_offset, .number = (int32_t)ci.number};
        mcz_toc_element_encode(&e, element);
        ok = fwrite(element, 1, sizeof element, f) == sizeof element;
    }
    mcz_toc_trailer_encode(tail);
    ok = ok && fwrite(tail, 1, sizeof tail, f) == sizeof tail;
    if ((fclose(f) != 0 || !ok) && rc == 0)
        rc = fail_on(st->toc, strerror(errno));
    return rc;
}

static int stream_index(stream *st, const char *archive)
{
    mcz_diag d;
    mcz_diag_clear(&d);
    if (!(st->reader = mcz_reader_open(archive, &d)) || !(st->cursor = mcz_cursor_create(st->reader)))
        return fail_diag(archive, &d);
    mcz_reader_get_info(st->reader, &st->info);
    uint64_t n = st->info.contexts;
    if (!(st->written = calloc(n ? n : 1, 1)))
        return fail_on(archive, "out of memory");
    return write_toc(st, archive);
}

/* The temporary directory, the sparse file of the collection's size, its .mct. */
static int stream_open(stream *st, const char *archive)
{
    const char *tmp = mcz_os_temp_dir();
    snprintf(st->dir, sizeof st->dir, "%s/mcz-superpmi.XXXXXX", tmp);
    if (!mcz_os_mkdtemp(st->dir)) {
        st->dir[0] = '\0';
        return fail_on(tmp, "cannot create a temporary directory in it");
    }
    snprintf(st->mch, sizeof st->mch, "%s/stream.mch", st->dir);
    snprintf(st->toc, sizeof st->toc, "%s/stream.mch.mct", st->dir);
    int rc = stream_index(st, archive);
    if (rc != 0)
        return rc;
    st->fd = mcz_os_create_sparse(st->mch, st->info.raw_bytes);
    if (st->fd < 0)
        return fail_on(st->mch, strerror(errno));
    return 0;
}

static void stream_close(stream *st)
{
    if (st->fd > 0)
        mcz_os_close(st->fd);
    if (st->dir[0]) {
        mcz_os_unlink(st->mch);
        mcz_os_unlink(st->toc);
        mcz_os_rmdir(st->dir);
    }
    mcz_cursor_free(st->cursor);
    mcz_reader_close(st->reader);
    free(st->written);
}

static int write_at(stream *st, const void *bytes, size_t len, uint64_t at)
{
    return mcz_os_pwrite_all(st->fd, bytes, len, at) == MCZ_OK ? 0 : -1;
}

/* Context `number` and the headers before it in the sparse file. 0, or -1 after saying why. */
static int materialize(stream *st, uint32_t number)
{
    uint64_t pos = (uint64_t)number - st->info.first_number;
    for (; st->headers_upto < pos; st->headers_upto++) {
        uint64_t k = st->headers_upto;
        if (st->written[k])
            continue;
        mcz_context_info ci;
        if (place(st, st->mch, k, &ci) != 0)
            return DROPIN_FATAL;
        uint32_t total = ci.size - MCZ_MC_OVERHEAD; /* 'm' 'c' u32 totalLen ... '4' '2' */
        uint8_t head[6] = {'m', 'c', (uint8_t)total, (uint8_t)(total >> 8),
                           (uint8_t)(total >> 16), (uint8_t)(total >> 24)};
        if (write_at(st, head, sizeof head, ci.mch_offset) != 0)
            return fail_on(st->mch, strerror(errno));
        st->written[k] = 1;
    }
    if (st->written[pos] == 2)
        return 0;
    mcz_context_info ci;
    if (place(st, st->mch, pos, &ci) != 0)
        return DROPIN_FATAL;
    mcz_mc mc;
    mcz_diag d;
    mcz_diag_clear(&d);
    if (mcz_cursor_get(st->cursor, number, &mc, &d) != MCZ_OK)
        return fail_diag(st->mch, &d);
    if (write_at(st, mc.bytes, mc.size, ci.mch_offset) != 0)
        return fail_on(st->mch, strerror(errno));
    st->written[pos] = 2;
    return 0;
}

/* What superpmi makes of a request line: the context number it asks for (atoi of the text
 * before the first '!'), 0 for "quit", a comment or a stop. */
static long request_number(const char *line)
{
    if (line[0] == '#' || strncmp(line, "quit", 4) == 0)
        return 0;
    return atol(line);
}

/* Passes the requests on, each after its context is in place; ends at the end of the input,
 * at "quit" or at a 0 (after passing it on), or when superpmi stops reading. */
static int serve(stream *st, FILE *in, int to_superpmi)
{
    char *line = NULL;
    size_t cap = 0;
    ptrdiff_t len;
    int rc = 0;
    uint64_t first = st->info.first_number, count = st->info.contexts;
    while (rc == 0 && !mcz_os_stop_watched() && (len = mcz_os_getline(&line, &cap, in)) > 0) {
        long n = request_number(line);
        bool stop = line[0] != '#' && (strncmp(line, "quit", 4) == 0 || n == 0);
        if (n > 0 && (uint64_t)n >= first && (uint64_t)n - first < count)
            rc = materialize(st, (uint32_t)n);
        if (rc == 0 && mcz_os_write_all(to_superpmi, line, (size_t)len) != 0)
            break; /* superpmi ended: its exit code says why */
        if (stop)
            break;
    }
    free(line);
    return rc;
}

/* The real superpmi's words: the input replaced by the sparse file, the requests from stdin. */
static void stream_words(int argc, char **argv, const char *real, const char *input, int value,
                         const char *mch, dropin_words *w)
{
    dropin_words_add(w, real);
    for (int i = 1; i < argc; i++)
        dropin_words_add(w, i == value ? "stdin" : argv[i] == input ? mch : argv[i]);
}

/* In the child started for the real superpmi, when it cannot be run. */
static void cannot_run(const char *path, int err)
{
    tool_error("cannot run %s: %s", path, strerror(err));
}

int dropin_stream(int argc, char **argv, const dropin_cmd *cmd, const char *real)
{
    int value = dropin_streaming_value(argv);
    const char *from = value ? argv[value] : "stdin";
    bool from_stdin = tool_strcasecmp(from, "stdin") == 0;
    FILE *in = from_stdin ? stdin : dropin_fopen_read(from);
    if (!in) {
        tool_error("Failed to open file '%s': %s", from, strerror(errno));
        return 1; /* superpmi's code for it */
    }
    stream st = {.fd = -1};
    int rc = stream_open(&st, cmd->input);
    dropin_words words = {0};
    if (rc == 0)
        stream_words(argc, argv, real, cmd->input, value, st.mch, &words);
    int to_superpmi = -1;
    if (rc == 0 && mcz_os_spawn_piped(real, words.word, &to_superpmi, cannot_run) != 0)
        rc = fail_on("cannot start superpmi", strerror(errno));
    if (rc == 0) {
        mcz_os_stop_watch_begin();
        int served = serve(&st, in, to_superpmi);
        mcz_os_close(to_superpmi);
        int code = mcz_os_spawn_wait(mcz_os_stop_watched());
        rc = mcz_os_stop_watched() ? 128 + mcz_os_stop_watched() : served != 0 ? served : code;
    }
    if (!from_stdin)
        fclose(in);
    dropin_words_free(&words);
    stream_close(&st);
    return rc;
}
