# ---- Windows (x86_64): Debian's mingw-w64 cross compiler, the result run under Wine ----
# Included by the Makefile; none of it runs for the other targets.
#   make windows        .ci/deps-windows.sh (mcz's libraries built from Debian's source
#                       packages into build/windows/sysroot, static), the toolchain's probes
#                       (build/windows/tests/windows_probe.exe, windows_cmocka_probe.exe),
#                       then the library, libmcz.dll, the programs (build/windows/bin/*.exe)
#                       and the unit tests; a file that does not compile fails it (make -k:
#                       all the others are built meanwhile)
#   make test-windows   make windows, then tests/cross/run-windows.sh: the probe under Wine,
#                       compared with the same program built here, the unit tests, and the
#                       programs, the DLL and the collector against this machine's build
#   make windows-todo   tests/cross/windows-todo.md: per source file, the POSIX headers,
#                       functions, types and constants that stop it compiling for Windows
# The compiler is the posix threads flavour by name (x86_64-w64-mingw32-gcc-posix), which
# the plain name x86_64-w64-mingw32-gcc may or may not point to (update-alternatives).
WIN_TRIPLET := x86_64-w64-mingw32
WIN_CC      := $(WIN_TRIPLET)-gcc-posix
WIN_BUILD   := build/windows
WIN_SYSROOT := $(WIN_BUILD)/sysroot
# The headers of static libraries on Windows must be told so, or they declare dllimport; and
# stdio is mingw's own C99 one (%zu, %lld, %ju as on Linux), not the system's msvcrt printf.
# 64-bit file offsets (off_t, lseek). No header is forced ahead of any file: the library and the
# programs reach the system through platform/'s mcz_os_* (platform/os_win32.c and the others).
WIN_CPPFLAGS := -DCURL_STATICLIB -DLZMA_API_STATIC -DZIP_STATIC -D__USE_MINGW_ANSI_STDIO=1 \
                -D_FILE_OFFSET_BITS=64
WIN_PKG     := PKG_CONFIG_LIBDIR=$(abspath $(WIN_SYSROOT))/lib/pkgconfig pkg-config --static
# The static libraries and the system libraries they need, from their .pc files (read when a
# rule runs: the sysroot is made by the first one).
WIN_LIBS     = $$($(WIN_PKG) --libs-only-l $(1))

.PHONY: windows windows-deps windows-probe windows-build test-windows windows-todo
WIN_SUBMAKE = $(MAKE) --no-print-directory -k CC=$(WIN_CC) AR=$(WIN_TRIPLET)-ar \
              BUILD=$(WIN_BUILD) BIN=$(WIN_BUILD)/bin WIN_CROSS=1 windows-build
windows: windows-probe
	@$(WIN_SUBMAKE) || { echo "make windows: the files above do not compile for Windows" \
	    "(make windows-todo lists why, per file)" >&2; exit 1; }

windows-probe: windows-deps $(WIN_BUILD)/tests/windows_probe.exe \
               $(WIN_BUILD)/tests/windows_cmocka_probe.exe

# Exit 3: a library's source could not be fetched; the others are there, the build goes on.
windows-deps:
	@bash .ci/deps-windows.sh $(WIN_SYSROOT); rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 3 ]

# The probe links the dependencies alone, so it proves the toolchain, the sysroot and Wine
# whatever state the library's port is in.
$(WIN_BUILD)/tests/windows_probe.exe: tests/cross/windows_probe.c packaging/windows.mk \
                                      | windows-deps
	@mkdir -p $(@D)
	$(WIN_CC) $(WARNINGS) -O2 $(WIN_CPPFLAGS) -isystem $(WIN_SYSROOT)/include -o $@ $< -static \
	    -L$(WIN_SYSROOT)/lib $(call WIN_LIBS,libcurl libzstd liblzma libxxhash) -pthread

# The unit tests' runner, cmocka, ahead of the unit tests.
$(WIN_BUILD)/tests/windows_cmocka_probe.exe: tests/cross/windows_cmocka_probe.c \
                                             packaging/windows.mk | windows-deps
	@mkdir -p $(@D)
	$(WIN_CC) $(WARNINGS) -O2 $(WIN_CPPFLAGS) -isystem $(WIN_SYSROOT)/include -o $@ $< -static \
	    -L$(WIN_SYSROOT)/lib $(call WIN_LIBS,cmocka)

# The same probe for this machine, with Debian's libraries: what the Windows one must print.
$(BUILD)/tests/windows_probe: tests/cross/windows_probe.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(WARNINGS) -O2 -o $@ $< -lcurl -lzstd -llzma -lxxhash -pthread

# What compiles of mcz is built first (its errors to build/windows/make-windows.log, a failure
# expected while the port is under way), so that the unit tests that do build run too.
test-windows: windows-probe $(BUILD)/tests/windows_probe
	@$(WIN_SUBMAKE) >$(WIN_BUILD)/make-windows.log 2>&1 || { \
	    grep -E 'error|Error' $(WIN_BUILD)/make-windows.log | head -20; \
	    echo "test-windows: mcz does not build for Windows ($(WIN_BUILD)/make-windows.log;" \
	         "make windows-todo)" >&2; exit 1; }
	@bash tests/cross/run-windows.sh $(WIN_BUILD) $(BUILD)

windows-todo: windows-deps
	@python3 tests/cross/windows-todo.py $(WIN_CC) $(WIN_SYSROOT) tests/cross/windows-todo.md

# Inside the sub-make of `make windows` (WIN_CROSS=1): what Windows compiles and links with.
# No man pages or benchmarks yet: the library (static, and libmcz.dll below), the programs, the
# unit tests.
ifdef WIN_CROSS
CPPFLAGS += -isystem $(WIN_SYSROOT)/include $(WIN_CPPFLAGS)
LDFLAGS  += -static -L$(WIN_SYSROOT)/lib
LDLIBS   += $(shell $(WIN_PKG) --libs-only-l libcurl libzip 2>/dev/null)
endif
# The unit tests are NAME.exe (what the compiler writes), linked with tools/ as on Linux;
# but test_source, which tests io/source.c's behaviour across fork(): POSIX only (listed with
# its reason by tests/cross/run-windows.sh).
WIN_UNITS := $(filter-out %/test_source.exe,$(addsuffix .exe,$(UNITS)))
$(BUILD)/tests/%.exe: $(BUILD)/obj/tests/unit/%.o $(TOOL_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka
$(BUILD)/tests/test_replay_span.exe: $(BUILD)/obj/parallel-replay/replay_span.o
$(BUILD)/tests/test_replay_options.exe: $(BUILD)/obj/parallel-replay/replay_options.o
$(BUILD)/tests/test_mcs_options.exe: $(BUILD)/obj/tests/unit/test_mcs_options.o $(MCS_PARTS_OBJ) \
                                     $(TOOL_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka
windows-build: $(LIB_A) $(PROGRAMS) $(WIN_UNITS)

# ---- The collector on Windows: tests/collector/windows_collector.c (tests/cross/run-windows.sh
# runs it under Wine and checks what it wrote with this machine's build of the same program and
# mcs). MiniDumpWriteDump is dbghelp's.
$(BUILD)/tests/windows_collector.exe: $(BUILD)/obj/tests/collector/windows_collector.o $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -ldbghelp
windows-build: $(BUILD)/tests/windows_collector.exe
test-windows: $(BUILD)/tests/windows_collector $(BIN)/mcs

# ---- libmcz.dll, its import library, and a program linked against it ----
# build/windows/bin/libmcz.dll exports exactly the functions the public headers declare MCZ_API,
# as libmcz.so does: its objects are the library's compiled again with MCZ_DLL (dllexport on
# MCZ_API; once one symbol is marked, the linker exports the marked ones alone), into
# build/windows/dll-obj/. mcz's dependencies (zstd, liblzma, xxhash, libcurl) are linked in
# statically, with the compiler's runtime: the DLL needs only Windows' own. libmcz.dll.a is
# its import library; tests/cross/windows_dll_probe.c is linked against it (run-windows.sh).
ifdef WIN_CROSS
WIN_DLL_OBJ := $(patsubst %.c,$(BUILD)/dll-obj/%.o,$(LIB_SRC))
$(BUILD)/dll-obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Icommon -DMCZ_DLL -DMCZ_BUILDING_LIBRARY \
	    $(CFLAGS) -c $< -o $@
$(BIN)/libmcz.dll: $(WIN_DLL_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared -static $(LDFLAGS) -o $@ $^ -Wl,--out-implib,$(BIN)/libmcz.dll.a $(LDLIBS)
$(BIN)/libmcz.dll.a: $(BIN)/libmcz.dll
$(BUILD)/tests/windows_dll_probe.exe: tests/cross/windows_dll_probe.c $(BIN)/libmcz.dll.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DMCZ_DLL $(CFLAGS) -o $@ $< $(BIN)/libmcz.dll.a
windows-build: $(BIN)/libmcz.dll $(BUILD)/tests/windows_dll_probe.exe
-include $(shell find $(BUILD)/dll-obj -name '*.d' 2>/dev/null)
endif
# run-windows.sh compares the programs and the DLL with this machine's (tests/cross/
# windows-programs.sh): mcs, mchgen and libmcz.so are built first, and found in MCZ_HOST_BIN.
test-windows: $(BIN)/mcs $(BIN)/mchgen $(LIB_SO)

# ---- mcz-replay.exe (platform/worker_win32.c: workers are the program started again, in job
# objects); plugins are DLLs, loaded with LoadLibrary: no -rdynamic, no -ldl.
ifdef WIN_CROSS
REPLAY_LDFLAGS :=
REPLAY_LDLIBS :=
endif
# run-windows.sh holds mcz-replay.exe against this machine's (tests/cross/windows-replay.sh).
test-windows: $(BIN)/mcz-replay $(BIN)/mcs $(BIN)/mchgen
test-windows: export MCZ_HOST_BIN := $(abspath $(BIN))

# ---- mcz-superpmi.exe (superpmi-dropin/README.md, "Windows"): tests/cross/windows-dropin.sh
# installs it over a Windows build of the superpmi stand-in (tests/collector/spmi_today.c; its
# -p is POSIX only) and holds its runs against this machine's mcz-superpmi and stand-in.
$(BUILD)/tests/spmi_today.exe: $(BUILD)/obj/tests/collector/spmi_today.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^
windows-build: $(BUILD)/tests/spmi_today.exe
test-windows: $(BIN)/mcz-superpmi $(BUILD)/tests/spmi_today

# ---- libmcz-writer.dll: the collector alone, as libmcz-writer.so is on Linux (the Makefile's
# WRITER_OBJ: sources.mk's collector list without xz), its threads Win32's own (platform/threads.h),
# zstd and the compiler's runtime linked in statically: it imports Windows' system DLLs only.
# It exports the collector API alone (a .def file of COLLECTOR_API; the objects mark nothing
# dllexport). libmcz-writer.dll.a is its import library; tests/cmake-host/collect_host.c,
# linked against it, collects under Wine (tests/cross/windows-writer.sh) what the same program
# linked against libmcz-writer.so collects here, byte for byte.
ifdef WIN_CROSS
$(BUILD)/libmcz-writer.def: Makefile packaging/windows.mk
	@mkdir -p $(@D)
	@{ echo EXPORTS; printf '    %s\n' $(COLLECTOR_API); } >$@
$(BIN)/libmcz-writer.dll: $(WRITER_OBJ) $(BUILD)/libmcz-writer.def
	@mkdir -p $(@D)
	$(CC) -shared -static -s -Wl,--gc-sections $(LDFLAGS) -o $@ $(BUILD)/libmcz-writer.def \
	    $(WRITER_OBJ) -Wl,--out-implib,$(BIN)/libmcz-writer.dll.a -lzstd
$(BIN)/libmcz-writer.dll.a: $(BIN)/libmcz-writer.dll
$(BUILD)/tests/collect_host.exe: tests/cmake-host/collect_host.c $(BIN)/libmcz-writer.dll.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BIN)/libmcz-writer.dll.a
windows-build: $(BIN)/libmcz-writer.dll $(BUILD)/tests/collect_host.exe
-include $(shell find $(BUILD)/writer-obj -name '*.d' 2>/dev/null)
endif
# The same host on this machine, linked against libmcz-writer.so.
$(BUILD)/tests/collect_host: tests/cmake-host/collect_host.c $(WRITER_SO_MAJOR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(WRITER_SO) -Wl,-rpath,'$$ORIGIN/..'
test-windows: $(BUILD)/tests/collect_host
