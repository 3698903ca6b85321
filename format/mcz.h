/*
 * mcz.h - the one public header of mcz.
 *
 * mcz reads and writes .NET SuperPMI collections: the legacy formats (MCH method-context files,
 * MCT tables of contents, MCL number lists) byte for byte, and the .mcz archive, a seekable,
 * dictionary-compressed container of the same method contexts (format/FORMAT.md).
 *
 * Conventions that hold for every function below:
 * - Functions return MCZ_OK (0) or a negative mcz error code; sizes are int64_t with a negative
 *   value meaning an error. mcz_error_name() turns a code into text.
 * - Every function that parses bytes takes an optional mcz_diag *: on error it is filled with the
 *   code, the byte offset and the context number concerned, and a one-line message. Pass NULL
 *   when the detail is not wanted.
 * - Handles are opaque. Each has a create/open and a free/close that accepts NULL. A handle that
 *   met a fatal error keeps it (sticky) and refuses further work with the same code.
 * - Every byte from a file is hostile: nothing here reads out of bounds or allocates more than the
 *   input can justify, whatever the input.
 * - Views (mcz_mc, mcz_packet, mcz_map) point into memory owned by someone else and stay valid
 *   as long as that memory does; they never own anything.
 */
#ifndef MCZ_H
#define MCZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(MCZ_BUILDING_LIBRARY) && defined(__GNUC__)
#define MCZ_API __attribute__((visibility("default")))
#else
#define MCZ_API
#endif

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

/* A count as the tools spell it: decimal digits (no sign, no space), times an optional K, M or G
 * (1024-based; KB and KiB and the like too) when suffix is true. MCZ_EINVAL when text is not
 * such a count or lies outside [min, max]; *out is then unchanged. */
MCZ_API int mcz_parse_count(const char *text, bool suffix, uint64_t min, uint64_t max,
                            uint64_t *out);

/* What went wrong, and where. offset and context are -1 when they do not apply. */
typedef struct mcz_diag {
    int code;          /* an mcz_error */
    int64_t offset;    /* byte offset in the file (or buffer) being read */
    int64_t context;   /* 1-based method-context number */
    char message[256]; /* one line, no trailing newline */
} mcz_diag;

/* Resets d to "no error" (code 0, offset and context -1, empty message). */
MCZ_API void mcz_diag_clear(mcz_diag *d);

/* ============================================================================================ */
/* Legacy MCH: method contexts, packets, maps                                                    */
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

/*
 * Container-level scan of an MCH image held in memory (typically an mmap).
 * *pos is the offset to read at and *number the number of the previous context (start with 0
 * and 0). On success fills out, advances *pos past the context, increments *number and returns
 * 1; returns 0 at the exact end of buf; returns a negative code for a bad magic, a length past
 * the end, or a bad end canary (diag names the context number and offset). Checks only the
 * container (magic, length, trailer); mcz_mc_check() checks the packets. Never allocates.
 */
MCZ_API int mcz_mch_next(const uint8_t *buf, size_t len, uint64_t *pos, uint32_t *number,
                         mcz_mc *out, mcz_diag *diag);

/* Wraps a single serialized context that lies alone in [bytes, bytes+size): validates the
 * container exactly like mcz_mch_next and requires it to fill the buffer. */
MCZ_API int mcz_mc_from_bytes(const uint8_t *bytes, size_t size, uint32_t number,
                              uint64_t offset, mcz_mc *out, mcz_diag *diag);

/* One packet: u8 id, u32 size, size bytes of a serialized map, canary 0x42. */
typedef struct mcz_packet {
    uint8_t id;
    uint32_t size;       /* bytes of the serialized map */
    const uint8_t *data; /* the serialized map */
    uint32_t offset;     /* offset of the id byte from the start of the context */
} mcz_packet;

/*
 * Packet walk inside mc. *pos starts at 0 (it is relative to the packet area). Returns 1 with
 * out filled, 0 after the last packet (which must end exactly at totalLen), or a negative code
 * (packet overruns the area, bad canary). Does not parse the map.
 */
MCZ_API int mcz_packet_next(const mcz_mc *mc, uint32_t *pos, mcz_packet *out, mcz_diag *diag);

/* Finds the first packet with this id; returns 1 found, 0 absent, negative on a bad context. */
MCZ_API int mcz_packet_find(const mcz_mc *mc, uint8_t id, mcz_packet *out, mcz_diag *diag);

/* A parsed map (LightWeightMap "LWM1" or DenseLightWeightMap "DWM1"), as views. */
typedef struct mcz_map {
    bool tagged;          /* the payload began with its LWM1/DWM1 tag */
    bool dense;           /* DWM1: keys are implicit 0..count-1 */
    uint32_t count;       /* items */
    uint32_t item_size;   /* bytes per item: key+value for sparse maps, value for dense */
    uint32_t key_size;    /* from the packet table; 0 for dense maps or when unknown */
    uint32_t value_size;  /* item_size - key_size when key_size is known, else 0 */
    const uint8_t *items; /* count * item_size bytes: all keys then all values (sparse) */
    const uint8_t *pool;  /* the map's buffer pool */
    uint32_t pool_size;
} mcz_map;

/*
 * Parses a packet's map with full bounds checks: the tag, count, pool length and item arrays
 * must exactly fill the packet. item_size is derived from the sizes; key/value split comes from
 * the packet table when the id is known and its sizes agree. A legacy untagged map is read as
 * SuperPMI reads it. diag offsets are relative to the start of the context (mcz_mc_check
 * reports the same problems with file offsets and the context number).
 */
MCZ_API int mcz_map_parse(const mcz_packet *p, mcz_map *out, mcz_diag *diag);

/* Key i / value i of a sparse map with a known key size (NULL when out of range or unknown);
 * for dense maps mcz_map_value returns item i. */
MCZ_API const uint8_t *mcz_map_key(const mcz_map *m, uint32_t i);
MCZ_API const uint8_t *mcz_map_value(const mcz_map *m, uint32_t i);

/* Binary search by memcmp over the keys, as SuperPMI looks keys up (keys must be sorted). NULL
 * when absent or when key_size is not the map's. For a dense map the key is a u32 index. */
MCZ_API const uint8_t *mcz_map_find(const mcz_map *m, const void *key, uint32_t key_size);

/*
 * A pool buffer referenced by index (offset of its data; the u32 length sits 4 bytes before).
 * Returns MCZ_OK with *data and *len set, MCZ_EMISSING for the null index 0xFFFFFFFF, or
 * MCZ_ECORRUPT when the chunk does not lie inside the pool.
 */
MCZ_API int mcz_map_buffer(const mcz_map *m, uint32_t index, const uint8_t **data, uint32_t *len);

/*
 * Deep check of one context: every packet, every map, canaries, trailer: what holds in a
 * collection of any JIT-EE version. Unknown packet ids and item sizes are not judged (the packet
 * table is per version). Returns MCZ_OK or the first problem (MCZ_ECORRUPT, MCZ_ETRUNCATED...),
 * with the offset of the offending byte in diag.
 */
MCZ_API int mcz_mc_check(const mcz_mc *mc, mcz_diag *diag);

/*
 * mcz_mc_check, plus: every packet this build's table knows has the key and value sizes the
 * table gives. A disagreement is MCZ_EVERSION (naming the packet): the collection comes from
 * another JIT-EE version, or a packet is damaged in a way the framing cannot show.
 */
MCZ_API int mcz_mc_check_table(const mcz_mc *mc, mcz_diag *diag);

/* ---- Packet table (data, per JIT-EE version) ---- */

typedef struct mcz_packet_info {
    const char *name;    /* "CompileMethod"; NULL for ids not in the table */
    bool compile_result; /* a PacketCR_* packet */
    bool dense;          /* DWM1 */
    uint32_t key_size;   /* 0 for dense */
    uint32_t value_size; /* 0 when the value size is version-dependent and not checked */
} mcz_packet_info;

/* Table entry for id, or NULL when this build's table does not know it. */
MCZ_API const mcz_packet_info *mcz_packet_lookup(uint8_t id);

/* Writes the packet's name, or "unknown(N)", into buf; returns buf. */
MCZ_API const char *mcz_packet_name(uint8_t id, char *buf, size_t cap);

/* Name of the packet table this build reads, e.g. "JIT-EE dotnet/runtime main (ids up to 238)". */
MCZ_API const char *mcz_packet_table_version(void);

/* The order SuperPMI writes packets in (lwmlist.h, then crlwmlist.h) for this build's table:
 * *count ids, each once. Static data. */
MCZ_API const uint8_t *mcz_packet_write_order(size_t *count);

/* Well-known packet ids used by mcz itself. */
enum {
    MCZ_PACKET_GET_ARG_NEXT = 29,
    MCZ_PACKET_GET_METHOD_ATTRIBS = 70,
    MCZ_PACKET_GET_METHOD_CLASS = 71,
    MCZ_PACKET_GET_METHOD_SIG = 76,
    MCZ_PACKET_GET_ARG_CLASS = 139,
    MCZ_PACKET_GET_ARG_TYPE = 140,
    MCZ_PACKET_COMPILE_METHOD = 143,
    MCZ_PACKET_PRINT_CLASS_NAME = 149,
    MCZ_PACKET_PRINT_METHOD_NAME = 6,
    MCZ_PACKET_GET_JIT_FLAGS = 154,
    MCZ_PACKET_SIG_INST_HANDLE_MAP = 184,
    MCZ_PACKET_GET_PGO_RESULTS = 187,
    MCZ_PACKET_CR_PROCESS_NAME = 121
};

/* ---- Building contexts ---- */

/*
 * Builds serialized contexts the way SuperPMI's MethodContext::saveToFile does: packets in the
 * order they are added, each map with its tag, sparse keys sorted by memcmp (the first value
 * for a key wins), pool buffers deduplicated like LightWeightMap::AddBuffer. Reused across
 * contexts with mcz_mc_builder_reset(); one builder per thread.
 */
typedef struct mcz_mc_builder mcz_mc_builder;

MCZ_API mcz_mc_builder *mcz_mc_builder_create(void);
MCZ_API void mcz_mc_builder_free(mcz_mc_builder *b);
/* Starts a new, empty context. */
MCZ_API void mcz_mc_builder_reset(mcz_mc_builder *b);

/* Opens a map packet. dense: DWM1 (key_size must be 0). Only one map is open at a time. */
MCZ_API int mcz_mc_builder_begin(mcz_mc_builder *b, uint8_t id, bool dense, uint32_t key_size,
                                 uint32_t value_size);
/* Adds a buffer to the open map's pool; returns its index, or 0xFFFFFFFF for len 0 / NULL
 * (as AddBuffer does) and on error (then sticky: the next call reports it). */
MCZ_API uint32_t mcz_mc_builder_buffer(mcz_mc_builder *b, const void *data, uint32_t len);
/* Adds an item to the open map (key is ignored for dense maps). */
MCZ_API int mcz_mc_builder_add(mcz_mc_builder *b, const void *key, const void *value);
/* Closes the open map; a map with no items is dropped, as SuperPMI never writes empty maps. */
MCZ_API int mcz_mc_builder_end(mcz_mc_builder *b);

/* Appends a parsed map re-serialized canonically (tag, count, pool length, items, pool): a
 * tagged map from a file comes out byte-identical. As saveToFile does, an empty map is dropped,
 * an untagged legacy map gains its tag and a legacy dense map becomes DWM1 (values by key). */
MCZ_API int mcz_mc_builder_put_map(mcz_mc_builder *b, uint8_t id, const mcz_map *m);

/* Finishes the context; *bytes stays valid until the next call on b. The next context starts
 * with mcz_mc_builder_reset(). The first error of any builder call is sticky until reset; a
 * call out of order (a map open at finish, begin without end) is MCZ_ESTATE. */
MCZ_API int mcz_mc_builder_finish(mcz_mc_builder *b, const uint8_t **bytes, size_t *size);

/* ============================================================================================ */
/* Method identity (SuperPMI's method hash)                                                      */
/* ============================================================================================ */

typedef struct mcz_hash128 {
    uint8_t bytes[16]; /* h1 then h2, each little-endian, as SuperPMI prints them */
} mcz_hash128;

/* MurmurHash3 x64 128, seed 0. len must be below 4 GiB (every hashed item is u32-sized). */
MCZ_API void mcz_murmur3_128(const void *data, size_t len, mcz_hash128 *out);

/* 32 uppercase hex digits and a NUL. */
MCZ_API void mcz_hash_hex(const mcz_hash128 *h, char out[33]);

/* True when every byte is zero: the "no identity" value mcz stores for contexts lacking the
 * packets the identity needs. */
MCZ_API bool mcz_hash_is_zero(const mcz_hash128 *h);

/*
 * The identity string exactly as SuperPMI's dumpMethodIdentityInfoToBuffer builds it (two ISA
 * flag words, 64-bit target), with literal CLASS/METHOD names when ignore_method_name is set.
 * Writes at most cap bytes including a NUL into buf (buf may be NULL when cap is 0) and returns
 * the full string length (always < 0x10000; truncated in buf when >= cap). Fails where SuperPMI
 * would throw or crash: MCZ_EMISSING when a packet, key or name the identity needs is absent
 * (diag names it, e.g. "no GetArgType entry for argument 2"), MCZ_ECORRUPT for values that point
 * outside their pool, MCZ_EUNSUPPORTED for a CorInfoType SuperPMI cannot name, CORJIT_FLAGS
 * longer than 24 bytes, or a JIT-helper method handle (helper names are per runtime version).
 */
MCZ_API int64_t mcz_mc_identity(const mcz_mc *mc, bool ignore_method_name, char *buf, size_t cap,
                                mcz_diag *diag);

/* MurmurHash3 of that string: the hash in .mct files (names) and -removeDup (no names). */
MCZ_API int mcz_mc_identity_hash(const mcz_mc *mc, bool ignore_method_name, mcz_hash128 *out,
                                 mcz_diag *diag);

/*
 * The duplicate key archives store and -removeDup compares: the identity hash without the
 * method name, or, for a context whose identity cannot be built, the XXH3-128 of its bytes
 * (canonical byte order), so such contexts are duplicates exactly when their bytes are equal.
 */
MCZ_API void mcz_mc_dedup_key(const mcz_mc *mc, mcz_hash128 *out);

/* ============================================================================================ */
/* MCT (table of contents) and MCL (context lists)                                               */
/* ============================================================================================ */

typedef struct mcz_toc_entry {
    int64_t offset;   /* file offset of the context's 'm' byte */
    int32_t number;   /* 1-based */
    char hash[33];    /* 32 uppercase hex + NUL; all NUL when the identity could not be built */
} mcz_toc_entry;

#define MCZ_TOC_ELEMENT_SIZE 48u

/* Parses an .mct image (exactly: nothing may follow the closing tag). validate: also require
 * strictly increasing numbers (the loader's check; -dumpToc skips it). *entries is malloc'ed
 * (NULL when *count is 0); free() it. Hashes come back NUL-padded to 33 bytes. */
MCZ_API int mcz_toc_parse(const uint8_t *buf, size_t len, bool validate, mcz_toc_entry **entries,
                          uint32_t *count, mcz_diag *diag);

/* Whether parsed entries can be the table of an MCH file of file_size bytes as SuperPMI writes
 * it: numbers 1..count in order, the first context at offset 0, each offset at least
 * MCZ_MC_OVERHEAD past the previous one and inside the file (no entries: an empty file).
 * MCZ_OK, or MCZ_ECORRUPT with the first fault in diag's message ("it places context 2 at 90,
 * not past context 1 (at 88)"). That each context lies where the table says is checked when
 * it is read (mcz_source_get does). */
MCZ_API int mcz_toc_check(const mcz_toc_entry *e, uint32_t count, uint64_t file_size,
                          mcz_diag *diag);

/* Encodes entries as an .mct image (padding zeroed). *out is malloc'ed; free() it. */
MCZ_API int mcz_toc_encode(const mcz_toc_entry *entries, uint32_t count, uint8_t **out,
                           size_t *len);

/* The .mct paired with an .mch as SuperPMI finds it (foo.mch.mct, then foo.mct when the name
 * ends in .mch, any case); writes the first regular file that exists into buf and returns 1, or
 * 0 when none does; MCZ_ELIMIT when cap cannot hold a candidate's name. */
MCZ_API int mcz_toc_find(const char *mch_path, char *buf, size_t cap);

/* A set of context numbers: sorted, disjoint, inclusive ranges. */
typedef struct mcz_range {
    uint32_t first, last;
} mcz_range;

typedef struct mcz_list {
    mcz_range *ranges;
    size_t count;
} mcz_list;

/* Parses SuperPMI's range syntax ("1-5,9,12-14": >= 1, strictly increasing, a < b, at most
 * 2^31-1). Touching numbers merge into one range; free the result with mcz_list_free(). Errors
 * are MCZ_EINVAL with the column in diag (out is left empty). */
MCZ_API int mcz_list_parse_ranges(const char *text, mcz_list *out, mcz_diag *diag);
/* Parses an .mcl image (one number per line, LF or CRLF, strictly increasing, >= 1; the last
 * line may lack its newline; empty input is the empty list). A blank line or anything but
 * digits is MCZ_EINVAL naming the line, with its offset in diag. */
MCZ_API int mcz_list_parse_mcl(const uint8_t *buf, size_t len, mcz_list *out, mcz_diag *diag);
/* A command-line argument: range syntax, or a path ending in .mcl (read from disk; a file over
 * MCZ_MCL_MAX_SIZE bytes is MCZ_ELIMIT). Parse errors are MCZ_EINVAL with the line or column. */
MCZ_API int mcz_list_from_arg(const char *arg, mcz_list *out, mcz_diag *diag);
/* True when arg looks like a list argument as SuperPMI's processArgAsMCL tells them apart: only
 * digits, '-' and ',' (validity is left to mcz_list_from_arg), or a name ending in .mcl. */
MCZ_API bool mcz_list_is_arg(const char *arg);
MCZ_API bool mcz_list_contains(const mcz_list *l, uint32_t number);
/* Number of context numbers in l. */
MCZ_API uint64_t mcz_list_size(const mcz_list *l);
/* Largest .mcl file SuperPMI reads (and mcz reads or writes), in bytes. */
#define MCZ_MCL_MAX_SIZE 0xFFFFFFu

/* Encodes as .mcl text ("%u\r\n" per number). *out is malloc'ed (NUL-terminated, *len excludes
 * the NUL). MCZ_ELIMIT when the text would exceed MCZ_MCL_MAX_SIZE. */
MCZ_API int mcz_list_encode_mcl(const mcz_list *l, char **out, size_t *len);
MCZ_API void mcz_list_free(mcz_list *l);

/* ============================================================================================ */
/* Files                                                                                         */
/* ============================================================================================ */

/* A read-only file image (mmap when possible). */
typedef struct mcz_file {
    const uint8_t *data;
    size_t size;
    void *impl_; /* private */
} mcz_file;

/* Maps path read-only (or reads it, for pipes and devices). An empty file gives size 0 and a
 * non-NULL data. On error *out is such an empty image and diag names the path. */
MCZ_API int mcz_file_map(const char *path, mcz_file *out, mcz_diag *diag);
/* Releases the image; f becomes empty. Accepts NULL and images that failed to map. */
MCZ_API void mcz_file_unmap(mcz_file *f);
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
 * An output file that appears atomically: data goes to a temporary file beside path;
 * mcz_outfile_commit() flushes, fsyncs and renames it over path; mcz_outfile_abort() (or a
 * crash) leaves path untouched and removes the temporary.
 */
typedef struct mcz_outfile mcz_outfile;

/* Creates the temporary ".NAME.tmp.XXXXXX" beside path; NULL on error (diag names the path). */
MCZ_API mcz_outfile *mcz_outfile_open(const char *path, mcz_diag *diag);
/* Appends len bytes. The first failure is sticky: every later write and the commit return it,
 * and commit reports it with the path. */
MCZ_API int mcz_outfile_write(mcz_outfile *f, const void *data, size_t len);
/* Current size written so far. */
MCZ_API uint64_t mcz_outfile_tell(const mcz_outfile *f);
MCZ_API int mcz_outfile_commit(mcz_outfile *f, mcz_diag *diag); /* frees f */
MCZ_API void mcz_outfile_abort(mcz_outfile *f);                 /* frees f; accepts NULL */

/* ============================================================================================ */
/* The .mcz archive (format/FORMAT.md)                                                           */
/* ============================================================================================ */

/* ---- Dictionary ---- */

/*
 * Trains a zstd dictionary of at most cap bytes from n samples laid end to end in samples
 * (sizes[i] bytes each), tuned for compression level `level`. *dict is malloc'ed. Returns
 * MCZ_EUNSUPPORTED when training fails for lack of usable samples: go without a dictionary.
 */
MCZ_API int mcz_dict_train(const void *samples, const size_t *sizes, unsigned n, size_t cap,
                           int level, void **dict, size_t *dict_len, mcz_diag *diag);

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
} mcz_writer_mode;

/* What mcz_writer_append does when queue_chunks sealed chunks already wait for compression or
 * output and the context would need another. The other calls always wait. */
typedef enum mcz_full_policy {
    MCZ_FULL_BLOCK = 0, /* wait for a compression thread: nothing is lost, the caller may stall */
    MCZ_FULL_DROP = 1,  /* refuse the context with MCZ_EDROPPED and count it: never waits */
} mcz_full_policy;

/* Zero fields mean "the default"; the defaults and the figures behind them are in README.md
 * and format/FORMAT.md §10. */
typedef struct mcz_writer_options {
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
} mcz_writer_options;

#define MCZ_WRITER_OPTIONS_INIT                                                                    \
    {0, 0, 0, false, 0, NULL, 0, 0, 0, MCZ_WRITE_ATOMIC, MCZ_FULL_BLOCK, 0, 0, 0, 0, 0, false}

/*
 * Creates an archive at path. ATOMIC: nothing appears at path before mcz_writer_close()
 * succeeds, the data goes to a temporary file beside it. LIVE: path is created (truncated) now.
 * MEMORY: nothing is written before a dump or close.
 */
MCZ_API mcz_writer *mcz_writer_open(const char *path, const mcz_writer_options *opt,
                                    mcz_diag *diag);

/*
 * Appends one serialized context (container-checked; copied, so the caller may reuse its
 * buffer). Safe to call from several threads; contexts are numbered in the order the calls take
 * effect, and *number (optional) receives the number given. The call only copies under a short
 * lock: hashing, compression, dictionary training and I/O run on the writer's threads. When
 * queue_chunks sealed chunks wait and this context needs a new chunk, MCZ_FULL_BLOCK waits for
 * room (memory stays bounded) and MCZ_FULL_DROP returns MCZ_EDROPPED at once (counted in
 * stats.dropped_full; no number is used). A context refused by the container check or dropped
 * leaves the writer usable; I/O and compression failures are sticky (mcz_writer_diag).
 */
MCZ_API int mcz_writer_append(mcz_writer *w, const void *mc, size_t size, uint32_t *number);

/*
 * A chunk as stored in an archive (its chunk-header frame and zstd data frame, e.g. from
 * mcz_reader_chunk_frames) with the stored hashes of its contexts (identity, dedup: count
 * entries each, in order). When the data frame uses the writer's dictionary (same id, or both
 * none) it is decoded and verified in full (header, decode, XXH3, containers), then copied byte
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
MCZ_API int mcz_writer_append_compressed(mcz_writer *w, const void *frames, size_t len,
                                         const mcz_hash128 *identity, const mcz_hash128 *dedup,
                                         uint32_t count, mcz_diag *diag);

/*
 * Seals the open chunk now, decides the dictionary if it is still pending (training on what is
 * buffered), and waits until every chunk sealed so far is compressed and in the output (the
 * file, or the memory ring); in LIVE mode the index is then checkpointed, so the file is a
 * complete archive of every context appended before the call.
 */
MCZ_API int mcz_writer_flush(mcz_writer *w);

/*
 * Writes a complete archive of what the writer retains to path, atomically, after a flush: every
 * context appended before the call that max_bytes has not discarded. For MEMORY and LIVE writers
 * (MCZ_ESTATE for ATOMIC); the writer goes on.
 */
MCZ_API int mcz_writer_dump(mcz_writer *w, const char *path, mcz_diag *diag);

/*
 * Installs signal handlers that write the retained chunks to path. request_signal (e.g.
 * SIGUSR1; 0 for none; LIVE or MEMORY) asks for a dump, done by a writer thread with
 * mcz_writer_dump() (a failed one is not the writer's error; the next request tries again).
 * With on_fatal (MEMORY only), SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT write the chunks
 * already in the ring using only async-signal-safe calls (open, write, fsync, rename, close; no
 * locks, no allocation; SA_ONSTACK, so an alternate signal stack is used when the thread has
 * one) to "path.partial", renamed to path once complete; then the previous action is restored
 * and the signal raised again. The dump holds every context stats.last_retained reported before
 * it; from the moment it starts the ring is frozen. A dump cut short (a second fault, a kill)
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
MCZ_API int mcz_writer_close(mcz_writer *w, mcz_diag *diag);

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
} mcz_archive_info;

typedef struct mcz_chunk_info {
    uint64_t offset;       /* absolute file offset of the chunk's frames */
    uint32_t stored_size;  /* bytes in the file */
    uint32_t raw_size;     /* uncompressed bytes (whole contexts) */
    uint32_t first_number;
    uint32_t count;
    uint64_t checksum;     /* XXH3-64 of the raw bytes */
} mcz_chunk_info;

MCZ_API mcz_reader *mcz_reader_open(const char *path, mcz_diag *diag);
MCZ_API void mcz_reader_close(mcz_reader *r);
MCZ_API void mcz_reader_get_info(const mcz_reader *r, mcz_archive_info *out);
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

MCZ_API mcz_cursor *mcz_cursor_create(const mcz_reader *r);
MCZ_API void mcz_cursor_free(mcz_cursor *c);
/* Decompresses and verifies chunk `index` (cached: asking again is free). *raw stays valid until
 * the cursor decodes another chunk. */
MCZ_API int mcz_cursor_chunk(mcz_cursor *c, uint64_t index, const uint8_t **raw, size_t *len,
                             mcz_diag *diag);
/* Context `number` as a view into the decoded chunk (valid until the next chunk is decoded). */
MCZ_API int mcz_cursor_get(mcz_cursor *c, uint32_t number, mcz_mc *out, mcz_diag *diag);

/* Progress callback for long work: done and total in the caller's unit (bytes or contexts). */
typedef void (*mcz_progress_fn)(void *arg, uint64_t done, uint64_t total);

/* Deep verification: every chunk's checksum, every context's packets, every stored hash (when
 * the archive stores hashes). */
MCZ_API int mcz_reader_verify(const mcz_reader *r, mcz_progress_fn progress, void *arg,
                              mcz_diag *diag);

/*
 * Rebuilds a complete archive at out_path from a damaged or truncated one (e.g. a writer killed
 * mid-run) by scanning its self-describing chunks. Every chunk that decodes and checks out is
 * kept; *kept and *lost count contexts. Fails only when nothing can be recovered.
 */
MCZ_API int mcz_recover(const char *in_path, const char *out_path, uint64_t *kept,
                        uint64_t *lost, mcz_diag *diag);

/* ---- Source: .mch and .mcz behind one interface ---- */

/*
 * A collection to read contexts from, whatever its format: an archive (detected by its magic)
 * or an MCH file (with its .mct, when there is one, for random access). Single-threaded: open
 * one source per thread.
 */
typedef struct mcz_source mcz_source;

MCZ_API mcz_source *mcz_source_open(const char *path, mcz_diag *diag);
MCZ_API void mcz_source_close(mcz_source *s);
/* The archive behind the source, or NULL for an MCH file. */
MCZ_API const mcz_reader *mcz_source_archive(const mcz_source *s);
/*
 * Next context in number order: 1 with *out filled (a view valid until the next call), 0 at the
 * end, negative on damage (diag names the context number and offset).
 */
MCZ_API int mcz_source_next(mcz_source *s, mcz_mc *out, mcz_diag *diag);
/* Context `number`; MCZ_ENOTFOUND when the source does not hold it. An MCH file is read
 * through its .mct when the table can be this file's (mcz_toc_check) and the context found is
 * the one asked for: every context before it begins where the one before ends, as the table
 * says (each walked once per source), and it has the identity the table records, if any.
 * Otherwise the source stops using the .mct and finds contexts by scanning the file. */
MCZ_API int mcz_source_get(mcz_source *s, uint32_t number, mcz_mc *out, mcz_diag *diag);
/* The path of the .mct that an MCH source found unusable, with why in *why (context, if any,
 * is the number whose entry was wrong), the first time it is asked after that happened (at the
 * first mcz_source_get); NULL otherwise: no .mct, one in use, or one already reported. */
MCZ_API const char *mcz_source_toc_rejected(mcz_source *s, mcz_diag *why);

#ifdef __cplusplus
}
#endif

#endif /* MCZ_H */
