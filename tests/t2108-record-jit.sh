#!/bin/sh
# t2108-record-jit: names for JIT code.  node and the JVM from Debian write perf's JIT files
# (node --perf-basic-prof and the JVM's -XX:+DumpPerfMapAtExit a perf map, node --perf-prof a
# jitdump); profil record keeps the anonymous code they run in and copies the names its samples
# need into the profile.  Each JIT function's share is compared with perf's, recorded in the
# same run (perf runs inside profil: perf 6.1 aborts when the process it records opens perf
# events), and the names stay after the JIT's files are gone.  The recorder inside the program
# gets them too, as it writes the last profile.  A map file that another user owns is not read
# (perf's rule).
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs linux-perf:perf nodejs:node default-jdk-headless:javac

# The workloads (tests/record/jit.js, Bench.java), here so that their names are relative.
cp "$TEST_DIR/record/jit.js" "$TEST_DIR/record/Bench.java" .

# V8 names a function's code "JS:*fa /path/jit.js:4" since node 20 (V8 11) and "LazyCompile:*fa
# /path/jit.js:4" before, as Debian bookworm's node 18 does ("Function:" for a script's top
# level); a "*" (optimized) or "~" (interpreted) before the name.  The checks take either.
V8='(JS|LazyCompile|Function):'

# ours FILE PATTERN: samples of the functions whose name matches PATTERN (an awk regex), and
# all samples, from profil report --tsv.
ours() {
	"$PROFIL" report --tsv "$1" 2> /dev/null |
		awk -F '\t' -v re="$2" 'NR > 1 { n += $6; if ($7 ~ re) s += $6 } END { print s + 0, n + 0 }'
}

# theirs DATA COMM PATTERN: the same from perf script's samples of the command COMM.
theirs() {
	perf script -i "$1" -F comm,ip,sym 2> /dev/null |
		awk -v c="$2" -v re="$3" '$1 == c { n++; $1 = ""; $2 = ""; if ($0 ~ re) s++ }
		END { print s + 0, n + 0 }'
}

# same_share OURS THEIRS: two proportions within five standard errors of each other.
same_share() {
	awk -v o="$1" -v t="$2" 'BEGIN { split(o, a, " "); split(t, b, " ")
		if (a[2] < 200 || b[2] < 200) { print "too few samples: " o " / " t; exit 1 }
		p = a[1] / a[2]; q = b[1] / b[2]; m = (a[1] + b[1]) / (a[2] + b[2])
		bound = 5 * sqrt(m * (1 - m) * (1 / a[2] + 1 / b[2])) + 1 / a[2]
		d = p - q; if (d < 0) d = -d
		printf "ours %.4f (%s), perf %.4f (%s), bound %.4f\n", p, o, q, t, bound
		exit d <= bound ? 0 : 1 }'
}

# record NAME PROGRAM ARGS...: profil record of perf record of the program, in one run.  perf
# samples user code only, as profil does (--user-only), on CLOCK_MONOTONIC, which jitdump files
# use.
record() {
	name=$1
	shift
	"$PROFIL" record --user-only -o "$name" -- \
		perf record -q -k 1 --all-user -F 999 -o "$name.data" -- "$@" \
		> "$name.out" 2> "$name.err" || { cat "$name.err"; return 1; }
	grep -q '^ok$' "$name.out" || { cat "$name.out" "$name.err"; return 1; }
}

# The perf maps of the processes recorded here go with the test: a stale map would name the
# code of a later process that gets the same pid.
trap 'for f in "$TRASH"/*/*.*.profil; do p=${f%.profil}; rm -f "/tmp/perf-${p##*.}.map"; done
	rm -rf "$TRASH"' EXIT
# perf inject --jit writes what it makes of a jitdump under ~/.debug.
HOME=$TRASH
export HOME
if ! perf record -q -o probe.data -- true > /dev/null 2>&1; then
	echo "not ok - perf record works (linux-perf, perf_event_paranoid)"
	test_failures=$((test_failures + 1))
	test_done
fi

test_expect_success 'node --perf-basic-prof: JIT functions named, shares as perf gives them' '
	record node node --perf-basic-prof jit.js &&
	f=$(ls node/node.*.profil) &&
	for fn in fa fb; do
		same_share "$(ours "$f" "^${V8}.?$fn .*jit.js")" \
			"$(theirs node.data node "${V8}.?$fn .*jit.js")" || return 1
	done &&
	o=$(ours "$f" "^${V8}.?fa .*jit.js") && test "${o%% *}" -gt "$(( ${o##* } / 2 ))" &&
	o=$(ours "$f" "^${V8}.?fb .*jit.js") && test "${o%% *}" -gt 0
'
test_expect_success 'anonymous code without a name is [anon], in few samples' '
	f=$(ls node/node.*.profil) &&
	"$PROFIL" dump "$f" | grep -q "^mapping .* \[anon\]$" &&
	"$PROFIL" dump "$f" | grep -Eq "^code .* perf-map ${V8}" &&
	u=$(ours "$f" "^\\[(anon|unmapped)\\]$") && echo "unnamed: $u" &&
	test "$(( ${u%% *} * 20 ))" -lt "${u##* }"
'
test_expect_success 'the names stay in the profile when the perf map is gone' '
	f=$(ls node/node.*.profil) && pid=${f##*node.} && pid=${pid%.profil} &&
	before=$(ours "$f" "^${V8}.?fa .*jit.js") && test "${before%% *}" -gt 0 &&
	rm -f "/tmp/perf-$pid.map" && test ! -e "/tmp/perf-$pid.map" &&
	after=$(ours "$f" "^${V8}.?fa .*jit.js") && test "$before" = "$after" && echo "$after"
'
test_expect_success 'node --perf-prof: named from its jitdump file, shares as perf gives them' '
	record dump node --perf-prof jit.js &&
	f=$(ls dump/node.*.profil) &&
	"$PROFIL" dump "$f" | grep -Eq "^code .* jitdump ${V8}" &&
	perf inject --jit -i dump.data -o dump.jit.data > inject.log 2>&1 &&
	same_share "$(ours "$f" "^${V8}.?fa .*jit.js")" \
		"$(theirs dump.jit.data node "${V8}.?fa .*jit.js")"
'
if javac -d . Bench.java > javac.log 2>&1; then
	test_expect_success 'the JVM (-XX:+DumpPerfMapAtExit): methods named, shares as perf gives them' '
		record java java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -cp . Bench &&
		f=$(ls java/java.*.profil) &&
		same_share "$(ours "$f" "Bench\\.work\\(int\\)")" \
			"$(theirs java.data java "Bench\\.work\\(int\\)")" &&
		same_share "$(ours "$f" "HashMap\\.merge\\(")" \
			"$(theirs java.data java "HashMap\\.merge\\(")"
	'
else
	echo "not ok - javac compiles the JVM workload"
	sed 's/^/#   /' javac.log
	test_failures=$((test_failures + 1))
fi
# Attached to a running node (-p): its anonymous code is read from /proc, its names as above.
test_expect_success '-p: a running node is attached to and its JIT functions named' '
	cp jit.js long.js &&
	{ node --perf-basic-prof long.js 1000 > long.out & } && pid=$! && sleep 1 &&
	timeout -s INT 1 "$PROFIL" record -o att -p "$pid" 2> att.err; wait "$pid" &&
	rm -f "/tmp/perf-$pid.map" && grep -q "^ok$" long.out &&
	f=$(ls att/node.*.profil) && o=$(ours "$f" "^${V8}.?fa .*long.js") && echo "fa: $o" &&
	test "${o%% *}" -gt "$(( ${o##* } / 2 ))"
'
# The recorder inside the program (where perf events are refused): fa's part of fa and fb as
# from outside.
test_expect_success 'inside the program (--clock timer): JIT functions named, as from outside' '
	"$PROFIL" record --clock timer -o inside -- node --perf-basic-prof jit.js > inside.out &&
	f=$(ls inside/node.*.profil) && "$PROFIL" dump "$f" | grep -Eq "^code .* perf-map ${V8}" &&
	a=$(ours "$f" "^${V8}.?fa .*jit.js") && b=$(ours "$f" "^${V8}.?fb .*jit.js") &&
	oa=$(ours node/node.*.profil "^${V8}.?fa .*jit.js") &&
	ob=$(ours node/node.*.profil "^${V8}.?fb .*jit.js") &&
	test "${b%% *}" -gt 0 &&
	same_share "${a%% *} $(( ${a%% *} + ${b%% *} ))" "${oa%% *} $(( ${oa%% *} + ${ob%% *} ))"
'
# And the recorder names them itself as it writes the program's last profile, so nothing is
# rewritten after: the library preloaded by hand, with no profil record to add anything.
test_expect_success 'inside the program: the last profile has the JIT names when it is made' '
	mkdir bare &&
	LD_PRELOAD="$B/libprofil-record.so" PROFIL_RECORD_DIR="$PWD/bare" \
		node --perf-basic-prof jit.js > bare.out &&
	f=$(ls bare/node.*.profil) && p=${f%.profil} && rm -f "/tmp/perf-${p##*.}.map" &&
	"$PROFIL" dump "$f" | grep -E "^code .* perf-map ${V8}" | head -n 3 &&
	a=$(ours "$f" "^${V8}.?fa .*jit.js") && echo "fa: $a" &&
	test "${a%% *}" -gt "$(( ${a##* } / 2 ))"
'
# A map line whose range wraps past 2^64 holds every pc, and the format refuses it: not copied.
test_expect_success 'inside the program: a map line that wraps is not copied, the profile reads' '
	mkdir wrap &&
	LD_PRELOAD="$B/libprofil-record.so" PROFIL_RECORD_DIR="$PWD/wrap" sh -c "
		printf \"1 ffffffffffffffff wrap\\n\" > /tmp/perf-\$\$.map && echo \$\$ > pid &&
		exec sh -c \"i=0; while [ \\\$i -lt 100000 ]; do i=\\\$((i + 1)); done\"" &&
	rm -f "/tmp/perf-$(cat pid).map" &&
	"$PROFIL" report wrap > wrap.txt && ! grep -q " wrap" wrap.txt
'
# The map is made by the program's shell, whose pid node keeps by exec.
test_expect_success 'a perf map owned by another user is not read, and the recording says so' '
	"$PROFIL" record -o other -- sh -c "touch /tmp/perf-\$\$.map &&
		chown nobody /tmp/perf-\$\$.map && echo \$\$ > pid &&
		exec node --perf-basic-prof jit.js" > other.out 2> other.err
	rc=$?; pid=$(cat pid); rm -f "/tmp/perf-$pid.map"
	test $rc -eq 0 && cat other.err &&
	grep -q "JIT names not read.*perf-$pid.map: owned by another user" other.err &&
	f=$(ls other/node.*.profil) && ! "$PROFIL" dump "$f" | grep "^code " | grep -qv " kallsyms " &&
	u=$(ours "$f" "^\\[anon\\]$") && echo "[anon]: $u" && test "${u%% *}" -gt 0
'
test_done
