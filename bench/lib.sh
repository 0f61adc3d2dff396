# bench/lib.sh - sourced by the bench scripts that run programs under profilers: where things
# are, a scratch directory that goes away at exit, helper programs built from bench/ when
# missing or older than their source, and MEDIAN and RATIOS, the awk their tables use.  Not a
# bench of its own (bench/run.sh skips it).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${B:-$ROOT/build}" && pwd) || exit 1
CC=${CC:-cc}
PROFIL=$B/profil
W=$B/bench/record

# bench_scratch NAME: a new scratch directory, made the current one, removed at exit ($TMP).
bench_scratch() {
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/profil-bench-$1.XXXXXX") || exit 1
	trap 'rm -rf "$TMP"' EXIT
	cd "$TMP" || exit 1
}

# bench_helpers NAME:SOURCE...: $W/NAME from bench/SOURCE.c (-pthread), built when needed.
bench_helpers() {
	mkdir -p "$W"
	for p in "$@"; do
		bin=$W/${p%%:*} src=$ROOT/bench/${p#*:}.c
		if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
			$CC -O2 -pthread -o "$bin" "$src" ||
				{ echo "$(basename "$0"): cannot build $src" >&2; exit 1; }
		fi
	done
}

# bench_ms3 COMMAND...: the median of three runs' wall times of COMMAND, in ms (output dropped).
bench_ms3() {
	for i in 1 2 3; do
		s=$(date +%s%N)
		"$@" > /dev/null 2>&1
		e=$(date +%s%N)
		echo $(((e - s) / 1000000))
	done | sort -n | sed -n 2p
}

# The median of the numbers in a space-separated list, for awk programs: awk "$MEDIAN ...".
MEDIAN='
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
'

# The runs of a file named raw, rows "WORKLOAD TOOL WALL CPU", for awk programs after MEDIAN
# (awk "$MEDIAN$RATIOS ..."): order[1..nk] the keys "WORKLOAD TOOL" as first seen, wall[k]
# and cpu[k] their runs, and ratio(runs, k) the median of runs[k] over that of the
# workload's unprofiled ("none") rows.
RATIOS='
FILENAME == "raw" {
	k = $1 " " $2
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	wall[k] = wall[k] " " $3; cpu[k] = cpu[k] " " $4
	next
}
function ratio(runs, k,   p) {
	split(k, p, " ")
	return median(runs[k]) / median(runs[p[1] " none"])
}
'
