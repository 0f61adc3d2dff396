#!/bin/sh
# bench/report.sh - how long reading a large profile takes: `profil report` against
# `perf report --stdio` and `go tool pprof -top`, each on the same workload's own profile.
#
# The workload is a generated C program of 2,000 functions (f0 .. f1999, each a loop whose
# length gives it a weight of 1 to 97), called round after round by two threads until each has
# used its share of CPU time, so that the recording holds BENCH_REPORT_SAMPLES samples (default
# 1,000,000) at BENCH_REPORT_HZ (default 20,000) spread over about 2,000 functions.  It is
# recorded twice, once by `profil record` and once by `perf record -e cpu-clock:u` at the same
# period; pprof reads profil's recording exported by `profil export --format=pprof` (pprof
# cannot read either tool's own file, and the export holds the same samples and names).
# Each report runs BENCH_RUNS times (default 3), interleaved, output to /dev/null; the table
# gives medians of the wall time and their ratios to profil's.  Flat views all: no call stacks
# are recorded.  Environment: B (build dir), CC.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$ROOT/build}
CC=${CC:-cc}
N=${BENCH_REPORT_SAMPLES:-1000000}
HZ=${BENCH_REPORT_HZ:-20000}
RUNS=${BENCH_RUNS:-3}
PROFIL=$B/profil
THREADS=2

if [ ! -x "$PROFIL" ]; then
	echo "report.sh: missing $PROFIL (run: make B=$B)" >&2
	exit 1
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/profil-bench-report.XXXXXX")
trap 'rm -rf "$W"' EXIT

# The workload.  Weights from a multiplicative hash, so neighbours differ and the table
# order is not the source order.
awk 'BEGIN {
	print "#include <pthread.h>\n#include <stdlib.h>\n#include <time.h>\n"
	print "static double seconds;"
	for (i = 0; i < 2000; i++) {
		w = 1 + (i * 7919) % 97
		printf "__attribute__((noinline)) void f%d(void);\n", i
		printf "__attribute__((noinline)) void\nf%d(void)\n{\n", i
		printf "\tvolatile unsigned long x = 0;\n\n"
		printf "\tfor (unsigned long k = 0; k < %d; k++)\n\t\tx += k;\n}\n", w * 40
	}
	printf "static void (*const fns[])(void) = {"
	for (i = 0; i < 2000; i++)
		printf "%s f%d", i ? "," : "", i
	print " };\n"
	print "static double\nthread_cpu(void)\n{\n\tstruct timespec ts;\n"
	print "\tclock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);"
	print "\treturn (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;\n}\n"
	print "static void *\nrun(void *arg)\n{\n\tdouble end = thread_cpu() + seconds;\n"
	print "\t(void)arg;\n\twhile (thread_cpu() < end)"
	print "\t\tfor (unsigned i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)\n\t\t\tfns[i]();"
	print "\treturn NULL;\n}\n"
	print "int\nmain(int argc, char **argv)\n{\n\tpthread_t t;\n"
	print "\tseconds = argc > 1 ? atof(argv[1]) : 1;"
	print "\tif (pthread_create(&t, NULL, run, NULL) != 0)\n\t\treturn 1;"
	print "\trun(NULL);\n\tpthread_join(t, NULL);\n\treturn 0;\n}"
}' > "$W/funcs.c"
$CC -O2 -g -fno-omit-frame-pointer -pthread -o "$W/funcs" "$W/funcs.c" ||
	{ echo "report.sh: cannot build the workload" >&2; exit 1; }

# CPU seconds per thread for N samples, with 3% to spare for the rate not quite achieved.
SECS=$(awk -v n="$N" -v hz="$HZ" -v t=$THREADS 'BEGIN { printf "%.2f", 1.03 * n / hz / t }')

now() {
	date +%s%N
}

start=$(now)
"$PROFIL" record -F "$HZ" -o "$W/p" -- "$W/funcs" "$SECS" > /dev/null ||
	{ echo "report.sh: profil record failed" >&2; exit 1; }
rec_profil=$(( ($(now) - start) / 1000000 ))
"$PROFIL" export --format=pprof -o "$W/p.pb.gz" "$W/p" 2> /dev/null ||
	{ echo "report.sh: profil export failed" >&2; exit 1; }
TOOLS=profil
rec_perf=-
if command -v perf > /dev/null 2>&1; then
	start=$(now)
	if perf record -q -e cpu-clock:u -c $((1000000000 / HZ)) -o "$W/perf.data" -- \
		"$W/funcs" "$SECS" > /dev/null 2>&1; then
		rec_perf=$(( ($(now) - start) / 1000000 ))
		TOOLS="$TOOLS perf"
	fi
fi
command -v go > /dev/null 2>&1 && go tool pprof -h > /dev/null 2>&1 && TOOLS="$TOOLS pprof"

# report TOOL: the tool's flat view of its input, on stdout.
report() {
	case $1 in
	profil)
		"$PROFIL" report "$W/p" 2> /dev/null ;;
	perf)
		perf report -i "$W/perf.data" --stdio 2> /dev/null ;;
	pprof)
		go tool pprof -top -nodefraction=0 -nodecount=1000000 "$W/p.pb.gz" 2> /dev/null ;;
	esac
}

# samples TOOL: the samples the tool's input holds, by the tool's own count; rows TOOL: the
# workload's functions its flat view names.
samples() {
	case $1 in
	profil)
		"$PROFIL" report "$W/p" 2> /dev/null | sed -n '1s/.*, \([0-9]*\) samples,.*/\1/p' ;;
	perf)
		perf report -i "$W/perf.data" --stdio -n --sort comm -q 2> /dev/null |
			awk 'NF >= 3 { s += $2 } END { print s + 0 }' ;;
	pprof)
		go tool pprof -raw "$W/p.pb.gz" 2> /dev/null |
			awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
			    on && $1 ~ /^[0-9]+$/ { s += $1 } END { print s + 0 }' ;;
	esac
}
rows() {
	report "$1" | grep -c '[ 	]f[0-9][0-9]*\($\|[ 	]\)'
}

for run in $(seq "$RUNS"); do
	for t in $TOOLS; do
		start=$(now)
		report "$t" > /dev/null
		echo "$t $(( ($(now) - start) / 1000 ))"
	done
done > "$W/times"

median() {
	awk -v t="$1" '$1 == t { print $2 }' "$W/times" | sort -n |
		awk '{ v[NR] = $1 }
		    END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

base=$(median profil)
echo "## report.sh: report time, profil report against perf report and go tool pprof"
echo
echo "A generated program of 2,000 functions on $THREADS threads, $SECS s of CPU each, recorded"
echo "at $HZ Hz (profil record: ${rec_profil} ms wall, perf record: ${rec_perf} ms)."
echo "Flat views, output to /dev/null; median of $RUNS runs, interleaved."
echo
echo "| tool | command | samples | functions shown | wall s | ratio to profil |"
echo "|---|---|---|---|---|---|"
for t in $TOOLS; do
	case $t in
	profil) cmd='profil report DIR' ;;
	perf) cmd='perf report --stdio (perf.data)' ;;
	pprof) cmd='go tool pprof -top -nodefraction=0 (of profil export --format=pprof)' ;;
	esac
	m=$(median "$t")
	awk -v t="$t" -v c="$cmd" -v s="$(samples "$t")" -v r="$(rows "$t")" -v m="$m" \
	    -v b="$base" 'BEGIN { printf "| %s | %s | %d | %d | %.3f | %.2f |\n", t, c, s, r,
		m / 1e6, m / b }'
done
