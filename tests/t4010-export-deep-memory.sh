#!/bin/sh
# t4010-export-deep-memory: every export and view over deep distinct stacks, in memory a small
# constant number of bytes per frame the file holds (issues 11 and 19).  A file of deep
# distinct stacks in a missing library has a distinct pc, tree node, pprof location and
# function, graph node and arc for almost every frame; 64 MB of them took 1.8 GB for every
# export and 0.97 GB for `report --lines`.
#
# The floor is the flat view: it reads the whole file but names only each sample's leaf, so
# its peak is the file in memory and the program.  Over it, per frame of the file:
#   - exports (pprof, folded, svg): at most 100 bytes.  Before, the symbolizer kept a location
#     of ~110 bytes for every distinct pc, the tree interned every module+0xoffset name (~40)
#     and pprof kept every function and name (~80): 210 to 230.  Now code nothing names shares
#     one location per module, tree nodes keep the offset (48 bytes and an index slot) and
#     pprof keeps only the location's ids: 35 to 70.
#   - `report --lines`: at most 16 bytes (a row per distinct leaf, and the file's 8 a frame
#     are the floor's); before, 110, the symbolizer's cache of every pc it walked.
#   - `report --graph`: its own node and arc for every frame, with their index slots, are
#     all it keeps; the bound is worked out below from their sizes, about 95 bytes a frame
#     here.  A node was 72 bytes and an arc 32 (marks, the module, waiting and self seconds
#     in every node) and an index slot 8: 136 a frame; 260 before issue 19.
#   - the viewer page and the Firefox Profiler export: bounds worked out from the rows each
#     keeps.  On this file the page took 108 bytes a frame and the Firefox export 142, and its
#     file was 14.8 times its input: both interned every module+0xoffset name (some 40 bytes
#     a frame), the Firefox tables had indexes of 8-byte slots, and it built each untimed
#     sample's stack twice, once under [no time recorded] and once unused.
# Bounds worked out from rows assume arrays doubled from a power of two, index slots
# (src/report/index.c) of 4 bytes doubled from 256 while at most half full, and 15% over
# that for the allocator and the program's pages.
. "$(dirname "$0")/lib.sh"
test_needs time:/usr/bin/time golang-go:go python3:python3

P=$B/profil
N=2000
D=250
python3 "$TEST_DIR/report/hostile.py" deep deep.profil $N $D ||
	echo "not ok - hostile.py wrote a profile"
frames=$((N * D))

# peak CMD...: runs the profil command CMD under /usr/bin/time, its peak RSS (KiB) in rss.
peak() {
	/usr/bin/time -f %M -o rss timeout 120 "$P" "$@" deep.profil > /dev/null 2> err
	rc=$?
	echo "$* exit $rc, peak $(tail -n 1 rss) KiB"
	return $rc
}

peak report || echo "not ok - report ran"
floor=$(tail -n 1 rss)
echo "floor $floor KiB for $frames frames of $(wc -c < deep.profil) bytes"

# within BYTES CMD...: CMD peaks at most BYTES a frame over the floor.
within() {
	per=$1
	shift
	peak "$@" && echo "$(( ($(tail -n 1 rss) - floor) * 1024 / frames )) bytes a frame" &&
		test "$(tail -n 1 rss)" -le $((floor + frames * per / 1024))
}
for cmd in "export -f pprof -o out.pb.gz" "export -f folded -o out.folded" \
    "export -f svg -o out.svg"; do
	test_expect_success "$cmd: at most 100 bytes a frame over the flat view" "
		within 100 $cmd
	"
done
test_expect_success 'report --lines: at most 16 bytes a frame over the flat view' '
	within 16 report --lines
'
# The call graph keeps a node of 40 bytes for each of the $frames distinct frames and an arc
# of 24 for each of the N * (D - 1) calls, in arrays doubled from 256 rows, and an index of
# 4-byte slots over each, doubled from 256 while at most half full (src/report/graph.c,
# index.c); 15% over that for the allocator and the program's pages.
graph_bound=$(awk -v n=$frames -v a=$((N * (D - 1))) 'function cap(x, c) {
	for (c = 256; c <= x; c *= 2); return c }
	function slots(x, s) { for (s = 256; 2 * x > s; s *= 2); return s }
	BEGIN { printf "%d", 1.15 * (40 * cap(n) + 24 * cap(a) + 4 * slots(n) + 4 * slots(a)) / n }')
test_expect_success "report --graph: at most $graph_bound bytes a frame over the flat view" '
	within $graph_bound report --graph
'
# A caller in code nothing names is its mapping and address alone; each leaf keeps its
# module+0xoffset name (issue 19).
test_expect_success 'the pprof file is whole: go tool pprof reads every frame, leaves named' '
	go tool pprof -raw out.pb.gz > raw 2> err &&
	test "$(grep -c "^ *[0-9][0-9]*: 0x[0-9a-f]* M=1" raw)" -ge $frames &&
	test "$(grep -c "^ *[0-9][0-9]*: 0x[0-9a-f]* M=1 deep.so+0x" raw)" = $N
'
# The input holds 8 bytes a frame; its pprof, a location a frame (an id, the mapping, the
# address, the id again in the sample), compressed, about 5.
test_expect_success 'the pprof file is no bigger than its input' '
	echo "pprof $(wc -c < out.pb.gz) bytes of $(wc -c < deep.profil)" &&
	test "$(wc -c < out.pb.gz)" -le "$(wc -c < deep.profil)"
'
# bound ROW INDEXED FROM EXACT: bytes a frame for a node of ROW bytes in an array doubled from
# FROM rows, INDEXED index slots each, and EXACT bytes more in arrays of the right size.
n=$((frames + 2))
bound() {
	awk -v n=$n -v row="$1" -v ix="$2" -v from="$3" -v exact="$4" '
	function cap(x, c) { for (c = from; c <= x; c *= 2); return c }
	function slots(x, s) { for (s = 256; 2 * x > s; s *= 2); return s }
	BEGIN { printf "%d", 1.15 * (row * cap(n) + ix * 4 * slots(n) + exact * n) / n }'
}
# The page: the tree of frames of the SVG export (a node of 48 bytes a frame in an array
# doubled from 1024, src/export/tree.h, and its index), then, while its nodes are written,
# each distinct bare name (16 bytes, its module and offset) and each node's name (4).
html_bound=$(bound 48 1 1024 20)
test_expect_success "export -f html: at most $html_bound bytes a frame over the flat view" '
	within $html_bound export -f html -o out.html
'
# The Firefox export: per thread a frame row of 16 bytes and a stack row of 8, both in arrays
# doubled from 64, each with its index (src/export/firefox.c).
ff_bound=$(bound 24 2 64 0)
test_expect_success "export -f firefox: at most $ff_bound bytes a frame over the flat view" '
	within $ff_bound export -f firefox -o out.json
'
# A frame is a frame row "[location,false,1,0]", a stack row "[prefix,frame]", numbers of at
# most d digits, each row with ",\n", and its name "deep.so+0x<8 digits> (in deep.so)" as a
# JSON string; the samples and the rest, under 64 KiB more.
d=${#n}
test_expect_success 'the Firefox file: a frame row, a stack row and a name a frame, no more' '
	echo "firefox $(wc -c < out.json) bytes, $(wc -c < deep.profil) in" &&
	test "$(wc -c < out.json)" -le $((frames * ((d + 14) + (2 * d + 6) + 35) + 65536))
'
test_expect_success 'the Firefox file is the format: every sample a stack of D frames' '
	python3 "$TEST_DIR/export/gecko.py" out.json samples &&
	test "$(wc -l < samples)" = $N &&
	test "$(awk -F "\t" "{ print gsub(/;/, \"\", \$5) }" samples | sort -u)" = $D
'
test_done
