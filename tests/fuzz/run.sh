#!/bin/sh
# tests/fuzz/run.sh - runs a libFuzzer harness, $B/tests/fuzz/$FUZZ_TARGET (reader, the default, or
# export), for FUZZ_SECONDS (default 300) on a corpus seeded with profile files made at run time (the
# exact profile of tests/report/mkprofile, its prefixes, two from tests/export/synth.py), kept in
# FUZZ_CORPUS when set (make fuzz) so longer runs build on each other, else in a temporary
# directory.  Prints one TAP line; a crash, leak or sanitizer report fails it, and the input that
# caused it is kept in $B/tests/fuzz/ for `$B/tests/fuzz/$FUZZ_TARGET FILE` to reproduce.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$ROOT/build}
SECS=${FUZZ_SECONDS:-300}
TARGET=${FUZZ_TARGET:-reader}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/profil-fuzz.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CORPUS=${FUZZ_CORPUS:-$WORK/corpus}
mkdir -p "$CORPUS" "$WORK/seeds"

cd "$WORK" || exit 1
cp "$B/tests/report/libplugin.so" gone.so
if ! "$B/tests/report/mkprofile" seeds/one.profil "$B/tests/report/libplugin.so" gone.so \
	> /dev/null; then
	echo "not ok - mkprofile wrote a seed profile"
	exit 1
fi
size=$(wc -c < seeds/one.profil)
for n in 16 200 $((size / 2)) $((size - 12)); do
	head -c "$n" seeds/one.profil > "seeds/prefix-$n.profil"
done
# Files the writer would not make: no samples; a mapping and a sample alone, with times.
python3 "$ROOT/tests/export/synth.py" empty seeds/empty.profil
python3 "$ROOT/tests/export/synth.py" mapping seeds/mapping.profil /bin/true
python3 "$ROOT/tests/export/synth.py" timed seeds/timed.profil /bin/true 4
cp seeds/* "$CORPUS"/

"$B/tests/fuzz/$TARGET" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	-print_final_stats=1 -artifact_prefix="$WORK/" "$CORPUS" > log 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' log)
if [ $rc -eq 0 ] && [ -n "$runs" ]; then
	n=$(ls "$CORPUS" | wc -l)
	echo "ok - fuzzing $TARGET: $runs inputs in $SECS s, no crash ($n in the corpus)"
	exit 0
fi
tail -n 40 log | sed 's/^/# /'
for a in "$WORK"/crash-* "$WORK"/leak-* "$WORK"/timeout-* "$WORK"/oom-*; do
	[ -f "$a" ] && cp "$a" "$B/tests/fuzz/" && echo "# kept $B/tests/fuzz/$(basename "$a")"
done
echo "not ok - fuzzing $TARGET: libFuzzer exited with status $rc"
exit 1
