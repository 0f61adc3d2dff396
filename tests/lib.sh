# tests/lib.sh - sourced by each tests/tNNNN-*.sh script.  Git-style helpers: every check prints
# "ok - ..." or "not ok - ..." for tests/run.sh to count.
set -u
TEST_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$TEST_DIR/.." && pwd)
B=${B:-$ROOT/build}
PROGS=$B/tests/progs
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/profil-test.XXXXXX")
trap 'rm -rf "$TRASH"' EXIT
cd "$TRASH" || exit 1
test_failures=0

# test_needs PACKAGE:COMMAND...: the tools a script uses beyond gcc, make and a base system, each
# with the Debian package that has it; tools/deps.sh, which `make check` runs first, installs
# them all.  A missing one fails the script at once and names its package, rather than failing
# its checks obscurely ("eval: /usr/bin/time: not found") or skipping them in silence.
test_needs() {
	for need in "$@"; do
		command -v "${need#*:}" > /dev/null 2>&1 && continue
		echo "not ok - ${need#*:} is missing: Debian's package ${need%%:*} has it (tools/deps.sh installs it)"
		exit 1
	done
}

# test_expect_success 'what it shows' 'shell commands': ok when the commands exit 0.
test_expect_success() {
	if out=$( (eval "$2") 2>&1); then
		echo "ok - $1"
	else
		echo "not ok - $1"
		printf '%s\n' "$out" | sed 's/^/#   /'
		test_failures=$((test_failures + 1))
	fi
}

# Runs a C test program that prints its own ok/not ok lines; a crash or non-zero exit without
# a "not ok" line is a failure of its own.
test_run_prog() {
	name=$1
	shift
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then
		echo "not ok - $name exited with status $rc"
		test_failures=$((test_failures + 1))
	fi
}

# The sanitizer scripts' build directory ($S), flags ($SAN) and options: any ASan, LeakSanitizer
# or UBSan report ends the program with status 99 or a trap, so it cannot pass unnoticed.
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
sanitizers_setup() {
	S=$TRASH/sanitize
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
}

# fuzz_corpus TARGET MAX_LEN WHAT: the libFuzzer harness $B/tests/fuzz/TARGET (ASan, UBSan) on
# ./corpus: the seeds run clean, then WHAT is fuzzed for FUZZ_SECONDS_CHECK (10) seconds, inputs
# up to MAX_LEN bytes, without a crash, leak or undefined behaviour.
fuzz_corpus() {
	fuzz_bin=$B/tests/fuzz/$1 fuzz_max=$2
	test_expect_success 'the seeds run clean' '
		ls corpus > /dev/null &&
		"$fuzz_bin" corpus/* > seeds.log 2>&1 || { tail -n 30 seeds.log; false; }
	'
	test_expect_success "fuzzing $3: no crash in ${FUZZ_SECONDS_CHECK:-10} s" '
		"$fuzz_bin" -max_total_time="${FUZZ_SECONDS_CHECK:-10}" -timeout=10 \
			-rss_limit_mb=2048 -max_len="$fuzz_max" -print_final_stats=1 \
			-artifact_prefix="$TRASH/" corpus > fuzz.log 2>&1 &&
		sed -n "s/^stat::number_of_executed_units: *//p" fuzz.log || { tail -n 40 fuzz.log; false; }
	'
}

test_done() {
	exit 0
}
