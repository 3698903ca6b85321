/*
 * layout.h - the packet layout of a chunk (format/FORMAT.md §4a): a reversible rearrangement of
 * a chunk's raw bytes (whole contexts back to back) that the writer compresses instead of the
 * raw bytes. The framing of every context and packet goes first, then each packet id's keys,
 * values and pools, every id's together across the chunk's contexts, so that the compressor
 * sees like next to like. A context whose bytes do not parse as packets is kept verbatim, so
 * every chunk has a packet layout. Internal to the library (writer/, reader/).
 */
#ifndef MCZ_LAYOUT_H
#define MCZ_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "../common/mcz_common.h"

/* Bytes the packet layout of count contexts of raw_size bytes takes at most: the key-size
 * table (4 + 9·256), and 5 bytes of framing per context on top of its bytes (a verbatim one). */
uint64_t mcz_layout_bound(uint64_t raw_size, uint32_t count);

/*
 * Writes the packet layout of raw (count contexts of lengths[i] bytes, back to back) into
 * out[0, cap), cap >= mcz_layout_bound(sum of lengths, count), and its size to *out_len. v
 * gives the key sizes that split a map's items into keys and values (NULL: the newest version);
 * any v gives a layout that decodes, a wrong one only compresses worse. MCZ_EINVAL when cap is
 * too small.
 */
int mcz_layout_encode(const uint8_t *raw, const uint32_t *lengths, uint32_t count,
                      const mcz_jit_ee *v, uint8_t *out, size_t cap, size_t *out_len);

/* True when the context m[0, len) is "mc", its packet-area length len - 8, packets that tile
 * that area exactly, each with its 0x42 canary, and "42": what the layout rebuilds from its
 * framing (any other context is kept verbatim). */
bool mcz_layout_context_parses(const uint8_t *m, uint32_t len);

/*
 * Learns from the chunk's own maps (format/layout_keys.c). key_size (on entry the sizes of v's
 * packet table, 0 where it gives none) is revised: for a sparse id whose maps all hold items of
 * one size, with 4 KiB of items or more in the chunk, the first of the table's size, the item
 * size less the table's value size, and the smallest size, under which the keys of every map
 * rise in memcmp order, as SuperPMI keeps them; others keep the table's size. record_size[id]
 * receives R when every packet of the id is a map of size 12 + n·R + pool (its size implied by
 * its head), else 0. Deterministic.
 */
void mcz_layout_learn(const uint8_t *raw, const uint32_t *lengths, uint32_t count,
                      const mcz_jit_ee *v, uint32_t key_size[256], uint32_t record_size[256]);

/*
 * Decodes the packet layout in[0, in_len) of count contexts into exactly raw_size bytes at out.
 * Every byte of in is hostile: a layout that reads past its end, leaves bytes unread, or
 * decodes to any other size is MCZ_ECORRUPT (diag: the offset inside in, the context's index in
 * the chunk), and nothing beyond out[0, raw_size) is written. The bytes decoded are still to be
 * checked against the chunk's XXH3.
 */
int mcz_layout_decode(const uint8_t *in, size_t in_len, uint32_t count, uint8_t *out,
                      size_t raw_size, mcz_diag *diag);

#endif /* MCZ_LAYOUT_H */
