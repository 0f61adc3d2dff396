#!/bin/sh
# tools/deps.sh - installs the Debian packages profil needs that are missing, and nothing else.
# Run by `make demo` and `make check`, so both work on a fresh machine.  Quiet when all present.
set -eu
# Not listed: libc6-dbg.  With it, libc's and ld.so's local functions (__libc_start_call_main,
# start_thread, _dl_runtime_resolve_xsavec) have names in reports; without it they show as
# libc.so.6+0xOFFSET.  The tests hold either way (tests/lib-record.sh), as a new user's machine has
# it or not.
# package            why
PACKAGES="
gcc                  compiler
make                 build
binutils             nm for the signal-safety check; GNU gprof reads our gmon files
util-linux           setpriv: t1003 runs a set-user-ID -pg program as nobody
pkg-config           dependencies and the installed profil.pc
libc6-dev            headers
gcc-aarch64-linux-gnu  the aarch64 cross-build test (t9010)
libc6-dev-arm64-cross  its C library
libdw-dev            elfutils: ELF/DWARF symbolization in profil(1)
libelf-dev           elfutils: ELF reading
zlib1g-dev           compressed exports
libmicrohttpd-dev    profil serve's HTTP server (a maintained parser, not one of ours)
libcurl4-openssl-dev profil serve --push: the Pyroscope push client (src/fleet/push.c)
libiberty-dev        binutils' demangler: C++ and Rust names in profil(1)
mandoc               t9001 lints and renders the mdoc man pages
groff-base           t9001 renders the man pages as man-db's man(1) does
cppcheck             make lint (t9003)
golang-go            go tool pprof reads the pprof export (t4001, t4002)
chromium             headless browser for the SVG flame graph test (t4003)
nodejs               npm installs speedscope (t4006), the Firefox Profiler (t4020); JIT names t2108
default-jdk-headless t2108: the JVM's JIT names from its perf map
clang                libFuzzer harness of the profile reader (make fuzz, t4004)
libclang-rt-14-dev   libFuzzer and sanitizer runtimes for clang 14
linux-perf           t3003, t2103: profil report and -g against perf's
python3              t3003, t2103, t3009: a real interpreter; t4003 drives Chromium with it
xz-utils             t3003: a real compressor to profile
gzip                 t3003: another, a program without symbols
sqlite3              t3003: a real database shell to profile
g++                  t3005: a C++ program, whose names profil report demangles
rustc                t3019: Rust programs, legacy and v0 mangling, whose names it demangles
libgoogle-perftools4 bench/record.sh: gperftools' libprofiler.so, compared with profil record
google-perftools     bench/record.sh: google-pprof reads libprofiler's profiles
gdb                  t2112: the backtrace a waiting stack is checked against
time                 /usr/bin/time: peak memory of report and export (t3012, t3014, t3017, t4008-t4010)
strace               t3017: counts the opens of a binary across a report of many processes
curl                 t5001, t5004, t5012: the HTTP client that scrapes profil serve
tmux                 t2121: profil top drawn on a real terminal, read back, quit with q
"
missing=
for p in $(printf '%s\n' "$PACKAGES" | awk 'NF { print $1 }'); do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
# Debian's nodejs comes without npm; some machine images' nodejs bundles it (and conflicts with
# Debian's npm package), so npm is installed only where the command is missing.
if ! command -v npm > /dev/null 2>&1; then
	missing="$missing npm"
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "profil: missing Debian packages:$missing (run as root, or: sudo apt-get install$missing)" >&2
	exit 1
fi
echo "profil: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
