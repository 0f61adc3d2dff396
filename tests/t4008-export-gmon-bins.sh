#!/bin/sh
# t4008-export-gmon-bins: a bin of more than 65535 ticks (gmon's HISTCOUNTER is 16 bits) needs
# more histogram records, which gprof adds up; before, each one repeated the whole histogram,
# so one heavy bin and one far away made a 352-byte profile export 1.7 GB (issue 11).  Now
# only the heavy bin is repeated, and GNU gprof still reads every tick.
. "$(dirname "$0")/lib.sh"
test_needs time:/usr/bin/time python3:python3

P=$B/profil
BIN=$B/profil
main=$(nm --defined-only "$BIN" | awk '$3 == "main" { print $1 }')
fini=$(nm --defined-only "$BIN" | awk '$3 == "_fini" { print $1 }')
heavy=$((65535 * 1024))
# main's first instruction, a non-PIE ELF address, is its file offset in this layout too:
# check it, so that the test says what it means.
off=$(readelf -lW "$BIN" | awk '$1 == "LOAD" && / R E / { print $2, $3 }')
set -- $off
test $(($1)) = $(($2)) || echo "not ok - the code segment's offset is its address"
python3 "$TEST_DIR/report/hostile.py" hit far.profil "$BIN" 0x$main $heavy 0x$fini 1 ||
	echo "not ok - hostile.py wrote a profile"

# The histogram spans main to _fini of profil itself; written once, with the heavy bin's extra
# records, it is about that many bytes (a fixed bound broke when profil's code grew), where
# repeating it for each of the 1024 records made it a thousand times that.
test_expect_success 'one heavy bin and one far away: a small gmon file, quickly' '
	/usr/bin/time -f %M -o rss timeout 20 "$P" export -f gmon -o g far.profil > out 2> err
	rc=$?
	cat out err rss
	test $rc = 0 &&
	size=$(wc -c < g/gmon.profil.out) && echo "$size bytes" &&
	test "$size" -lt $(((0x$fini - 0x$main) * 4)) && test "$(tail -n 1 rss)" -lt 65536
'
test_expect_success 'GNU gprof reads every tick of it, main holding all but one' '
	gprof -b -p "$BIN" g/gmon.profil.out > flat &&
	cat flat &&
	awk "\$NF == \"main\" { print \$3 }" flat > secs &&
	test "$(cat secs)" = "$(awk -v t=$heavy "BEGIN { printf \"%.2f\", t / 1000 }")"
'
test_done
