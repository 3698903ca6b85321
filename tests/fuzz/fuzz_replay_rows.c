/*
 * fuzz_replay_rows.c - what mcz-replay's parent reads from files others wrote: the details rows
 * a worker leaves in its rows file (a header, then a context's rows), the -details file an
 * --exec unit's command wrote, and a results file given to --merge-results
 * (parallel-replay/replay_row.c, replay_exec_details.c, replay_results.c).
 *
 * The first byte picks the parser (and the details style, its low two bits); the rest is the
 * file. Rows: the header is the text up to the first LF (as the parent takes it, up to a NUL),
 * the rows what follows. Whatever is accepted must be consistent (the same header is the same
 * columns, rows accepted by one reading are accepted by the other, an accepted table is
 * written); a crash, a leak or a mismatch is a finding.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay_int.h"
#include "replay_exec.h"

#define UNIT_CONTEXTS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The merged details written from a table: never fails on what was accepted. */
static void write_details(replay_table *t)
{
    char *text = NULL;
    size_t len = 0;
    mcz_diag d;
    mcz_diag_clear(&d);
    FILE *f = open_memstream(&text, &len);
    if (!f)
        abort();
    if (replay_table_finish(t, &d) != 0 || replay_row_write_csv(t, f, &d) != 0)
        abort();
    fclose(f);
    free(text);
}

/* A worker's rows file: COLUMNS names the header, RESULT the rows (C strings, as the parent
 * reads them back). */
static void rows_file(replay_style style, const char *text, size_t size)
{
    char *copy = strndup(text, size);
    if (!copy)
        abort();
    char *rows = strchr(copy, '\n');
    if (rows)
        *rows++ = '\0';
    replay_table t = {.style = style};
    char why[REPLAY_MESSAGE_MAX];
    if (replay_columns_set(&t.columns, copy, strlen(copy), style, why, sizeof why) != MCZ_OK) {
        if (t.columns.header || !why[0])
            abort();
        free(copy);
        return;
    }
    if (!replay_columns_same(&t.columns, copy, strlen(copy)) || t.columns.count < 2)
        abort();
    if (rows) {
        replay_rows_info info;
        bool miss;
        int kind = replay_rows_scan(&t.columns, style, rows, strlen(rows), &info);
        if (replay_rows_kind(&t.columns, style, rows, strlen(rows), &miss) != kind ||
            (kind >= 0 && miss != info.miss) || kind >= REPLAY_KIND_COUNT)
            abort();
        if (kind > REPLAY_NONE && replay_table_add_row(&t, 1, kind, miss, 0, rows) != MCZ_OK)
            abort();
    }
    if (replay_table_add(&t, 2, REPLAY_CRASH, 0, "lost") != MCZ_OK)
        abort();
    write_details(&t);
    replay_table_free(&t);
    free(copy);
}

/* An --exec unit's -details file, its contexts numbered 1..4 or (global) 3, 5, 7, 9. */
static void exec_details(replay_style style, bool global, const char *text, size_t size)
{
    static const uint32_t numbers[UNIT_CONTEXTS] = {3, 5, 7, 9};
    exec_numbering num = {global, numbers, UNIT_CONTEXTS};
    replay_columns cols = {0};
    char *rows[UNIT_CONTEXTS] = {0};
    char why[REPLAY_MESSAGE_MAX] = "";
    if (exec_details_parse(text, size, &num, style, &cols, rows, why, sizeof why) != MCZ_OK) {
        for (size_t i = 0; i < UNIT_CONTEXTS; i++)
            if (rows[i])
                abort();
        if (cols.header || !why[0])
            abort();
        return;
    }
    replay_table t = {.style = style, .columns = cols};
    for (uint32_t i = 0; i < UNIT_CONTEXTS; i++) {
        bool miss;
        int kind = rows[i] ? replay_rows_kind(&cols, style, rows[i], strlen(rows[i]), &miss) : -1;
        if (rows[i] && kind <= REPLAY_NONE)
            abort(); /* accepted rows say a kind */
        if (rows[i] && replay_table_add_row(&t, i + 1, kind, miss, 0, rows[i]) != MCZ_OK)
            abort();
        free(rows[i]);
    }
    write_details(&t);
    replay_table_free(&t);
}

/* A results file given to --merge-results, read after a first file's results. */
static void results_file(const char *text, size_t size)
{
    replay_table t = {0};
    replay_shard_id id = {0};
    mcz_diag d;
    mcz_diag_clear(&d);
    if (replay_table_parse_results(&t, "fuzz.results", text, size, &id, &d) == MCZ_OK) {
        if (id.k == 0 || id.k > id.n)
            abort();
        if (replay_table_finish(&t, &d) == MCZ_OK) {
            replay_counts c;
            replay_table_count(&t, &c);
            write_details(&t);
        } else if (d.code == MCZ_OK || !d.message[0]) {
            abort(); /* entries refused say why too */
        }
    } else if (d.code == MCZ_OK || !d.message[0]) {
        abort(); /* a refusal says why */
    }
    replay_table_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *text = (const char *)data + 1;
    replay_style style = (replay_style)(data[0] & 3);
    switch ((data[0] >> 2) % 4) {
    case 0:
        rows_file(style, text, size - 1);
        break;
    case 1:
    case 2:
        exec_details(style, (data[0] >> 2) % 4 == 2, text, size - 1);
        break;
    default:
        results_file(text, size - 1);
    }
    return 0;
}
