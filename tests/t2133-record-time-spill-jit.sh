#!/bin/sh
# t2133-record-time-spill-jit: times stay with their samples where the in-process recorder
# rewrites them.  A 64-entry table spills to a file of SAMPLE records many times a second
# (phases with 64 slices, each through a different depth of calls: hundreds of distinct
# stacks); each TIME entry must still name the record of its tick's stack: each thread's
# phases stay apart, every tick timed, under the ring, perf and timer clocks.  The names of JIT
# code are added by profil record after the program ends, in a rewrite of the whole file
# (src/jit/profile.c): its times survive, every tick still timed.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs python3:python3 binutils:readelf nodejs:node

P=$PROGS/phases
CHECK="python3 $TEST_DIR/timecheck.py"
perf=1
clock_ok ring || perf=0

# dups DUMP: sample records of a (thread, epoch, stack) that another record has too: a spill's.
dups() {
	awk '$1 == "sample" { k = $3 " " $4; for (i = 5; i <= NF; i++) k = k " " $i
		if (seen[k]++) d++ } END { print d + 0 }' "$1"
}

for clock in timer ring perf; do
	if [ $clock != timer ] && [ $perf = 0 ]; then
		echo "ok - skipped: --clock $clock: perf events refused here"
		continue
	fi
	test_expect_success "--clock $clock: a 64-entry table spills, the times follow" '
		PROFIL_RECORD_ENTRIES=64 "$PROFIL" record -q -g --clock $clock -o sp$clock -- \
			"$P" 0.6 2 64 > sp$clock.sw 2> /dev/null &&
		"$PROFIL" dump sp$clock/phases.*.profil > sp$clock.dump &&
		d=$(dups sp$clock.dump) && echo "$d records spilled before" && test "$d" -gt 20 &&
		$CHECK sp$clock.dump "$P" sp$clock.sw 300
	'
done

cp "$TEST_DIR/record/jit.js" .
trap 'for f in "$TRASH"/*/*.*.profil; do p=${f%.profil}; rm -f "/tmp/perf-${p##*.}.map"; done
	rm -rf "$TRASH"' EXIT
test_expect_success 'JIT names added after the end (--clock timer): the times survive' '
	"$PROFIL" record -q --clock timer -o jit -- node --perf-basic-prof jit.js > jit.out &&
	f=$(ls jit/node.*.profil) && "$PROFIL" dump "$f" > jit.dump &&
	grep -q "^code .* perf-map " jit.dump &&
	awk "\$1 == \"sample\" { n += \$2 } \$1 == \"time\" { t += \$5; e++ } END {
		print e, \"entries,\", t, \"of\", n, \"ticks timed\"
		exit !(n > 0 && t == n) }" jit.dump
'

test_done
