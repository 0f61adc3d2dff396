#!/bin/sh
# t2107-jit-fuzz: the parsers of JIT names (src/jit: perf maps and jitdump files) on known
# answers (tests/report/jitnames.c), then under
# libFuzzer with ASan and UBSan (tests/fuzz/jit.c).  Seeds are a perf map and a jitdump that
# node wrote.  Each input is also fed cut in two, as a file is read while its JIT still writes
# it: the names taken must be those of the whole file at once.
. "$(dirname "$0")/lib.sh"
test_needs nodejs:node

# Known answers first: pieces, reused memory, a moved code, files that are not what they claim.
test_run_prog jitnames "$B/tests/report/jitnames"

mkdir corpus work
# seed NAME MODE FILE: MODE 0 a perf map, 1 a jitdump; the second byte chooses the cut.
seed() {
	printf "\\$(printf %03o "$2")\\$(printf %03o "$3")" > "corpus/$1"
	cat "$4" >> "corpus/$1"
}
(cd work && exec node --perf-basic-prof --perf-prof -e \
	'function f(n){let s=0;for(let i=0;i<n;i++)s+=i%7;return s} let t=0;
	 for(let k=0;k<200;k++)t+=f(10000); console.log(process.pid)' > pid 2>&1)
pid=$(cat work/pid)
map=/tmp/perf-$pid.map
dump=work/jit-$pid.dump
# Only the first 64 KiB: what a fuzzer can change in useful time.
test -f "$map" && head -c 65536 "$map" > map.txt && seed map 0 37 map.txt
test -f "$dump" && head -c 65536 "$dump" > dump.bin && seed dump 1 101 dump.bin
rm -f "$map"
printf '7f0000001000 40 JS:*f x.js:1\n0x7f0000002000 0x10 Bench.work(int)\nnot a line\n' > m.txt
seed handmade 0 20 m.txt

test_expect_success 'node wrote both files to seed from' '
	test -s map.txt && test -s dump.bin
'
fuzz_corpus jit 70000 "the perf map and jitdump parsers"
test_done
