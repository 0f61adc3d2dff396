#!/bin/sh
# bench/stacks.sh - call stacks of programs built without frame pointers (Debian's python3,
# perl and gcc) and of a Go program (its rules in a compressed .debug_frame), recorded by
# profil -g (stacks walked at record time by unwind tables from the kernel's stack copies) and
# by perf record --call-graph dwarf (the copies stored, walked by perf report), with the
# frame-pointer modes of both beside them.  Rows, interleaved,
# BENCH_RUNS runs each (default 3), medians, all at 1 kHz:
#   none        unprofiled
#   profil      profil record -g (cfi, 16 KiB copies)
#   perf        perf record --call-graph dwarf (8 KiB copies, its default)
#   profil-fp   profil record --call-graph fp
#   perf-fp     perf record -g (frame pointers)
# Reported: wall and CPU (the whole process tree, the profiler's own process included) as
# ratios to the unprofiled run; the share of samples whose stack reaches the program's entry
# (Py_RunMain, perl_run, __libc_start_call_main for gcc's stripped programs, main.main); the
# output's size per sample and per distinct stack; and the time to a call-graph report: `profil report --graph` against `perf report --stdio` (which
# walks the copies then).  BENCH_WORKLOADS picks some (default: "python perl gcc go", go
# where golang-go is installed).
. "$(dirname "$0")/lib.sh"
RUNS=${BENCH_RUNS:-3}
WORKLOADS=${BENCH_WORKLOADS:-python perl gcc go}
bench_scratch stacks
bench_helpers cputime:record-cputime
if ! perf record -q --call-graph dwarf -o probe.data -- true > /dev/null 2>&1; then
	echo "stacks.sh: perf record --call-graph dwarf refused here" >&2
	exit 1
fi

cat > w.py <<'EOF'
import json
d = {"a": [1, 2, 3, {"b": "x" * 50}] * 20}
for i in range(60000):
    json.loads(json.dumps(d))
EOF
cat > w.pl <<'EOF'
my %h; my $s;
for my $i (1..4000000) { my $k = $i % 1000; $h{$k} .= "x"; $h{$k} = "" if length($h{$k}) > 100;
	$s += length(join ",", 1..5) }
print $s > 0 ? "" : "no\n";
EOF
# Go (tests/record/gostack.go): sha256's assembly uses rbp as data, so only the rules walk
# out of it.
case " $WORKLOADS " in
*" go "*)
	if command -v go > /dev/null && (test -n "${HOME:-}" || export GOCACHE="$TMP/gocache"
	    CGO_ENABLED=0 go build -o w.gobin "$ROOT/tests/record/gostack.go"); then :; else
		echo "stacks.sh: no Go here, its rows left out" >&2
		WORKLOADS=$(echo " $WORKLOADS " | sed 's/ go / /')
	fi ;;
esac
GCC_FILES="$ROOT/src/report/symbols.c $ROOT/src/report/report.c $ROOT/src/export/pprof.c"
mkdir gcc && cd gcc || exit 1	# where gcc leaves its objects

# The workloads: name, the function a complete stack passes through, the command.
workload() {
	case $1 in
	python) echo "Py_RunMain /usr/bin/python3 $TMP/w.py" ;;
	perl) echo "perl_run /usr/bin/perl $TMP/w.pl" ;;
	gcc) echo "__libc_start_call_main $CC -O2 -c -I$ROOT/src -I$ROOT/include -D_GNU_SOURCE $GCC_FILES" ;;
	go) echo "main.main $TMP/w.gobin 5" ;;
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
	profil) "$W/cputime" "$d/time" "$PROFIL" record -g -o "$d/out" -- "$@" ;;
	profil-fp) "$W/cputime" "$d/time" "$PROFIL" record --call-graph fp -o "$d/out" -- "$@" ;;
	perf) "$W/cputime" "$d/time" perf record -q -F 1000 --call-graph dwarf \
		-o "$d/perf.data" -- "$@" ;;
	perf-fp) "$W/cputime" "$d/time" perf record -q -F 1000 -g -o "$d/perf.data" -- "$@" ;;
	esac > /dev/null 2>&1 || { echo "stacks.sh: $w $tool failed" >&2; return 1; }
	echo "$w $tool $(cat "$d/time")"
}

TOOLS="none profil perf profil-fp perf-fp"
r=1
while [ $r -le "$RUNS" ]; do
	for w in $WORKLOADS; do
		for tool in $TOOLS; do
			row $w $tool $r >> raw
		done
	done
	r=$((r + 1))
done

# Of the last run: samples, samples reaching the entry, output bytes, distinct stacks.
complete() {
	d=$TMP/$1.$2.$RUNS entry=$(workload "$1" | cut -d' ' -f1)
	case $2 in
	profil*) "$PROFIL" export -f folded "$d/out" 2> /dev/null | awk -v e=";$entry;" '
		{ n += $NF; if (index($0, e)) c += $NF } END { print n + 0, c + 0 }'
		printf ' %s ' "$(cat "$d"/out/* | wc -c)"
		"$PROFIL" dump "$d"/out/* 2> /dev/null | grep -c '^sample' ;;
	perf*) perf script -i "$d/perf.data" -F ip,sym 2> /dev/null | awk -v e=" $entry" '
		BEGIN { RS = "" } { n++; if (index($0, e)) c++ } END { print n + 0, c + 0 }'
		printf ' %s ' "$(wc -c < "$d/perf.data")"
		perf script -i "$d/perf.data" -F ip 2> /dev/null | awk 'BEGIN { RS = "" }
			{ gsub(/[ \t\n]+/, " "); s[$0] = 1 } END { print length(s) }' ;;
	esac
}
for w in $WORKLOADS; do
	for tool in profil perf profil-fp perf-fp; do
		d=$TMP/$w.$tool.$RUNS
		case $tool in
		profil*) ms=$(bench_ms3 "$PROFIL" report --graph "$d/out") ;;
		perf*) ms=$(bench_ms3 perf report --stdio -i "$d/perf.data") ;;
		esac
		echo "$w $tool $(complete $w $tool | tr '\n' ' ') $ms" >> facts
	done
done

echo "## stacks.sh: call stacks without frame pointers (1 kHz)"
echo
echo "$RUNS runs each, interleaved, medians; CPU includes the profiler's own process; facts of"
echo "the last run; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
awk "$MEDIAN$RATIOS"'
FILENAME == "facts" { f[$1 " " $2] = $0; next }
END {
	printf "| program | profiler | wall ratio | CPU ratio | samples | reach entry | bytes/sample |"
	printf " distinct stacks | bytes/stack | report ms |\n"
	printf "|---|---|---|---|---|---|---|---|---|---|\n"
	for (i = 1; i <= nk; i++) {
		k = order[i]; split(k, p, " ")
		if (p[2] == "none") {
			printf "| %s | none | 1.000 | 1.000 | | | | | | |\n", p[1]
			continue
		}
		split(f[k], x, " ")
		printf "| %s | %s | %.3f | %.3f | %d | %.1f%% | %.0f | %d | %.0f | %d |\n", p[1],
		    p[2], ratio(wall, k), ratio(cpu, k), x[3],
		    (x[3] > 0 ? 100 * x[4] / x[3] : 0), (x[3] > 0 ? x[5] / x[3] : 0), x[6],
		    (x[6] > 0 ? x[5] / x[6] : 0), x[7]
	}
}' facts raw
