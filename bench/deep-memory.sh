#!/bin/sh
# bench/deep-memory.sh - memory, time and output of every view and export over deep distinct
# stacks: a valid profile of BENCH_DEEP_STACKS (default 8000) samples, each a stack of
# BENCH_DEEP_DEPTH (default 1024) distinct PCs in a missing library (tests/report/hostile.py
# deep; 64 MB at the defaults), so almost every frame of the file is a distinct pc, function
# and tree node.  One run each (these take minutes at the defaults); the table gives each
# command's peak RSS and CPU time (/usr/bin/time), wall time and the bytes it wrote, and the
# peak per frame of the file.  Environment: B (build dir, whose profil is measured), BENCH_DEEP_STACKS,
# BENCH_DEEP_DEPTH.
. "$(dirname "$0")/lib.sh"
N=${BENCH_DEEP_STACKS:-8000}
D=${BENCH_DEEP_DEPTH:-1024}
bench_scratch deep-memory

python3 "$ROOT/tests/report/hostile.py" deep deep.profil "$N" "$D" ||
	{ echo "deep-memory.sh: hostile.py failed" >&2; exit 1; }
in=$(wc -c < deep.profil)
frames=$((N * D))

echo "## deep-memory.sh: every view and export over $N distinct stacks of $D frames"
echo
echo "A valid profile of $in bytes, $frames frames, every one a distinct pc of a missing"
echo "library (no symbol names it).  One run each; peak RSS from /usr/bin/time; speedscope reads"
echo "the folded export.  Output in bytes; views write to a pipe, not a terminal."
echo
echo "| command | peak MB | bytes a frame | CPU s | wall s | output bytes | output / input |"
echo "|---|---|---|---|---|---|---|"
for cmd in "export -f pprof -o out" "export -f svg -o out" "export -f folded -o out" \
    "export -f html -o out" "export -f firefox -o out" "export -f gmon -o out" \
    "report --graph" "report --lines" "report"; do
	rm -rf out
	s=$(date +%s%N)
	# Views count their bytes through a pipe: the call graph's text is gigabytes.
	# shellcheck disable=SC2086
	{ /usr/bin/time -f "%M %U %S" -o rss "$PROFIL" $cmd deep.profil 2> err ||
		echo "deep-memory.sh: profil $cmd failed: $(tail -n 1 err)" >&2; } | wc -c > bytes
	e=$(date +%s%N)
	set -- $(tail -n 1 rss)
	kib=$1 cpu=$(echo "$2 $3" | awk '{ print $1 + $2 }')
	# gmon writes a directory (here, no file: nothing names the code it could count).
	out=$(if [ -f out ]; then wc -c < out; elif [ -d out ]; then cat out/* 2> /dev/null |
	    wc -c; else cat bytes; fi)
	case $cmd in *pprof*) pprof=$out ;; esac
	rm -rf out
	awk -v c="profil $cmd" -v k="$kib" -v f="$frames" -v ms=$(((e - s) / 1000000)) \
	    -v o="$out" -v i="$in" -v u="$cpu" 'BEGIN {
		printf "| %s | %.0f | %.0f | %.1f | %.1f | %.0f | %.2f |\n", c, k / 1024,
		    k * 1024 / f, u, ms / 1000, o, o / i
	}'
done
echo
awk -v o="$pprof" -v i="$in" -v f="$frames" 'BEGIN {
	printf "The pprof file is %.2f times its input: %.1f bytes a frame against %.1f.\n",
	    o / i, o / f, i / f
}'
