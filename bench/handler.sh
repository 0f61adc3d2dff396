#!/bin/sh
# bench/handler.sh - what one sample costs the program when the in-process recorder's signal
# handler walks the stack (--clock timer): flat (the pc alone), by frame pointers (fp) and by
# unwind tables (cfi).  First the walk alone, exactly: bench/progs/unwindbench.c times the
# handler's two walks on the same captured context, at several depths, with and without frame
# pointers.  Then the whole cost of a sample in a recorded program, on two workloads: tests/record/cfistack split (built -O2
# -fomit-frame-pointer, leaf seven frames below _start) and Debian's python3 on a JSON loop
# (built without frame pointers, stacks of 30 to 60 frames).
#
# Each mode runs at 10000 Hz and at 1 Hz; the CPU time of the whole process (every thread, the
# recorder's own included, from wait4 in microseconds) at 1 Hz is the mode's fixed cost (start-up,
# tables built, the recorder thread's naps), and the cost of one sample is the difference
# divided by the samples the file holds: the signal, the handler, the walk and the aggregation
# together (noisy on a busy machine: it is a difference of two CPU times).  Medians of
# BENCH_RUNS (default 5) interleaved runs.  Also printed: the mean depth of a stack, and the
# share of samples whose stack reaches _start.
#
# Runs standalone after `make`.  Environment: B (build directory), CC, BENCH_RUNS.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$ROOT/build}
CC=${CC:-cc}
RUNS=${BENCH_RUNS:-5}
PROFIL=$B/profil
W=$(mktemp -d "${TMPDIR:-/tmp}/profil-handler.XXXXXX")
trap 'rm -rf "$W"' EXIT

for f in "$PROFIL" "$B/libprofil-record.so"; do
	[ -e "$f" ] || { echo "handler.sh: missing $f (run: make)" >&2; exit 1; }
done
make -s -C "$ROOT" B="$B" "$B/tests/record/cfistack" "$B/bench/unwindbench" > /dev/null
$CC -O2 -o "$W/cputime" "$ROOT/bench/record-cputime.c"
cat > "$W/w.py" <<'PY'
import json
d = {"a": [1, 2, 3, {"b": "x" * 50}] * 20}
def f(n):
    if n == 0:
        for i in range(40000):
            json.loads(json.dumps(d))
    else:
        f(n - 1)
f(20)
PY

# one NAME MODE HZ CMD...: records CMD; prints "cpu_us samples depth reaching_main".
one() {
	name=$1 mode=$2 hz=$3
	shift 3
	rm -rf "${W:?}/$name"
	case $mode in
	flat) g= ;;
	*) g="--call-graph $mode" ;;
	esac
	# shellcheck disable=SC2086
	"$W/cputime" "$W/t" "$PROFIL" record --clock timer -F "$hz" $g -o "$W/$name" -- "$@" \
		> /dev/null 2>&1
	# The program each stack stands on is left out: depth and _start count code frames.
	"$PROFIL" export -f folded "$W/$name" 2> /dev/null | sed 's/^[^;]*;//' > "$W/f" || true
	awk -v cpu="$(cut -d' ' -f2 "$W/t")" '{ n = split($1, a, ";"); s += $NF; d += n * $NF
		if ($0 ~ /^_start;/) m += $NF }
		END { printf "%d %d %.1f %.3f\n", cpu, s, s ? d / s : 0, s ? m / s : 0 }' "$W/f"
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# bench NAME CMD...: the three modes, interleaved runs.
bench() {
	name=$1
	shift
	: > "$W/$name.rows"
	i=0
	while [ $i -lt "$RUNS" ]; do
		for mode in flat fp cfi; do
			for hz in 10000 1; do
				echo "$mode $hz $(one "$name" $mode $hz "$@")" >> "$W/$name.rows"
			done
		done
		i=$((i + 1))
	done
	printf '%-10s %-5s %12s %12s %10s %8s %8s\n' "$name" mode "fixed cpu ms" samples \
		"ns/sample" depth "_start"
	for mode in flat fp cfi; do
		base=$(awk -v m=$mode '$1 == m && $2 == 1 { print $3 }' "$W/$name.rows" | median)
		awk -v m=$mode -v base="$base" '$1 == m && $2 == 10000 && $4 > 0 {
			print ($3 - base) * 1000 / $4, $4, $5, $6 }' "$W/$name.rows" |
			sort -n > "$W/per"
		per=$(cut -d' ' -f1 "$W/per" | median)
		samples=$(cut -d' ' -f2 "$W/per" | median)
		depth=$(cut -d' ' -f3 "$W/per" | median)
		main=$(cut -d' ' -f4 "$W/per" | median)
		printf '%-10s %-5s %12.1f %12d %10.0f %8s %8s\n' "" $mode "$(echo "$base" |
			awk '{ print $1 / 1000 }')" "$samples" "$per" "$depth" "$main"
	done
}

echo "# bench/handler.sh: the walk alone"
"$B/bench/unwindbench"
echo
echo "# bench/handler.sh: whole samples, $RUNS runs, --clock timer -F 10000 against -F 1"
bench cfistack "$B/tests/record/cfistack" split 2
# The interpreter itself, not a shim that runs shells first (pyenv).
if [ -x /usr/bin/python3 ]; then
	bench python3 /usr/bin/python3 "$W/w.py"
fi

# What the tables cost each process that starts: CPU of a program that does nothing.
echo
echo "# bench/handler.sh: start-up and exit, CPU ms (median of $RUNS), --clock timer"
printf '%-28s %8s %8s %8s\n' "# program" flat fp cfi
for prog in /bin/true "/bin/bash -c true" "/usr/bin/python3 -c pass"; do
	[ -x "${prog%% *}" ] || continue
	row=
	for mode in 0 fp cfi; do
		: > "$W/s"
		i=0
		while [ $i -lt "$RUNS" ]; do
			# shellcheck disable=SC2086
			LD_PRELOAD=$B/libprofil-record.so PROFIL_RECORD_DIR=$W/start \
				PROFIL_RECORD_CLOCK=timer PROFIL_RECORD_STACKS=$mode \
				"$W/cputime" "$W/t" $prog > /dev/null 2>&1
			cut -d' ' -f2 "$W/t" >> "$W/s"
			i=$((i + 1))
		done
		row="$row $(median < "$W/s" | awk '{ printf "%8.1f", $1 / 1000 }')"
	done
	printf '%-28s%s\n' "$prog" "$row"
done
