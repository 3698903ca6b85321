/*
 * mcz_superpmi.h - the legacy SuperPMI layer of mcz: MCH method contexts, their packets and
 * maps, building contexts, method identities, .mct tables of contents and .mcl lists, read and
 * written byte for byte as SuperPMI does (superpmi/SUPERPMI.md describes the formats).
 * Conventions as in mcz.h.
 */
#ifndef MCZ_SUPERPMI_H
#define MCZ_SUPERPMI_H

#include "mcz.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================ */
/* Legacy MCH: method contexts, packets, maps                                                    */
/* ============================================================================================ */

/* A JIT-EE version (see "JIT-EE versions" below); NULL wherever one is taken: the newest. */
typedef struct mcz_jit_ee mcz_jit_ee;


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
 * v's packet table (NULL: the newest) when the id is known and its sizes agree. A legacy
 * untagged map is read as SuperPMI reads it. diag offsets are relative to the start of the context (mcz_mc_check
 * reports the same problems with file offsets and the context number).
 */
MCZ_API int mcz_map_parse(const mcz_jit_ee *v, const mcz_packet *p, mcz_map *out,
                          mcz_diag *diag);

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
 * mcz_mc_check, plus: every packet v's table knows has the key and value sizes the table gives.
 * A disagreement is MCZ_EVERSION (naming the packet and the version): the collection comes
 * from another JIT-EE version, or a packet is damaged in a way the framing cannot show.
 */
MCZ_API int mcz_mc_check_table(const mcz_jit_ee *v, const mcz_mc *mc, mcz_diag *diag);

/* ---- JIT-EE versions: packet tables, CorInfoType numbering, detection ---- */

/*
 * A JIT-EE interface version mcz knows (superpmi/SUPERPMI.md "Packet tables per JIT-EE version"):
 * its packet table, write order and CorInfoType numbering. Static data; never freed. Wherever
 * a function takes `const mcz_jit_ee *v`, NULL means the newest version.
 */
typedef struct mcz_packet_info {
    const char *name;    /* "CompileMethod"; NULL for ids not in the table */
    bool compile_result; /* a PacketCR_* packet */
    bool dense;          /* DWM1 */
    uint32_t key_size;   /* 0 for dense */
    uint32_t value_size; /* 0 when the value size is version-dependent and not checked */
} mcz_packet_info;

/* The versions, oldest first: mcz_jit_ee_at(i) for i < mcz_jit_ee_count() (NULL past the end);
 * mcz_jit_ee_newest() is the last. */
MCZ_API size_t mcz_jit_ee_count(void);
MCZ_API const mcz_jit_ee *mcz_jit_ee_at(size_t i);
MCZ_API const mcz_jit_ee *mcz_jit_ee_newest(void);
/* The version named "B", "C"... exactly, or whose GUID is name_or_guid in any case
 * ("28808a0e-5dc5-48bd-a7eb-27def284eff0"); NULL when none is. */
MCZ_API const mcz_jit_ee *mcz_jit_ee_find(const char *name_or_guid);
/* Its short name ("B"), its GUID in lower case as jiteeversionguid.h writes it (NULL when no
 * source read gives it), a one-line description, its position for mcz_jit_ee_at. */
MCZ_API const char *mcz_jit_ee_name(const mcz_jit_ee *v);
MCZ_API const char *mcz_jit_ee_guid(const mcz_jit_ee *v);
MCZ_API const char *mcz_jit_ee_description(const mcz_jit_ee *v);
MCZ_API size_t mcz_jit_ee_index(const mcz_jit_ee *v);
/* The stable number an archive records for v (B: 2, C: 3; never reused), and the version with
 * that number (NULL when unknown, e.g. 0, "not recorded"). */
MCZ_API uint32_t mcz_jit_ee_id(const mcz_jit_ee *v);
MCZ_API const mcz_jit_ee *mcz_jit_ee_by_id(uint32_t id);

/* Table entry for id in v, or NULL when v has no such packet. */
MCZ_API const mcz_packet_info *mcz_jit_ee_packet(const mcz_jit_ee *v, uint8_t id);
/* mcz_jit_ee_packet(NULL, id): the newest version's entry (a `const mcz_packet_info *(*)(uint8_t)`
 * for code that reads one version). */
MCZ_API const mcz_packet_info *mcz_packet_lookup(uint8_t id);
/* Writes v's name for the packet, or "unknown(N)", into buf; returns buf. */
MCZ_API const char *mcz_packet_name(const mcz_jit_ee *v, uint8_t id, char *buf, size_t cap);
/* The order SuperPMI writes packets in (lwmlist.h, then crlwmlist.h) in v: *count ids, each
 * once. Static data. */
MCZ_API const uint8_t *mcz_jit_ee_write_order(const mcz_jit_ee *v, size_t *count);

/* A raw CorInfoType as v numbers it (its low 6 bits; the pinned bit 0x40 is ignored) mapped to
 * the version-independent MCZ_TYPE_* (mcz_agnostic.h), or -1 when v has no type with that
 * number. mcz_jit_ee_type_raw is the reverse: v's number for an MCZ_TYPE_*, or -1. */
MCZ_API int mcz_jit_ee_type(const mcz_jit_ee *v, uint32_t raw);
MCZ_API int mcz_jit_ee_type_raw(const mcz_jit_ee *v, int type);

/*
 * Detection. A context "fits" a version when every packet id it holds is in that version's
 * table (ids no version knows are ignored), every map has the version's key and value sizes,
 * and the CorInfoTypes of its GetArgType results and of its method's return type exist in the
 * version's numbering. mcz_jit_ee_fits returns the set as a mask (bit i: mcz_jit_ee_at(i));
 * a context that cannot be parsed fits nothing (0). mcz_jit_ee_detect: the one version mc fits,
 * or NULL when none or several do (the packets cannot decide: tools then say so and use the
 * newest). mcz_jit_ee_from_fits: the version of a one-bit mask, else NULL.
 */
MCZ_API uint32_t mcz_jit_ee_fits(const mcz_mc *mc);
MCZ_API const mcz_jit_ee *mcz_jit_ee_detect(const mcz_mc *mc);
MCZ_API const mcz_jit_ee *mcz_jit_ee_from_fits(uint32_t fits);
/* Collection-level detection: start with mcz_jit_ee_fits_all(), mcz_jit_ee_vote each of the
 * first contexts (mask &= its fits, a context fitting nothing is skipped), then
 * mcz_jit_ee_from_fits. Tools vote at most MCZ_JIT_EE_DETECT_CONTEXTS contexts or
 * MCZ_JIT_EE_DETECT_BYTES bytes. */
#define MCZ_JIT_EE_DETECT_CONTEXTS 1000u
#define MCZ_JIT_EE_DETECT_BYTES (64ull << 20)
MCZ_API uint32_t mcz_jit_ee_fits_all(void);
MCZ_API void mcz_jit_ee_vote(uint32_t *fits, const mcz_mc *mc);
/* The vote over an MCH image in memory (the first contexts within the limits above; the scan
 * stops quietly at damage); *fits (optional) gets the mask. NULL when undecided. */
MCZ_API const mcz_jit_ee *mcz_jit_ee_detect_mch(const uint8_t *buf, size_t len, uint32_t *fits);
/* The version of a collection opened with mcz_source_open: the one its archive records, else
 * the vote of its first contexts within the limits above (read quietly: damage stops the vote,
 * it is the caller's to report when it reads them). NULL when undecided. *fits (optional) gets
 * the mask (the recorded version's bit alone when there is one), *voted (optional) how many
 * contexts voted (0 with a recorded version, or when none could be read). */
MCZ_API const mcz_jit_ee *mcz_source_jit_ee(mcz_source *s, uint32_t *fits, uint32_t *voted);

/* ---- Strict check (superpmi/mc_strict.c; superpmi/SUPERPMI.md "Strict checks") ---- */

/* What the strict check found that is not damage by itself: packet ids the table does not
 * know (a collection from another JIT-EE version, or a flipped id). */
typedef struct mcz_strict_report {
    uint32_t unknown_count; /* distinct unknown ids in the context */
    bool unknown[256];      /* which ids */
} mcz_strict_report;

/*
 * mcz_mc_check, then what a reader of JIT-EE version v's packet table (NULL: the newest)
 * relies on, each failure MCZ_ECORRUPT naming
 * the context, the packet and the byte offset in diag:
 * - no packet id appears twice;
 * - every map's pool is a sequence of u32-length-prefixed chunks that fills it exactly;
 * - a known id's items have the table's key and value sizes (the message gives the expected
 *   and the found sizes), and its map kind (LWM1/DWM1) is the table's;
 * - sparse keys are strictly increasing in memcmp order (SuperPMI binary-searches them);
 * - in the value (or key) layouts mcz_agnostic.h describes (CompileMethod, GetMethodInfo,
 *   signatures, names, GetJitFlags, PGO results, ResolveToken, ...), every pool index is -1 or
 *   the start of a chunk, at least as long as the length field beside it says.
 * Unknown ids are only listed in *report (may be NULL); mcz_strict_unknown_fail makes them an
 * error.
 */
MCZ_API int mcz_mc_check_strict(const mcz_jit_ee *v, const mcz_mc *mc,
                                mcz_strict_report *report, mcz_diag *diag);

/* MCZ_OK when the report lists no unknown id; else MCZ_EUNSUPPORTED with diag naming the
 * context and the ids ("unknown(200)"): what --strict makes of them. */
MCZ_API int mcz_strict_unknown_fail(const mcz_mc *mc, const mcz_strict_report *report,
                                    mcz_diag *diag);

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
/* MurmurHash3 x64 128, seed 0. len must be below 4 GiB (every hashed item is u32-sized). */
MCZ_API void mcz_murmur3_128(const void *data, size_t len, mcz_hash128 *out);

/* 32 uppercase hex digits and a NUL. */
MCZ_API void mcz_hash_hex(const mcz_hash128 *h, char out[33]);

/* True when every byte is zero: the "no identity" value mcz stores for contexts lacking the
 * packets the identity needs. */
MCZ_API bool mcz_hash_is_zero(const mcz_hash128 *h);

/*
 * The identity string exactly as SuperPMI's dumpMethodIdentityInfoToBuffer builds it for JIT-EE
 * version v (its CorInfoType numbering names the types; NULL: the newest), two ISA flag words,
 * 64-bit target, with literal CLASS/METHOD names when ignore_method_name is set.
 * Writes at most cap bytes including a NUL into buf (buf may be NULL when cap is 0) and returns
 * the full string length (always < 0x10000; truncated in buf when >= cap). Fails where SuperPMI
 * would throw or crash: MCZ_EMISSING when a packet, key or name the identity needs is absent
 * (diag names it, e.g. "no GetArgType entry for argument 2"), MCZ_ECORRUPT for values that point
 * outside their pool, MCZ_EUNSUPPORTED for a CorInfoType v's numbering has no name for, CORJIT_FLAGS
 * longer than 24 bytes, or a JIT-helper method handle (helper names are per runtime version).
 */
MCZ_API int64_t mcz_mc_identity(const mcz_jit_ee *v, const mcz_mc *mc, bool ignore_method_name,
                                char *buf, size_t cap, mcz_diag *diag);

/* MurmurHash3 of that string: the hash in .mct files (names) and -removeDup (no names). */
MCZ_API int mcz_mc_identity_hash(const mcz_jit_ee *v, const mcz_mc *mc, bool ignore_method_name,
                                 mcz_hash128 *out, mcz_diag *diag);

/*
 * The duplicate key archives store and -removeDup compares: the identity hash (for version v)
 * without the method name, or, for a context whose identity cannot be built, the XXH3-128 of its bytes
 * (canonical byte order), so such contexts are duplicates exactly when their bytes are equal.
 */
MCZ_API void mcz_mc_dedup_key(const mcz_jit_ee *v, const mcz_mc *mc, mcz_hash128 *out);

/* ============================================================================================ */
/* MCT (table of contents) and MCL (context lists)                                               */
/* ============================================================================================ */

typedef struct mcz_toc_entry {
    int64_t offset;   /* file offset of the context's 'm' byte */
    int32_t number;   /* 1-based */
    char hash[33];    /* 32 uppercase hex + NUL; all NUL when the identity could not be built */
} mcz_toc_entry;

#define MCZ_TOC_ELEMENT_SIZE 48u
#define MCZ_TOC_HEADER_SIZE 8u  /* "INDX", u32 count */
#define MCZ_TOC_TRAILER_SIZE 4u /* "INDX" */

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
/* The image's three parts, for a writer that streams the entries (mcs -toc): the header of
 * count entries, one entry (padding zeroed), the closing tag. Their concatenation is
 * mcz_toc_encode's image, byte for byte. */
MCZ_API void mcz_toc_header_encode(uint32_t count, uint8_t out[MCZ_TOC_HEADER_SIZE]);
MCZ_API void mcz_toc_element_encode(const mcz_toc_entry *e, uint8_t out[MCZ_TOC_ELEMENT_SIZE]);
MCZ_API void mcz_toc_trailer_encode(uint8_t out[MCZ_TOC_TRAILER_SIZE]);

/* SuperPMI's paired-file lookup: when path's suffix (from its last '.', which must not be its
 * first character) equals orig_suffix in any case (NULL: any suffix) and path is a regular file,
 * the first regular file of path + new_suffix ("a.mch.mct"), then path without its suffix +
 * new_suffix ("a.mct"). Writes it into buf and returns 1, or returns 0 when there is none
 * (buf empty); MCZ_ELIMIT when cap cannot hold a candidate's name; MCZ_EINVAL on NULL. */
MCZ_API int mcz_paired_find(const char *path, const char *orig_suffix, const char *new_suffix,
                            char *buf, size_t cap);
/* The .mct SuperPMI reads with an .mch: mcz_paired_find(mch_path, ".mch", ".mct", ...). A file
 * not named *.mch has none, whatever lies beside it. */
MCZ_API int mcz_toc_find(const char *mch_path, char *buf, size_t cap);

/* A set of context numbers: sorted, disjoint, inclusive ranges. */
typedef struct mcz_range {
    uint32_t first, last;
} mcz_range;

typedef struct mcz_list {
    mcz_range *ranges;
    size_t count;
} mcz_list;

/* Parses SuperPMI's range syntax ("1-5,9,12-14"; also "-5" = 1-5, empty parts and a trailing
 * ',' as SuperPMI takes them; superpmi/SUPERPMI.md "MCL files and range lists" has every rule):
 * numbers >= 1, strictly increasing, a range a-b needs a < b, at most 2^31-1. Touching numbers
 * merge into one range; free the result with mcz_list_free(). Errors are MCZ_EINVAL with the
 * column in diag (out is left empty). */
MCZ_API int mcz_list_parse_ranges(const char *text, mcz_list *out, mcz_diag *diag);
/* Parses an .mcl image: one decimal number per line with optional white space around it,
 * lines of white space only skipped, LF or CRLF, the last line may lack its newline; numbers
 * >= 1 and strictly increasing. No number at all is the empty list. A sign, any other text on
 * a line, or a number over 2^31-1 is MCZ_EINVAL naming the line, with its offset in diag. */
MCZ_API int mcz_list_parse_mcl(const uint8_t *buf, size_t len, mcz_list *out, mcz_diag *diag);
/* A command-line argument: range syntax, or a name ending in .mcl, read as every input is (a
 * file, a FIFO or device spooled first, an http(s) URL; mcz_input_open); one over
 * MCZ_MCL_MAX_SIZE bytes is MCZ_ELIMIT, whatever it came through, one without numbers MCZ_EINVAL). Parse errors are
 * MCZ_EINVAL with the line or column; messages about a file start with its name. */
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

#ifdef __cplusplus
}
#endif

#endif /* MCZ_SUPERPMI_H */
