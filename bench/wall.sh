#!/bin/sh
# bench/wall.sh - what profil record --wall costs a server-like program (bench/record-idle.c:
# N threads waiting on a condition variable the whole run, a main thread alternating 5 ms of
# CPU and 5 ms of sleep for 3 s), for N = 0, 50 and 200 idle threads.  Rows, interleaved,
# BENCH_RUNS runs each (default 3), medians:
#   none     unprofiled
#   cpu      profil record -g -F 100 (CPU samples only)
#   wall     profil record --wall (-F 100: CPU samples, and every waiting thread each tick)
#   inside   profil record --wall --clock timer: the same from the recorder's thread inside
#            the program, as where perf events are refused
# Reported: wall time and the whole tree's CPU (profil's own process included) as ratios to the
# unprofiled run, profil's own CPU per second of the run (the tree's CPU minus the unprofiled
# program's), and the samples of waiting threads.
. "$(dirname "$0")/lib.sh"
RUNS=${BENCH_RUNS:-3}
bench_scratch wall
bench_helpers cputime:record-cputime idle:record-idle
if ! "$PROFIL" record --wall -o probe -- true > /dev/null 2>&1; then
	echo "wall.sh: profil record --wall cannot run here (perf events refused?)" >&2
	exit 1
fi

# row THREADS TOOL RUN: "THREADS TOOL wall_us cpu_us waits"
row() {
	d=$TMP/$1.$2.$3
	mkdir -p "$d"
	case $2 in
	none) "$W/cputime" "$d/time" "$W/idle" "$1" 3 ;;
	cpu) "$W/cputime" "$d/time" "$PROFIL" record -g -F 100 -o "$d/out" -- "$W/idle" "$1" 3 ;;
	wall) "$W/cputime" "$d/time" "$PROFIL" record --wall -o "$d/out" -- "$W/idle" "$1" 3 ;;
	inside) "$W/cputime" "$d/time" "$PROFIL" record --wall --clock timer -o "$d/out" -- \
		"$W/idle" "$1" 3 ;;
	esac > /dev/null 2>&1 || { echo "wall.sh: $1 $2 failed" >&2; return 1; }
	waits=0
	[ "$2" = wall ] || [ "$2" = inside ] && waits=$("$PROFIL" export -f folded "$d/out" 2> /dev/null |
		awk '/\[wait:/ { s += $NF } END { print s + 0 }')
	echo "$1 $2 $(cat "$d/time") $waits"
}

r=1
while [ $r -le "$RUNS" ]; do
	for n in 0 50 200; do
		for tool in none cpu wall inside; do
			row $n $tool $r >> raw
		done
	done
	r=$((r + 1))
done

echo "## wall.sh: --wall on a program with idle threads (100 Hz)"
echo
echo "$RUNS runs each, interleaved, medians; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
awk "$MEDIAN"'
{
	k = $1 " " $2
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	wall[k] = wall[k] " " $3; cpu[k] = cpu[k] " " $4; waits[k] = waits[k] " " $5
}
END {
	printf "| idle threads | profiler | wall ratio | CPU ratio | profil CPU ms/s | wait samples |\n"
	printf "|---|---|---|---|---|---|\n"
	for (i = 1; i <= nk; i++) {
		k = order[i]; split(k, p, " ")
		bw = median(wall[p[1] " none"]); bc = median(cpu[p[1] " none"])
		w = median(wall[k]); c = median(cpu[k])
		printf "| %s | %s | %.3f | %.3f | %.1f | %d |\n", p[1], p[2], w / bw, c / bc,
		    (c - bc) / (w / 1000), median(waits[k])
	}
}' raw
