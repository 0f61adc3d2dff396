#!/bin/sh
# bench/jit.sh - JIT code by name: node (--perf-basic-prof) and the JVM
# (-XX:+DumpPerfMapAtExit), whose hottest code lies in anonymous memory named by a perf map,
# recorded by profil record and by perf record (user code only, as profil samples), at 1 kHz.
# Rows, interleaved, BENCH_RUNS runs each (default 3), medians:
#   none     unprofiled
#   profil   profil record --user-only (names copied into the profile when it is written)
#   perf     perf record -F 1000 --all-user (names read from /tmp by perf report)
# Reported: wall and CPU (the whole process tree, the profiler's own process included) as
# ratios to the unprofiled run (the work is fixed: 700 and 1000 rounds); of the last run, the samples, the share of them named (not
# [anon], [unmapped], [unknown] or an address), the hottest function's share in each tool,
# the output's size and the time to a flat report (profil report, perf report --stdio).
. "$(dirname "$0")/lib.sh"
RUNS=${BENCH_RUNS:-3}
bench_scratch jit
bench_helpers cputime:record-cputime
if ! perf record -q --all-user -o probe.data -- true > /dev/null 2>&1; then
	echo "jit.sh: perf record refused here" >&2
	exit 1
fi
# The workloads t2108 checks (tests/record/jit.js, Bench.java), with more rounds.
cp "$ROOT/tests/record/jit.js" "$ROOT/tests/record/Bench.java" .
javac -d . Bench.java || { echo "jit.sh: javac failed" >&2; exit 1; }

workload() {
	case $1 in
	node) echo "node node --perf-basic-prof $TMP/jit.js 700" ;;
	java) echo "java java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -cp $TMP Bench 1000" ;;
	esac
}

# row WORKLOAD TOOL RUN: "WORKLOAD TOOL wall_us cpu_us"
row() {
	d=$TMP/$1.$2.$3
	mkdir -p "$d"
	set -- "$1" "$2" "$3" $(workload "$1")
	w=$1 tool=$2
	shift 4
	case $tool in
	none) "$W/cputime" "$d/time" "$@" ;;
	profil) "$W/cputime" "$d/time" "$PROFIL" record --user-only -o "$d/out" -- "$@" ;;
	perf) "$W/cputime" "$d/time" perf record -q -F 1000 --all-user -o "$d/perf.data" -- "$@" ;;
	esac > /dev/null 2>&1 || { echo "jit.sh: $w $tool failed" >&2; return 1; }
	echo "$w $tool $(cat "$d/time")"
}

r=1
while [ $r -le "$RUNS" ]; do
	for w in node java; do
		for tool in none profil perf; do
			row $w $tool $r >> raw
		done
	done
	r=$((r + 1))
done

# facts WORKLOAD TOOL: samples, named samples, the hottest function's samples and name.
facts() {
	d=$TMP/$1.$2.$RUNS comm=$(workload "$1" | cut -d' ' -f1)
	case $2 in
	profil) "$PROFIL" report --tsv "$d"/out/"$comm".*.profil 2> /dev/null | awk -F '\t' '
		NR > 1 { n += $6; if ($7 !~ /^\[(anon|unmapped)\]$/ && $7 !~ /\+0x/) c += $6
			s[$7] += $6 }
		END { for (k in s) if (s[k] > m) { m = s[k]; top = k }
			printf "%d %d %d %s\n", n, c, m, top }'
		printf '%s\n' "$(cat "$d"/out/* | wc -c)" ;;
	perf) perf script -i "$d/perf.data" -F comm,ip,sym 2> /dev/null | awk -v c="$comm" '
		$1 == c { n++; $1 = ""; $2 = ""; sub(/^ +/, ""); if ($0 != "[unknown]") k++; s[$0]++ }
		END { for (x in s) if (s[x] > m) { m = s[x]; top = x }
			printf "%d %d %d %s\n", n, k, m, top }'
		printf '%s\n' "$(wc -c < "$d/perf.data")" ;;
	esac
}
for w in node java; do
	for tool in profil perf; do
		d=$TMP/$w.$tool.$RUNS
		case $tool in
		profil) ms=$(bench_ms3 "$PROFIL" report "$d/out") ;;
		perf) ms=$(bench_ms3 perf report --stdio -i "$d/perf.data") ;;
		esac
		facts $w $tool > f.tmp
		echo "$w $tool $(tail -n 1 f.tmp) $ms $(head -n 1 f.tmp)" >> facts
	done
done

echo "## jit.sh: JIT code by name (1 kHz, user code)"
echo
echo "$RUNS runs each, interleaved, medians; CPU includes the profiler's own process; facts of"
echo "the last run; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
awk -v tmp="$TMP/" "$MEDIAN$RATIOS"'
FILENAME == "facts" { f[$1 " " $2] = $0; next }
END {
	printf "| program | profiler | wall ratio | CPU ratio | samples | named | hottest | share |"
	printf " bytes | report ms |\n"
	printf "|---|---|---|---|---|---|---|---|---|---|\n"
	for (i = 1; i <= nk; i++) {
		k = order[i]; split(k, p, " ")
		if (p[2] == "none") {
			printf "| %s | none | 1.000 | 1.000 | | | | | | |\n", p[1]
			continue
		}
		n = split(f[k], x, " ")
		top = x[8]; for (j = 9; j <= n; j++) top = top " " x[j]
		sub(tmp, "", top)
		printf "| %s | %s | %.3f | %.3f | %d | %.1f%% | %s | %.1f%% | %d | %d |\n", p[1],
		    p[2], ratio(wall, k), ratio(cpu, k), x[5],
		    (x[5] > 0 ? 100 * x[6] / x[5] : 0), top, (x[5] > 0 ? 100 * x[7] / x[5] : 0),
		    x[3], x[4]
	}
}' facts raw
