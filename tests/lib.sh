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

test_done() {
	exit 0
}
