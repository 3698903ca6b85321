/*
 * archive.h - the on-disk codec of the .mcz archive (format/FORMAT.md): encode and decode the
 * file header, dictionary frame, chunk headers, index and footer, with every bound checked, and
 * decode a whole chunk with every check (chunk_decode.c). Shared by writer/ and reader/, which
 * never depend on each other. Internal: tools use mcz.h.
 */
#ifndef MCZ_ARCHIVE_H
#define MCZ_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "../common/mcz_common.h"

#define MCZ_ARC_SKIP_MAGIC 0x184D2A5Cu /* every mcz skippable frame */
#define MCZ_ARC_ZSTD_MAGIC 0xFD2FB528u /* a standard zstd frame */
#define MCZ_ARC_VERSION 4u     /* written; 2 adds the header's JIT-EE field and xz to 1, 3 the
                                * packet layout (FORMAT.md §4a), 4 the compressed index (§5) */
#define MCZ_ARC_VERSION_MIN 1u /* oldest read */
#define MCZ_ARC_FLAG_HAS_DICT 1u
#define MCZ_ARC_FLAG_CODEC_XZ 2u /* the writer compressed its chunks with xz (FORMAT.md §2) */
#define MCZ_ARC_FLAG_PACKETS 4u /* the writer stored its chunks in the packet layout (§4a) */
#define MCZ_ARC_FLAGS_KNOWN (MCZ_ARC_FLAG_HAS_DICT | MCZ_ARC_FLAG_CODEC_XZ | MCZ_ARC_FLAG_PACKETS)
#define MCZ_ARC_INDEX_NO_HASHES 1u /* index flags: no identity and dedup columns */
#define MCZ_ARC_INDEX_COMPRESSED 2u /* index flags (version 4): the tables are one zstd frame */
#define MCZ_ARC_INDEX_FLAGS_KNOWN (MCZ_ARC_INDEX_NO_HASHES | MCZ_ARC_INDEX_COMPRESSED)
#define MCZ_ARC_INDEX_LEVEL 9      /* zstd level of a compressed index */

#define MCZ_ARC_FRAME_HEAD 8u    /* skippable magic + payload size */
#define MCZ_ARC_HEADER_SIZE 44u  /* file header frame */
#define MCZ_ARC_DICT_HEAD 32u    /* dictionary frame without the dictionary bytes */
#define MCZ_ARC_CHUNK_HEAD 40u   /* chunk header frame without the 4-byte lengths */
#define MCZ_ARC_INDEX_HEAD 36u   /* index frame without its tables */
#define MCZ_ARC_INDEX_PACKED_HEAD 44u /* compressed index frame without its zstd frame */
#define MCZ_ARC_CHUNK_ENTRY 32u  /* one chunk in the index */
#define MCZ_ARC_CONTEXT_ENTRY 40u /* one context in the index (all columns) */
#define MCZ_ARC_CONTEXT_ENTRY_NO_HASHES 8u /* one context without the hash columns */
#define MCZ_ARC_FOOTER_SIZE 56u
#define MCZ_ARC_META_SIZE 92u    /* metadata frame */

/* No zstd frame decodes to more than this many bytes per byte of frame (a 4-byte RLE block
 * yields at most 128 KiB): the cap on a chunk's raw size relative to its stored size. */
#define MCZ_ARC_MAX_EXPANSION 32768u

/* The tags (first payload bytes), as little-endian u32 values of their ASCII text. */
#define MCZ_ARC_TAG_HEADER 0x485A434Du /* "MCZH" */
#define MCZ_ARC_TAG_DICT 0x445A434Du   /* "MCZD" */
#define MCZ_ARC_TAG_CHUNK 0x435A434Du  /* "MCZC": a chunk whose data is a zstd frame */
#define MCZ_ARC_TAG_CHUNK_XZ 0x585A434Du /* "MCZX": a chunk whose data is an .xz stream */
#define MCZ_ARC_TAG_CHUNK_P 0x505A434Du  /* "MCZP": zstd frame of the chunk's packet layout */
#define MCZ_ARC_TAG_CHUNK_XZ_P 0x515A434Du /* "MCZQ": .xz stream of the chunk's packet layout */
#define MCZ_ARC_TAG_META 0x4D5A434Du   /* "MCZM": collection metadata (FORMAT.md §2a) */
#define MCZ_ARC_TAG_INDEX 0x495A434Du  /* "MCZI" */
#define MCZ_ARC_TAG_FOOTER 0x465A434Du /* "MCZF" */
#define MCZ_ARC_END_MAGIC 0x7E5A434Du  /* "MCZ~", the file's last 4 bytes */

/* ---- File header ---- */

typedef struct mcz_arc_header {
    uint32_t version;
    uint32_t flags;
    int32_t level;
    uint32_t chunk_size;
    uint32_t dict_id;
    uint32_t jit_ee;   /* mcz_jit_ee_id of the version the index's hashes use; 0: not recorded */
} mcz_arc_header;

void mcz_arc_header_encode(const mcz_arc_header *h, uint8_t out[MCZ_ARC_HEADER_SIZE]);
/* Decodes the header at the start of file[0, size): magic, tag, version, reserved bits and
 * checksum checked. */
int mcz_arc_header_decode(const uint8_t *file, size_t size, mcz_arc_header *out, mcz_diag *diag);
/* True when buf starts like an archive (skippable magic, header size, MCZH tag). */
bool mcz_arc_looks_like(const uint8_t *buf, size_t len);
/* True when buf, which does not start like an archive, is not an MCH either (no "mc" first)
 * but shows an archive's skippable magic, its MCZH tag or its end magic, or is named as one
 * (named_mcz): a damaged archive. */
bool mcz_arc_looks_damaged(const uint8_t *buf, size_t len, bool named_mcz);

/* ---- Dictionary frame ---- */

typedef struct mcz_arc_dict {
    uint32_t dict_id;
    const uint8_t *bytes; /* view into the file */
    size_t size;
    uint64_t frame_size;  /* the whole frame */
} mcz_arc_dict;

/* The fixed head of a dictionary frame; the dictionary bytes follow it. */
void mcz_arc_dict_encode_head(uint32_t dict_id, const void *dict, uint32_t len,
                              uint8_t out[MCZ_ARC_DICT_HEAD]);
/* Decodes the dictionary frame at off; its id must equal expect_id. */
int mcz_arc_dict_decode(const uint8_t *file, size_t size, uint64_t off, uint32_t expect_id,
                        mcz_arc_dict *out, mcz_diag *diag);

/* ---- Collection metadata frame (FORMAT.md §2a) ---- */

/* What the metadata frame records; an empty string is a field not recorded. */
typedef struct mcz_arc_meta {
    char guid[MCZ_GUID_TEXT_SIZE]; /* canonical (mcz_guid_canonical) */
    char os[MCZ_TARGET_TEXT_SIZE];  /* canonical (mcz_target_canonical) */
    char arch[MCZ_TARGET_TEXT_SIZE];
} mcz_arc_meta;

/* True when m records nothing: the archive then has no metadata frame. */
bool mcz_arc_meta_empty(const mcz_arc_meta *m);
/* Fills m from the writer's option texts (each may be NULL): MCZ_EINVAL naming the field when
 * one is not canonicalizable. */
int mcz_arc_meta_from_text(const char *guid, const char *os, const char *arch, mcz_arc_meta *m,
                           mcz_diag *diag);
/* Encodes the frame of a non-empty m. */
void mcz_arc_meta_encode(const mcz_arc_meta *m, uint8_t out[MCZ_ARC_META_SIZE]);
/*
 * The metadata frame at off of file[0, size), if one starts there (skippable magic and MCZM
 * tag): MCZ_OK with *frame_size its size and out filled; *frame_size 0 and out empty when the
 * bytes at off are not one (a chunk, the index, bytes without the magic, the end of the
 * file). A frame that starts as one and fails a check (size, checksum, flags, a field's text),
 * the MCZM tag without the magic, and the magic with a tag that no frame there has (the
 * index's, unless the index begins at off: index_offset) are errors at off: one damaged byte
 * never makes the frame pass for absent.
 */
int mcz_arc_meta_decode(const uint8_t *file, size_t size, uint64_t off, uint64_t index_offset,
                        mcz_arc_meta *out, uint64_t *frame_size, mcz_diag *diag);

/* ---- Chunk header frame ---- */

typedef struct mcz_arc_chunk_head {
    uint32_t first_number;
    uint32_t count;
    uint32_t raw_size;
    uint32_t data_size;      /* the zstd data frame that follows */
    uint64_t checksum;       /* XXH3-64 of the raw bytes */
    const uint8_t *lengths;  /* count little-endian u32, a view into the frame */
    mcz_codec codec;         /* of the data: the frame's tag */
    bool packets;            /* the data holds the packet layout of the raw bytes (§4a): tag */
} mcz_arc_chunk_head;

/* True when tag (the u32 at offset 8 of a frame) is one of the chunk header tags. */
bool mcz_arc_is_chunk_tag(uint32_t tag);

/* Bytes of a chunk header frame holding count lengths. */
uint64_t mcz_arc_chunk_head_size(uint32_t count);
/* Writes the frame (mcz_arc_chunk_head_size(h->count) bytes); lengths replaces h->lengths. */
void mcz_arc_chunk_head_encode(const mcz_arc_chunk_head *h, const uint32_t *lengths, uint8_t *out);
/*
 * Decodes the chunk header frame at file offset off of file[0, size): tag, sizes, checksum, and
 * that the lengths sum to raw_size and are each >= MCZ_MC_OVERHEAD.
 */
int mcz_arc_chunk_head_decode(const uint8_t *file, size_t size, uint64_t off,
                              mcz_arc_chunk_head *out, mcz_diag *diag);
/* What the packet layout of h's contexts may take at most (mcz_layout_bound of its raw size and
 * count): the cap on an MCZP/MCZQ chunk's decoded data. */
uint64_t mcz_arc_layout_bound(const mcz_arc_chunk_head *h);
/* Length i of a decoded chunk header (i < count). */
uint32_t mcz_arc_chunk_head_length(const mcz_arc_chunk_head *h, uint32_t i);

/* ---- A whole chunk, decoded and verified (chunk_decode.c) ---- */

/* A growable decode buffer; the caller frees bytes. */
typedef struct mcz_arc_buffer {
    uint8_t *bytes;
    size_t cap;
} mcz_arc_buffer;

/* Makes buf hold at least need bytes (its contents are not kept); MCZ_ENOMEM on failure. */
int mcz_arc_buffer_reserve(mcz_arc_buffer *buf, size_t need);

/*
 * Decodes the chunk (header frame + zstd data frame) at file offset off of file[0, size): the
 * header, the data frame's dictionary id (must be dict_id, 0 for none: MCZ_EDICT otherwise,
 * before anything is decoded) and content size, a decode of exactly raw_size bytes into buf, the
 * raw XXH3, and each context's container. On success *head describes the chunk and buf->bytes
 * holds its raw bytes; on failure nothing in buf is meaningful and diag gives the offset in file
 * and the context concerned. ddict may be NULL (no dictionary).
 */
int mcz_arc_decode_chunk(const uint8_t *file, size_t size, uint64_t off, ZSTD_DCtx *dctx,
                         const ZSTD_DDict *ddict, uint32_t dict_id, mcz_arc_buffer *buf,
                         mcz_arc_chunk_head *head, mcz_diag *diag);

/* ---- Index and footer ---- */

typedef struct mcz_arc_footer {
    uint32_t version;
    uint64_t index_offset;
    uint64_t index_size;
    uint64_t index_checksum;
    uint32_t chunk_count;
    uint32_t context_count;
} mcz_arc_footer;

void mcz_arc_footer_encode(const mcz_arc_footer *f, uint8_t out[MCZ_ARC_FOOTER_SIZE]);
/* Decodes the footer from the last MCZ_ARC_FOOTER_SIZE bytes of file[0, size) and checks that the
 * index lies inside the file and ends where the footer begins. */
int mcz_arc_footer_decode(const uint8_t *file, size_t size, mcz_arc_footer *out, mcz_diag *diag);

/* As mcz_arc_footer_decode, for the footer frame p[0, MCZ_ARC_FOOTER_SIZE) that lies at file
 * offset off, the file ending right after it (a stream's last frame). */
int mcz_arc_footer_decode_at(const uint8_t *p, uint64_t off, mcz_arc_footer *out,
                             mcz_diag *diag);

/* A decoded index: views into the file image or, for a compressed index, into `owned`, which
 * mcz_arc_index_free releases. A compressed index has no offset column: a context's offset in
 * its chunk is the sum of the lengths before it there (FORMAT.md §5). */
typedef struct mcz_arc_index {
    uint32_t chunk_count;
    uint32_t context_count;
    uint32_t first_number;
    uint64_t raw_bytes;
    bool has_hashes;         /* the index flags lack MCZ_ARC_INDEX_NO_HASHES */
    const uint8_t *chunks;   /* chunk_count entries of MCZ_ARC_CHUNK_ENTRY bytes */
    const uint8_t *offsets;  /* context_count u32 of a raw index; NULL for a compressed one */
    const uint8_t *lengths;  /* context_count u32; NULL when streamed (packed) */
    const uint8_t *identity; /* context_count × 16; NULL without hashes, or when streamed */
    const uint8_t *dedup;    /* context_count × 16; NULL without hashes, or when streamed */
    uint8_t *owned;          /* the decoded columns of a compressed index; NULL for a raw one */
    uint64_t *chunk_lengths; /* a lean index's: per chunk, the XXH3-64 of its lengths (4·count
                              * little-endian bytes, as a chunk header holds them), made as the
                              * open checks them, so that a chunk read is matched to the index
                              * without its lengths; NULL otherwise */
    const uint8_t *packed;   /* a lean compressed index's zstd frame (a view): its per-context
                              * columns are read from it by mcz_arc_column_get; NULL otherwise */
    size_t packed_size;
} mcz_arc_index;

/* Bytes of an index frame with these counts, with or without the hash columns (fits in 64 bits
 * for any u32 counts). */
uint64_t mcz_arc_index_size(uint32_t chunk_count, uint32_t context_count, bool hashes);

/*
 * Decodes and validates the index the footer points at (FORMAT.md §8): flags (reserved bits
 * zero), frame size for the flags and counts, checksum, and every chunk and context entry; a
 * compressed index (version 4) is decompressed into out->owned (no offset column: its contexts
 * tile their chunks by their lengths). data_start is where chunks may begin (after the header
 * and dictionary frames). On success the caller frees out with mcz_arc_index_free; on failure
 * nothing is left to free.
 */
int mcz_arc_index_decode(const uint8_t *file, size_t size, const mcz_arc_footer *footer,
                         uint64_t data_start, mcz_arc_index *out, mcz_diag *diag);
/* As mcz_arc_index_decode, for the index frame frame[0, footer->index_size) that lies at file
 * offset footer->index_offset (a stream's frame, kept apart from the bytes before it). */
int mcz_arc_index_decode_frame(const uint8_t *frame, const mcz_arc_footer *footer,
                               uint64_t data_start, mcz_arc_index *out, mcz_diag *diag);
/*
 * As mcz_arc_index_decode, but a compressed index (version 4) whose per-context columns (the
 * lengths and the hash columns: 36 bytes per context, 4 without hashes) reach lean->min_columns
 * keeps only its chunk table decoded (32 bytes per chunk): its per-context columns stay in the
 * zstd frame, a view of the file that must outlive the index, and are read from it forward by
 * mcz_arc_column_get (the checks at open read the lengths so, once). A raw index is viewed in
 * the file as ever.
 */
typedef struct mcz_arc_lean {
    /* Called as the checksum and the decode move through the frame: the file's bytes before
     * offset will not be read again at open (a mapped file lets their pages go); may be NULL. */
    void (*release)(void *arg, uint64_t offset);
    void *arg;
    uint64_t min_columns; /* per-context columns of fewer bytes are kept whole */
} mcz_arc_lean;
int mcz_arc_index_decode_lean(const uint8_t *file, size_t size, const mcz_arc_footer *footer,
                              uint64_t data_start, const mcz_arc_lean *lean, mcz_arc_index *out,
                              mcz_diag *diag);
/* Releases what a decoded index owns (idx may be NULL or zeroed); its views become invalid. */
void mcz_arc_index_free(mcz_arc_index *idx);
/* Encodes c as the index's chunk entry (FORMAT.md §5). */
void mcz_arc_chunk_entry_encode(const mcz_chunk_info *c, uint8_t out[MCZ_ARC_CHUNK_ENTRY]);
/* Chunk entry i of a decoded index (i < chunk_count). */
void mcz_arc_index_chunk(const mcz_arc_index *idx, uint32_t i, mcz_chunk_info *out);
/* Offset (a raw index's stored column: offsets non-NULL) and length (lengths non-NULL) of the
 * context at position i of a decoded index (i < context_count). */
uint32_t mcz_arc_index_offset(const mcz_arc_index *idx, uint32_t i);
uint32_t mcz_arc_index_length(const mcz_arc_index *idx, uint32_t i);

/*
 * An index under construction (writer, recovery): chunks appended in number order, each with its
 * contexts' lengths and hashes. Encoded into an index frame and a footer at the end. Zeroed, it
 * is an empty table with hashes; set no_hashes before the first chunk for an index without them.
 */
typedef struct mcz_arc_table {
    mcz_chunk_info *chunks;
    uint32_t chunk_count, chunk_cap;
    uint32_t *lengths; /* the offsets follow from them (FORMAT.md §5) */
    mcz_hash128 *identity, *dedup; /* NULL with no_hashes */
    uint32_t context_count, context_cap;
    uint32_t first_number; /* recorded when there are no chunks */
    uint64_t raw_bytes;
    bool no_hashes;        /* encode without the identity and dedup columns */
    bool raw_index;        /* encode the index uncompressed (as a fatal-signal dump does) */
} mcz_arc_table;

/* Appends a chunk; its count lengths and hashes are copied (the hashes are ignored, and may be
 * NULL, with no_hashes). MCZ_ENOMEM / MCZ_ELIMIT on failure. */
int mcz_arc_table_add(mcz_arc_table *t, const mcz_chunk_info *chunk, const uint32_t *lengths,
                      const mcz_hash128 *identity, const mcz_hash128 *dedup);
/* Encodes the index frame (compressed unless raw_index, mcz_arc_index_pack) and the footer for
 * an index placed at index_offset; *frame is malloc'ed. */
int mcz_arc_table_encode(const mcz_arc_table *t, uint64_t index_offset, uint8_t **frame,
                         size_t *frame_len, uint8_t footer[MCZ_ARC_FOOTER_SIZE]);
void mcz_arc_table_free(mcz_arc_table *t);

/* ---- Streaming index encoding ---- */

/* The index rows of one chunk, as the streaming encoder reads them. */
typedef struct mcz_arc_rows {
    mcz_chunk_info info;       /* offset: where the chunk lies in the file being written */
    const uint32_t *lengths;   /* info.count context lengths */
    const mcz_hash128 *identity, *dedup; /* read only when the index has hashes */
} mcz_arc_rows;

/* Fills out with chunk i's rows. The encoder asks for i = 0, 1, ... chunk_count-1 in order, once
 * per pass (several passes, one per column), so a source can walk a list; every pass must see
 * the same rows. */
typedef void (*mcz_arc_rows_fn)(void *arg, uint32_t i, mcz_arc_rows *out);

/* Receives consecutive pieces of the output; returns MCZ_OK or an error that stops the work. */
typedef int (*mcz_arc_sink_fn)(void *arg, const void *bytes, size_t len);

/*
 * Encodes the index frame of chunk_count chunks followed by the footer, for an index placed at
 * index_offset, into sink in pieces of at most 4 KiB. No allocation and no lock (about 5 KiB of
 * stack): async-signal-safe when rows and sink are, for a dump from a fatal-signal handler.
 * first_number is recorded when chunk_count is 0. hashes false writes the index without its
 * identity and dedup columns (flag MCZ_ARC_INDEX_NO_HASHES). MCZ_ELIMIT when the counts overflow
 * the format; otherwise the sink's first error.
 */
int mcz_arc_index_stream(uint32_t chunk_count, uint32_t first_number, bool hashes,
                         mcz_arc_rows_fn rows, void *rows_arg, uint64_t index_offset,
                         mcz_arc_sink_fn sink, void *sink_arg);

/* ---- Compressed index (index_pack.c) ---- */

/*
 * Replaces the raw index frame *frame (*len bytes, malloc'ed, placed at index_offset) by its
 * compressed form (FORMAT.md §5, flag MCZ_ARC_INDEX_COMPRESSED) and re-encodes footer, which
 * must be the raw frame's, to match. Keeps the raw form, which is as valid, when compression
 * fails, runs out of memory or does not make the frame smaller: it never fails.
 */
void mcz_arc_index_pack(uint8_t **frame, size_t *len, uint64_t index_offset,
                        uint8_t footer[MCZ_ARC_FOOTER_SIZE]);

/*
 * As mcz_arc_index_stream, but the index frame is compressed when that makes it smaller, into
 * the bytes mcz_arc_index_pack makes: the raw frame is compressed as it is streamed, never
 * held; the compressed frame and zstd's context are allocated: never from a signal handler.
 * The rows are walked once more than mcz_arc_index_stream walks them (and once again for the
 * raw form when compressing does not pay).
 * MCZ_ENOMEM, MCZ_ELIMIT, or the sink's first error.
 */
int mcz_arc_index_write(uint32_t chunk_count, uint32_t first_number, bool hashes,
                        mcz_arc_rows_fn rows, void *rows_arg, uint64_t index_offset,
                        mcz_arc_sink_fn sink, void *sink_arg);

/* A per-context column of a compressed index (FORMAT.md §5, "The compressed form"). */
typedef enum mcz_arc_column {
    MCZ_ARC_COL_LENGTHS,  /* 4 bytes per context */
    MCZ_ARC_COL_IDENTITY, /* 16 */
    MCZ_ARC_COL_DEDUP,    /* 16 */
    MCZ_ARC_COLUMNS
} mcz_arc_column;

/*
 * One column of a lean compressed index read forward: a zstd stream over its frame and a window
 * of MCZ_ARC_COLUMN_WINDOW decoded bytes (512 hashes or 2048 lengths). Reading in context order
 * decodes the frame once; a read behind the window starts the stream again from the frame's
 * start (counted in restarts). Memory: the window and the zstd context (at most the frame's
 * window: 4 MiB at level 9), whatever the number of contexts. Zeroed: nothing read yet. Not
 * thread-safe: one user at a time.
 */
#define MCZ_ARC_COLUMN_WINDOW 8192u
typedef struct mcz_arc_column_stream {
    void *dctx;            /* ZSTD_DCtx, made at the first read */
    size_t in_pos;         /* bytes of the frame consumed */
    uint64_t out_pos;      /* decoded bytes produced */
    size_t last;           /* zstd's last answer: 0 once the frame has ended, or its error */
    uint32_t first, count; /* the entries the window holds */
    uint32_t restarts;     /* reads behind the window so far */
    uint8_t window[MCZ_ARC_COLUMN_WINDOW];
} mcz_arc_column_stream;

/*
 * Where mcz_arc_index_write_via keeps the compressed frame while it is made (its head holds its
 * size, so nothing of it can go to the sink before it is whole): append takes its bytes in
 * order, replay gives them all back, in order, through sink; each returns MCZ_OK or an error
 * that stops the index. A writer passes a temporary file, so that the frame (about 24 bytes per
 * context with the hashes) is not held in memory.
 */
typedef struct mcz_arc_store {
    int (*append)(void *arg, const void *bytes, size_t len);
    int (*replay)(void *arg, mcz_arc_sink_fn sink, void *sink_arg);
    void *arg;
} mcz_arc_store;

/* mcz_arc_index_write with the compressed frame kept in store (NULL: in memory, as
 * mcz_arc_index_write does); the same bytes. Also the store's first error. */
int mcz_arc_index_write_via(uint32_t chunk_count, uint32_t first_number, bool hashes,
                            mcz_arc_rows_fn rows, void *rows_arg, uint64_t index_offset,
                            const mcz_arc_store *store, mcz_arc_sink_fn sink, void *sink_arg);

/*
 * The compressed-index half of mcz_arc_index_decode: decodes the frame frame[0, frame_size),
 * which lies at file offset off, whose fixed head is read into out (counts, first number, raw
 * bytes, hashes), checksum and flags already checked; fills out's views into out->owned, the
 * tables not yet checked. data_start bounds the counts. lean: NULL decodes every column, else
 * as mcz_arc_index_decode_lean: a lean index's chunk table is read through s (zeroed), which
 * then reads its lengths for the checks and mcz_arc_index_unpack_end its end.
 */
int mcz_arc_index_unpack(const uint8_t *frame, uint64_t off, uint64_t frame_size,
                         uint64_t data_start, const mcz_arc_lean *lean, mcz_arc_index *out,
                         mcz_arc_column_stream *s, mcz_diag *diag);
/* The rest of a lean index's frame decoded through s and dropped, releasing as it goes: the
 * frame must decode to exactly its content size and end where the index frame ends
 * (MCZ_ECORRUPT at at, the zstd frame's file offset, otherwise). */
int mcz_arc_index_unpack_end(const mcz_arc_index *idx, mcz_arc_column_stream *s,
                             const mcz_arc_lean *lean, uint64_t at, mcz_diag *diag);

/* Entry pos (< context_count) of column c of idx, a lean compressed index (with hashes for the
 * hash columns), into out (4 or 16 bytes): MCZ_OK, or MCZ_ENOMEM / MCZ_ECORRUPT (at open, the
 * frame is checked whole once: afterwards only memory should fail). */
int mcz_arc_column_get(const mcz_arc_index *idx, mcz_arc_column_stream *s, mcz_arc_column c,
                       uint32_t pos, uint8_t *out);
/* What made s fail (zstd's error name, or "short"). */
const char *mcz_arc_column_error(const mcz_arc_column_stream *s);
void mcz_arc_column_free(mcz_arc_column_stream *s); /* back to zeroed */
/* Columns of a lean index decoded whole, for a user that reads them out of order: len bytes
 * from the start of column c (the lengths: 4 per context; both hash columns: 32, identity then
 * dedup), malloc'ed; NULL out of memory. */
uint8_t *mcz_arc_index_columns(const mcz_arc_index *idx, mcz_arc_column c, uint64_t len);

/* ---- Hashes and frames ---- */

/*
 * The hashes stored for a context (FORMAT.md §5): identity with names (zero when it cannot be
 * built) and the dedup key (identity without names, else XXH3-128 of the bytes).
 */
/* The version whose table the index's hashes were computed with: the recorded one, or B for an
 * archive that records none (format version 1 was written by builds that knew only B). */
const mcz_jit_ee *mcz_arc_hash_jit_ee(const mcz_arc_header *h);
void mcz_arc_context_hashes(const mcz_jit_ee *v, const mcz_mc *mc, mcz_hash128 *identity,
                            mcz_hash128 *dedup);

/*
 * Checks that an mcz frame with this tag starts at off, that its payload holds at least
 * min_payload bytes and that the whole frame fits; returns its payload size in *payload (set on
 * every path: 0 when the head is unreadable). what names the frame in messages.
 */
int mcz_arc_frame_check(const uint8_t *file, size_t size, uint64_t off, uint32_t tag,
                        uint32_t min_payload, const char *what, uint32_t *payload,
                        mcz_diag *diag);

/* XXH3-64 of len bytes. */
uint64_t mcz_arc_xxh3(const void *data, size_t len);

#endif /* MCZ_ARCHIVE_H */
