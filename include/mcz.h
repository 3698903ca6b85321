/*
 * mcz.h - reading and writing .mcz archives of .NET SuperPMI collections, and collecting them
 * inside a running process. mcz_superpmi.h adds the legacy layer (MCH contexts, packets, maps,
 * identities, .mct and .mcl files); mcz_agnostic.h the byte layouts of SuperPMI's value structs.
 *
 * An .mcz archive holds the method contexts of an MCH file in independently compressed chunks
 * (2 MiB by default) with a dictionary stored once and an index at the end, so any context is
 * read by decompressing only its chunk (format/FORMAT.md has the bytes).
 *
 * Quick start, reading:
 *
 *     mcz_diag d;
 *     mcz_source *s = mcz_source_open("x.mcz", &d);   // .mcz and .mch alike
 *     char line[MCZ_DIAG_LINE_SIZE];
 *     if (!s) { fprintf(stderr, "%s\n", mcz_diag_format(&d, line, sizeof line)); return 1; }
 *     mcz_mc mc;
 *     while (mcz_source_next(s, &mc, &d) > 0)          // in number order
 *         use(mc.number, mc.bytes, mc.size);         // one serialized context, as in the MCH
 *     if (mcz_source_get(s, 42, &mc, &d) == MCZ_OK)   // or by number: one chunk decoded
 *         use(mc.number, mc.bytes, mc.size);
 *     mcz_source_close(s);
 *
 * Quick start, writing (a conversion, or a collector inside a runtime):
 *
 *     mcz_writer_options o = MCZ_WRITER_OPTIONS_INIT;
 *     o.mode = MCZ_WRITE_LIVE;                        // or ATOMIC (default), MEMORY
 *     o.max_bytes = 256u << 20;                       // a rolling bound, for collectors
 *     mcz_writer *w = mcz_writer_open("out.mcz", &o, &d);
 *     ...  mcz_writer_append(w, bytes, size, NULL);   // any thread; copies and returns
 *     if (mcz_writer_close(w, &d) != MCZ_OK) ...      // the archive is complete
 *
 * Conventions that hold for every function below:
 * - Functions return MCZ_OK (0) or a negative mcz error code; sizes are int64_t with a negative
 *   value meaning an error. mcz_error_name() turns a code into text.
 * - Every function that parses bytes takes an optional mcz_diag *: on error it is filled with the
 *   code, the file or URL concerned (where the function knows it), the byte offset and the
 *   context number concerned, and a one-line message; mcz_diag_format makes them one line.
 *   Pass NULL when the detail is not wanted.
 * - Handles are opaque. Each has a create/open and a free/close that accepts NULL. A handle that
 *   met a fatal error keeps it (sticky) and refuses further work with the same code.
 * - Every byte from a file is hostile: nothing here reads out of bounds or allocates more than the
 *   input can justify, whatever the input.
 * - Views (mcz_mc) point into memory owned by someone else and stay valid as long as that memory
 *   does; they never own anything.
 *
 * The ABI: see Version below. Options structs start with struct_size, so fields can be added;
 * what stands under MCZ_STATIC_LINKING_ONLY at the end has no ABI promise at all.
 */
#ifndef MCZ_H
#define MCZ_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* On Windows the static library (the default) needs no decoration; a DLL is built and used
 * with MCZ_DLL defined, which exports the API from it and imports it into its users. */
#if defined(_WIN32) && defined(MCZ_DLL) && defined(MCZ_BUILDING_LIBRARY)
#define MCZ_API __declspec(dllexport)
#elif defined(_WIN32) && defined(MCZ_DLL)
#define MCZ_API __declspec(dllimport)
#elif defined(MCZ_BUILDING_LIBRARY) && defined(__GNUC__) && !defined(_WIN32)
#define MCZ_API __attribute__((visibility("default")))
#else
#define MCZ_API
#endif

/* Printf-style checks on the library's formatting functions. MinGW's GCC takes "printf" for
 * Microsoft's, which lacks %zu; the library formats with MinGW's C99 one (its Windows build
 * defines __USE_MINGW_ANSI_STDIO), whatever printf the program calling it uses: gnu_printf. */
#if defined(__MINGW32__) && defined(__GNUC__)
#define MCZ_DIAG_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#elif defined(__GNUC__)
#define MCZ_DIAG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MCZ_DIAG_PRINTF(f, a)
#endif

/* On results that must not be ignored: a commit or close that failed means no output. */
#if defined(__GNUC__)
#define MCZ_NODISCARD __attribute__((warn_unused_result))
#else
#define MCZ_NODISCARD
#endif

/* ============================================================================================ */
/* Version                                                                                       */
/* ============================================================================================ */

/*
 * The library's version. MAJOR changes when the ABI breaks (libmcz.so.MAJOR), MINOR when
 * functions or options are added, PATCH for fixes. A program built against one MAJOR.MINOR runs
 * with any later MINOR of the same MAJOR; compare mcz_version_number() with MCZ_VERSION_NUMBER
 * at start to find out which library was loaded.
 */
#define MCZ_VERSION_MAJOR 3
#define MCZ_VERSION_MINOR 1
#define MCZ_VERSION_PATCH 0
#define MCZ_VERSION_NUMBER \
    (MCZ_VERSION_MAJOR * 10000 + MCZ_VERSION_MINOR * 100 + MCZ_VERSION_PATCH)
#define MCZ_VERSION_STR_(x) #x
#define MCZ_VERSION_STR(x) MCZ_VERSION_STR_(x)
#define MCZ_VERSION_STRING                                                            \
    MCZ_VERSION_STR(MCZ_VERSION_MAJOR) "." MCZ_VERSION_STR(MCZ_VERSION_MINOR) "." \
        MCZ_VERSION_STR(MCZ_VERSION_PATCH)

/* The version of the library actually loaded: MCZ_VERSION_NUMBER and MCZ_VERSION_STRING as it
 * was built. */
MCZ_API unsigned mcz_version_number(void);
MCZ_API const char *mcz_version_string(void);

/* ============================================================================================ */
/* Errors                                                                                        */
/* ============================================================================================ */

/* The single list of error codes: X(name, value, message). */
#define MCZ_ERROR_LIST(X)                                                 \
    X(MCZ_OK, 0, "success")                                               \
    X(MCZ_EINVAL, -1, "invalid argument")                                 \
    X(MCZ_ENOMEM, -2, "out of memory")                                    \
    X(MCZ_EIO, -3, "I/O error")                                           \
    X(MCZ_ECORRUPT, -4, "corrupt input")                                  \
    X(MCZ_ETRUNCATED, -5, "truncated input")                              \
    X(MCZ_ECHECKSUM, -6, "checksum mismatch")                             \
    X(MCZ_EMISSING, -7, "missing packet or key")                          \
    X(MCZ_ENOTFOUND, -8, "no such context")                               \
    X(MCZ_EVERSION, -9, "unsupported format version")                     \
    X(MCZ_EDICT, -10, "dictionary mismatch")                              \
    X(MCZ_EZSTD, -11, "compression library error")                        \
    X(MCZ_ESTATE, -12, "handle used in the wrong state")                  \
    X(MCZ_ELIMIT, -13, "size limit exceeded")                             \
    X(MCZ_EUNSUPPORTED, -14, "unsupported input")                        \
    X(MCZ_EDROPPED, -15, "context dropped: the compression queue is full")

typedef enum mcz_error {
#define MCZ_X_ENUM(name, value, text) name = value,
    MCZ_ERROR_LIST(MCZ_X_ENUM)
#undef MCZ_X_ENUM
} mcz_error;

/* Static text for a code ("corrupt input"); "unknown error" for a value not in the list. */
MCZ_API const char *mcz_error_name(int code);

/*
 * What went wrong, and where: the code, the subject (the file or URL being read or written), the
 * byte offset and the context number as data, and a one-line message that says what happened
 * without repeating them. mcz_diag_format puts the parts together for a person to read.
 * Every field is "none" after mcz_diag_clear: subject and message empty, offset and context -1.
 */
typedef struct mcz_diag {
    int code;          /* an mcz_error */
    int64_t offset;    /* byte offset in the subject (or buffer) being read; -1: none */
    int64_t context;   /* 1-based method-context number; <= 0: none */
    char message[256]; /* one line, no trailing newline */
    char subject[512]; /* the file or URL concerned, as the caller named it; "": not known */
} mcz_diag;

/* Resets d to "no error" (code 0, offset and context -1, empty subject and message). */
MCZ_API void mcz_diag_clear(mcz_diag *d);

/*
 * An offset and a context number as two distinct types, so that a call passing one for the other
 * does not compile: mcz_diag_set(d, code, mcz_at_offset(off), mcz_in_context(n), "...").
 */
typedef struct mcz_diag_offset {
    int64_t value; /* -1: none */
} mcz_diag_offset;
typedef struct mcz_diag_context {
    int64_t value; /* <= 0: none */
} mcz_diag_context;

static inline mcz_diag_offset mcz_at_offset(int64_t offset)
{
    mcz_diag_offset at = {offset};
    return at;
}

static inline mcz_diag_context mcz_in_context(int64_t number)
{
    mcz_diag_context in = {number};
    return in;
}

#define MCZ_NO_OFFSET mcz_at_offset(-1)
#define MCZ_NO_CONTEXT mcz_in_context(-1)

/* Fills d (when not NULL) as the library does on a failure and returns code, so a caller that
 * reports through an mcz_diag of its own writes
 * `return mcz_diag_set(d, code, MCZ_NO_OFFSET, mcz_in_context(n), "...")`. The subject is
 * emptied: a failure is described anew, and whoever knows the file names it after
 * (mcz_diag_set_subject). */
MCZ_API int mcz_diag_set(mcz_diag *d, int code, mcz_diag_offset offset, mcz_diag_context context,
                         const char *fmt, ...) MCZ_DIAG_PRINTF(5, 6);
MCZ_API int mcz_diag_vset(mcz_diag *d, int code, mcz_diag_offset offset,
                          mcz_diag_context context, const char *fmt, va_list ap)
    MCZ_DIAG_PRINTF(5, 0);

/* Names the file or URL d concerns (NULL: none); a longer name is cut to fit. Nothing when d is
 * NULL. The message is left alone: it never holds the subject. */
MCZ_API void mcz_diag_set_subject(mcz_diag *d, const char *subject);

/*
 * The one line a program prints for d, into buf (cap bytes, cut to fit, always terminated when
 * cap > 0); returns buf:
 *
 *     SUBJECT: context N at offset X: MESSAGE
 *
 * with only the parts d holds (no subject, context <= 0, offset < 0 leave theirs out; "context N:"
 * or "at offset X:" alone when only one is known). An empty message is the code's name.
 * Meanwhile some messages of the library name no subject but begin with the file they concern
 * themselves; those have no subject part, and the message comes as it is after the location.
 */
MCZ_API const char *mcz_diag_format(const mcz_diag *d, char *buf, size_t cap);
/* A buffer of this size holds any line mcz_diag_format writes, uncut. */
#define MCZ_DIAG_LINE_SIZE 1024

/* ============================================================================================ */
/* A method context, a hash                                                                      */
/* ============================================================================================ */

/*
 * A method context (MC) serialized as SuperPMI does: 'm' 'c', u32 LE totalLen, totalLen bytes
 * of packets, '4' '2'. An MCH file is MCs back to back; MCs are numbered 1, 2, 3... by position.
 */
#define MCZ_MC_OVERHEAD 8u          /* header (6) + trailer (2) */
#define MCZ_MC_MAX_SIZE 0x7FFFFFF0u /* largest context mcz accepts, in bytes */

typedef struct mcz_mc {
    const uint8_t *bytes; /* the whole serialized context, header and trailer included */
    size_t size;          /* totalLen + 8 */
    uint64_t offset;      /* offset of the 'm' byte in its file, for messages and indexes */
    uint32_t number;      /* 1-based context number */
} mcz_mc;

/* A 128-bit hash: a method's identity or an archive's dedup key. */

typedef struct mcz_hash128 {
    uint8_t bytes[16]; /* h1 then h2, each little-endian, as SuperPMI prints them */
} mcz_hash128;

/* ============================================================================================ */
/* The .mcz archive (format/FORMAT.md)                                                           */
/* ============================================================================================ */

/* Removes every temporary file of this process that is not committed yet (outputs being
 * written, by any writer or mcz_outfile) and returns how many. Async-signal-safe: for a
 * SIGINT/SIGTERM handler, which then ends the process. */
MCZ_API unsigned mcz_remove_temporaries(void);

/* ---- Writer ---- */

typedef struct mcz_writer mcz_writer;
typedef struct mcz_reader mcz_reader; /* below */

/* Where the archive lives while it is written. */
typedef enum mcz_writer_mode {
    /* A temporary file beside path, renamed into place by mcz_writer_close: nothing appears at
     * path before the archive is complete (conversion, mcs). */
    MCZ_WRITE_ATOMIC = 0,
    /* The file at path from the start (a collector; an existing file is replaced): each chunk is
     * written as soon as it is compressed; every checkpoint_ms the written chunks are synced
     * (fdatasync), and the index and footer rewritten after the last chunk when that costs at
     * most a quarter of the chunk bytes written since the last time, or once chunks stop
     * coming (and at every flush), so the file is a complete archive at every checkpoint and
     * checkpoint_ms after its writer pauses (FORMAT.md §12). After a crash at any moment,
     * mcz_recover() gives back every context of every chunk written before it. With max_bytes,
     * discarded chunks become holes in the file (FORMAT.md §12). */
    MCZ_WRITE_LIVE = 1,
    /* Compressed chunks kept in memory (bounded by max_bytes), written out as a complete archive
     * by mcz_writer_dump(), by the signals mcz_writer_dump_on_signal() installs, and by close
     * (to path). Nothing is written before. */
    MCZ_WRITE_MEMORY = 2,
    /* The archive's frames sent, as they are ready, to stream_fd (a pipe or socket the runtime
     * gives; path only names it in messages and may be NULL): the header and dictionary frames
     * once the dictionary is decided, then each chunk's frames as it is compressed, in number
     * order, and at close the index and footer. What a receiver got is a prefix of an archive
     * (FORMAT.md §12 "Streams"): `mcs -recover` completes it, `mcs -receive` keeps it as a
     * rolling archive. The writer keeps each sent chunk's index rows (40 bytes a context, 8
     * with no_hashes) until close, no chunk bytes; max_bytes must be 0 (the receiver bounds).
     * Sockets are written with send(MSG_NOSIGNAL), anything else with SIGPIPE blocked in the
     * writing thread (a SIGPIPE raised by that write is consumed), so a receiver that goes away
     * never kills the process: the stream is then closed for good, chunks stay queued, and
     * appends meet the full policy (when_full: BLOCK waits until close or abort, DROP refuses
     * with MCZ_EDROPPED); flush and close then fail with MCZ_EIO. The descriptor stays the
     * caller's (never closed by the writer). mcz_writer_dump is MCZ_ESTATE. */
    MCZ_WRITE_STREAM = 3,
} mcz_writer_mode;

/* What mcz_writer_append does when queue_chunks sealed chunks already wait for compression or
 * output and the context would need another. The other calls always wait. */
typedef enum mcz_full_policy {
    MCZ_FULL_BLOCK = 0, /* wait for a compression thread: nothing is lost, the caller may stall */
    MCZ_FULL_DROP = 1,  /* refuse the context with MCZ_EDROPPED and count it: never waits */
} mcz_full_policy;

/* How the writer compresses chunks (recorded per chunk, FORMAT.md §4; README.md "Presets"). */
typedef enum mcz_codec {
    MCZ_CODEC_DEFAULT = 0, /* in options: zstd */
    MCZ_CODEC_ZSTD = 1,    /* zstd, levels 1-22, with the shared dictionary: fast to read */
    MCZ_CODEC_XZ = 2,      /* xz (LZMA2, liblzma), levels 1-9, no dictionary: cold storage */
} mcz_codec;

/* How a chunk's contexts are laid out before compression (recorded per chunk, FORMAT.md §4a;
 * the figures in bench/FIGURES.md §1). */
typedef enum mcz_layout {
    MCZ_LAYOUT_DEFAULT = 0, /* in options: packets */
    MCZ_LAYOUT_PLAIN = 1,   /* the contexts' bytes as they are (a data frame is an MCH fragment) */
    MCZ_LAYOUT_PACKETS = 2, /* framing first, then every packet id's keys, values and pools
                             * together: about 9% smaller chunks, read back byte for byte */
} mcz_layout;

/* Zero fields mean "the default"; the defaults and the figures behind them are in
 * format/FORMAT.md §10. Start from MCZ_WRITER_OPTIONS_INIT, then set fields by name:
 * struct_size records which version of the struct the caller was built with, so fields can be
 * added at the end without breaking programs built before (the library reads only the first
 * struct_size bytes, the rest taken as zero). */
typedef struct mcz_writer_options {
    uint32_t struct_size; /* sizeof(mcz_writer_options) as the caller sees it */
    int level;             /* zstd level; 0: default (12; LIVE and MEMORY: 7) */
    uint32_t chunk_size;   /* target uncompressed bytes per chunk; 0: default (2 MiB; LIVE
                            * and MEMORY: 1 MiB); above 8 MiB the window covers the chunk */
    uint32_t dict_size;    /* dictionary capacity when training; 0: default */
    bool no_dict;          /* compress without a dictionary */
    int threads;           /* compression threads; 0: one per core */
    const void *dict;      /* a ready dictionary (e.g. from another archive); NULL: train one */
    size_t dict_len;
    uint64_t train_bytes;  /* input buffered to train the dictionary; 0: default (8 MiB; 2 MiB
                            * for LIVE and MEMORY, which write nothing before it is decided) */
    uint32_t first_number; /* number given to the first appended context; 0: 1 */

    /* ---- Collector options (README.md "Collecting inside a runtime"; FORMAT.md §12) ---- */
    mcz_writer_mode mode;      /* where the archive lives while being written; default ATOMIC */
    mcz_full_policy when_full; /* what append does when the queue is full; default BLOCK */
    uint32_t queue_chunks;     /* sealed chunks waiting for compression or output; 0: 2 x threads + 2
                                * (the training samples, up to train_bytes, come on top) */
    uint64_t max_bytes;        /* rolling bound on retained chunk bytes (compressed, chunk frames);
                                * the oldest chunks are discarded whole; 0: unbounded (MEMORY mode:
                                * 0 means 64 MiB). LIVE and MEMORY only; LIVE needs a file system
                                * that punches holes (else open fails, MCZ_EUNSUPPORTED) */
    uint32_t flush_contexts;   /* seal the open chunk once it holds this many contexts; 0: off */
    uint32_t flush_ms;         /* seal the open chunk this long after its first context; 0: off */
    uint32_t checkpoint_ms;    /* LIVE: sync, and maybe rewrite the index, this often; 0: 1000 */

    /* The smallest archive: the index stores no identity hashes or dedup keys (32 bytes per
     * context, FORMAT.md §5) and the workers compute none; -toc, -removeDup and the like then
     * decode the chunks to compute them. */
    bool no_hashes;

    /* Bytes of contexts the caller expects to append in all (e.g. the size of the collection
     * being converted); 0: unknown. Only the dictionary decision reads it: a trained dictionary
     * is kept when what it saves on its samples, scaled to this size, exceeds what it costs to
     * store; unknown, it must pay on the samples alone (FORMAT.md §10). */
    uint64_t expected_bytes;

    /* The chunks' codec (0: zstd); MCZ_CODEC_XZ excludes a dictionary (no_dict is implied, dict
     * must be NULL) and takes level 1-9 (0: default 9; always with xz's "extreme" search). */
    mcz_codec codec;

    /* The JIT-EE version (mcz_superpmi.h) whose packet table and CorInfoType numbering the
     * identity hashes use; the header records it (FORMAT.md §2). NULL: the newest. */
    const struct mcz_jit_ee *jit_ee;

    /* MCZ_WRITE_STREAM: the descriptor the frames are sent to (any value >= 0, 0 included;
     * read in that mode only). Blocking or not: a full non-blocking one is polled. */
    int stream_fd;

    /* The chunks' layout (0: packets); the header records it (FORMAT.md §2, §4a). */
    mcz_layout layout;

    /* ---- Since 2.2: what the collection is for, recorded as given (FORMAT.md §2a) ---- */
    /* The JIT-EE version GUID of the runtime whose JIT the contexts were collected from (its
     * JITEEVersionIdentifier, the key superpmi.py files collections under): 8-4-4-4-12 hex
     * digits, any case, stored in lower case. Not the packet table (jit_ee above), which mcz
     * reads the packets with. NULL: none recorded. A text that is no GUID is MCZ_EINVAL. */
    const char *jit_ee_guid;
    /* The target the JIT compiled for, as superpmi.py names it (e.g. "linux", "x64"): 1 to 16
     * letters, digits or '_', any case, stored in lower case; NULL: none recorded. */
    const char *target_os;
    const char *target_arch;
} mcz_writer_options;

/* Text sizes, NUL included, of a canonical GUID and of a target name. */
#define MCZ_GUID_TEXT_SIZE 37
#define MCZ_TARGET_TEXT_SIZE 17

/* Writes text's canonical form (lower case) to out when text is a GUID, 8-4-4-4-12 hex digits
 * and nothing else: MCZ_OK, else MCZ_EINVAL (out then is ""). Since 2.2. */
MCZ_API int mcz_guid_canonical(const char *text, char out[MCZ_GUID_TEXT_SIZE]);
/* The same for a target OS or architecture name (1 to 16 letters, digits or '_'). Since 2.2. */
MCZ_API int mcz_target_canonical(const char *text, char out[MCZ_TARGET_TEXT_SIZE]);

/* struct_size set, every other field zero (its default). */
#ifdef __cplusplus
#define MCZ_WRITER_OPTIONS_INIT {sizeof(mcz_writer_options)}
#else
#define MCZ_WRITER_OPTIONS_INIT {.struct_size = sizeof(mcz_writer_options)}
#endif

/*
 * Creates an archive at path (opt NULL: every default; a struct_size smaller than the first
 * field's end, or larger than this library's struct, is MCZ_EINVAL). ATOMIC: nothing appears at path before mcz_writer_close()
 * succeeds, the data goes to a temporary file beside it. LIVE: path is created (truncated) now.
 * MEMORY: nothing is written before a dump or close. Besides the open chunk and the queue
 * (queue_chunks), the writer keeps two chunk buffers ready for appends (chunk_size bytes each,
 * at most 16 MiB), allocated and mapped here: bench/COLLECTOR.md §3.
 */
MCZ_API MCZ_NODISCARD mcz_writer *mcz_writer_open(const char *path, const mcz_writer_options *opt,
                                    mcz_diag *diag);

/*
 * Appends one serialized context (container-checked; copied, so the caller may reuse its
 * buffer). Safe to call from several threads; contexts are numbered in the order the calls take
 * effect, and *number (optional) receives the number given. The call reserves room under a
 * short lock and copies without it, into a chunk buffer the writer's threads made ready (mapped,
 * recycled from compressed chunks); it allocates only for a context larger than a chunk's room
 * (or when bursts outrun the threads that make buffers ready), and wakes a compression thread
 * only when none is watching for work. Hashing, compression, dictionary training and I/O run on
 * the writer's threads. When queue_chunks sealed chunks wait and this context needs a new
 * chunk, MCZ_FULL_BLOCK waits for room (memory stays bounded) and MCZ_FULL_DROP returns
 * MCZ_EDROPPED at once (counted in stats.dropped_full; no number is used). A context refused by
 * the container check or dropped leaves the writer usable; I/O and compression failures are
 * sticky (mcz_writer_diag).
 */
MCZ_API MCZ_NODISCARD int mcz_writer_append(mcz_writer *w, const void *mc, size_t size, uint32_t *number);

/*
 * A chunk as stored in an archive (its chunk-header frame and data frame, e.g. from
 * mcz_reader_chunk_frames) with the stored hashes of its contexts (identity, dedup: count
 * entries each, in order). When the data uses the writer's codec and dictionary (same id, or
 * both none) it is decoded and verified in full (header, decode, XXH3, containers), then copied byte
 * for byte with its header renumbered; otherwise MCZ_EDICT and nothing is appended (the caller
 * appends the contexts instead). The open chunk is sealed first. The writer's dictionary is
 * decided first (trained on what was appended, if it is still pending): open the writer with
 * the source's dictionary (opt.dict) for its chunks to be copied. The copy takes the next
 * numbers and keeps the given hashes. A writer opened with no_hashes ignores them; identity or
 * dedup NULL (the source archive stores none: mcz_archive_info.hashes false) makes a writer
 * that stores hashes compute both from the chunk it decodes anyway to verify it. `count` must
 * equal the chunk header's count (else MCZ_EINVAL). A damaged chunk is an error whose diag
 * gives an offset within frames and, when the chunk header is readable, the context concerned
 * (by its number in the source; the caller adds the file and where frames lie in it); nothing
 * of it is appended and w stays usable. Waits for room whatever when_full says.
 */
MCZ_API MCZ_NODISCARD int mcz_writer_append_compressed(mcz_writer *w, const void *frames, size_t len,
                                         const mcz_hash128 *identity, const mcz_hash128 *dedup,
                                         uint32_t count, mcz_diag *diag);

/*
 * Seals the open chunk now, decides the dictionary if it is still pending (training on what is
 * buffered), and waits until every chunk sealed so far is compressed and in the output (the
 * file, or the memory ring); in LIVE mode the index is then checkpointed, so the file is a
 * complete archive of every context appended before the call.
 */
MCZ_API MCZ_NODISCARD int mcz_writer_flush(mcz_writer *w);

/*
 * Writes a complete archive of what the writer retains to path, atomically, after a flush: every
 * context appended before the call that max_bytes has not discarded. For MEMORY and LIVE writers
 * (MCZ_ESTATE for ATOMIC); the writer goes on.
 */
MCZ_API MCZ_NODISCARD int mcz_writer_dump(mcz_writer *w, const char *path, mcz_diag *diag);

/*
 * Installs signal handlers that write the retained chunks to path. request_signal (e.g.
 * SIGUSR1; 0 for none; LIVE or MEMORY) asks for a dump, done by a writer thread with
 * mcz_writer_dump() (a failed one is not the writer's error; the next request tries again).
 * Windows sends a process no signals: there a request_signal is refused (MCZ_EUNSUPPORTED);
 * call mcz_writer_dump() from a thread of your own instead.
 * With on_fatal (MEMORY only), SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT (on Windows: an
 * exception nothing handled, through the unhandled-exception filter, and abort) write the chunks
 * already in the ring using only async-signal-safe calls (open, write, fsync, rename, close; no
 * locks, no allocation; SA_ONSTACK, so an alternate signal stack is used when the thread has
 * one) to "path.partial", renamed to path once complete; then the previous action is restored
 * and the signal raised again (Windows: the previous filter decides). The dump holds every
 * context stats.last_retained reported before it; from the moment it starts the ring is frozen. A dump cut short (a second fault, a kill)
 * leaves path.partial, from which mcz_recover() restores every whole chunk. One writer per
 * process may hold the handlers (MCZ_ESTATE otherwise); close and abort remove them.
 */
MCZ_API int mcz_writer_dump_on_signal(mcz_writer *w, const char *path, int request_signal,
                                      bool on_fatal, mcz_diag *diag);

/* What a writer has done so far (any mode, any thread). */
typedef struct mcz_writer_stats {
    uint64_t appended;         /* contexts accepted */
    uint64_t dropped_full;     /* contexts refused by MCZ_FULL_DROP */
    uint64_t dropped_rolling;  /* contexts discarded with their chunks by max_bytes */
    uint64_t chunks_sealed;
    uint64_t chunks_dropped;   /* chunks discarded by max_bytes */
    uint64_t raw_bytes;        /* bytes of the contexts accepted */
    uint64_t retained_bytes;   /* chunk bytes held now (file or memory), at most max_bytes */
    uint64_t written_bytes;    /* ATOMIC, LIVE: bytes written to the file, checkpoints included */
    uint32_t first_retained;   /* lowest context number still held; 0 when none */
    uint32_t last_retained;    /* highest number in the output (file or ring); 0 when none */
    uint32_t queue_peak;       /* most sealed chunks ever waiting at once */
    uint64_t compress_cpu_ns;  /* CPU time of the background threads (hashing, compression,
                                * dictionary training) */
    uint64_t checkpoints;      /* LIVE: index rewrites */
} mcz_writer_stats;

MCZ_API void mcz_writer_get_stats(mcz_writer *w, mcz_writer_stats *out);

/* Seals the last chunk, waits for every chunk, and finishes the archive: ATOMIC writes the index
 * and footer and renames the file into place (on failure nothing is left at the path); LIVE
 * writes the final checkpoint; MEMORY dumps the ring to path. Frees w whatever the result. */
MCZ_API MCZ_NODISCARD int mcz_writer_close(mcz_writer *w, mcz_diag *diag);

/* Stops at once and frees w (accepts NULL): an ATOMIC temporary file is removed; a LIVE file is
 * left as it is (an archive as of its last checkpoint; mcz_recover() restores the chunks written
 * after it); a MEMORY ring is lost. */
MCZ_API void mcz_writer_abort(mcz_writer *w);

/* The writer's sticky error, if any. */
MCZ_API const mcz_diag *mcz_writer_diag(const mcz_writer *w);

/* ---- Reader ---- */

/*
 * An open archive: the file mapped read-only, its footer and index validated. Immutable after
 * open, so one reader serves any number of threads, each with its own mcz_cursor.
 */
typedef struct mcz_reader mcz_reader;

typedef struct mcz_archive_info {
    uint32_t version;      /* format version */
    uint64_t contexts;     /* contexts held */
    uint64_t chunks;
    uint32_t first_number; /* lowest context number held (1 unless a rolling archive) */
    uint32_t last_number;
    uint64_t raw_bytes;    /* sum of the contexts' sizes (the equivalent .mch size) */
    uint64_t file_bytes;
    uint32_t dict_id;      /* 0: no dictionary */
    uint32_t dict_size;
    int level;             /* level recorded by the writer */
    uint32_t chunk_size;   /* target recorded by the writer */
    bool hashes;           /* the index stores identity hashes and dedup keys (no_hashes: not) */
    mcz_codec codec;       /* the codec the writer recorded, ZSTD or XZ (each chunk names its own) */
    /* No field is added here: the caller allocates the struct, and a program built against an
     * older header would have its memory written past the end. Later facts get a function
     * (mcz_reader_layout). */
} mcz_archive_info;

typedef struct mcz_chunk_info {
    uint64_t offset;       /* absolute file offset of the chunk's frames */
    uint32_t stored_size;  /* bytes in the file */
    uint32_t raw_size;     /* uncompressed bytes (whole contexts) */
    uint32_t first_number;
    uint32_t count;
    uint64_t checksum;     /* XXH3-64 of the raw bytes */
} mcz_chunk_info;

MCZ_API MCZ_NODISCARD mcz_reader *mcz_reader_open(const char *path, mcz_diag *diag);
MCZ_API void mcz_reader_close(mcz_reader *r);
MCZ_API void mcz_reader_get_info(const mcz_reader *r, mcz_archive_info *out);
/* The layout the writer recorded, MCZ_LAYOUT_PLAIN or MCZ_LAYOUT_PACKETS (each chunk names its
 * own too: FORMAT.md §4a). Since 2.1. */
MCZ_API mcz_layout mcz_reader_layout(const mcz_reader *r);
/* The JIT-EE version (mcz_superpmi.h) the archive records, the one its stored identity hashes
 * and dedup keys were computed with; NULL when it records none (format version 1, whose stored
 * hashes use version B's table): the contexts' packets then tell (mcz_jit_ee_detect). */
MCZ_API const struct mcz_jit_ee *mcz_reader_jit_ee(const mcz_reader *r);
/* The version the stored hashes were computed with: mcz_reader_jit_ee, or B when the archive
 * records none. */
MCZ_API const struct mcz_jit_ee *mcz_reader_hash_jit_ee(const mcz_reader *r);
/* The JIT-EE version GUID the archive records (mcz_writer_options.jit_ee_guid, FORMAT.md §2a),
 * canonical lower case, valid while r is open; NULL when it records none. Never derived from
 * the packets. Since 2.2. */
MCZ_API const char *mcz_reader_jit_ee_guid(const mcz_reader *r);
/* The target OS and architecture the archive records; each NULL when not recorded. Since 2.2. */
MCZ_API void mcz_reader_target(const mcz_reader *r, const char **os, const char **arch);
MCZ_API int mcz_reader_chunk(const mcz_reader *r, uint64_t index, mcz_chunk_info *out);
/* Index of the chunk holding context `number`, or MCZ_ENOTFOUND. */
MCZ_API int64_t mcz_reader_chunk_of(const mcz_reader *r, uint32_t number);
/* The stored bytes of chunk `index` (chunk header frame + zstd data frame, mcz_chunk_info's
 * stored_size of them) as a view into the archive, valid while r is open. Their chunk header is
 * checked against the index entry here (every field, every length, as mcz_cursor_chunk does;
 * MCZ_ECORRUPT with the chunk's offset and first context in diag); the data frame is verified
 * by whoever decodes it (mcz_cursor_chunk, mcz_writer_append_compressed, which together check
 * what a read checks). MCZ_ENOTFOUND past the end. */
MCZ_API int mcz_reader_chunk_frames(const mcz_reader *r, uint64_t index, const uint8_t **frames,
                                    size_t *len, mcz_diag *diag);
/* mcz_file_drop_behind on the archive's file, for walks over its chunks in file order that do
 * not go through a cursor (which drops behind itself), e.g. copying chunk frames. */
MCZ_API void mcz_reader_drop_behind(const mcz_reader *r, uint64_t *dropped, uint64_t offset);
/* One context as the index describes it: no decompression. */
typedef struct mcz_context_info {
    uint32_t number;
    uint32_t size;         /* bytes of its legacy encoding */
    uint64_t chunk;        /* index of the chunk holding it */
    uint64_t mch_offset;   /* its offset in the equivalent MCH (the sizes before it, summed) */
    mcz_hash128 identity;  /* as in .mct; all zero when the identity cannot be built */
    mcz_hash128 dedup;     /* the -removeDup key (see mcz_mc_dedup_key) */
    bool hashes;           /* identity and dedup are stored; false: the archive stores none, both
                            * are zero, and the context must be decoded to compute them */
} mcz_context_info;

/* Context at `position` (0 .. contexts-1, in number order); MCZ_ENOTFOUND past the end. */
MCZ_API int mcz_reader_context(const mcz_reader *r, uint64_t position, mcz_context_info *out);

/* Which stored hashes mcz_reader_context_with reads besides a context's place (number, size,
 * chunk, offset: always). */
typedef enum mcz_context_part {
    MCZ_CONTEXT_PLACE = 0,    /* neither: identity and dedup left zero */
    MCZ_CONTEXT_IDENTITY = 1, /* the identity */
    MCZ_CONTEXT_DEDUP = 2,    /* the -removeDup key */
    MCZ_CONTEXT_ALL = 3       /* both: mcz_reader_context */
} mcz_context_part;

/* mcz_reader_context reading only the hashes `parts` names (a mask of mcz_context_part); out's
 * hashes still says whether the archive stores them, and a hash not asked for is zero. A walk
 * that needs no hash spares the reader a stream per hash column over a large index (FORMAT.md
 * §5 "What a reader holds": a zstd window each). Since 3.1. */
MCZ_API int mcz_reader_context_with(const mcz_reader *r, uint64_t position, unsigned parts,
                                    mcz_context_info *out);

/* Stored hashes of a context: identity with names (as in .mct) and the -removeDup key (identity
 * without names, or a hash of the bytes when the identity cannot be built). Either may be NULL.
 * MCZ_EMISSING when the archive stores no hashes (mcz_archive_info.hashes false): decode the
 * context and use mcz_mc_identity_hash / mcz_mc_dedup_key. */
MCZ_API int mcz_reader_hashes(const mcz_reader *r, uint32_t number, mcz_hash128 *identity,
                              mcz_hash128 *dedup);
/* The archive's dictionary bytes (NULL, 0 when none). */
MCZ_API void mcz_reader_dict(const mcz_reader *r, const void **dict, size_t *len);

/* Per-thread decoding state: one zstd context and the last chunk decoded. */
typedef struct mcz_cursor mcz_cursor;

MCZ_API MCZ_NODISCARD mcz_cursor *mcz_cursor_create(const mcz_reader *r);
MCZ_API void mcz_cursor_free(mcz_cursor *c);
/* Decompresses and verifies chunk `index` (cached: asking again is free). *raw stays valid until
 * the cursor decodes another chunk; on error *raw is NULL and *len 0 (either may be NULL). */
MCZ_API int mcz_cursor_chunk(mcz_cursor *c, uint64_t index, const uint8_t **raw, size_t *len,
                             mcz_diag *diag);
/* Context `number` as a view into the decoded chunk (valid until the next chunk is decoded). */
MCZ_API int mcz_cursor_get(mcz_cursor *c, uint32_t number, mcz_mc *out, mcz_diag *diag);

/* Progress callback for long work: done and total in the caller's unit (bytes or contexts). */
typedef void (*mcz_progress_fn)(void *arg, uint64_t done, uint64_t total);

/* Deep verification: every chunk's checksum, every context's packets, every stored hash (when
 * the archive stores hashes). */
MCZ_API MCZ_NODISCARD int mcz_reader_verify(const mcz_reader *r, mcz_progress_fn progress, void *arg,
                              mcz_diag *diag);

/*
 * Rebuilds a complete archive at out_path from a damaged or truncated one (e.g. a writer killed
 * mid-run) by scanning its self-describing chunks. Every chunk that decodes and checks out is
 * kept; *kept and *lost count contexts. Fails only when nothing can be recovered.
 */
MCZ_API MCZ_NODISCARD int mcz_recover(const char *in_path, const char *out_path, uint64_t *kept,
                        uint64_t *lost, mcz_diag *diag);

/* What mcz_recover_report found (all zero before it runs, contexts and chunks zero on error). */
typedef struct mcz_recovery {
    uint64_t contexts, chunks; /* kept in the output */
    uint64_t lost;             /* contexts known to have existed and not kept (gaps, damage) */
    uint64_t duplicates;       /* copies of a chunk already kept, left out */
    uint64_t skipped;          /* chunk frames whose header verifies but whose chunk does not,
                                  or that overlap a kept chunk with other contexts */
    bool image;                /* the input was no archive but a memory image (a core dump):
                                  header, dictionary and chunks were found wherever they lay */
    bool lost_open;            /* an archive without a footer that verifies (cut short): lost
                                  counts only what its bytes show (gaps, damaged chunks whose
                                  header survived); contexts past the cut, if any, are not known.
                                  It lies in what 3.0 left as padding: the size is 3.0's */
} mcz_recovery;

/*
 * mcz_recover, also from a memory image: an ELF core dump of a process running a MEMORY writer
 * (gcore, or the kernel's core of a crash), a Windows minidump with full memory (only the memory
 * it lists is searched) or any byte image holding its state (FORMAT.md §13).
 * An input that does not start with an archive header is scanned for the writer's header frame,
 * dictionary and chunks; the chunks that verify are written in context-number order, each once.
 * The input is mapped, not read into memory. report may be NULL.
 */
typedef struct mcz_src mcz_input; /* a file, stream or URL opened once: mcz_input_open */
MCZ_API MCZ_NODISCARD int mcz_recover_report(const char *in_path, const char *out_path,
                                             mcz_recovery *report, mcz_diag *diag);
/* mcz_recover_report of an input (see mcz_input_open). Since 3.0. */
MCZ_API MCZ_NODISCARD int mcz_recover_input(mcz_input *in, const char *out_path,
                                            mcz_recovery *report, mcz_diag *diag);

/* ---- Source: .mch and .mcz behind one interface ---- */

/*
 * A collection to read contexts from, whatever its format: an archive (detected by its magic)
 * or an MCH file (with its .mct, when there is one, for random access). Single-threaded: open
 * one source per thread.
 */
typedef struct mcz_source mcz_source;

MCZ_API MCZ_NODISCARD mcz_source *mcz_source_open(const char *path, mcz_diag *diag);
/* Bytes of a file's start that tell an archive from anything else (FORMAT.md §2). */
#define MCZ_ARCHIVE_HEAD_SIZE 12
/* 1 when head (a file's first len bytes) starts like an archive, as mcz_source_open tells it
 * whatever the file's name; 0 otherwise (an MCH starts with "mc"). Reads no more than
 * MCZ_ARCHIVE_HEAD_SIZE bytes: a program choosing how to read a file looks at no more. */
MCZ_API int mcz_looks_like_archive(const void *head, size_t len);

/*
 * Archives over HTTP. mcz_source_open and mcz_reader_open take an http:// or https:// URL of an
 * .mcz archive (mcz_source_open also of an MCH, fetched whole when opened, its .mct looked for at
 * URL.mct and, for X.mch, X.mct, when a context is first asked for by number; mcz_recover reads
 * a URL whole too) and read it with range requests: the footer,
 * the index, the header and dictionary when opened, then each chunk, alone, the first time it
 * is read (mcz_source_next, walking in order, fetches 8 chunks at a time). Opening the same URL
 * again in a process fetches only the footer when it is unchanged, and a process forked after
 * such an open fetches not even that. Chunks are checked as a file's are. A server that
 * ignores ranges (200 with the whole body: `python3 -m http.server`) is read whole, once, into
 * the cache (MCZ_CACHE_DIR, else $XDG_CACHE_HOME/mcz, else ~/.cache/mcz), with a note on stderr;
 * where no cache can be written that is MCZ_EIO naming both ways forward. Otherwise the server
 * must answer 206 with the range asked for; a 416, another range or a short body is MCZ_EIO
 * naming the URL. Connection failures,
 * 5xx and 429 answers are retried 4 times with doubling pauses from 100 ms; redirects are
 * followed, at most 3. mcz_path_is_url says whether a path is read that way (1) or not (0).
 *
 * The cache: when the environment variable MCZ_CACHE_DIR names a directory (created if need
 * be), every piece fetched (header and dictionary, index, each chunk) is kept there and read
 * from there by later opens, in this process or another, so only the footer is fetched again.
 * Pieces are keyed by the URL, the archive's length, its ETag and Last-Modified and its footer
 * (which carries the index's checksum): an archive changed at the same URL never gets the old
 * bytes; an answer whose ETag or Last-Modified differs from the footer's is MCZ_EIO (the
 * archive changed while read). A piece whose own checksum fails is fetched again and rewritten;
 * chunks are still checked when decoded. Pieces are written to a temporary name and renamed;
 * a cache that cannot be written gives one warning on stderr per process and the archive is
 * read without it. Nothing is removed from the cache: delete the directory to reclaim it.
 */
MCZ_API int mcz_path_is_url(const char *path);

/*
 * Inputs: every file the library reads comes in through one. By name: a path (a regular file is
 * mapped; a FIFO, character device or socket is copied once to an unlinked temporary file in
 * $TMPDIR or /tmp, then mapped), "-" (standard input, likewise), or an http:// or https:// URL
 * (read with range requests as above; an MCH or .mct over HTTP is fetched whole when read).
 * mcz_reader_open, mcz_source_open and mcz_recover open their input by name; a program that
 * must look at a stream before it opens it, or open it twice, opens it once with
 * mcz_input_open and gives the input to the *_input functions, each of which takes a reference
 * of its own (the input may be closed right after them). The bytes stay valid while any
 * holder keeps the input open. Thread-safe like a reader. Since 3.0.
 */
/* NULL on error (diag names `name`, as mcz_reader_open's would). */
MCZ_API MCZ_NODISCARD mcz_input *mcz_input_open(const char *name, mcz_diag *diag);
MCZ_API void mcz_input_close(mcz_input *in); /* accepts NULL */
/* Its length in bytes (a stream's: what was read of it). */
MCZ_API uint64_t mcz_input_size(const mcz_input *in);
/* Bytes [off, off+len), fetched if need be, in *view (valid while the input is open): MCZ_OK,
 * MCZ_ECORRUPT past the end, MCZ_EIO when they cannot be read. */
MCZ_API int mcz_input_view(mcz_input *in, uint64_t off, uint64_t len, const uint8_t **view,
                           mcz_diag *diag);
/* mcz_reader_open, mcz_source_open (the .mct looked for beside the input's name) and
 * mcz_recover_report over an input. */
MCZ_API MCZ_NODISCARD mcz_reader *mcz_reader_open_input(mcz_input *in, mcz_diag *diag);
MCZ_API MCZ_NODISCARD mcz_source *mcz_source_open_input(mcz_input *in, mcz_diag *diag);
/* The name of the file an input's name stands for, into buf: the path itself, or for a URL
 * the last segment of its path without query or fragment ("c.mcz" of http://h/d/c.mcz?v=1).
 * Its length; 0 when there is none (a URL ending in '/') or it does not fit cap. */
MCZ_API size_t mcz_input_file_name(const char *name, char *buf, size_t cap);
/* True when the input's bytes cost a request each time absent ones are read (an http(s) URL),
 * so a reader should ask for runs of them together (mcz_reader_prefetch); false for a file, a
 * spooled stream and NULL. Since 3.0. */
MCZ_API bool mcz_input_remote(const mcz_input *in);
/* True when the input is standard input ("-", whatever it is) or a stream read once and copied
 * (mcz_file_spooled): it has no file of its own for anything to be written beside. Since 3.0. */
MCZ_API bool mcz_input_stream(const mcz_input *in);
/* mcz_file_drop_behind on the input's mapping, for walks over its bytes in order through
 * mcz_input_view (the views stay valid); no effect where it has none (a URL). Since 3.0. */
MCZ_API void mcz_input_drop_behind(const mcz_input *in, uint64_t *dropped, uint64_t pos);
/* The most stored bytes one request fetches (a run of adjacent chunks; a larger chunk alone):
 * the bound on what a reader fetches ahead of what it reads. */
#define MCZ_HTTP_REQUEST_MAX (4u << 20)

/*
 * Fetches now the chunks [first, first+count) of an archive read over HTTP that are not yet
 * fetched, adjacent chunks in one request (at most MCZ_HTTP_REQUEST_MAX each), so later reads of them cost no
 * round trip: MCZ_OK, or MCZ_EIO naming the URL (the chunks then are fetched again when read).
 * Chunks past the end are ignored. For an archive read from a file it does nothing (MCZ_OK).
 * Thread-safe like every read of a reader.
 */
MCZ_API MCZ_NODISCARD int mcz_reader_prefetch(const mcz_reader *r, uint64_t first, uint64_t count,
                                              mcz_diag *diag);
MCZ_API void mcz_source_close(mcz_source *s);
/* The archive behind the source, or NULL for an MCH file. */
MCZ_API const mcz_reader *mcz_source_archive(const mcz_source *s);
/*
 * Next context in number order: 1 with *out filled (a view valid until the next call), 0 at the
 * end, negative on damage (diag names the context number and offset).
 */
MCZ_API int mcz_source_next(mcz_source *s, mcz_mc *out, mcz_diag *diag);
/* Context `number`; MCZ_ENOTFOUND when the source does not hold it (out is zeroed on every
 * error). An MCH file is read through its .mct when the table can be this file's
 * (mcz_toc_check) and the context found is the one asked for: every context before it begins
 * where the one before ends, as the table says (each walked once per source), and it has the
 * identity the table records, if any. Otherwise the source stops using the .mct and finds
 * contexts by scanning the file. */
MCZ_API int mcz_source_get(mcz_source *s, uint32_t number, mcz_mc *out, mcz_diag *diag);
/* The .mct an MCH source finds contexts by number through: the file beside it (SuperPMI's
 * paired-file names: X.mch.mct, X.mct), or for a URL the first of those names the server has
 * (asked now, if no context was asked for by number yet). NULL when there is none, and for an
 * archive. The string belongs to s. Since 3.0. */
MCZ_API const char *mcz_source_toc(mcz_source *s);
/* The path of the .mct that an MCH source found unusable, with why in *why (context, if any,
 * is the number whose entry was wrong), the first time it is asked after that happened (at the
 * first mcz_source_get); NULL otherwise: no .mct, one in use, or one already reported. */
MCZ_API const char *mcz_source_toc_rejected(mcz_source *s, mcz_diag *why);

#ifdef __cplusplus
}
#endif

#endif /* MCZ_H */

/* ============================================================================================ */
/* No ABI promise: for the mcz programs, tests and static linking only                          */
/* ============================================================================================ */
#if defined(MCZ_STATIC_LINKING_ONLY) && !defined(MCZ_H_STATIC)
#define MCZ_H_STATIC

#ifdef __cplusplus
extern "C" {
#endif


/* ============================================================================================ */
/* Files                                                                                         */
/* ============================================================================================ */

/* A read-only file image (mmap when possible). */
typedef struct mcz_file {
    const uint8_t *data;
    size_t size;
    void *impl_; /* private */
} mcz_file;

/* Maps path read-only; "-" is standard input, and a stream (a pipe, FIFO, character device,
 * socket) is copied once to an unlinked temporary file in $TMPDIR or /tmp, which is mapped (read
 * into memory when no temporary file can be made). An empty file gives size 0 and a non-NULL
 * data. On error *out is such an empty image and diag names the path. */
MCZ_API int mcz_file_map(const char *path, mcz_file *out, mcz_diag *diag);
/* Releases the image; f becomes empty. Accepts NULL and images that failed to map. */
MCZ_API void mcz_file_unmap(mcz_file *f);
/* True when f's image is a stream's bytes, copied as above ("-", a FIFO, a device, a socket);
 * false for a regular file, an empty stream and NULL. Since 3.0. */
MCZ_API bool mcz_file_spooled(const mcz_file *f);
/*
 * For walks in file order: once [*dropped, pos) spans 8 MiB, its whole pages leave the
 * process's resident set (MADV_DONTNEED), and *dropped (start it at 0) moves up to pos; a pos
 * below *dropped starts a new walk there. Touching them again reads them back from the file
 * (the mapping is private and read-only), so pointers into them stay valid: this only keeps a
 * walk's memory flat however large the file. No effect on images read into memory. The
 * library's own walks (mcz_source, cursors) do it already.
 */
MCZ_API void mcz_file_drop_behind(const mcz_file *f, uint64_t *dropped, uint64_t pos);
/*
 * For scans that need only the bytes a file stores: a sparse file's holes (a core dump's
 * reserved address space that was never touched) read as zeros and hold nothing to find.
 * Moves *at up to the start of the data extent holding it or, in a hole, of the next one (to
 * f->size when none follows) and returns that extent's end; every byte of [*at, end) may be
 * data, every byte between the old *at and the new one is zero. Extents come from SEEK_DATA
 * and SEEK_HOLE when the file was mapped (4,096 at most; the last of them runs to the end of
 * the file); without them the whole image is one extent.
 */
MCZ_API uint64_t mcz_file_data_end(const mcz_file *f, uint64_t *at);

/*
 * An output file a user can trust. A regular file (or a new name) appears atomically: data goes
 * to a temporary ".NAME.mcz-tmp.PID.XXXXXX" beside it, and mcz_outfile_commit() flushes, fsyncs
 * and renames it over the name, keeping an existing file's permission bits; mcz_outfile_abort()
 * leaves the name untouched and removes the temporary. A symbolic link is followed: its target
 * is replaced, the link stays. Anything else that exists (device, FIFO, terminal, socket) and
 * "-", /dev/stdout, /dev/fd/N, /proc/self/fd/N are written in place as a stream (nothing to
 * undo on abort). A directory is refused. Opening removes the temporaries beside the target
 * whose process no longer exists (left by a SIGKILL).
 */
typedef struct mcz_outfile mcz_outfile;

/* Opens path as above; NULL on error (diag names the path). */
MCZ_API MCZ_NODISCARD mcz_outfile *mcz_outfile_open(const char *path, mcz_diag *diag);
/* Checks what mcz_outfile_open(path) would do, before any work: fails as it would on a
 * directory, a missing or unwritable directory; *stream (may be NULL) tells a stream. */
MCZ_API int mcz_outfile_check(const char *path, bool *stream, mcz_diag *diag);
/* True when f writes in place (a stream): an abort cannot take back what was written. */
MCZ_API bool mcz_outfile_is_stream(const mcz_outfile *f);
/* Appends len bytes. The first failure is sticky: every later write and the commit return it,
 * and commit reports it with the path. */
MCZ_API int mcz_outfile_write(mcz_outfile *f, const void *data, size_t len);
/* Overwrites len bytes at offset at of what was written (a count known only at the end). Only
 * a file written through its temporary: on a stream (mcz_outfile_is_stream) it fails, sticky,
 * as a write does. */
MCZ_API int mcz_outfile_patch(mcz_outfile *f, uint64_t at, const void *data, size_t len);
/* Current size written so far. */
MCZ_API uint64_t mcz_outfile_tell(const mcz_outfile *f);
MCZ_API MCZ_NODISCARD int mcz_outfile_commit(mcz_outfile *f, mcz_diag *diag); /* frees f */
MCZ_API void mcz_outfile_abort(mcz_outfile *f);                 /* frees f; accepts NULL */
/* ---- Frame parser: an archive's frames as a stream (FORMAT.md §12 "Streams") ---- */

/*
 * A resumable push parser of an archive's frames in order, as a STREAM writer sends them or a
 * file holds them: hand it bytes in pieces of any size, take one event per complete frame.
 * Every event is checked as the file reader checks the same frame: the header (checksum,
 * version range, flags it does not know), the dictionary (id, checksum, usable by zstd), the
 * metadata frame, each chunk decoded in full (header, data frame, dictionary id, raw XXH3, every
 * context's container; numbers increasing), and the index and footer together (checksums, and
 * every entry equal to the chunks the stream held). The order is the archive's: header,
 * dictionary (when the header names one), metadata (optional), chunks, index, footer, nothing
 * after it. Memory: the largest frame the format allows a writer to send (a chunk), the
 * dictionary, a chunk's decoded bytes, and the index; nothing grows with the stream's length.
 *
 * A failure is sticky: the call that finds it and every later call return the same code and
 * fill diag alike, its offset the stream offset of the damage.
 */
typedef struct mcz_frame_parser mcz_frame_parser;

typedef enum mcz_frame_kind {
    MCZ_FRAME_NONE = 0,   /* no complete frame yet: push more bytes */
    MCZ_FRAME_HEADER = 1, /* the file header: version, flags, level, chunk_size, ids, codec */
    MCZ_FRAME_DICT = 2,   /* the dictionary frame: dict, dict_size */
    MCZ_FRAME_META = 3,   /* the metadata frame (FORMAT.md §2a): jit_ee_guid, target_* */
    MCZ_FRAME_CHUNK = 4,  /* a chunk's header frame and data frame, decoded and verified */
    MCZ_FRAME_INDEX = 5,  /* the index frame, given once the footer proved it */
    MCZ_FRAME_FOOTER = 6, /* the footer: chunk_count, context_count; the archive is complete */
    MCZ_FRAME_END = 7,    /* from mcz_frame_parser_end: the stream ended (complete, torn) */
} mcz_frame_kind;

typedef struct mcz_frame_event {
    mcz_frame_kind kind;
    uint64_t offset;      /* stream offset of the frame's first byte (END: the stream's size) */
    const uint8_t *bytes; /* the frame as sent (a chunk: both its frames); valid until the */
    size_t size;          /* parser's next call */
    /* HEADER (and every later event: the stream's settings) */
    uint32_t version, flags, chunk_size, dict_id, jit_ee_id;
    int32_t level;        /* as recorded: out of the codec's range when the writer defaulted */
    mcz_codec codec;      /* of the header's flags: what the writer compressed with */
    mcz_layout layout;
    /* DICT */
    const uint8_t *dict;  /* the dictionary bytes (inside bytes) */
    size_t dict_size;
    /* META: empty strings for fields not recorded */
    char jit_ee_guid[MCZ_GUID_TEXT_SIZE], target_os[MCZ_TARGET_TEXT_SIZE],
        target_arch[MCZ_TARGET_TEXT_SIZE];
    /* CHUNK */
    uint32_t first_number, count, raw_size;
    const uint8_t *raw;   /* its contexts decoded, raw_size bytes; valid as bytes is */
    /* FOOTER and END: the chunks and contexts so far */
    uint32_t chunk_count, context_count;
    /* END */
    bool complete;        /* the footer came: a whole archive */
    uint64_t torn;        /* bytes of an unfinished frame at the end, dropped (0: none) */
} mcz_frame_event;

/* A parser at the start of a stream; NULL when out of memory. */
MCZ_API MCZ_NODISCARD mcz_frame_parser *mcz_frame_parser_create(void);
/*
 * Takes bytes[0, len) (len may be 0) up to the end of the next complete frame: *used is how
 * many it took, *ev the frame's event, or MCZ_FRAME_NONE when all len bytes were taken without
 * completing one. Call it again with the bytes not taken (none, when all were) until it gives
 * MCZ_FRAME_NONE: one piece can complete several frames, and the index's event is followed by
 * the footer's. MCZ_OK, or the sticky failure (MCZ_ECORRUPT, MCZ_ECHECKSUM, MCZ_EVERSION,
 * MCZ_EDICT, MCZ_ELIMIT for a frame larger than the format allows, MCZ_ENOMEM).
 */
MCZ_API MCZ_NODISCARD int mcz_frame_parser_push(mcz_frame_parser *p, const void *bytes,
                                                size_t len, size_t *used, mcz_frame_event *ev,
                                                mcz_diag *diag);
/*
 * The stream ended: *ev is MCZ_FRAME_END, complete when the footer came, torn the bytes of a
 * frame it did not finish (a writer killed mid-write). MCZ_OK for any end of a stream without
 * damage, a prefix of an archive included; the sticky failure otherwise.
 */
MCZ_API MCZ_NODISCARD int mcz_frame_parser_end(mcz_frame_parser *p, mcz_frame_event *ev,
                                               mcz_diag *diag);
MCZ_API void mcz_frame_parser_free(mcz_frame_parser *p); /* accepts NULL */

/* ---- Dictionary ---- */

/*
 * Trains a zstd dictionary of at most cap bytes from n samples laid end to end in samples
 * (sizes[i] bytes each), tuned for compression level `level`. *dict is malloc'ed. Returns
 * MCZ_EUNSUPPORTED when training fails for lack of usable samples: go without a dictionary.
 */
MCZ_API int mcz_dict_train(const void *samples, const size_t *sizes, unsigned n, size_t cap,
                           int level, void **dict, size_t *dict_len, mcz_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* MCZ_STATIC_LINKING_ONLY */
