#!/bin/sh
# t4010-export-deep-memory: exporters and the call graph over deep distinct stacks, in memory a
# bounded number of bytes per frame the file holds (issue 11).  A file of deep distinct stacks
# has a tree node, a pprof location and function, a graph node and arc for almost every PC in
# it; 64 MB of them took 3.3 GB for pprof.  Now pprof streams its output instead of holding
# the profile twice, the hash index and string table pay no pointer and allocation per entry,
# and tree nodes, graph nodes and arcs are compact.
#
# What remains per frame and is not measured here: the symbolizer's answer for each distinct
# PC (about 110 bytes), which every view that walks stacks pays; `report --lines` walks and
# symbolizes every frame too but keeps a row per leaf, so its peak is the floor each export
# is measured from.
. "$(dirname "$0")/lib.sh"
test_needs time:/usr/bin/time golang-go:go python3:python3

P=$B/profil
N=2000
D=250
python3 "$TEST_DIR/report/hostile.py" deep deep.profil $N $D ||
	echo "not ok - hostile.py wrote a profile"

# peak CMD...: runs the profil command CMD under /usr/bin/time, its peak RSS (KiB) in rss.
peak() {
	/usr/bin/time -f %M -o rss timeout 120 "$P" "$@" deep.profil > /dev/null 2> err
	rc=$?
	echo "$* exit $rc, peak $(tail -n 1 rss) KiB"
	return $rc
}

peak report --lines || echo "not ok - report --lines ran"
floor=$(tail -n 1 rss)
frames=$((N * D))
# 160 bytes a frame over the floor: before, the export tree took 170, the call graph 270 and
# pprof 280 (it held every message, then the whole profile again); now 105 to 140.
limit=$((floor + frames * 160 / 1024))
echo "floor $floor KiB, limit $limit KiB for $frames frames of $(wc -c < deep.profil) bytes"

for cmd in "export -f pprof -o out.pb.gz" "export -f folded -o out.folded" \
    "export -f svg -o out.svg" "report --graph"; do
	test_expect_success "$cmd: at most 160 bytes a frame over the walk" "
		peak $cmd && test \$(tail -n 1 rss) -le $limit
	"
done
test_expect_success 'the pprof file is whole: go tool pprof reads every frame' '
	peak export -f pprof -o out.pb.gz &&
	go tool pprof -raw out.pb.gz > raw 2> err &&
	test "$(grep -c "deep.so+0x" raw)" -ge $frames
'
test_done
