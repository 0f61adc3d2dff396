#!/bin/sh
# bench/kernel.sh - what sampling the kernel costs: `profil record` with kernel samples against
# `perf record -e cpu-clock` with kernel samples, on a program that spends about half its CPU
# time in system calls (tests/record/syscalls.c: reads of 64 KiB from /dev/zero, each followed
# by arithmetic of its own; BENCH_KERNEL_READS of them, default 150000, about 1 s of CPU), at
# 1 kHz and 10 kHz.  Rows, interleaved, BENCH_RUNS runs each (default 3), medians:
#   none        unprofiled
#   profil      profil record -F HZ (from outside, the kernel sampled too: needs root,
#               CAP_PERFMON or perf_event_paranoid <= 1)
#   user-only   profil record -F HZ --user-only (the kernel's time only counted)
#   perf        perf record -B -e cpu-clock -c 1e9/HZ (-B: perf 6.1 aborts in its build-id pass
#               on a recording with kernel samples)
# Reported: wall time and the whole tree's CPU (the profiler's own process included, from wait4
# in microseconds) as ratios to the unprofiled run, the samples, and the share of them in the
# kernel by the tool's own report.  The figure of the issue (20): profil's CPU ratio over perf's.
. "$(dirname "$0")/lib.sh"
RUNS=${BENCH_RUNS:-3}
READS=${BENCH_KERNEL_READS:-150000}
bench_scratch kernel
bench_helpers cputime:record-cputime
if [ ! -x "$W/syscalls" ] || [ "$ROOT/tests/record/syscalls.c" -nt "$W/syscalls" ]; then
	$CC -O2 -g -o "$W/syscalls" "$ROOT/tests/record/syscalls.c" ||
		{ echo "kernel.sh: cannot build the workload" >&2; exit 1; }
fi
"$PROFIL" record -q -o probe -- "$W/syscalls" 10 > /dev/null 2>&1 &&
	"$PROFIL" dump probe/*.profil | grep -q "^mapping .* \[kernel\]$" ||
	{ echo "kernel.sh: profil record does not sample the kernel here (not root?)" >&2; exit 1; }
PERF=
command -v perf > /dev/null && perf record -q -B -e cpu-clock -o probe.data -- true \
	> /dev/null 2>&1 && PERF=perf

# row HZ TOOL RUN: "HZ:TOOL wall_us cpu_us samples kernel_samples"
row() {
	d=$TMP/$1.$2.$3
	mkdir -p "$d"
	case $2 in
	none) "$W/cputime" "$d/time" "$W/syscalls" "$READS" ;;
	profil) "$W/cputime" "$d/time" "$PROFIL" record -q -F "$1" -o "$d/out" -- \
		"$W/syscalls" "$READS" ;;
	user-only) "$W/cputime" "$d/time" "$PROFIL" record -q --user-only -F "$1" -o "$d/out" -- \
		"$W/syscalls" "$READS" ;;
	perf) "$W/cputime" "$d/time" perf record -q -B -e cpu-clock -c $((1000000000 / $1)) \
		-o "$d/perf.data" -- "$W/syscalls" "$READS" ;;
	esac > /dev/null 2>&1 || { echo "kernel.sh: $1 $2 failed" >&2; return 1; }
	case $2 in
	none) set -- 0 0 ;;
	perf) set -- $(perf report -i "$d/perf.data" --stdio -q --comm syscalls --sort dso \
		-F sample,dso 2> /dev/null |
		awk '{ n += $1; if ($2 ~ /^\[kernel/) k += $1 } END { print n + 0, k + 0 }') ;;
	*) set -- $("$PROFIL" report --tsv "$d/out" 2> /dev/null |
		awk -F '\t' 'NR > 1 { n += $6; if ($8 == "[kernel]") k += $6 }
			END { print n + 0, k + 0 }') ;;
	esac
	echo "$hz:$tool $(cat "$d/time") $1 $2"
}

r=1
while [ $r -le "$RUNS" ]; do
	for hz in 1000 10000; do
		for tool in none profil user-only ${PERF:+perf}; do
			row $hz $tool $r >> raw
		done
	done
	r=$((r + 1))
done

echo "## kernel.sh: kernel samples, profil record against perf record (workload: syscalls)"
echo
echo "$RUNS runs each, interleaved, medians; $READS reads; load average" \
	"$(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
awk "$MEDIAN"'
{
	if (!($1 in seen)) { seen[$1] = 1; order[++nk] = $1 }
	wall[$1] = wall[$1] " " $2; cpu[$1] = cpu[$1] " " $3
	n[$1] = n[$1] " " $4; k[$1] = k[$1] " " ($4 > 0 ? $5 / $4 : 0)
}
END {
	printf "| rate | profiler | wall ratio | CPU ratio | samples | kernel share |\n"
	printf "|---|---|---|---|---|---|\n"
	for (i = 1; i <= nk; i++) {
		key = order[i]; split(key, p, ":")
		bw = median(wall[p[1] ":none"]); bc = median(cpu[p[1] ":none"])
		c[key] = median(cpu[key]) / bc
		printf "| %s Hz | %s | %.3f | %.3f | %d | %s |\n", p[1], p[2],
		    median(wall[key]) / bw, c[key], median(n[key]),
		    p[2] == "none" ? "-" : sprintf("%.1f%%", 100 * median(k[key]))
	}
	printf "\n"
	for (i = 1; i <= nk; i++) {
		key = order[i]; split(key, p, ":")
		if (p[2] == "profil" && (p[1] ":perf") in c)
			printf "At %s Hz, profil with kernel samples costs %.3f of the CPU perf " \
			    "record does (CPU ratios %.3f and %.3f).\n", p[1],
			    c[key] / c[p[1] ":perf"], c[key], c[p[1] ":perf"]
	}
}' raw
