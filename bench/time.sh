#!/bin/sh
# bench/time.sh - what keeping each sample's time costs (issue 21): the in-process handler's
# added nanoseconds a tick (bench/progs/timebench.c), and the TIME records of an hour at 1 kHz
# against its SAMPLE records (tests/unit/timeline.c, whose "#" lines give the figures).  With
# TIME_SECONDS set (e.g. 60), also a real run: python3 on a JSON loop for that many seconds of
# CPU at 1 kHz with -g, from outside and inside (--clock ring), its file with and without its
# TIME records (tests/timecheck.py --strip).  Runs standalone after `make`.  Environment: B.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$ROOT/build}
W=$(mktemp -d "${TMPDIR:-/tmp}/profil-time.XXXXXX")
trap 'rm -rf "$W"' EXIT

make -s -C "$ROOT" B="$B" "$B/bench/timebench" "$B/tests/unit/timeline" > /dev/null
echo "## time.sh: what each sample's time costs"
echo
"$B/bench/timebench"
"$B/tests/unit/timeline" | sed -n 's/^# //p; s/^ok - \(an hour\)/\1/p; s/^ok - \(its slots\)/\1/p'
if [ -n "${TIME_SECONDS:-}" ]; then
	cat > "$W/w.py" <<PY
import json, time
d = {"a": [1, 2, 3, {"b": "x" * 50}] * 20}
def f(n):
    if n == 0:
        end = time.process_time() + $TIME_SECONDS
        while time.process_time() < end:
            for i in range(1000):
                json.loads(json.dumps(d))
    else:
        f(n - 1)
f(20)
PY
	for clock in outside ring; do
		"$B/profil" record -q -g -F 1000 --clock $clock -o "$W/$clock" -- python3 "$W/w.py"
		f=$(ls -S "$W/$clock"/python3*.profil | head -n 1)
		python3 "$ROOT/tests/timecheck.py" --strip "$f" "$W/untimed"
		with=$(wc -c < "$f") && without=$(wc -c < "$W/untimed")
		fmt="%s: %d bytes with times, %d without (%.2f), %d entries, slots of %d ns\n"
		"$B/profil" dump "$f" | awk -v c=$clock -v a="$with" -v b="$without" -v f="$fmt" \
			'$1 == "time" { n++; w = $2 } END { printf f, c, a, b, a / b, n, w }'
	done
fi
