/*
 * fuzz_lists.c - the .mct and .mcl parsers and the range syntax on arbitrary bytes. Whatever
 * parses must encode and parse back to the same entries; a mismatch aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcz_superpmi.h"

/* Round trips that would encode more than this many numbers are skipped to keep runs fast. */
#define ROUND_TRIP_MAX_NUMBERS (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void toc_round_trip(const uint8_t *data, size_t size, bool validate)
{
    mcz_toc_entry *e, *back;
    uint32_t n, n_back;
    if (mcz_toc_parse(data, size, validate, &e, &n, NULL) != MCZ_OK)
        return;
    uint8_t *img;
    size_t len;
    if (mcz_toc_encode(e, n, &img, &len) != MCZ_OK)
        abort();
    if (mcz_toc_parse(img, len, validate, &back, &n_back, NULL) != MCZ_OK || n_back != n)
        abort();
    for (uint32_t i = 0; i < n; i++) {
        if (back[i].offset != e[i].offset || back[i].number != e[i].number ||
            memcmp(back[i].hash, e[i].hash, sizeof e[i].hash) != 0)
            abort();
    }
    /* The shape check on hostile entries, against a file as large as the input and the
     * largest there is. */
    mcz_diag d;
    if (mcz_toc_check(e, n, size, &d) != MCZ_OK && d.code != MCZ_ECORRUPT)
        abort();
    if (mcz_toc_check(e, n, UINT64_MAX, &d) != MCZ_OK && d.code != MCZ_ECORRUPT)
        abort();
    free(back);
    free(img);
    free(e);
}

/* Sorted, disjoint, never touching (they would have merged), and contains() agrees. */
static void list_check(const mcz_list *l)
{
    for (size_t i = 0; i < l->count; i++) {
        const mcz_range *r = &l->ranges[i];
        if (r->first == 0 || r->first > r->last || (i > 0 && r->first <= l->ranges[i - 1].last + 1))
            abort();
        if (!mcz_list_contains(l, r->first) || !mcz_list_contains(l, r->last) ||
            mcz_list_contains(l, r->first - 1))
            abort();
    }
}

static void list_round_trip(const mcz_list *l)
{
    list_check(l);
    if (mcz_list_size(l) > ROUND_TRIP_MAX_NUMBERS)
        return;
    char *text;
    size_t len;
    int rc = mcz_list_encode_mcl(l, &text, &len);
    if (rc == MCZ_ELIMIT)
        return;
    if (rc != MCZ_OK)
        abort();
    mcz_list back;
    if (mcz_list_parse_mcl((const uint8_t *)text, len, &back, NULL) != MCZ_OK ||
        back.count != l->count ||
        (l->count && memcmp(back.ranges, l->ranges, l->count * sizeof *l->ranges) != 0))
        abort();
    mcz_list_free(&back);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    toc_round_trip(data, size, false);
    toc_round_trip(data, size, true);
    mcz_list l;
    if (mcz_list_parse_mcl(data, size, &l, NULL) == MCZ_OK) {
        list_round_trip(&l);
        mcz_list_free(&l);
    }
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    (void)mcz_list_is_arg(text);
    if (mcz_list_parse_ranges(text, &l, NULL) == MCZ_OK) {
        list_round_trip(&l);
        mcz_list_free(&l);
    }
    free(text);
    return 0;
}
