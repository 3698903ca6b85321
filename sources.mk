# sources.mk - which sources make what: the one list both builds read, the Makefile (include)
# and CMakeLists.txt (cmake/sources.cmake), so the two never build different code. Each line
# is NAME := words; a word is a file or a pattern (dir/*.c) both expand alike, so a new file in
# a listed directory needs no change here. Nothing else belongs in this file (CMake reads only
# these lines).

# The library, by layer (ARCHITECTURE.md): build/libmcz.a, libmcz.so.
MCZ_LIB_SRC := common/*.c io/*.c superpmi/*.c format/*.c writer/*.c reader/*.c
# The collector (CMake's mcz::writer; libmcz-writer.so, libmcz-writer.dll): the layers below the
# reader, without what reads collections (sources: files, HTTP with its cache and libcurl; the
# .mcl and TOC readers), which no collector reaches.
MCZ_WRITER_SRC := common/*.c io/*.c superpmi/*.c format/*.c writer/*.c
MCZ_WRITER_NOT := io/source.c io/file.c io/source_http.c io/http_cache.c superpmi/mcl.c superpmi/toc.c
# The programs (bin/NAME from MCZ_SRC_NAME), each linked with tools/ and the library.
MCZ_PROGRAMS := mcs mcz-replay mcz-superpmi mchgen
MCZ_SRC_mcs := mcs/*.c
MCZ_SRC_mcz-replay := parallel-replay/*.c
MCZ_SRC_mcz-superpmi := superpmi-dropin/*.c
MCZ_SRC_mchgen := bench/mchgen/*.c
MCZ_TOOL_SRC := tools/*.c
# The unit tests (cmocka): build/tests/test_NAME, one program per file.
MCZ_UNIT_SRC := tests/unit/test_*.c
