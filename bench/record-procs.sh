#!/bin/sh
# bench/record-procs.sh - the outside recorder where the preloaded one paid most: a
# context-switch-heavy program (two threads ping-ponging over pipes, short sleeps), a loop of
# short processes (sh running sha256sum 300 times), and the report over the hundreds of files
# such a loop leaves.  Rows, interleaved, BENCH_RUNS runs each (default 5), medians:
#   none      unprofiled
#   profil    profil record --user-only (from outside; user space alone, as perf's :u)
#   inside    profil record --clock ring (the preloaded recorder)
#   perf      perf record -e cpu-clock:u
# all at 1 kHz.  Reported: wall and CPU (whole process tree, the profiler included) as ratios
# to the unprofiled run; for the loop, samples and the dynamic loader's share (where the
# time of short processes goes); and the time of `profil report` on profil's files against
# `perf report --stdio` on perf's file of the same loop.
. "$(dirname "$0")/lib.sh"
RUNS=${BENCH_RUNS:-5}
bench_scratch procs
bench_helpers cputime:record-cputime pingpong:record-pingpong
TOOLS="profil inside"
command -v perf > /dev/null && perf record -q -o "$TMP/probe.data" -e cpu-clock:u true \
	> /dev/null 2>&1 && TOOLS="$TOOLS perf"

PING="$W/pingpong 40000"
LOOP='for i in $(seq 300); do sha256sum /dev/null; done'

# row WORKLOAD TOOL RUN: "WORKLOAD TOOL wall_us cpu_us samples ldso_samples"
row() {
	d=$TMP/$1.$2.$3
	mkdir -p "$d"
	case $1 in ping) set -- "$1" "$2" "$3" $PING ;; loop) set -- "$1" "$2" "$3" sh -c "$LOOP" ;; esac
	w=$1 tool=$2
	shift 3
	case $tool in
	none) "$W/cputime" "$d/time" "$@" ;;
	profil) "$W/cputime" "$d/time" "$PROFIL" record --user-only -o "$d/out" -- "$@" ;;
	inside) "$W/cputime" "$d/time" "$PROFIL" record --clock ring -o "$d/out" -- "$@" ;;
	perf) "$W/cputime" "$d/time" perf record -q -e cpu-clock:u -c 1000000 \
		-o "$d/perf.data" -- "$@" ;;
	esac > /dev/null 2>&1 || { echo "record-procs.sh: $w $tool failed" >&2; return 1; }
	case $tool in
	profil|inside) counts=$("$PROFIL" report --tsv "$d/out" 2> /dev/null | awk -F '\t' '
		NR > 1 { n += $6; if ($8 ~ /^ld-linux/) l += $6 } END { print n + 0, l + 0 }') ;;
	perf) counts=$(perf report -i "$d/perf.data" --stdio --sort dso -F sample,dso \
		2> /dev/null | awk '/^ *[0-9]/ { n += $1; if ($2 ~ /^ld-linux/) l += $1 }
		END { print n + 0, l + 0 }') ;;
	*) counts="0 0" ;;
	esac
	echo "$w $tool $(cat "$d/time") $counts"
}

r=1
while [ $r -le "$RUNS" ]; do
	for w in ping loop; do
		for tool in none $TOOLS; do
			row $w $tool $r >> raw
		done
	done
	r=$((r + 1))
done

echo "## record-procs.sh: context switches and short processes (1 kHz)"
echo
echo "$RUNS runs each, interleaved, medians; CPU includes the profiler's own process; load"
echo "average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
awk "$MEDIAN"'
{
	k = $1 " " $2
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	wall[k] = wall[k] " " $3; cpu[k] = cpu[k] " " $4; n[k] = n[k] " " $5
	ld[k] = ld[k] " " ($5 > 0 ? $6 / $5 : 0)
}
END {
	printf "| workload | profiler | wall ratio | CPU ratio | samples | ld.so share |\n"
	printf "|---|---|---|---|---|---|\n"
	for (i = 1; i <= nk; i++) {
		k = order[i]; split(k, p, " ")
		bw = median(wall[p[1] " none"]); bc = median(cpu[p[1] " none"])
		if (p[2] == "none")
			printf "| %s | none | 1.000 | 1.000 | - | - |\n", p[1]
		else
			printf "| %s | %s | %.3f | %.3f | %d | %.2f |\n", p[1], p[2],
			    median(wall[k]) / bw, median(cpu[k]) / bc, median(n[k]), median(ld[k])
	}
}' raw

# Report time on the loop's files: profil report over every file of one run, perf report on
# perf's one file of the same workload; medians of 3.
last=$TMP/loop.profil.$RUNS/out
nfiles=$(ls "$last" | wc -l)
echo
echo "Report time on the short-process loop (median of 3):"
echo
echo "| report | input | ms |"
echo "|---|---|---|"
echo "| profil report | $nfiles files | $(bench_ms3 "$PROFIL" report "$last") |"
echo "| profil report --per-process | $nfiles files | $(bench_ms3 "$PROFIL" report --per-process "$last") |"
case " $TOOLS " in *" perf "*)
	echo "| perf report --stdio | 1 file | $(bench_ms3 perf report --stdio -i "$TMP/loop.perf.$RUNS/perf.data") |"
esac
