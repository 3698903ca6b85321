/*
 * reseal.c - forges an archive whose checksums still agree (tests/cli/test_mcs_forged.sh).
 *
 *   reseal ARCHIVE POS BYTE...
 *
 * Writes the bytes (decimal, 0-255) at file offset POS, then recomputes what covers the index
 * (FORMAT.md §6): the footer's XXH3 of the index frame, when the footer's index offset and size
 * lie inside the file, and the footer's own checksum. Only the checks beyond the checksums can
 * then see the change: a chunk header against its index entry, offsets against the file.
 *
 * Exit codes: 0 done, 1 the file cannot be read or written, 2 usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL /* xxHash compiled in: no library (common/mcz_xxhash.h) */
#include <xxhash.h>

#define FOOTER_SIZE 56u
#define FOOTER_INDEX_OFFSET 16u
#define FOOTER_INDEX_SIZE 24u
#define FOOTER_INDEX_XXH3 32u
#define FOOTER_CHECKED 48u /* the footer's checksum covers bytes 0..48 */

static uint64_t get_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
        buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    *size = (size_t)n;
    return buf;
}

/* The footer's index checksum (when its index lies in the file) and its own checksum. */
static void reseal(uint8_t *file, size_t size)
{
    uint8_t *footer = file + size - FOOTER_SIZE;
    uint64_t off = get_le64(footer + FOOTER_INDEX_OFFSET);
    uint64_t len = get_le64(footer + FOOTER_INDEX_SIZE);
    if (off <= size && len <= size - off)
        put_le(footer + FOOTER_INDEX_XXH3, XXH3_64bits(file + off, (size_t)len), 8);
    put_le(footer + FOOTER_CHECKED, XXH3_64bits(footer, FOOTER_CHECKED) & 0xFFFFFFFFu, 4);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: reseal ARCHIVE POS BYTE...\n");
        return 2;
    }
    size_t size;
    uint8_t *file = read_all(argv[1], &size);
    if (!file || size < FOOTER_SIZE) {
        fprintf(stderr, "reseal: %s: cannot read an archive\n", argv[1]);
        free(file);
        return 1;
    }
    unsigned long long pos = strtoull(argv[2], NULL, 10);
    for (int i = 3; i < argc; i++, pos++) {
        if (pos >= size) {
            fprintf(stderr, "reseal: %s: position %llu past the end\n", argv[1], pos);
            free(file);
            return 2;
        }
        file[pos] = (uint8_t)strtoul(argv[i], NULL, 10);
    }
    reseal(file, size);
    FILE *f = fopen(argv[1], "wb");
    int ok = f && fwrite(file, 1, size, f) == size;
    if (f && fclose(f) != 0)
        ok = 0;
    free(file);
    if (!ok) {
        fprintf(stderr, "reseal: %s: cannot write\n", argv[1]);
        return 1;
    }
    return 0;
}
