# sources.mk - which sources make what: the one list both builds read, the Makefile (include)
# and CMakeLists.txt (cmake/sources.cmake), so the two never build different code. Each line
# is NAME := words; a word is a file or a pattern (dir/*.c) both expand alike, so a new file in
# a listed directory needs no change here. Nothing else belongs in this file (CMake reads only
# these lines).

# The library, by layer (ARCHITECTURE.md): build/libmcz.a, libmcz.so. The platform layer
# (platform/) is one set of files per system, which each build picks (the Makefile and
# packaging/windows.mk, CMakeLists.txt): MCZ_PLATFORM_POSIX or MCZ_PLATFORM_WIN32, with
# MCZ_PLATFORM_COMPAT where the C library lacks what the layers above call (Windows; a POSIX
# system without glibc's extensions), and MCZ_PLATFORM_ANY (plain C, every system). The
# programs get it from libmcz.a.
MCZ_PLATFORM_POSIX := platform/*_posix.c
MCZ_PLATFORM_WIN32 := platform/*_win32.c
MCZ_PLATFORM_COMPAT := platform/compat.c
MCZ_PLATFORM_ANY := platform/cmdline.c
MCZ_LIB_SRC := common/*.c io/*.c superpmi/*.c format/*.c writer/*.c reader/*.c
# The collector (CMake's mcz::writer; libmcz-writer.so, libmcz-writer.dll): the layers below the
# reader, without what reads collections (sources: files, HTTP with its cache and libcurl; the
# .mcl and TOC readers), which no collector reaches, nor the platform's files that only the
# programs call (their processes and workers, directories, streams, program files). The
# platform set is the build's.
MCZ_WRITER_SRC := common/*.c io/*.c superpmi/*.c format/*.c writer/*.c
MCZ_WRITER_NOT := io/source.c io/file.c io/source_http.c io/http_cache.c superpmi/mcl.c superpmi/toc.c \
                  platform/sys_posix.c platform/sys_win32.c platform/proc_posix.c \
                  platform/proc_win32.c platform/cmdline.c platform/worker_posix.c \
                  platform/worker_win32.c platform/program_posix.c platform/program_win32.c
# The programs (bin/NAME from MCZ_SRC_NAME), each linked with tools/ and the library.
MCZ_PROGRAMS := mcs mcz-replay mcz-superpmi mchgen
MCZ_SRC_mcs := mcs/*.c
MCZ_SRC_mcz-replay := parallel-replay/*.c
MCZ_SRC_mcz-superpmi := superpmi-dropin/*.c
MCZ_SRC_mchgen := bench/mchgen/*.c
MCZ_TOOL_SRC := tools/*.c
# The unit tests (cmocka): build/tests/test_NAME, one program per file.
MCZ_UNIT_SRC := tests/unit/test_*.c
