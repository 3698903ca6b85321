/*
 * windows_collector.c - a collector that dies, or has its memory dumped, for the checks of
 * tests/cross/run-windows.sh: built for Windows (run under Wine) and for this machine, so that
 * what the Windows build writes is read by the Linux library and compared with what Linux
 * writes.
 *
 *   windows_collector crash DUMP.mcz EXPECTED.mch
 *       a MEMORY collector with the fatal dump to DUMP.mcz (mcz_writer_dump_on_signal) appends
 *       the test corpus (written to EXPECTED.mch: the contexts back to back), has it compressed
 *       (mcz_writer_flush) and dies of an access violation (POSIX: SIGSEGV)
 *   windows_collector minidump PROCESS.dmp EXPECTED.mch        (Windows only)
 *       the same collector, alive: its process's full-memory minidump (MiniDumpWriteDump with
 *       MiniDumpWithFullMemory) written to PROCESS.dmp, then the writer abandoned
 *   windows_collector recover IN OUT.mcz
 *       mcz_recover_report of IN (an archive, a core, a minidump) into OUT.mcz
 *
 * Exit status: 0 (recover, minidump), the fault's (crash), 1 for bad arguments, 2 for a
 * failure before the end (the reason on standard error).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#include <dbghelp.h>
#endif

#include "../unit/archive_testlib.h"

#define CONTEXTS 150 /* over several chunks of 8 KiB, after a dictionary of 2 KiB */

static void die(const char *what, const mcz_diag *d)
{
    fprintf(stderr, "windows_collector: %s%s%s\n", what, d ? ": " : "", d ? d->message : "");
    exit(2);
}

/* A MEMORY collector holding the corpus, compressed, its expected contexts in expected. */
static mcz_writer *collecting(const char *expected, const char *fatal_dump)
{
    tl_corpus c;
    tl_corpus_make(&c, CONTEXTS, 0);
    tl_save(expected, c.bytes, c.size);
    mcz_writer_options o = MCZ_WRITER_OPTIONS_INIT;
    o.mode = MCZ_WRITE_MEMORY;
    o.level = 1;
    o.chunk_size = 8192;
    o.threads = 1;
    o.train_bytes = 32 << 10;
    o.dict_size = 2048;
    mcz_diag d;
    mcz_writer *w = mcz_writer_open("never-closed.mcz", &o, &d);
    if (!w)
        die("mcz_writer_open", &d);
    if (fatal_dump && mcz_writer_dump_on_signal(w, fatal_dump, 0, true, &d) != MCZ_OK)
        die("mcz_writer_dump_on_signal", &d);
    for (uint32_t i = 0; i < c.n; i++)
        if (mcz_writer_append(w, c.bytes + c.offsets[i], c.sizes[i], NULL) != MCZ_OK)
            die("mcz_writer_append", NULL);
    if (mcz_writer_flush(w) != MCZ_OK)
        die("mcz_writer_flush", NULL);
    tl_corpus_free(&c);
    return w;
}

static int crash(const char *dump, const char *expected)
{
#ifdef _WIN32
    /* No debugger on the fault, as for a service: the process ends with the exception's code.
     * (Wine otherwise starts winedbg, after which the exit status varies from run to run.) The
     * collector's filter runs first either way. */
    SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX);
#endif
    collecting(expected, dump);
    volatile uintptr_t nowhere = 16; /* a store the compiler cannot prove wrong */
    *(volatile int *)nowhere = 1;
    return 2;
}

#ifdef _WIN32
static int minidump(const char *out, const char *expected)
{
    mcz_writer *w = collecting(expected, NULL);
    HANDLE f = CreateFileA(out, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL,
                           NULL);
    if (f == INVALID_HANDLE_VALUE)
        die("cannot create the minidump", NULL);
    BOOL ok = MiniDumpWriteDump(GetCurrentProcess(), GetCurrentProcessId(), f,
                                MiniDumpWithFullMemory, NULL, NULL, NULL);
    CloseHandle(f);
    if (!ok)
        die("MiniDumpWriteDump failed", NULL);
    mcz_writer_abort(w);
    return 0;
}
#endif

static int recover(const char *in, const char *out)
{
    mcz_recovery report;
    mcz_diag d;
    if (mcz_recover_report(in, out, &report, &d) != MCZ_OK)
        die(in, &d);
    printf("recovered %llu contexts in %llu chunks (image: %s)\n",
           (unsigned long long)report.contexts, (unsigned long long)report.chunks,
           report.image ? "yes" : "no");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "crash") == 0)
        return crash(argv[2], argv[3]);
#ifdef _WIN32
    if (argc == 4 && strcmp(argv[1], "minidump") == 0)
        return minidump(argv[2], argv[3]);
#endif
    if (argc == 4 && strcmp(argv[1], "recover") == 0)
        return recover(argv[2], argv[3]);
    fprintf(stderr, "usage: windows_collector crash DUMP.mcz EXPECTED.mch\n"
                    "       windows_collector minidump PROCESS.dmp EXPECTED.mch (Windows)\n"
                    "       windows_collector recover IN OUT.mcz\n");
    return 1;
}
