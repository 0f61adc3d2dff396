#!/bin/sh
# bench/record.sh - `profil record` against gperftools' libprofiler and `perf record` on the
# same unmodified workload, in one run.
#
# Workload: tests/record/split -n BLOCKS, a fixed amount of work split 50/25/15/10 between
# main_work50 and main_work10 in the PIE, lib_work25 in a linked library and plugin_work15 in a
# dlopen'ed one it closes before exiting (BLOCKS calibrated to BENCH_RECORD_SECONDS of CPU,
# default 1), BENCH_RUNS (default 3) runs of every row, interleaved.  Rows:
#   none            unprofiled: the baseline
#   profil HZ       profil record --user-only -F HZ (from outside: perf events read by profil
#                   itself; user space alone, as perf's cpu-clock:u)
#   inside HZ       profil record -F HZ --clock ring (the preloaded recorder, the fallback)
#   perf HZ         perf record -e cpu-clock:u -c 1e9/HZ (the kernel writes a ring buffer)
#   gperftools HZ   LD_PRELOAD=libprofiler.so CPUPROFILE_FREQUENCY=HZ (ITIMER_PROF, SIGPROF)
# at 100 Hz, 1 kHz and 10 kHz.  Reported, as medians: wall and CPU time (user+sys of the whole
# process tree, the profiler's own process included, from wait4 in microseconds) as ratios to
# the baseline; samples obtained per CPU second of the baseline and as % of the requested rate;
# max error of the four functions' shares in percentage points against the known split (each
# tool's own report; samples it cannot name count as misses); CPU cost per sample (extra CPU
# over the baseline / samples).  Then the start-up plus exit cost: wall time added to a program
# that does nothing.
#
# Runs standalone after `make` (it builds its workload from tests/record/ with $CC if needed);
# rows whose tool is missing are skipped.  Environment: B, CC, BENCH_RUNS, BENCH_RECORD_SECONDS.
. "$(dirname "$0")/lib.sh"
RUNS=${BENCH_RUNS:-3}
SECS=${BENCH_RECORD_SECONDS:-1}
GPERF=$(ls /usr/lib/*/libprofiler.so.0 2>/dev/null | head -n 1)
bench_scratch record

if [ ! -x "$PROFIL" ] || [ ! -f "$B/libprofil-record.so" ]; then
	echo "record.sh: missing $PROFIL or $B/libprofil-record.so (run: make B=$B)" >&2
	exit 1
fi
mkdir -p "$W"
if [ ! -x "$W/split" ] || [ "$ROOT/tests/record/split.c" -nt "$W/split" ]; then
	$CC -O2 -g -fno-omit-frame-pointer -fPIC -shared -o "$W/libsplit.so" \
		"$ROOT/tests/record/lib/split.c" &&
	$CC -O2 -g -fno-omit-frame-pointer -fPIC -shared -o "$W/libsplitplugin.so" \
		"$ROOT/tests/record/lib/splitplugin.c" &&
	$CC -O2 -g -fno-omit-frame-pointer -pthread -o "$W/split" "$ROOT/tests/record/split.c" \
		-L"$W" -Wl,-rpath,"$W" -lsplit -ldl ||
		{ echo "record.sh: cannot build" >&2; exit 1; }
fi
bench_helpers cputime:record-cputime

# timed OUT CMD...: runs CMD; OUT.time gets "wall_us cpu_us" of the whole tree.
timed() {
	out=$1
	shift
	"$W/cputime" "$out.time" "$@" > "$out.stdout" 2> "$out.stderr"
}

# Calibrate the work to SECS of CPU, unprofiled.
timed "$TMP/cal" "$W/split" -n 4000 "$W/libsplitplugin.so" ||
	{ echo "record.sh: calibration failed" >&2; exit 1; }
BLOCKS=$(awk -v s="$SECS" '{ printf "%d", 4000 * s * 1e6 / $2 }' "$TMP/cal.time")
SPLIT="$W/split -n $BLOCKS $W/libsplitplugin.so"

# counts TOOL DIR: "samples main_work50 lib_work25 plugin_work15 main_work10" from the tool's
# own report of the run in DIR.
counts() {
	case $1 in
	profil|inside)
		"$PROFIL" report --tsv "$2/out" 2> /dev/null | awk -F '\t' '
			NR > 1 { t += $6; f = $7; sub(/_blocks$/, "", f); s[f] += $6 }
			END { print t, s["main_work50"] + 0, s["lib_work25"] + 0,
			    s["plugin_work15"] + 0, s["main_work10"] + 0 }' ;;
	perf)
		perf report -i "$2/perf.data" --stdio -n --sort sym -q 2> /dev/null | awk '
			NF >= 4 { t += $2; f = $NF; sub(/_blocks$/, "", f); s[f] += $2 }
			END { print t, s["main_work50"] + 0, s["lib_work25"] + 0,
			    s["plugin_work15"] + 0, s["main_work10"] + 0 }' ;;
	gperftools)
		google-pprof --text "$W/split" "$2/cpu.prof" 2> /dev/null | awk '
			/^Total:/ { t = $2 } NF == 6 { f = $6; sub(/_blocks$/, "", f); s[f] += $1 }
			END { print t + 0, s["main_work50"] + 0, s["lib_work25"] + 0,
			    s["plugin_work15"] + 0, s["main_work10"] + 0 }' ;;
	esac
}

run_row() {
	tool=$1 hz=$2 d=$TMP/$1.$2.$3
	mkdir -p "$d"
	case $tool in
	none)
		timed "$d/run" $SPLIT ;;
	profil)
		timed "$d/run" "$PROFIL" record --user-only -F "$hz" -o "$d/out" -- $SPLIT ;;
	inside)
		timed "$d/run" "$PROFIL" record --clock ring -F "$hz" -o "$d/out" -- $SPLIT ;;
	perf)
		timed "$d/run" perf record -q -e cpu-clock:u -c $((1000000000 / hz)) \
			-o "$d/perf.data" -- $SPLIT ;;
	gperftools)
		timed "$d/run" env LD_PRELOAD="$GPERF" CPUPROFILE="$d/cpu.prof" \
			CPUPROFILE_FREQUENCY="$hz" $SPLIT ;;
	esac || { echo "record.sh: $tool $hz run $3 failed" >&2; return 1; }
	set -- $(cat "$d/run.time")
	if [ "$tool" = none ]; then
		echo "none 0 $1 $2 0 0 0 0 0 $run"
	else
		echo "$tool $hz $1 $2 $(counts "$tool" "$d") $run"
	fi
}

TOOLS="profil inside"
command -v perf > /dev/null && perf record -q -o "$TMP/probe.data" -e cpu-clock:u true \
	> /dev/null 2>&1 && TOOLS="$TOOLS perf"
[ -n "$GPERF" ] && command -v google-pprof > /dev/null && TOOLS="$TOOLS gperftools"

RAW=$TMP/raw
run=1
while [ "$run" -le "$RUNS" ]; do
	run_row none 0 "$run" >> "$RAW"
	for tool in $TOOLS; do
		for hz in 100 1000 10000; do
			run_row "$tool" "$hz" "$run" >> "$RAW"
		done
	done
	run=$((run + 1))
done

echo "## record.sh: profil record vs perf record vs gperftools (workload: split 50/25/15/10)"
echo
echo "$RUNS runs of $BLOCKS blocks (about $SECS s of CPU) each, medians; CPU includes the"
echo "profiler's own process; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
awk "$MEDIAN"'
{
	key = $1 " " $2
	if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
	wall[key] = wall[key] " " $3; cpu[key] = cpu[key] " " $4
	if ($1 == "none") next
	t = $5
	rate[key] = rate[key] " " ($4 > 0 ? t / ($4 / 1e6) : 0)
	err = 0
	split("0.50 0.25 0.15 0.10", p, " ")
	for (i = 1; i <= 4; i++) {
		got = t > 0 ? $(5 + i) / t : 0
		e = got - p[i]; if (e < 0) e = -e
		if (e > err) err = e
	}
	acc[key] = acc[key] " " err * 100
	samples[key] = samples[key] " " t
	# per run, for the marginal cost: the 1 kHz and 10 kHz rows of one run ran back to back
	rc[$1, $2, $10] = $4; rs[$1, $2, $10] = t; if ($10 > nruns) nruns = $10
}
END {
	bw = median(wall["none 0"]); bc = median(cpu["none 0"])
	printf "| profiler | requested Hz | wall ratio | CPU ratio | samples/CPU s | %% of rate |"
	printf " max error (pp) |\n"
	printf "|---|---|---|---|---|---|---|\n"
	printf "| none | - | 1.000 | 1.000 | - | - | - |\n"
	for (k = 1; k <= nk; k++) {
		key = order[k]
		if (key == "none 0") continue
		tname = key; sub(/ .*/, "", tname)
		thz = key; sub(/.* /, "", thz)
		tools[tname] = 1
		c = median(cpu[key]); r = median(rate[key])
		printf "| %s | %d | %.3f | %.3f | %.0f | %.1f | %.2f |\n", tname, thz,
		    median(wall[key]) / bw, c / bc, r, r / thz * 100, median(acc[key])
	}
	printf "\nCPU cost per sample: marginal, from the 1 kHz to the 10 kHz row of each run (fixed\n"
	printf "start-up costs cancel; the two rows ran back to back), median over runs; and the\n"
	printf "10 kHz row against the unprofiled baseline.\n\n"
	printf "| profiler | us/sample, 1k->10k | us/sample, 10k vs none |\n|---|---|---|\n"
	for (tool in tools) {
		c1 = median(cpu[tool " 1000"]); s1 = median(samples[tool " 1000"])
		c2 = median(cpu[tool " 10000"]); s2 = median(samples[tool " 10000"])
		if (s2 > 1.5 * s1) {
			slopes = ""
			for (r = 1; r <= nruns; r++)
				if (rs[tool, 10000, r] > rs[tool, 1000, r])
					slopes = slopes " " (rc[tool, 10000, r] - rc[tool, 1000, r]) / \
					    (rs[tool, 10000, r] - rs[tool, 1000, r])
			m = sprintf("%.1f", median(slopes))
		} else
			m = sprintf("n/a (rate capped at %.0f/s)", median(rate[tool " 10000"]))
		printf "| %s | %s | %.1f |\n", tool, m, (s2 > 0 ? (c2 - bc) / s2 : 0)
	}
}' "$RAW"

# Start-up plus exit: the wall time added to a program that exits at once (median of 5).
echo
echo "Start-up plus exit, added wall time on a program that does nothing (median of 5):"
echo
startup() {
	i=0
	while [ $i -lt 5 ]; do
		s=$(date +%s%N)
		"$@" > /dev/null 2>&1
		e=$(date +%s%N)
		echo $(((e - s) / 1000))
		i=$((i + 1))
	done | sort -n | sed -n 3p
}
base=$(startup /bin/true)
echo "| profiler | added wall (ms) |"
echo "|---|---|"
# added NAME CMD...: a table row with the wall time CMD adds to /bin/true, in ms.
added() {
	name=$1
	shift
	echo "| $name | $(awk -v a="$(startup "$@")" -v b="$base" \
	    'BEGIN { printf "%.1f", (a - b) / 1000 }') |"
}
added "profil record" "$PROFIL" record -o "$TMP/st" -- /bin/true
added "profil record --clock ring" "$PROFIL" record --clock ring -o "$TMP/st" -- /bin/true
case " $TOOLS " in *" perf "*)
	added "perf record" perf record -q -e cpu-clock:u -o "$TMP/st.data" -- /bin/true ;;
esac
case " $TOOLS " in *" gperftools "*)
	added gperftools env LD_PRELOAD="$GPERF" CPUPROFILE="$TMP/st.prof" /bin/true ;;
esac
