#!/bin/sh
# tests/run.sh - runs every unit test binary and every tests/tNNNN-*.sh script, keeps each
# one's output in build/tests/logs/, and ends with the line "N passed, N failed".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$ROOT/build}
export B
LOGS=$B/tests/logs
mkdir -p "$LOGS"
passed=0
failed=0

run_one() {
	name=$1
	shift
	log=$LOGS/$(echo "$name" | tr / -).log
	start=$(date +%s)
	# Every test starts with every signal at its default action: a suite started in the
	# background inherits SIGINT ignored, which no shell can undo, and the tests of the exit
	# paths and of the program's own signals need it as a program would normally have it.
	env --default-signal "$@" > "$log" 2>&1 < /dev/null
	rc=$?
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited with status $rc" >> "$log"
		f=1
	fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name ran no check" >> "$log"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	printf '%-40s %3d passed, %d failed (%ds)\n' "$name" "$p" "$f" $(($(date +%s) - start))
	if [ "$f" -ne 0 ]; then
		grep -A20 '^not ok' "$log" | sed 's/^/    /'
	fi
}

for t in "$B"/tests/unit/*; do
	[ -x "$t" ] && run_one "unit/$(basename "$t")" "$t"
done
for t in "$ROOT"/tests/t[0-9][0-9][0-9][0-9]-*.sh; do
	[ -f "$t" ] && run_one "$(basename "$t" .sh)" sh "$t"
done
[ $((passed + failed)) -gt 0 ] || failed=1
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
