# profil - one plain GNU Makefile.  Targets: all check install clean bench lint.

VERSION   = 0.1.0
SOVERSION = 0
PREFIX   ?= /usr/local
DESTDIR  ?=

CC     ?= cc
# A cross compiler brings its own nm for the signal-safety check (CC=aarch64-linux-gnu-gcc).
NM      := $(if $(filter %-gcc,$(CC)),$(CC:%-gcc=%-nm),nm)
CFLAGS ?= -O2 -g -fno-omit-frame-pointer
WARN    = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
BASE    = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS)

B ?= build

# The library: code that runs in signal context, the engine that arms it (perf events through
# src/perf), the classic calls.
LIB_SRC    := $(wildcard src/sample/*.c src/engine/*.c src/classic/*.c src/gmon/*.c src/perf/*.c)
LIB_OBJ    := $(LIB_SRC:%.c=$(B)/%.o)
SAMPLE_OBJ := $(filter $(B)/src/sample/%,$(LIB_OBJ))
# -Isrc: the library's objects name headers from the same root as the command's ("base/clock.h").
LIB_CFLAGS := $(BASE) -fPIC -fvisibility=hidden -fno-delete-null-pointer-checks -Iinclude -Isrc

# The preloaded recorder (src/record): the engine, the signal-context code and the format
# writer, linked against libc alone (so not the zlib inflater of src/cfi).  It has no API; it
# exports only what it interposes.
REC_SO  := $(B)/libprofil-record.so
REC_OBJ := $(patsubst %.c,$(B)/%.o,$(filter-out src/cfi/zlib.c,$(wildcard src/record/*.c \
	src/sample/*.c src/engine/*.c src/cfi/*.c src/perf/*.c)) src/format/writer.c src/format/crc32.c \
	src/profile/timeline.c src/profile/maps.c src/jit/mapline.c)

# The profil(1) command: cmd/ (one file per subcommand) on top of the file format, the report
# and the exporters.  elfutils and zlib belong here, never in the libraries loaded into programs.
CLI_SRC    := $(wildcard cmd/*.c src/format/*.c src/report/*.c src/export/*.c src/outside/*.c \
	src/jit/*.c src/fleet/*.c src/profile/*.c \
	src/cfi/*.c src/perf/*.c) src/sample/walk.c
# libmicrohttpd: profil serve's HTTP server (requests parsed by a maintained library).
# libcurl: profil serve --push, the Pyroscope push client (src/fleet/push.c).
CLI_PKGS   := libdw zlib libmicrohttpd libcurl
PKG_CONFIG ?= pkg-config
CLI_CFLAGS := $(BASE) -Iinclude -Isrc $(shell $(PKG_CONFIG) --cflags $(CLI_PKGS) 2>/dev/null)
# binutils' libiberty demangles C++ and Rust names, as c++filt does; it has no pkg-config file and
# Debian ships it as a static library alone (built -fPIC: it links into the PIE profil is).
CLI_LIBS    = $(shell $(PKG_CONFIG) --libs $(CLI_PKGS)) -liberty -lm

SONAME := libprofil.so.$(SOVERSION)
SOFILE := libprofil.so.$(VERSION)

# Test and demo programs link the shared library from the build tree.
PROG_CFLAGS := $(BASE) -Iinclude
PROG_LIBS   := -L$(B) -Wl,-rpath,$(abspath $(B)) -lprofil -lm
UNIT_SRC    := $(wildcard tests/unit/*.c)
UNIT_BIN    := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/unit/%)
PROG_SRC    := $(wildcard tests/progs/*.c)
PROG_BIN    := $(PROG_SRC:tests/progs/%.c=$(B)/tests/progs/%)
BENCH_SRC   := $(wildcard bench/progs/*.c)
BENCH_BIN   := $(BENCH_SRC:bench/progs/%.c=$(B)/bench/%)

.PHONY: all check install clean bench lint tests deps demo fuzz cli-deps
all: $(B)/libprofil.so $(B)/libprofil.a $(B)/profil $(B)/demo $(REC_SO)

$(B)/src/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -MMD -MP -c $< -o $@

# What the command is built with, checked before any of it compiles (order-only: the check runs
# every time and rebuilds nothing); a missing library is named with the command to install it.
cli-deps:
	@PKG_CONFIG="$(PKG_CONFIG)" CC="$(CC)" tools/check-cli-deps.sh $(CLI_PKGS)

# The command's own objects (no -fvisibility games, linked into one program).
$(B)/cli/%.o: %.c | cli-deps
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) -MMD -MP -c $< -o $@

# The HTML viewer's own style and script (src/export/viewer/), compiled into the command.
VIEWER_ASSETS := profil_viewer_css=src/export/viewer/viewer.css \
	profil_viewer_js=src/export/viewer/viewer.js
VIEWER_C      := $(B)/cli/gen/viewer-assets.c
VIEWER_OBJ    := $(B)/cli/gen/viewer-assets.o
$(VIEWER_C): $(foreach a,$(VIEWER_ASSETS),$(lastword $(subst =, ,$(a)))) tools/embed.sh
	@mkdir -p $(@D)
	tools/embed.sh $(VIEWER_ASSETS) > $@.tmp && mv $@.tmp $@
$(VIEWER_OBJ): $(VIEWER_C)
	$(CC) $(CLI_CFLAGS) -c $< -o $@

$(B)/profil: $(CLI_SRC:%.c=$(B)/cli/%.o) $(VIEWER_OBJ)
	$(CC) -o $@ $^ $(CLI_LIBS)

# Signal context may only reach what tools/signal-safe.allow lists: the build fails otherwise.
$(B)/signal-safe.ok: $(SAMPLE_OBJ) tools/check-signal-safe.sh tools/signal-safe.allow
	NM=$(NM) tools/check-signal-safe.sh $(SAMPLE_OBJ)
	@touch $@

# The engine and pcsample(2) run in signal context as well: their raw system calls are listed
# in tools/engine-signal-safe.allow.  Not threads.o (the pthread_create interposer allocates),
# real.o (dlsym at load) nor env.o (start-up).
ENGINE_SIGNAL_OBJ := $(SAMPLE_OBJ) $(addprefix $(B)/src/,engine/engine.o engine/clock.o \
	engine/exit.o engine/hooks.o engine/seccomp.o engine/signal.o engine/tasks.o \
	engine/writable.o perf/event.o \
	classic/pcsample.o classic/rate.o)
$(B)/engine-signal-safe.ok: $(ENGINE_SIGNAL_OBJ) tools/check-signal-safe.sh \
		tools/signal-safe.allow tools/engine-signal-safe.allow
	SIGNAL_SAFE_EXTRA=tools/engine-signal-safe.allow NM=$(NM) tools/check-signal-safe.sh \
		$(ENGINE_SIGNAL_OBJ)
	@touch $@

$(B)/$(SOFILE): $(LIB_OBJ) src/libprofil.map $(B)/signal-safe.ok $(B)/engine-signal-safe.ok
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=src/libprofil.map -Wl,-z,defs \
		-Wl,-z,nodelete -o $@ $(LIB_OBJ)

# The recorder's flush and ring drain run in fatal-signal handlers too: the same check, with
# the raw system calls they make listed in tools/record-signal-safe.allow.
REC_SIGNAL_OBJ := $(SAMPLE_OBJ) $(addprefix $(B)/src/,record/flush.o record/maps.o \
	record/threads.o record/ring.o record/times.o format/writer.o format/crc32.o \
	profile/timeline.o profile/maps.o perf/event.o perf/ring.o perf/sample.o record/jitnames.o \
	jit/mapline.o)
$(B)/record-signal-safe.ok: $(REC_SIGNAL_OBJ) tools/check-signal-safe.sh tools/signal-safe.allow \
		tools/record-signal-safe.allow
	SIGNAL_SAFE_EXTRA=tools/record-signal-safe.allow NM=$(NM) tools/check-signal-safe.sh \
		$(REC_SIGNAL_OBJ)
	@touch $@

$(REC_SO): $(REC_OBJ) src/record/record.map $(B)/signal-safe.ok $(B)/record-signal-safe.ok \
		$(B)/engine-signal-safe.ok
	$(CC) -shared -Wl,--version-script=src/record/record.map -Wl,-z,defs -Wl,-z,nodelete \
		-o $@ $(REC_OBJ) -lpthread -ldl

$(B)/libprofil.so: $(B)/$(SOFILE)
	ln -sf $(SOFILE) $(B)/$(SONAME)
	ln -sf $(SONAME) $@

$(B)/libprofil.a: $(LIB_OBJ) $(B)/signal-safe.ok
	rm -f $@
	ar rcs $@ $(LIB_OBJ)

# -rdynamic: the demo names its own functions with dladdr(3).
$(B)/demo: demo/demo.c $(B)/libprofil.so
	$(CC) $(PROG_CFLAGS) -rdynamic -o $@ $< $(PROG_LIBS)

$(B)/tests/progs/%: tests/progs/%.c tests/tap.h tests/progs/work.h $(B)/libprofil.so
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -pthread -o $@ $< $(PROG_LIBS)

# bigfork registers fork handlers of its own before it loads libprofil with dlopen, so that
# they run inside the engine's: it is not linked against the library.
$(B)/tests/progs/bigfork: tests/progs/bigfork.c tests/tap.h tests/progs/work.h $(B)/libprofil.so
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -pthread -o $@ $< -ldl -lm

# Unit tests link the objects themselves, internal symbols included.  Some #include a source
# file (tests/unit/format.c the reader): -MMD lists every file a test includes, so that editing
# one rebuilds the test rather than running the old binary.
$(B)/tests/unit/%: tests/unit/%.c tests/tap.h $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -Isrc -pthread -MMD -MP -MF $@.d -MT $@ -o $@ $< $(LIB_OBJ) -lm

# The same said explicitly, for a build tree made before the dependency files existed.
$(B)/tests/unit/format: src/format/crc32.c src/format/open.c src/format/reader.c \
    src/format/writer.c src/format/format.h src/profile/profile.c src/profile/profile.h

# Report tests link the command's objects but cmd/ (main() is there), and two libraries of
# their own: one linked, one to dlopen.
CLI_LIB_OBJ     := $(filter-out $(B)/cli/cmd/%,$(CLI_SRC:%.c=$(B)/cli/%.o)) $(VIEWER_OBJ)
REPORT_TEST_SRC := $(wildcard tests/report/*.c)
REPORT_TEST_BIN := $(REPORT_TEST_SRC:tests/report/%.c=$(B)/tests/report/%)
REPORT_TEST_LIB := $(B)/tests/report/libshared.so $(B)/tests/report/libplugin.so

$(B)/tests/report/lib%.so: tests/report/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(BASE) -fPIC -shared -o $@ $<

$(B)/tests/report/%: tests/report/%.c tests/tap.h tests/bytes.h $(wildcard tests/report/*.h) \
		$(CLI_LIB_OBJ) $(REPORT_TEST_LIB)
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) -o $@ $< $(CLI_LIB_OBJ) -L$(B)/tests/report \
		-Wl,-rpath,$(abspath $(B))/tests/report -lshared -ldl $(CLI_LIBS)

# The push client's driver (tests/fleet): the command's objects but cmd/, as the report tests.
FLEET_TEST_BIN := $(B)/tests/fleet/pushdrive
$(B)/tests/fleet/%: tests/fleet/%.c src/fleet/push.h $(CLI_LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CLI_CFLAGS) -o $@ $< $(CLI_LIB_OBJ) $(CLI_LIBS)

# -Isrc: unwindbench and timebench #include the signal-context sources themselves.
$(B)/bench/%: bench/progs/%.c $(B)/libprofil.so
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -Isrc -pthread -o $@ $< $(PROG_LIBS)

# glibc's own profil(3) for comparison: the same workload built without libprofil.
BENCH_PLAIN := $(B)/bench/cpusplit.plain
$(B)/bench/%.plain: bench/progs/%.c
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -DBENCH_PLAIN -pthread -o $@ $< -lm

# Record tests: unmodified programs (no libprofil linked), with a linked library and one they
# dlopen, recorded through libprofil-record.so.
RECORD_TEST_SRC := $(wildcard tests/record/*.c)
RECORD_TEST_BIN := $(RECORD_TEST_SRC:tests/record/%.c=$(B)/tests/record/%) \
	$(B)/tests/record/cfithrow $(B)/tests/record/cfistack-df $(B)/tests/record/cfistack-zdf
RECORD_TEST_LIB := $(B)/tests/record/libsplit.so $(B)/tests/record/libsplitplugin.so

$(B)/tests/record/lib%.so: tests/record/lib/%.c tests/record/burn.h
	@mkdir -p $(@D)
	$(CC) $(BASE) -fPIC -shared -o $@ $<

# Code without frame pointers, as Debian builds its libraries: the stacks of t2103.
NOFP := -O2 -fomit-frame-pointer
$(B)/tests/record/libcfi.so: tests/record/lib/cfi.c
	@mkdir -p $(@D)
	$(CC) $(BASE) $(NOFP) -fPIC -shared -o $@ $<

$(B)/tests/record/cfistack: tests/record/cfistack.c $(B)/tests/record/libcfi.so
	$(CC) $(BASE) $(NOFP) -o $@ $< -L$(B)/tests/record -Wl,-rpath,$(abspath $(B))/tests/record \
		-Wl,-z,lazy -lcfi

# Its rules in .debug_frame alone (the C runtime's objects bring an .eh_frame beside it), plain
# and compressed with zlib as Go links every program.
DEBUG_FRAME := -g -fno-asynchronous-unwind-tables
$(B)/tests/record/cfistack-df: tests/record/cfistack.c $(B)/tests/record/libcfi.so
	$(CC) $(BASE) $(NOFP) $(DEBUG_FRAME) -o $@ $< -L$(B)/tests/record \
		-Wl,-rpath,$(abspath $(B))/tests/record -Wl,-z,lazy -lcfi
$(B)/tests/record/cfistack-zdf: tests/record/cfistack.c $(B)/tests/record/libcfi.so
	$(CC) $(BASE) $(NOFP) $(DEBUG_FRAME) -Wl,--compress-debug-sections=zlib -o $@ $< \
		-L$(B)/tests/record -Wl,-rpath,$(abspath $(B))/tests/record -Wl,-z,lazy -lcfi

$(B)/tests/record/cfithrow: tests/record/cfithrow.cc
	$(CXX) -O2 -g -fomit-frame-pointer -Wall -Wextra -Werror -o $@ $<

# Bound at start (-z now), so that the lazy binding t2103 counts is its library's alone.
$(B)/tests/record/lazybind: tests/record/lazybind.c
	@mkdir -p $(@D)
	$(CC) $(BASE) -Wl,-z,now -o $@ $< -ldl

$(B)/tests/record/%: tests/record/%.c tests/record/burn.h $(RECORD_TEST_LIB)
	@mkdir -p $(@D)
	$(CC) $(BASE) -pthread -o $@ $< -L$(B)/tests/record \
		-Wl,-rpath,$(abspath $(B))/tests/record -lsplit -ldl

# -pg test programs, linked with -lprofil before libc so that they get our gmon runtime; one
# is also built without PIE.  No inlining, sibling calls or merging of identical functions: the
# call counts are the truth.
PG_SRC    := $(wildcard tests/pg/*.c)
PG_BIN    := $(PG_SRC:tests/pg/%.c=$(B)/tests/pg/%) $(B)/tests/pg/nopie-gmon-work
PG_CFLAGS := $(PROG_CFLAGS) -pg -fno-inline -fno-optimize-sibling-calls -fno-ipa-icf -pthread

$(B)/tests/pg/nopie-%: tests/pg/%.c tests/pg/spin.h tests/tap.h $(B)/libprofil.so
	@mkdir -p $(@D)
	$(CC) $(PG_CFLAGS) -fno-pie -no-pie -o $@ $< $(PROG_LIBS)

$(B)/tests/pg/%: tests/pg/%.c tests/pg/spin.h tests/tap.h $(B)/libprofil.so
	@mkdir -p $(@D)
	$(CC) $(PG_CFLAGS) -o $@ $< $(PROG_LIBS)

# libFuzzer harnesses, clang with ASan and UBSan: the reader, and the exporters behind it.  `make
# tests` builds them, t4004 runs each briefly, `make fuzz` for FUZZ_SECONDS each with corpora kept
# in $(B)/tests/fuzz/.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 300
FUZZ_BIN     := $(B)/tests/fuzz/reader $(B)/tests/fuzz/export $(B)/tests/fuzz/outside \
	$(B)/tests/fuzz/cfi $(B)/tests/fuzz/jit
FUZZ_FLAGS   := -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -Isrc
FUZZ_FORMAT  := src/format/reader.c src/format/open.c src/format/crc32.c src/profile/profile.c
# The report reads unwind entries to name a stripped binary's code (module_elf.c).
FUZZ_EXPORT  := $(FUZZ_FORMAT) $(wildcard src/report/*.c src/export/*.c) src/cfi/object.c \
	src/cfi/frame.c src/cfi/read.c src/cfi/table.c src/cfi/zlib.c src/sample/walk.c $(VIEWER_C)

$(B)/tests/fuzz/reader: tests/fuzz/reader.c tests/fuzz/crc.h $(FUZZ_FORMAT) src/format/format.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/reader.c $(FUZZ_FORMAT)

$(B)/tests/fuzz/export: tests/fuzz/export.c tests/fuzz/crc.h $(FUZZ_EXPORT) \
		$(wildcard src/format/*.h src/report/*.h src/export/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(CLI_CFLAGS:-Werror=) -o $@ tests/fuzz/export.c $(FUZZ_EXPORT) \
		$(CLI_LIBS)

# The outside recorder's record parser, on its own: the session, its index and the writer.
FUZZ_OUTSIDE := $(sort $(wildcard src/outside/*.c src/cfi/*.c src/jit/*.c src/perf/*.c) \
	src/sample/walk.c src/report/index.c src/format/writer.c $(wildcard src/profile/*.c) \
	$(FUZZ_FORMAT))
$(B)/tests/fuzz/outside: tests/fuzz/outside.c $(FUZZ_OUTSIDE) $(wildcard src/outside/*.h) \
		$(wildcard src/profile/*.h) src/perf/perf.h \
		src/report/index.h src/format/format.h src/cfi/cfi.h src/sample/unwind.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(CLI_CFLAGS:-Werror=) -o $@ tests/fuzz/outside.c $(FUZZ_OUTSIDE) \
		$(CLI_LIBS)

FUZZ_CFI := $(wildcard src/cfi/*.c) src/sample/walk.c
$(B)/tests/fuzz/cfi: tests/fuzz/cfi.c $(FUZZ_CFI) src/cfi/cfi.h src/sample/unwind.h \
		src/format/format.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/cfi.c $(FUZZ_CFI) -lz

# The parsers of JIT names: perf maps and jitdump files, fed in pieces as they grow.
FUZZ_JIT := $(wildcard src/jit/*.c) src/format/writer.c $(FUZZ_FORMAT)
$(B)/tests/fuzz/jit: tests/fuzz/jit.c $(FUZZ_JIT) src/jit/jit.h src/format/format.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/jit.c $(FUZZ_JIT)

fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ_BIN) $(REPORT_TEST_BIN)
	@for t in reader export; do \
		B=$(abspath $(B)) FUZZ_TARGET=$$t FUZZ_SECONDS=$(FUZZ_SECONDS) \
		FUZZ_CORPUS=$(abspath $(B))/tests/fuzz/corpus-$$t sh tests/fuzz/run.sh || exit 1; \
	done

# The README's two commands: `make demo` and `make check`.  Each installs what is missing.
deps:
	@tools/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@echo
	$(B)/demo 2
	@echo
	@rm -rf $(B)/demo.profil.out
	$(B)/profil record -o $(B)/demo.profil.out -- $(B)/demo 1 > /dev/null
	$(B)/profil report -n 6 $(B)/demo.profil.out

tests: all $(UNIT_BIN) $(PROG_BIN) $(REPORT_TEST_LIB) $(REPORT_TEST_BIN) $(RECORD_TEST_LIB) $(RECORD_TEST_BIN) $(PG_BIN) \
	$(FUZZ_BIN) $(FLEET_TEST_BIN)

# The test scripts cd into a scratch directory: they need B as an absolute path.
check: deps
	@$(MAKE) --no-print-directory tests
	@B=$(abspath $(B)) sh tests/run.sh

bench: deps
	@$(MAKE) --no-print-directory all $(BENCH_BIN) $(BENCH_PLAIN)
	@B=$(abspath $(B)) sh bench/run.sh

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --std=c11 \
		--inline-suppr -D__x86_64__ -D__GNUC__ -Iinclude -Isrc src cmd tests demo bench

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 755 $(B)/profil $(DESTDIR)$(PREFIX)/bin/
	install -m 644 include/profil.h include/pcsample.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(B)/$(SOFILE) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(SOFILE) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libprofil.so
	install -m 644 $(B)/libprofil.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(REC_SO) $(DESTDIR)$(PREFIX)/lib/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' profil.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/profil.pc
	install -m 644 man/man3/*.3 $(DESTDIR)$(PREFIX)/share/man/man3/
	ln -sf profil_rate_set.3 $(DESTDIR)$(PREFIX)/share/man/man3/profil_stats_get.3
	ln -sf moncontrol.3 $(DESTDIR)$(PREFIX)/share/man/man3/monstartup.3
	ln -sf moncontrol.3 $(DESTDIR)$(PREFIX)/share/man/man3/profil_gmon.3
	ln -sf moncontrol.3 $(DESTDIR)$(PREFIX)/share/man/man3/profil_gmon_status_get.3
	install -d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 man/man1/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf $(B)

-include $(LIB_OBJ:.o=.d) $(REC_OBJ:.o=.d) $(CLI_SRC:%.c=$(B)/cli/%.d) $(UNIT_BIN:=.d)
