#!/usr/bin/env python3
"""damage_mch.py IN OUT NUMBER CASE [ALONE]: copies the MCH file IN to OUT with context NUMBER
damaged as CASE says, in a way only the strict checks see (the framing stays sound). With
ALONE, OUT holds that damaged context only (for the fuzz corpus).

Cases: flip-id (GetJitFlags renamed to a known id of other sizes that the context lacks), unknown-id (a packet the identity does not
read renamed 250), pool-past (CompileMethod's first pool chunk runs past its pool), il-index
(the IL pool index past the pool), il-inside (the IL pool index one byte into its chunk),
name-index (PrintMethodName's buffer index inside a chunk), unsorted-keys, duplicate-keys (the
first two keys of a sparse map of two keys or more, swapped or equal), duplicate-id (the
GetJitFlags packet twice)."""
import struct
import sys

COMPILE_METHOD, GET_JIT_FLAGS, PRINT_METHOD_NAME = 143, 154, 6
# Known ids whose items are not GetJitFlags' 12 bytes: GetArgType (64), GetArgClass (52),
# GetMethodSig (100), CanInline (24), CanCast (20).
FLIP_TARGETS = (140, 139, 76, 9, 5)
IL_OFFSET = 16         # METHOD_INFO ilCode_offset
PR_BUFFER = 4          # Agnostic_PrintResult buffer
# Packets the identity and the dumps read: the renamed one must not be among them.
READ_BY_IDENTITY = {143, 154, 140, 139, 29, 6, 149, 71, 187, 184, 70, 76}
# Sparse packets with known key sizes, for the key cases.
KEY_SIZES = {29: 8, 41: 8, 70: 8, 71: 8, 140: 48, 139: 40, 149: 8}


def contexts(data):
    pos = 0
    while pos < len(data):
        (length,) = struct.unpack_from('<I', data, pos + 2)
        yield pos, length + 8
        pos += length + 8


def packets(ctx):
    """(offset of the id byte, id, offset of the map, map size) for each packet."""
    pos = 6
    end = len(ctx) - 2
    while pos < end:
        pid = ctx[pos]
        (size,) = struct.unpack_from('<I', ctx, pos + 1)
        yield pos, pid, pos + 5, size
        pos += 5 + size + 1


def find(ctx, want):
    for at, pid, m, size in packets(ctx):
        if pid == want:
            return at, m, size
    sys.exit(f'no packet {want} in the context')


def layout(ctx, m, size, item_size=None):
    """count, pool offset, pool length, items offset."""
    count, pool_len = struct.unpack_from('<II', ctx, m + 4)
    items = m + 12
    return count, m + size - pool_len, pool_len, items


def compile_method_value(ctx):
    _, m, size = find(ctx, COMPILE_METHOD)
    count, pool, pool_len, items = layout(ctx, m, size)
    return items + 4, pool, pool_len  # key u32 0, then the value


def damage(ctx, case):
    if case == 'flip-id':
        at, _, _ = find(ctx, GET_JIT_FLAGS)
        present = {pid for _, pid, _, _ in packets(ctx)}
        ctx[at] = next(pid for pid in FLIP_TARGETS if pid not in present)
    elif case == 'unknown-id':
        at = next(a for a, pid, _, _ in packets(ctx) if pid not in READ_BY_IDENTITY)
        ctx[at] = 250
    elif case == 'pool-past':
        _, pool, pool_len = compile_method_value(ctx)
        struct.pack_into('<I', ctx, pool, pool_len)
    elif case == 'il-index':
        value, _, pool_len = compile_method_value(ctx)
        struct.pack_into('<I', ctx, value + IL_OFFSET, pool_len + 100)
    elif case == 'il-inside':
        value, _, _ = compile_method_value(ctx)
        (index,) = struct.unpack_from('<I', ctx, value + IL_OFFSET)
        struct.pack_into('<I', ctx, value + IL_OFFSET, index + 1)
    elif case == 'name-index':
        _, m, size = find(ctx, PRINT_METHOD_NAME)
        count, _, _, items = layout(ctx, m, size)
        value = items + count * 8
        (index,) = struct.unpack_from('<I', ctx, value + PR_BUFFER)
        struct.pack_into('<I', ctx, value + PR_BUFFER, index + 1)
    elif case in ('unsorted-keys', 'duplicate-keys'):
        for _, pid, m, size in packets(ctx):
            k = KEY_SIZES.get(pid)
            if k and ctx[m:m + 4] == b'LWM1' and layout(ctx, m, size)[0] >= 2:
                break
        else:
            sys.exit('no sparse map of two keys or more')
        items = m + 12
        first, second = ctx[items:items + k], ctx[items + k:items + 2 * k]
        ctx[items:items + k] = second
        if case == 'unsorted-keys':
            ctx[items + k:items + 2 * k] = first
    elif case == 'duplicate-id':
        at, _, size = find(ctx, GET_JIT_FLAGS)
        packet = ctx[at:at + size + 6]
        ctx[at:at] = packet
        struct.pack_into('<I', ctx, 2, len(ctx) - 8)
    else:
        sys.exit(f'unknown case {case}')
    return ctx


def main():
    src, dst, number, case = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    alone = len(sys.argv) > 5
    data = open(src, 'rb').read()
    out = bytearray()
    for n, (pos, size) in enumerate(contexts(data), 1):
        ctx = bytearray(data[pos:pos + size])
        if n == number:
            ctx = damage(ctx, case)
        if n == number or not alone:
            out += ctx
    open(dst, 'wb').write(out)


main()
