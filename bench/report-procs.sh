#!/bin/sh
# bench/report-procs.sh - the time of a report over hundreds of processes: `profil report` on
# profil's files against `perf report --stdio` on perf's file of the same work, a shell loop of
# BENCH_CC_RUNS (default 100) `cc -O2 -c` of a small file: about 300 processes of six programs
# (sh, gcc, cc1, as), whose binaries come from Debian stripped or with separate debug files.
# Each tool records the loop once; each report runs BENCH_RUNS times (default 5), interleaved,
# output to /dev/null.  The table gives the median wall and CPU time of each and their ratios to
# profil's.  Environment: B (build dir), CC.
. "$(dirname "$0")/lib.sh"
RUNS=${BENCH_RUNS:-5}
N=${BENCH_CC_RUNS:-100}
bench_scratch report-procs


printf 'static int f(int x) { return x * 3; }\nint g(int n)\n{\n\tint s = 0;\n\n' > x.c
printf '\tfor (int i = 0; i < n; i++)\n\t\ts += f(i);\n\treturn s;\n}\n' >> x.c
loop="for i in \$(seq $N); do $CC -O2 -c x.c -o /dev/null; done"
"$PROFIL" record -q -o p -- sh -c "$loop" ||
	{ echo "report-procs.sh: profil record failed" >&2; exit 1; }
TOOLS=profil
if command -v perf > /dev/null 2>&1 &&
    perf record -q -e cpu-clock:u -o perf.data -- sh -c "$loop" > /dev/null 2>&1; then
	TOOLS="$TOOLS perf"
fi

# One row per run, "TOOL WALL_MS CPU_MS": each tool's flat view of its own recording.
for run in $(seq "$RUNS"); do
	for t in $TOOLS; do
		case $t in
		profil) set -- "$PROFIL" report p ;;
		perf) set -- perf report -i perf.data --stdio ;;
		esac
		s=$(date +%s%N)
		/usr/bin/time -f "%U %S" -o cpu.txt "$@" > /dev/null 2>&1
		e=$(date +%s%N)
		echo "$t $(( (e - s) / 1000000 )) $(awk '{ printf "%d", ($1 + $2) * 1000 }' cpu.txt)"
	done
done > times

nfiles=$(ls p | wc -l)
echo "## report-procs.sh: a report over hundreds of processes, profil report against perf report"
echo
echo "\`$loop\`, recorded once by each tool: profil wrote $nfiles files (one per process image),"
echo "perf one perf.data.  Flat views, output to /dev/null; median of $RUNS runs, interleaved."
echo
echo "| tool | command | wall ms | CPU ms | wall ratio to profil | CPU ratio to profil |"
echo "|---|---|---|---|---|---|"
awk "$MEDIAN"'
	{ w[$1] = w[$1] " " $2; c[$1] = c[$1] " " $3; if (!($1 in seen)) { seen[$1] = 1; o[++n] = $1 } }
	END {
		bw = median(w["profil"]); bc = median(c["profil"])
		for (i = 1; i <= n; i++) {
			t = o[i]; cmd = t == "profil" ? "profil report DIR" : "perf report --stdio"
			printf "| %s | %s | %d | %d | %.2f | %.2f |\n", t, cmd, median(w[t]),
			    median(c[t]), median(w[t]) / bw, (bc > 0 ? median(c[t]) / bc : 0)
		}
	}' times
