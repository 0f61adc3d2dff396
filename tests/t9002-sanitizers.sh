#!/bin/sh
# t9002-sanitizers: the unit tests, the demo and the API test programs built with
# -fsanitize=address,undefined in a build directory of their own, and run: any report of either
# sanitizer ends the program with a failure.
#
# Two things differ from the normal build, on purpose:
# - the signal-safety check is skipped (make -o): every instrumented object references the
#   sanitizers' runtime (__asan_report_*, __ubsan_handle_*), which is not what the check is about;
#   the normal build checks the real objects.
# - nonnull-attribute is not checked: glibc's <unistd.h> declares profil() nonnull, but a NULL
#   buffer is how profil(3) disables profiling, and the test programs do exactly that.
. "$(dirname "$0")/lib.sh"
sanitizers_setup
SAN="$SAN -fno-sanitize=nonnull-attribute"

targets="$S/demo"
for f in "$ROOT"/tests/unit/*.c; do
	targets="$targets $S/tests/unit/$(basename "$f" .c)"
done
# The test programs that cover the whole classic API, threads and fork: "name args...".
runs="profil_api
pcsample
fork profil
fork pcsample"
for p in profil_api pcsample fork; do
	[ -f "$ROOT/tests/progs/$p.c" ] && targets="$targets $S/tests/progs/$p"
done

test_expect_success 'the library, unit tests and test programs build under ASan and UBSan' '
	make -C "$ROOT" -s -j2 B="$S" CC="cc $SAN" -o "$S/signal-safe.ok" \
		-o "$S/engine-signal-safe.ok" $targets
'

# A sanitizer report is a failure even if the program then exits 0.
sanitized_run() {
	name=$1
	shift
	test_run_prog "$name" "$@"
	if printf '%s\n' "$out" | grep -q -e "ERROR: AddressSanitizer" -e "ERROR: LeakSanitizer" \
	    -e "runtime error:"; then
		echo "not ok - $name: sanitizer report"
		test_failures=$((test_failures + 1))
	fi
}

for t in "$S"/tests/unit/*; do
	[ -x "$t" ] && sanitized_run "unit/$(basename "$t") under sanitizers" "$t"
done
# The test programs hand profil() buffers that must outlive profiling and leave them to the
# end of main: leak reports there say nothing about the library, so only the unit tests and
# the demo run with LeakSanitizer.
printf '%s\n' "$runs" > runs
while read -r p args; do
	[ -f "$ROOT/tests/progs/$p.c" ] || continue
	# shellcheck disable=SC2086
	sanitized_run "$p $args under sanitizers" env ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
	    "$S/tests/progs/$p" $args
done < runs
test_expect_success 'the demo runs clean under sanitizers' '
	"$S/demo" 0.5 > out 2>&1
	rc=$?
	cat out
	test $rc -eq 0 && grep -q "samples at" out &&
	! grep -q -e "ERROR: AddressSanitizer" -e "ERROR: LeakSanitizer" -e "runtime error:" out
'
test_done
