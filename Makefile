# mcz - one non-recursive Makefile.
#
#   make            library and programs (bin/mcs, bin/mcz-replay, bin/mcz-superpmi, bin/mchgen)
#   make test       unit, CLI and fuzz-regression tests
#   make asan       the same tests under address and undefined-behaviour sanitizers
#   make torture    the crash test on a seed from the clock, longer (printed, to replay)
#   make fuzz       libFuzzer targets (clang) in build/libfuzzer/
#   make demo       the README's end-to-end run on a built-in sample
#   make bench      benchmarks (not tests: they print figures)
#   make collect-sim  a runtime collecting contexts, simulated (bench/COLLECTOR.md)
#   make install  PREFIX=/usr/local DESTDIR= LIBDIR=PREFIX/lib ("Installing", at the end)
#   make XZ=0       without liblzma: xz chunks refused (CMakeLists.txt builds the same sources)
#   make aarch64, make s390x            cross builds in build/<machine>/ ("Other Linux machines")
#   make test-aarch64, make test-s390x  their tests under qemu-user, archives crossed with ours
#
# Sources are found by directory (sources.mk, the list CMakeLists.txt reads too), so a new file
# needs no Makefile change:
#   common/ platform/ io/ superpmi/ format/ writer/ reader/  (the library's layers,
#                            ARCHITECTURE.md; platform/ one system's files, sources.mk)
#                            -> build/libmcz.a, libmcz.so.MAJOR.MINOR.PATCH (public symbols only)
#   mcs/*.c                  -> bin/mcs
#   parallel-replay/*.c      -> bin/mcz-replay
#   superpmi-dropin/*.c      -> bin/mcz-superpmi
#   bench/mchgen/*.c         -> bin/mchgen
#   tools/*.c                -> linked into each program (what they share: tools/tool.h)
#   bench/*.c                -> build/bench/<name> (one program per file)
#   tests/unit/test_*.c      -> build/tests/test_<name> (cmocka, one program per file)
#   tests/fuzz/fuzz_*.c      -> build/fuzz/fuzz_<name> (corpus replay), build/libfuzzer/ (make fuzz)
#                            (one testing program code names what it links: FUZZ_WITH_<name>)
#   tests/cli/test_*.sh      -> run by tests/run-all.sh against $(BIN)

CC      ?= cc
BUILD   ?= build
BIN     ?= bin
OPT     ?= -O2 -g

# A function called without its declaration is an error, WERROR or not: outside platform/ no
# file includes the system's headers (make check-layering), so a POSIX call there fails here.
WARNINGS := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla \
            -Wformat=2 -Wcast-qual -Wpointer-arith -Wundef -Werror=implicit-function-declaration
CPPFLAGS += -D_GNU_SOURCE -Iinclude
CFLAGS   += $(WARNINGS) $(OPT) -MMD -MP -pthread
LDLIBS   += -lzstd -lcurl -lzip -lm -pthread

# XZ=0 builds without liblzma: such a build refuses xz chunks, writing and reading
# (MCZ_EUNSUPPORTED, common/mcz_common.h); zstd archives are the same bytes either way.
XZ ?= 1
ifeq ($(XZ),0)
CPPFLAGS += -DMCZ_NO_XZ
else
LDLIBS   += -llzma
endif

ifdef WERROR
CFLAGS += -Werror
endif
ifdef SAN
SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CFLAGS  += $(SANITIZE)
LDFLAGS += $(SANITIZE)
endif

# The sources of the library, the collector, the programs and the unit tests: sources.mk, which
# CMakeLists.txt reads too.
include sources.mk
# A POSIX system without glibc's extensions (make test-posix, below, says which).
ifeq ($(shell uname -s),Darwin)
POSIX_COMPAT := 1
endif
# The platform layer's files of the system built for (sources.mk): Windows' in the sub-make of
# packaging/windows.mk (WIN_CROSS), POSIX's otherwise; each file holds one system's code.
ifdef WIN_CROSS
PLATFORM_SRC := $(wildcard $(MCZ_PLATFORM_WIN32) $(MCZ_PLATFORM_COMPAT) $(MCZ_PLATFORM_ANY))
else
PLATFORM_SRC := $(wildcard $(MCZ_PLATFORM_POSIX) $(if $(POSIX_COMPAT),$(MCZ_PLATFORM_COMPAT)) \
                           $(MCZ_PLATFORM_ANY))
endif
LIB_LAYERS := common platform io superpmi format writer reader
LIB_SRC    := $(wildcard $(MCZ_LIB_SRC)) $(PLATFORM_SRC)
MCS_SRC    := $(wildcard $(MCZ_SRC_mcs))
REPLAY_SRC := $(wildcard $(MCZ_SRC_mcz-replay))
DROPIN_SRC := $(wildcard $(MCZ_SRC_mcz-superpmi))
MCHGEN_SRC := $(wildcard $(MCZ_SRC_mchgen))
TOOL_SRC   := $(wildcard $(MCZ_TOOL_SRC))
BENCH_SRC  := $(wildcard bench/*.c)
UNIT_SRC   := $(wildcard $(MCZ_UNIT_SRC))
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz_*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIB_OBJ := $(call obj,$(LIB_SRC))
TOOL_OBJ := $(call obj,$(TOOL_SRC))
LIB_A   := $(BUILD)/libmcz.a
LIB_SO  := $(BUILD)/libmcz.so

PROGRAMS := $(if $(MCS_SRC),$(BIN)/mcs) $(if $(REPLAY_SRC),$(BIN)/mcz-replay) \
            $(if $(DROPIN_SRC),$(BIN)/mcz-superpmi) $(if $(MCHGEN_SRC),$(BIN)/mchgen)
BENCHES  := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
UNITS    := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
FUZZERS  := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
DEPS_OK  := $(BUILD)/.deps-ok

.PHONY: all test asan fuzz demo bench clean deps
.DEFAULT_GOAL := all

all: $(LIB_A) $(LIB_SO) $(PROGRAMS) $(BENCHES)

# Packages a fresh Debian 12 machine lacks are installed by `make deps` (and by the README's
# two commands, make test and make demo, which run it first); a plain build only checks, and
# says the exact command when something is missing.
DEPS_MODE := $(if $(filter test demo asan fuzz deps,$(MAKECMDGOALS)),,--check)
deps: $(DEPS_OK)
$(DEPS_OK): .ci/deps.sh
	@bash .ci/deps.sh $(DEPS_MODE)
	@mkdir -p $(@D) && touch $@

# Library objects export only the public API (MCZ_API) from the shared library.
# Library objects also see the internal base header (common/); everything else sees include/ only,
# and a test that needs an internal names its path. Each function has a section of its own, so
# that libmcz-writer.so, which links most of these objects, drops the ones it never reaches.
$(LIB_OBJ): CFLAGS += -fPIC -fvisibility=hidden -DMCZ_BUILDING_LIBRARY \
                      -ffunction-sections -fdata-sections
$(LIB_OBJ): CPPFLAGS += -Icommon
# Tests and fuzz targets that include a layer's internal header get the base header it includes.
$(BUILD)/obj/tests/%.o: CPPFLAGS += -Icommon -Iplatform
# Test programs (unit tests, fuzz replayers, collector harnesses) are compiled with TEST_OPT:
# -Og compiles in a third of -O2's time and keeps the flow analysis -Wmaybe-uninitialized needs;
# their work is the library's, which keeps OPT. An OPT given on the command line (make asan's)
# applies to them too.
TEST_OPT ?= -Og -g
$(BUILD)/obj/tests/%.o: OPT = $(TEST_OPT)

$(BUILD)/obj/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

# The programs share tools/ (tool.h): files, signals; and call the platform layer
# (platform/platform.h), whose objects they take from libmcz.a.
$(call obj,$(MCS_SRC) $(REPLAY_SRC) $(DROPIN_SRC) $(MCHGEN_SRC) $(TOOL_SRC)): \
    CPPFLAGS += -Itools -Iplatform

$(BIN)/mcs: $(call obj,$(MCS_SRC)) $(TOOL_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Plugins are loaded with dlopen (platform/program_posix.c) and see the program's symbols
# (-rdynamic); Windows' LoadLibrary needs neither (packaging/windows.mk empties both).
REPLAY_LDFLAGS ?= -rdynamic
REPLAY_LDLIBS ?= -ldl
$(BIN)/mcz-replay: $(call obj,$(REPLAY_SRC)) $(TOOL_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(REPLAY_LDFLAGS) -o $@ $^ $(LDLIBS) $(REPLAY_LDLIBS)

$(BIN)/mcz-superpmi: $(call obj,$(DROPIN_SRC)) $(TOOL_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BIN)/mchgen: $(call obj,$(MCHGEN_SRC)) $(TOOL_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(TOOL_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

# A unit test of program code links the program objects it tests.
$(BUILD)/tests/test_replay_span: $(BUILD)/obj/parallel-replay/replay_span.o
$(BUILD)/obj/tests/unit/test_replay_span.o: CPPFLAGS += -Itools -Iplatform -Iparallel-replay
$(BUILD)/tests/test_replay_options: $(BUILD)/obj/parallel-replay/replay_options.o
$(BUILD)/obj/tests/unit/test_replay_options.o: CPPFLAGS += -Itools -Iplatform -Iparallel-replay
$(BUILD)/obj/tests/unit/test_tool_options.o: CPPFLAGS += -Itools -Iplatform
# mcs's option tables: all of mcs but its main(), before the library it calls
MCS_PARTS_OBJ := $(filter-out %/mcs/mcs.o,$(call obj,$(MCS_SRC)))
$(BUILD)/tests/test_mcs_options: $(BUILD)/obj/tests/unit/test_mcs_options.o $(MCS_PARTS_OBJ) \
                                 $(TOOL_OBJ) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka
$(BUILD)/obj/tests/unit/test_mcs_options.o: CPPFLAGS += -Itools -Iplatform -Imcs

# Fuzz targets replay their corpus through a plain main() under gcc and the sanitizers.
# A target of program code names the program sources it links besides the library:
# FUZZ_WITH_<name> for tests/fuzz/fuzz_<name>.c.
FUZZ_REPLAY_ROWS := $(addprefix parallel-replay/,replay_row.c replay_util.c replay_results.c \
                      replay_table.c replay_exec_details.c replay_progress.c)
FUZZ_WITH_csv          := tools/tool_csv.c
FUZZ_WITH_replay_ring  := $(addprefix parallel-replay/,replay_ring.c replay_record.c replay_util.c) \
                          $(TOOL_SRC)
FUZZ_WITH_replay_rows  := $(FUZZ_REPLAY_ROWS) $(TOOL_SRC)
fuzz_with = $(FUZZ_WITH_$(patsubst fuzz_%,%,$(basename $(notdir $(1)))))
$(call obj,$(FUZZ_SRC)): CPPFLAGS += -Itools -Iplatform -Iparallel-replay
$(BUILD)/fuzz/%: $(BUILD)/obj/tests/fuzz/%.o $(BUILD)/obj/tests/fuzz/replay_main.o $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(filter-out $(LIB_A),$^) $(LIB_A) $(LDLIBS)
$(foreach f,$(FUZZERS),$(eval $(f): $(call obj,$(call fuzz_with,$(f)))))

# ---- Collecting inside a runtime (bench/COLLECTOR.md) ----
# tests/collector/*.c -> build/tests/<name> (programs the CLI tests drive, e.g. crash_harness).
COLLECTOR_SRC := $(wildcard tests/collector/*.c)
COLLECTOR     := $(patsubst tests/collector/%.c,$(BUILD)/tests/%,$(COLLECTOR_SRC))
WRITER_SRC    := $(filter-out $(MCZ_WRITER_NOT),$(wildcard $(MCZ_WRITER_SRC)) $(PLATFORM_SRC))
# The collector is built without xz: the sources whose code depends on it (MCZ_HAVE_XZ,
# common/mcz_common.h) are compiled again for it, into writer-obj/; it shares the library's
# objects of all the others, compiled with the same flags (an xz call left in one would fail
# the link below: -z defs, no liblzma). A build without xz (XZ=0) shares them all.
WRITER_XZ_SRC := $(if $(filter -DMCZ_NO_XZ,$(CPPFLAGS)),,\
                   $(shell grep -l 'MCZ_HAVE_XZ\|MCZ_NO_XZ' $(WRITER_SRC)))
WRITER_OBJ    := $(patsubst %.c,$(BUILD)/writer-obj/%.o,$(WRITER_XZ_SRC)) \
                 $(call obj,$(filter-out $(WRITER_XZ_SRC),$(WRITER_SRC)))
WRITER_SO     := $(BUILD)/libmcz-writer.so
LIB_SO_STRIP  := $(BUILD)/libmcz-stripped.so

$(COLLECTOR): $(BUILD)/tests/%: $(BUILD)/obj/tests/collector/%.o $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# What a runtime links to collect: the collector API below, exported alone, built as a
# collector is (sources.mk's MCZ_WRITER_SRC, without xz: zstd and the C library are all it
# needs, readelf -d), each function in its own section so the unreached ones are dropped,
# stripped. -z defs proves nothing is missing (not under the sanitizers, whose runtime a
# shared object leaves open).
COLLECTOR_API := mcz_writer_open mcz_writer_append mcz_writer_flush mcz_writer_dump \
                 mcz_writer_dump_on_signal mcz_writer_get_stats mcz_writer_close \
                 mcz_writer_abort mcz_writer_diag mcz_error_name mcz_diag_clear mcz_diag_format
WRITER_MAP    := $(BUILD)/libmcz-writer.map
WRITER_CFLAGS := -DMCZ_NO_XZ -DMCZ_BUILDING_LIBRARY -Icommon -fPIC -fvisibility=hidden \
                 -ffunction-sections -fdata-sections
WRITER_LDLIBS ?= -lzstd -pthread

$(WRITER_MAP): Makefile
	@mkdir -p $(@D)
	@printf '{ global: %s local: *; };\n' "$(foreach f,$(COLLECTOR_API),$(f);)" >$@

$(BUILD)/writer-obj/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(WRITER_CFLAGS) $(CFLAGS) -c $< -o $@

$(WRITER_SO): $(WRITER_OBJ) $(WRITER_MAP)
	$(CC) -shared -s -Wl,--gc-sections -Wl,--version-script=$(WRITER_MAP) \
	    $(if $(SAN),,-Wl,-z,defs) $(LDFLAGS) -o $@ $(WRITER_OBJ) $(WRITER_LDLIBS)

$(LIB_SO_STRIP): $(LIB_SO)
	strip -o $@ $<

# The size line is said when the libraries are built again, not by a make that does nothing;
# $(WRITER_SIZE) keeps it (make writer-size prints it).
WRITER_SIZE := $(BUILD)/libmcz-writer.size
$(WRITER_SIZE): $(WRITER_SO) $(LIB_SO_STRIP)
	@echo "libmcz-writer.so (stripped): $$(( ($$(stat -c %s $(WRITER_SO)) + 512) / 1024 )) KB" \
	      "(the collector API, with the shared libzstd; all of libmcz.so stripped:" \
	      "$$(( ($$(stat -c %s $(LIB_SO_STRIP)) + 512) / 1024 )) KB)" | tee $@

.PHONY: writer-size
writer-size: $(WRITER_SIZE)
	@cat $(WRITER_SIZE)

all: $(WRITER_SIZE)
test-build: $(COLLECTOR)

.PHONY: collect-sim
collect-sim: all
	@bash bench/collect-sim.sh $(BIN) $(BUILD)

# Test objects are kept between runs (they are intermediate files of pattern rules).
.SECONDARY:

# make test builds what the tests run (test-build) on every core, as make demo does (a plain
# make builds one file at a time; a make -jN keeps its N), then runs them.
TEST_BUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(DEMO_JOBS))
.PHONY: test-build
test-build: all $(UNITS) $(FUZZERS)
test: | $(DEPS_OK)
	@$(MAKE) --no-print-directory $(TEST_BUILD_JOBS) test-build
	@BUILD=$(BUILD) BIN=$(BIN) bash tests/run-all.sh

# The scripts that build mcz again in another configuration (tests/run-all.sh "The tiers"):
# CMake inside a host project and a build without liblzma; CI runs them after make test.
.PHONY: test-builds
test-builds: all
	@BUILD=$(BUILD) BIN=$(BIN) MCZ_TEST_KINDS=cli MCZ_TEST_TIER=builds bash tests/run-all.sh

# The core dumps of tests/cli/test_recover_image.sh come from the plain harness: a sanitized
# process's core spans terabytes of reserved address space (gcore wrote 6.6 TB, 23 GB of it on
# disk, in 53 s). mcs, which reads the dumps, is the sanitized one.
asan: $(BUILD)/tests/crash_harness
	MCZ_DUMP_HARNESS=$(abspath $(BUILD))/tests/crash_harness \
	    $(MAKE) BUILD=build/asan BIN=build/asan/bin SAN=1 OPT="-O1 -g" test

# The crash test on a new seed from the clock, with more runs (make test keeps its fixed seed).
# It prints the seed first: COLLECTOR_SEED=N make torture replays a failure.
.PHONY: torture
torture: all $(COLLECTOR)
	@BUILD=$(BUILD) BIN=$(BIN) COLLECTOR_SEED=$${COLLECTOR_SEED:-clock} \
	    COLLECTOR_KILLS=$${COLLECTOR_KILLS:-40} COLLECTOR_SEGVS=$${COLLECTOR_SEGVS:-20} \
	    COLLECTOR_CUTS=$${COLLECTOR_CUTS:-15} COLLECTOR_STREAMS=$${COLLECTOR_STREAMS:-20} \
	    bash tests/cli/test_collector_crash.sh
	@BUILD=$(BUILD) BIN=$(BIN) COLLECTOR_SEED=$${COLLECTOR_SEED:-clock} \
	    IMAGE_DUMPS=$${IMAGE_DUMPS:-12} bash tests/cli/test_recover_image.sh

FUZZ_CC ?= clang
fuzz: | deps
	@mkdir -p $(BUILD)/libfuzzer
	@$(foreach f,$(FUZZ_SRC),echo "  FUZZ $(basename $(notdir $(f)))" && \
	    $(FUZZ_CC) $(CPPFLAGS) -Icommon -Itools -Iplatform -Iparallel-replay -std=c11 -g -O1 \
	        -fsanitize=fuzzer,address,undefined -o $(BUILD)/libfuzzer/$(basename $(notdir $(f))) \
	        $(f) $(call fuzz_with,$(f)) $(LIB_SRC) $(LDLIBS) &&) true
	@echo "run: $(BUILD)/libfuzzer/fuzz_<name> tests/fuzz/corpus/<name>/"

# make demo builds on every core (a plain make builds one file at a time), then runs.
DEMO_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
demo: | $(DEPS_OK)
	@$(MAKE) --no-print-directory -j$(DEMO_JOBS) all
	@bash tests/demo.sh $(BIN)

bench: all
	@bash bench/run.sh $(BIN) $(BUILD)

clean:
	rm -rf build bin

-include $(shell find $(BUILD)/obj $(BUILD)/writer-obj -name '*.d' 2>/dev/null)

# ---- The public boundary, checked on the built objects (tests/layering/check-layering.sh) ----
.PHONY: check-layering
check-layering: all
	@bash tests/layering/check-layering.sh $(BUILD)

# ---- Installing ----
# What an embedder gets (README.md "Embedding and installing"):
#   $(BUILD)/libmcz.so.MAJOR.MINOR.PATCH  SONAME libmcz.so.MAJOR; exports exactly the functions
#                                         the public headers declare MCZ_API (libmcz.map, made
#                                         from them); libmcz.so.MAJOR and libmcz.so link to it
#   $(BUILD)/libmcz-writer.so             SONAME libmcz-writer.so.MAJOR (the collector API)
#   $(BUILD)/man/*.1                      the programs' --help as man pages (help2man)
#   make install    into DESTDIR + PREFIX (default /usr/local); LIBDIR, BINDIR, INCLUDEDIR,
#                   MANDIR, PKGCONFIGDIR, CMAKEDIR and PYTHONDIR override single places;
#                   the last lines say where the Python module went and, when $(PYTHON) does
#                   not look there, the PYTHONPATH to use. Builds nothing that `make test`
#                   has not built (prerequisites: installable).
#   make uninstall  removes exactly the files install puts there, with the same variables.
# The version lives in the header alone (MCZ_VERSION_MAJOR/MINOR/PATCH).
PUBLIC_HEADERS ?= $(or $(wildcard include/*.h),format/mcz.h)

mcz_version_part = $(shell sed -n 's/^.define MCZ_VERSION_$(1)  *\([0-9][0-9]*\).*/\1/p' \
                       $(PUBLIC_HEADERS))
VERSION_MAJOR := $(call mcz_version_part,MAJOR)
VERSION_MINOR := $(call mcz_version_part,MINOR)
VERSION_PATCH := $(call mcz_version_part,PATCH)
ifneq ($(words $(VERSION_MAJOR) $(VERSION_MINOR) $(VERSION_PATCH)),3)
$(error no single MCZ_VERSION_MAJOR/MINOR/PATCH in $(PUBLIC_HEADERS))
endif
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)

LIB_SONAME      := libmcz.so.$(VERSION_MAJOR)
LIB_SO_REAL     := $(BUILD)/libmcz.so.$(VERSION)
LIB_SO_MAJOR    := $(BUILD)/$(LIB_SONAME)
LIB_MAP         := $(BUILD)/libmcz.map
WRITER_SONAME   := libmcz-writer.so.$(VERSION_MAJOR)
WRITER_SO_MAJOR := $(BUILD)/$(WRITER_SONAME)

all: $(LIB_SO_MAJOR) $(WRITER_SO_MAJOR)

# Every "MCZ_API ... name(" of the public headers, and nothing else.
$(LIB_MAP): $(PUBLIC_HEADERS) Makefile
	@mkdir -p $(@D)
	@sed -n 's/^[[:space:]]*MCZ_API[^(]*[^A-Za-z0-9_(]\([A-Za-z_][A-Za-z0-9_]*\)(.*/    \1;/p' \
	    $(PUBLIC_HEADERS) | sort -u >$@.names
	@test -s $@.names || { echo "no MCZ_API function in $(PUBLIC_HEADERS)" >&2; exit 1; }
	@{ echo '{ global:'; cat $@.names; echo '  local: *; };'; } >$@ && rm -f $@.names

$(LIB_SO_REAL): $(LIB_OBJ) $(LIB_MAP)
	$(CC) -shared -Wl,-soname,$(LIB_SONAME) -Wl,--version-script=$(LIB_MAP) \
	    $(if $(SAN),,-Wl,-z,defs) $(LDFLAGS) -o $@ $(LIB_OBJ) $(LDLIBS)

$(LIB_SO_MAJOR) $(LIB_SO): $(LIB_SO_REAL)
	ln -sf $(notdir $<) $@

$(WRITER_SO): LDFLAGS += -Wl,-soname,$(WRITER_SONAME)

$(WRITER_SO_MAJOR): $(WRITER_SO)
	ln -sf $(notdir $<) $@

# help2man reads --help, stderr too, and takes its text whatever the exit status (a tool whose
# --help exits non-zero, as a usage message may, still gets its page); a --help that dies by a
# signal fails here instead of becoming the page. The version is the header's; the date is the
# last commit's (SOURCE_DATE_EPOCH, which help2man honours), so a rebuild gives the same page.
MAN_PAGES := $(patsubst $(BIN)/%,$(BUILD)/man/%.1,$(PROGRAMS))
man_name_mcs        := read, write and convert SuperPMI collections (.mch files, .mcz archives)
man_name_mcz-replay := replay the method contexts of a SuperPMI collection in worker processes
man_name_mcz-superpmi := superpmi drop-in that replays mcz archives through mcz-replay
man_name_mchgen     := generate synthetic SuperPMI collections for tests and benchmarks

# mcs's page also has a section per verb, each verb's `mcs --help VERB` collected by
# packaging/mcs-man-verbs.sh (help2man --include), so every option of every verb is on it.
man_include_mcs := $(BUILD)/man/mcs-verbs.h2m

$(BUILD)/man/mcs-verbs.h2m: $(BIN)/mcs packaging/mcs-man-verbs.sh | $(DEPS_OK)
	@mkdir -p $(@D)
	sh packaging/mcs-man-verbs.sh $< >$@.tmp && mv $@.tmp $@

$(BUILD)/man/mcs.1: $(BUILD)/man/mcs-verbs.h2m

$(BUILD)/man/%.1: $(BIN)/% | $(DEPS_OK)
	@mkdir -p $(@D)
	@$< --help >/dev/null 2>&1; rc=$$?; \
	    [ $$rc -lt 128 ] || { echo "$<: --help died (exit $$rc)" >&2; exit 1; }
	SOURCE_DATE_EPOCH=$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || date +%s)} \
	help2man --no-discard-stderr -N --version-string=$(VERSION) --section=1 \
	    $(if $(man_name_$*),--name='$(man_name_$*)') \
	    $(if $(man_include_$*),--include=$(man_include_$*)) --output=$@.tmp $< && mv $@.tmp $@

.PHONY: man installable install uninstall
man: $(MAN_PAGES)

PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
MANDIR       ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR     ?= $(LIBDIR)/cmake/mcz
PYTHONDIR    ?= $(PREFIX)/lib/python3/dist-packages
INSTALL      ?= install

PACKAGING := packaging/mcz.pc.in packaging/mcz-writer.pc.in packaging/mczConfig.cmake.in \
             packaging/mczConfigVersion.cmake.in python/mcz/__init__.py
INSTALLED_LIBS := libmcz.a libmcz.so.$(VERSION) $(LIB_SONAME) libmcz.so \
                  libmcz-writer.so.$(VERSION) $(WRITER_SONAME) libmcz-writer.so
INSTALLED := $(addprefix $(BINDIR)/,$(notdir $(PROGRAMS))) \
             $(addprefix $(LIBDIR)/,$(INSTALLED_LIBS)) \
             $(addprefix $(INCLUDEDIR)/,$(notdir $(PUBLIC_HEADERS))) \
             $(PKGCONFIGDIR)/mcz.pc $(PKGCONFIGDIR)/mcz-writer.pc \
             $(CMAKEDIR)/mczConfig.cmake $(CMAKEDIR)/mczConfigVersion.cmake \
             $(addprefix $(MANDIR)/man1/,$(notdir $(MAN_PAGES))) $(PYTHONDIR)/mcz/__init__.py

# The Python module finds the library by LIBDIR relative to its own directory first (a staged
# or moved tree uses its own library), then by LIBDIR itself.
PYTHON_TO_LIBDIR = $(shell realpath -m --relative-to='$(PYTHONDIR)/mcz' '$(LIBDIR)')

# The last lines of `make install`: where the Python module went, and whether $(PYTHON) looks
# there (Debian's python3 looks in /usr/local/lib/python3/dist-packages and
# /usr/lib/python3/dist-packages, the default PYTHONDIR of PREFIX=/usr/local and /usr); when
# it does not, or the tree is staged (DESTDIR), the PYTHONPATH that imports it.
PYTHON ?= python3
PYTHON_ON_PATH = import os, sys; sys.exit(os.path.realpath(sys.argv[1]) not in \
                 [os.path.realpath(p) for p in sys.path if p])
define PYTHON_NOTE
dir='$(DESTDIR)$(PYTHONDIR)'; \
if [ -z '$(DESTDIR)' ] && $(PYTHON) -c '$(PYTHON_ON_PATH)' "$$dir" 2>/dev/null; then \
    echo "Python module: $$dir/mcz ($(PYTHON) looks there: import mcz works)"; \
else \
    echo "Python module: $$dir/mcz ($(PYTHON) does not look there); to import it:"; \
    echo "    export PYTHONPATH=$$dir"; \
fi
endef

# The templates' @NAMES@; a .pc file names its directories under ${prefix} when they are.
pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
SUBST  = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
             -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@PC_LIBDIR@|$(call pc_dir,$(LIBDIR))|g' \
             -e 's|@PC_INCLUDEDIR@|$(call pc_dir,$(INCLUDEDIR))|g' \
             -e 's|@VERSION@|$(VERSION)|g' -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|g' \
             -e 's|@LIB_SONAME@|$(LIB_SONAME)|g' -e 's|@WRITER_SONAME@|$(WRITER_SONAME)|g'

installable: $(PROGRAMS) $(LIB_A) $(LIB_SO_REAL) $(WRITER_SO) $(MAN_PAGES) $(PUBLIC_HEADERS) \
             $(PACKAGING)
test-build: installable

install: installable
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	    $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(PYTHONDIR)/mcz
	$(INSTALL) -m 755 $(PROGRAMS) $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libmcz.a
	$(INSTALL) -m 755 $(LIB_SO_REAL) $(DESTDIR)$(LIBDIR)/libmcz.so.$(VERSION)
	$(INSTALL) -m 755 $(WRITER_SO) $(DESTDIR)$(LIBDIR)/libmcz-writer.so.$(VERSION)
	ln -sf libmcz.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf libmcz.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libmcz.so
	ln -sf libmcz-writer.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(WRITER_SONAME)
	ln -sf libmcz-writer.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libmcz-writer.so
	$(INSTALL) -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	$(INSTALL) -m 644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/
	$(SUBST) packaging/mcz.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/mcz.pc
	$(SUBST) packaging/mcz-writer.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/mcz-writer.pc
	$(SUBST) packaging/mczConfig.cmake.in >$(DESTDIR)$(CMAKEDIR)/mczConfig.cmake
	$(SUBST) packaging/mczConfigVersion.cmake.in >$(DESTDIR)$(CMAKEDIR)/mczConfigVersion.cmake
	sed -e 's|^_INSTALLED_LIBDIR = None$$|_INSTALLED_LIBDIR = "$(LIBDIR)"|' \
	    -e "s|^_LIBDIR_FROM_HERE = None\$$|_LIBDIR_FROM_HERE = \"$(PYTHON_TO_LIBDIR)\"|" \
	    python/mcz/__init__.py >$(DESTDIR)$(PYTHONDIR)/mcz/__init__.py
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/mcz.pc $(DESTDIR)$(PKGCONFIGDIR)/mcz-writer.pc \
	    $(DESTDIR)$(CMAKEDIR)/mczConfig.cmake $(DESTDIR)$(CMAKEDIR)/mczConfigVersion.cmake \
	    $(DESTDIR)$(PYTHONDIR)/mcz/__init__.py
	@$(PYTHON_NOTE)

# The bytecode Python writes beside the module once it is imported goes too, and the two
# directories that are mcz's own when they are left empty.
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rm -f $(DESTDIR)$(PYTHONDIR)/mcz/__pycache__/__init__.*.pyc
	@for d in $(DESTDIR)$(PYTHONDIR)/mcz/__pycache__ $(DESTDIR)$(PYTHONDIR)/mcz \
	          $(DESTDIR)$(CMAKEDIR); do \
	    if [ -d "$$d" ]; then rmdir "$$d" 2>/dev/null || true; fi; done

# ---- Other Linux machines: Debian's cross compilers, the tests under qemu-user ----
#   make aarch64 | s390x            build/<machine>/bin/ (mcs, mcz-replay, mchgen), the unit tests
#                                   (build/<machine>/tests/) and corpus replayers (build/<machine>/fuzz/)
#   make test-aarch64 | test-s390x  tests/cross/run.sh: those under qemu-user, archives written
#                                   here read there and the other way, compared byte for byte, and
#                                   the archive's CLI tests with that machine's programs
#                                   (CROSS_CLI=all: every CLI test that can run under qemu-user)
# .ci/deps-cross.sh installs the compiler, qemu-user and the libraries of the machine: multiarch
# packages, or Debian's packages unpacked in build/<machine>/sysroot when they cannot be
# installed beside this machine's own (the sub-make below adds that directory to the paths).
CROSS_MACHINES := aarch64 s390x
CROSS_SYSROOT  ?=
ifneq ($(wildcard $(CROSS_SYSROOT)/.complete),)
CROSS_TRIPLET := $(patsubst %-gcc,%,$(notdir $(CC)))
CPPFLAGS += -isystem $(CROSS_SYSROOT)/usr/include -isystem $(CROSS_SYSROOT)/usr/include/$(CROSS_TRIPLET)
LDFLAGS  += $(foreach d,usr/lib lib,-L$(CROSS_SYSROOT)/$(d)/$(CROSS_TRIPLET) \
              -Wl,-rpath-link,$(CROSS_SYSROOT)/$(d)/$(CROSS_TRIPLET))
endif

.PHONY: $(CROSS_MACHINES) $(addprefix test-,$(CROSS_MACHINES)) cross-programs
$(CROSS_MACHINES):
	@bash .ci/deps-cross.sh $@ build/$@/sysroot
	@$(MAKE) --no-print-directory CC=$@-linux-gnu-gcc AR=$@-linux-gnu-ar BUILD=build/$@ \
	    BIN=build/$@/bin CROSS_SYSROOT=build/$@/sysroot cross-programs

# What runs on the other machine: no benchmarks, no man pages (help2man would run the programs).
cross-programs: $(LIB_A) $(LIB_SO_MAJOR) $(PROGRAMS) $(UNITS) $(FUZZERS)

$(addprefix test-,$(CROSS_MACHINES)): test-%: % all $(COLLECTOR)
	@bash tests/cross/run.sh $* build/$* $(BIN) $(BUILD)
# ---- POSIX systems without glibc's extensions (macOS, the BSDs: not tested here) ----
#   make test-posix   the library as such a system builds it, in build/posix/: the layers above
#                     io/ in C11 and POSIX.1-2008 with XSI only (no _GNU_SOURCE, -Wpedantic,
#                     -Werror), platform/posix_compat.h's fallbacks (platform/compat.c) in
#                     place of glibc's calls; then the unit tests, the fuzz corpora and the archive's round trips
#                     (POSIX_CLI) run against it, so the fallbacks run on this machine too
POSIX_STRICT := -U_GNU_SOURCE -D_POSIX_C_SOURCE=200809L -D_XOPEN_SOURCE=700 \
                -include platform/posix_compat.h -Wpedantic
# io/ and platform/ keep glibc's extensions where they have them (_GNU_SOURCE) but are ISO C11
# too (-Wpedantic): with the layers above them, every file the collector compiles is strict C11.
ifdef POSIX_COMPAT
CPPFLAGS += -DMCZ_POSIX_COMPAT
$(filter-out $(BUILD)/obj/io/% $(BUILD)/obj/platform/%,$(LIB_OBJ)): CPPFLAGS += $(POSIX_STRICT)
$(filter $(BUILD)/obj/io/% $(BUILD)/obj/platform/%,$(LIB_OBJ)): CPPFLAGS += -Wpedantic
endif
# For tests/cli/test_posix_strict.sh: the flags a library file above io/ is compiled with there,
# and a file of io/.
.PHONY: posix-strict-flags posix-io-flags
posix-strict-flags:
	@echo $(CPPFLAGS) -Icommon -DMCZ_POSIX_COMPAT $(POSIX_STRICT) $(WARNINGS) -Werror
posix-io-flags:
	@echo $(CPPFLAGS) -Icommon -DMCZ_POSIX_COMPAT -Wpedantic $(WARNINGS) -Werror
# The collector's sources (sources.mk), for the same test.
.PHONY: collector-sources
collector-sources:
	@echo $(WRITER_SRC)
POSIX_CLI := test_mcs_basic.sh test_mcs_determinism.sh test_mcs_verbs.sh test_mcs_damage.sh
.PHONY: test-posix posix-build
test-posix:
	@$(MAKE) --no-print-directory BUILD=build/posix BIN=build/posix/bin POSIX_COMPAT=1 WERROR=1 \
	    posix-build
	@BUILD=build/posix BIN=build/posix/bin MCZ_TEST_CLI="$(POSIX_CLI)" bash tests/run-all.sh
posix-build: $(LIB_A) $(PROGRAMS) $(UNITS) $(FUZZERS)
include packaging/windows.mk  # Windows: make windows, make test-windows, make windows-todo

# ---- Static analysis (HACKING.md "Static analysis"; run by .ci/run) ----
#   make analyze   clang's scan-build over a build from clean of the library and the programs
#                  (in $(BUILD)/analyze/), then cppcheck over their sources (tests/analyze/
#                  analyze.sh); fails on any report. The benchmarks (bench/*.c) and the tests are
#                  left out: neither is shipped, and they stop at their first error by design
#                  (`scan-build make all`, the benchmarks included, reports nothing either).
ANALYZE_DIRS := $(LIB_LAYERS) tools mcs parallel-replay superpmi-dropin bench/mchgen
.PHONY: analyze analyze-build
analyze: | $(DEPS_OK)
	rm -rf $(BUILD)/analyze
	@bash tests/analyze/analyze.sh $(BUILD)/analyze/report \
	    "-D_GNU_SOURCE -Iinclude -Icommon -Itools -Iplatform -Iparallel-replay $(ANALYZE_DIRS)" \
	    $(MAKE) --no-print-directory BUILD=$(BUILD)/analyze BIN=$(BUILD)/analyze/bin analyze-build
analyze-build: $(LIB_A) $(PROGRAMS)
