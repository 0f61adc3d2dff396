#!/bin/sh
# bench/profil.sh - profil(3): ours against glibc's on the same CPU-bound workload.
#
# One fixed amount of work (bench/progs/cpusplit.c: alpha, beta, gamma in a 5:3:2 split of CPU
# time, measured per call on the thread CPU clock) is run, interleaved, BENCH_RUNS times each:
#   none        the workload built without libprofil, profiling off (the baseline)
#   linked      built with libprofil, profiling off (the cost of merely loading it)
#   glibc       glibc's profil(): ITIMER_PROF and SIGPROF, always 100 Hz
#   ours 100    our profil() at 100 Hz (AUTO: per-thread CPU-clock timers)
#   ours 1000   our profil() at 1 kHz (AUTO: perf task-clock events, or timers if refused)
#   timer 1000  our profil() at 1 kHz on CPU-clock timers: at most CONFIG_HZ signals a second,
#               the rest counted from si_overrun
# in two variants: st (one thread) and mt (alpha on one thread, beta and gamma on another).
# Reported, as medians over the runs: process CPU time and wall time as ratios to the
# baseline's median, the worst error of a function's sampled share against its measured CPU
# share in percentage points, and samples (bin counts) and signals obtained per second of
# process CPU time.
#
# Environment: B (build dir), BENCH_RUNS (default 5), BENCH_CPU_SECONDS (work per run, default 2).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$ROOT/build}
RUNS=${BENCH_RUNS:-5}
SECONDS_PER_RUN=${BENCH_CPU_SECONDS:-2}
OURS=$B/bench/cpusplit
PLAIN=$B/bench/cpusplit.plain

if [ ! -x "$OURS" ] || [ ! -x "$PLAIN" ]; then
	echo "profil.sh: missing $OURS or $PLAIN (run: make B=$B bench)" >&2
	exit 1
fi
RAW=$(mktemp "${TMPDIR:-/tmp}/profil-bench.XXXXXX")
trap 'rm -f "$RAW"' EXIT

# Size the work for this machine: the same ITERS for every run of every configuration.
ips=$("$PLAIN" calibrate | sed -n 's/^iters_per_s=//p')
if [ -z "$ips" ]; then
	echo "profil.sh: calibration failed" >&2
	exit 1
fi
ITERS=$(awk -v i="$ips" -v s="$SECONDS_PER_RUN" 'BEGIN { printf "%.0f", i * s }')

CONFIGS="none:$PLAIN:0:auto linked:$OURS:0:auto glibc:$PLAIN:100:auto ours100:$OURS:100:auto
ours1000:$OURS:1000:auto timer1000:$OURS:1000:timer"
run=1
while [ "$run" -le "$RUNS" ]; do
	for variant in st mt; do
		for c in $CONFIGS; do
			name=${c%%:*}
			rest=${c#*:}
			clock=${rest##*:}
			rest=${rest%:*}
			prog=${rest%:*}
			hz=${rest##*:}
			if ! line=$("$prog" "$variant" "$hz" "$ITERS" 20 "$clock"); then
				echo "profil.sh: $name $variant run $run failed" >&2
				exit 1
			fi
			echo "variant=$variant config=$name $line" >> "$RAW"
		done
	done
	run=$((run + 1))
done

# One line per run: variant config cpu_s wall_s err_pp samples_per_cpu_s clock achieved_hz
# signals_per_cpu_s
per_run() {
	awk '{
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			v[kv[1]] = kv[2]
		}
		truth = v["alpha_ns"] + v["beta_ns"] + v["gamma_ns"]
		err = "-"
		if (v["samples"] > 0) {
			err = 0
			split("alpha beta gamma", fn, " ")
			for (f = 1; f <= 3; f++) {
				d = 100 * v[fn[f] "_samples"] / v["samples"] - 100 * v[fn[f] "_ns"] / truth
				if (d < 0)
					d = -d
				if (d > err)
					err = d
			}
		}
		printf "%s %s %.6f %.6f %s %.1f %s %s %.1f\n", v["variant"], v["config"],
		    v["cpu_ns"] / 1e9, v["wall_ns"] / 1e9, err,
		    v["samples"] / (v["cpu_ns"] / 1e9), v["clock"], v["achieved_hz"],
		    v["signals"] / (v["cpu_ns"] / 1e9)
	}' "$RAW"
}

# median VARIANT CONFIG FIELD: the median of one column over the runs.
median() {
	per_run | awk -v w="$1" -v c="$2" -v f="$3" '$1 == w && $2 == c { print $f }' |
	    sort -g | awk '{ a[NR] = $1 }
		END {
			if (NR == 0 || a[1] == "-") { print "-"; exit }
			if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2
		}'
}

worst() {
	per_run | awk -v w="$1" -v c="$2" '$1 == w && $2 == c && $5 != "-" { if ($5 > m) m = $5; n++ }
		END { if (n) printf "%.2f", m; else print "-" }'
}

clock_of() {
	per_run | awk -v w="$1" -v c="$2" '$1 == w && $2 == c { print $7; exit }'
}

echo "## profil(3): overhead and accuracy, ours vs glibc"
echo
echo "Workload: cpusplit, 5:3:2 split of CPU time over alpha/beta/gamma, ~${SECONDS_PER_RUN} CPU-s"
echo "of fixed work per run ($ITERS loop iterations), $RUNS interleaved runs per row; medians."
echo "st: one thread.  mt: alpha on one thread, beta+gamma on another, concurrently."
echo
printf '| %-7s | %-10s | %-6s | %9s | %10s | %12s | %10s | %13s | %13s |\n' variant profiler \
    clock "CPU ratio" "wall ratio" "max err (pp)" "worst (pp)" "samples/CPU-s" "signals/CPU-s"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' --------- ------------ -------- ----------- ------------ \
    -------------- ------------ --------------- ---------------
for variant in st mt; do
	base_cpu=$(median "$variant" none 3)
	base_wall=$(median "$variant" none 4)
	for c in $CONFIGS; do
		name=${c%%:*}
		cpu=$(median "$variant" "$name" 3)
		wall=$(median "$variant" "$name" 4)
		err=$(median "$variant" "$name" 5)
		sps=$(median "$variant" "$name" 6)
		sigps=$(median "$variant" "$name" 9)
		case $name in
		none | linked) sps=- sigps=- label=$name ;;
		glibc) label="glibc 100" ;;
		ours100) label="ours 100" ;;
		ours1000) label="ours 1000" ;;
		timer1000) label="ours 1000" ;;
		esac
		[ "$err" = - ] || err=$(printf '%.2f' "$err")
		printf '| %-7s | %-10s | %-6s | %9.3f | %10.3f | %12s | %10s | %13s | %13s |\n' \
		    "$variant" "$label" "$(clock_of "$variant" "$name")" \
		    "$(awk -v a="$cpu" -v b="$base_cpu" 'BEGIN { print a / b }')" \
		    "$(awk -v a="$wall" -v b="$base_wall" 'BEGIN { print a / b }')" \
		    "$err" "$(worst "$variant" "$name")" "$sps" "$sigps"
	done
done
echo
echo "Baseline medians (none): st $(median st none 3) CPU-s, mt $(median mt none 3) CPU-s /" \
    "$(median mt none 4) wall-s."
# The noise floor: ratios closer to 1 than the baseline's own spread are not an overhead.
for variant in st mt; do
	per_run | awk -v w="$variant" -v mc="$(median "$variant" none 3)" \
	    -v mw="$(median "$variant" none 4)" '$1 == w && $2 == "none" {
		if (n == 0 || $3 < lc) lc = $3; if ($3 > hc) hc = $3
		if (n == 0 || $4 < lw) lw = $4; if ($4 > hw) hw = $4; n++ }
		END { printf "Baseline spread (%s, min..max over median): " \
		    "CPU %.3f..%.3f, wall %.3f..%.3f\n",
		    w, lc / mc, hc / mc, lw / mw, hw / mw }'
done
