#!/bin/sh
# bench/record-system.sh - the cost of recording every process of the machine: `profil record -a`
# against `perf record -a` at the same rate (1 kHz, user space), flat and with call stacks
# (profil -g against perf --call-graph dwarf), over a window of BENCH_SECONDS (default 10) while
# two `split` programs burn both CPUs.  The recorder's own CPU time (the window's command is
# `sleep`, which uses none), the samples it kept and the bytes it wrote; BENCH_RUNS (default 3)
# interleaved runs, medians.  Needs root (system-wide events).  Environment: B (build dir).
. "$(dirname "$0")/lib.sh"
RUNS=${BENCH_RUNS:-3}
SECS=${BENCH_SECONDS:-10}
bench_scratch record-system

if ! "$PROFIL" record -q -a -o probe -- true > /dev/null 2>&1; then
	echo "record-system.sh: system-wide perf events refused here (root or CAP_PERFMON)" >&2
	exit 1
fi
TOOLS="profil profil-g"
command -v perf > /dev/null 2>&1 && TOOLS="$TOOLS perf perf-g"
SPLIT=$B/tests/record/split
PLUGIN=$B/tests/record/libsplitplugin.so
[ -x "$SPLIT" ] || { echo "record-system.sh: build $SPLIT first (make check)" >&2; exit 1; }

# One row per run, "TOOL CPU_MS SAMPLES BYTES".
for run in $(seq "$RUNS"); do
	for t in $TOOLS; do
		rm -rf out out.old perf.data
		"$SPLIT" $((SECS + 2)) "$PLUGIN" > /dev/null & a=$!
		"$SPLIT" $((SECS + 2)) "$PLUGIN" > /dev/null & b=$!
		sleep 0.5
		case $t in
		profil) set -- "$PROFIL" record -q -a --user-only -F 1000 -o out -- sleep "$SECS" ;;
		profil-g) set -- "$PROFIL" record -q -a --user-only -g -F 1000 -o out -- sleep "$SECS" ;;
		perf) set -- perf record -q -a -F 1000 -e cpu-clock:u -o perf.data -- sleep "$SECS" ;;
		perf-g) set -- perf record -q -a -F 1000 -e cpu-clock:u --call-graph dwarf \
		    -o perf.data -- sleep "$SECS" ;;
		esac
		/usr/bin/time -f "%U %S" -o cpu.txt "$@" > /dev/null 2>&1
		wait $a $b
		case $t in
		profil*)
			n=$(for f in out/*.profil; do "$PROFIL" dump "$f"; done |
			    awk '$1 == "sample" { s += $2 } END { print s + 0 }')
			bytes=$(cat out/*.profil | wc -c) ;;
		perf*)
			n=$(perf script -i perf.data -F pid 2>/dev/null | wc -l)
			bytes=$(wc -c < perf.data) ;;
		esac
		echo "$t $(awk '{ printf "%d", ($1 + $2) * 1000 }' cpu.txt) ${n:-0} $bytes"
	done
done > raw

echo "## record-system.sh: every process of the machine, profil record -a against perf record -a"
echo
echo "A window of $SECS s (\`-- sleep $SECS\`) at 1 kHz, user space, while two \`split\` programs"
echo "burn both CPUs; the recorder's own CPU time, samples kept and bytes written; medians of"
echo "$RUNS interleaved runs.  perf's CPU is its recording alone: its DWARF stacks are unwound"
echo "later, by \`perf report\`; profil's are walked while recording."
echo
echo "| recorder | CPU ms a second of window | samples | bytes | bytes a sample | CPU ratio to perf |"
echo "|---|---|---|---|---|---|"
awk -v secs="$SECS" "$MEDIAN"'
	{ c[$1] = c[$1] " " $2; n[$1] = n[$1] " " $3; b[$1] = b[$1] " " $4
	  if (!($1 in seen)) { seen[$1] = 1; o[++k] = $1 } }
	END {
		for (i = 1; i <= k; i++) {
			t = o[i]; peer = t ~ /-g$/ ? "perf-g" : "perf"
			name = t == "profil" ? "profil -a" : t == "profil-g" ? "profil -a -g" : \
			    t == "perf" ? "perf record -a" : "perf record -a --call-graph dwarf"
			ratio = (peer in seen) && median(c[peer]) > 0 ? \
			    sprintf("%.2f", median(c[t]) / median(c[peer])) : "-"
			printf "| %s | %.1f | %d | %d | %.1f | %s |\n", name, median(c[t]) / secs,
			    median(n[t]), median(b[t]),
			    (median(n[t]) > 0 ? median(b[t]) / median(n[t]) : 0), ratio
		}
	}' raw
