#!/usr/bin/env python3
"""make_image.py ARCHIVE.mcz IMAGE SEED: a memory image built from an archive's frames.

The archive's header frame, its dictionary frame head and, apart from it, the dictionary bytes
(as a writer keeps them), and its chunks in shuffled order lie at odd offsets among random
bytes; one chunk is there twice (a stale copy), another has a damaged copy beside its good one.
Prints the chunk count. Deterministic for a seed."""
import random
import struct
import sys

MAGIC = 0x184D2A5C


CHUNK_TAGS = (b"MCZC", b"MCZX", b"MCZP", b"MCZQ")  # codec x layout (FORMAT.md §4)


def frames(data):
    """(tag, start, end) of every skippable frame and its zstd/xz data after a chunk header."""
    at, out = 0, []
    while at + 12 <= len(data):
        magic, size = struct.unpack_from("<II", data, at)
        assert magic == MAGIC, "not a frame at %d" % at
        tag = data[at + 8:at + 12]
        end = at + 8 + size
        if tag in CHUNK_TAGS:
            end += struct.unpack_from("<I", data, at + 24)[0]  # S: the data frame's size
        out.append((tag, at, end))
        at = end
    return out


def main():
    archive, image, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    data = open(archive, "rb").read()
    rng = random.Random(seed)
    pieces, chunks = [], []
    for tag, start, end in frames(data):
        if tag == b"MCZH":
            pieces.append(data[start:end])
        elif tag == b"MCZD":
            pieces.append(data[start:start + 32])   # the head, as in the writer's head buffer
            pieces.append(data[start + 32:end])     # the dictionary bytes, elsewhere
        elif tag in CHUNK_TAGS:
            chunks.append(data[start:end])
    assert len(chunks) >= 3, "the archive needs three chunks"
    pieces += chunks
    pieces.append(chunks[1])                        # a stale copy
    bad = bytearray(chunks[2])
    bad[-6] ^= 0x40  # a damaged copy: its header verifies, its data does not
    pieces.append(bytes(bad))
    rng.shuffle(pieces)
    with open(image, "wb") as f:
        for p in pieces:
            f.write(rng.randbytes(1 + rng.randrange(4096)))  # odd offsets
            f.write(p)
        f.write(rng.randbytes(777))
    print(len(chunks))


main()
