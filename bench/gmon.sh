#!/bin/sh
# bench/gmon.sh - the same -pg workload (bench/progs/gmonbench.c) under glibc's gmon runtime
# and under libprofil's, in one run: the cost of a call (mcount) against glibc's, the accuracy
# of gprof's flat profile against the CPU time the program measured itself at 100 Hz and 1 kHz,
# and the calls counted from two threads.  Medians of RUNS runs (default 5).
# Standalone after `make`: sh bench/gmon.sh  (B=build-dir, RUNS=n, MS=ms of split work)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${B:-$ROOT/build}" && pwd)
RUNS=${RUNS:-5}
MS=${MS:-600}
CALLS=3000000
TCALLS=500000
CC=${CC:-cc}

if [ ! -e "$B/libprofil.so" ]; then
	echo "profil: build first: '$B/libprofil.so'" >&2
	exit 1
fi
for tool in gprof "$CC"; do
	if ! command -v "$tool" > /dev/null; then
		echo "profil: missing tool: '$tool'" >&2
		exit 1
	fi
done
OUT=$B/bench/gmon
mkdir -p "$OUT"
CFLAGS="-O2 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls -fno-ipa-icf"
SRC=$ROOT/bench/progs/gmonbench.c
# The three builds: no -pg, -pg with glibc's runtime, -pg with libprofil's (-lprofil first).
$CC $CFLAGS -pthread -o "$OUT/nopg" "$SRC"
$CC $CFLAGS -pg -pthread -o "$OUT/glibc" "$SRC"
$CC $CFLAGS -pg -pthread -o "$OUT/ours" "$SRC" -L"$B" -Wl,-rpath,"$B" -lprofil

# run NAME HZ: one run in a directory of its own; prints one line of results:
# ns_per_call max_share_error samples tcount_counted
run() {
	d=$(mktemp -d "$OUT/run.XXXXXX")
	(cd "$d" && PROFIL_HZ=$2 "$OUT/$1" split "$MS" calls $CALLS threads 2 $TCALLS > out.txt)
	f=$(ls "$d"/gmon.*out 2>/dev/null | head -1)
	gprof -b -p "$OUT/$1" "$f" > "$d/flat.txt"
	awk -v hz="$2" '
		FILENAME ~ /out.txt$/ && $1 == "truth" { truth[$2] = $3; tsum += $3 }
		FILENAME ~ /out.txt$/ && $1 == "calls" { ns = $3 / $2 }
		FILENAME ~ /flat.txt$/ && $1 ~ /^[0-9.]+$/ && ($NF == "spin_a" || $NF == "spin_b" ||
		    $NF == "spin_c") { pct[$NF] = $1; psum += $1; secs += $3 }
		FILENAME ~ /flat.txt$/ && NF == 7 && $NF == "tcount" { tc = $4 }
		END {
			err = 0
			for (f in truth) {
				d = (psum > 0 ? pct[f] / psum : 0) - truth[f] / tsum
				if (d < 0)
					d = -d
				if (d > err)
					err = d
			}
			printf "%.2f %.4f %d %d\n", ns, err, secs * hz + 0.5, tc
		}' "$d/out.txt" "$d/flat.txt"
	rm -rf "$d"
}

# The bare cost of the workload's calls, without -pg.
nopg_call() {
	"$OUT/nopg" calls $CALLS | awk '$1 == "calls" { printf "%.2f\n", $3 / $2 }'
}

median() {
	sort -n | awk '{ v[NR] = $1 }
		END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

: > "$OUT/results"
i=0
while [ $i -lt "$RUNS" ]; do
	echo "nopg - $(nopg_call)" >> "$OUT/results"
	echo "glibc 100 $(run glibc 100)" >> "$OUT/results"
	echo "ours 100 $(run ours 100)" >> "$OUT/results"
	echo "ours 1000 $(run ours 1000)" >> "$OUT/results"
	i=$((i + 1))
done

col() {
	awk -v n="$1" -v hz="$2" -v c="$3" '$1 == n && $2 == hz { print $c }' "$OUT/results" | median
}
base=$(col nopg - 3)
gl=$(col glibc 100 3)
echo "gmon runtime, glibc $(ldd --version | awk 'NR == 1 { print $NF }') against libprofil:" \
    "medians of $RUNS runs, ${MS} ms of split work, $CALLS calls, 2 threads x $TCALLS calls"
printf '%-10s %5s %9s %10s %9s %11s %8s %15s\n' runtime hz ns/call "vs glibc" "vs no -pg" \
    "max |err|" samples "tcount counted"
printf '%-10s %5s %9s %10s %9s %11s %8s %15s\n' "no -pg" - "$base" - 1.00 - - -
for cfg in "glibc 100" "ours 100" "ours 1000"; do
	set -- $cfg
	ns=$(col "$1" "$2" 3)
	name=$1
	[ "$name" = ours ] && name=libprofil
	printf '%-10s %5s %9s %10.2f %9.2f %11s %8s %15s\n' "$name" "$2" "$ns" \
	    "$(echo "$ns $gl" | awk '{ print $1 / $2 }')" \
	    "$(echo "$ns $base" | awk '{ print $1 / $2 }')" \
	    "$(col "$1" "$2" 4)" "$(col "$1" "$2" 5)" "$(col "$1" "$2" 6)/$((2 * TCALLS))"
done
echo "max |err|: the largest gap between a spin function's share of gprof's samples and its"
echo "share of the CPU time it measured (binomial sd at 100 Hz is about 0.06)."
