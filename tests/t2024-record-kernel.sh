#!/bin/sh
# t2024-record-kernel: time in the kernel (issue 20).  profil(1): "Where the kernel allows it
# (root, CAP_PERFMON, or kernel.perf_event_paranoid at most 1), the samples include the time
# the program spends in the kernel"; "--user-only leaves the kernel's samples out"; and where
# the kernel is not sampled, "the report says how many seconds the program spent in the
# kernel, as the kernel counted them".
#
# The program (tests/record/syscalls.c) reads /dev/zero and computes in turn, about half and
# half.  Its kernel share in profil's samples is checked against perf's cpu-clock samples of
# the same run (perf runs inside profil, as in t3003), within the binomial bound of both
# counts; the seconds not sampled against the program's own getrusage(2) stime.  perf runs with
# -B: perf 6.1's build-id pass at the end aborts ("assertion failed at util/build-id.c:1010")
# on a recording with kernel samples.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs linux-perf:perf

# kernel_share TSV: "KERNEL TOTAL", the samples of [kernel] rows and of all rows.
kernel_share() {
	awk -F '\t' 'NR > 1 { n += $6; if ($8 == "[kernel]") k += $6 } END { print k + 0, n + 0 }' "$1"
}

if [ "$(id -u)" != 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	echo "ok - skipped: the kernel may not be sampled here (not root, perf_event_paranoid > 1)"
	test_done
fi
if ! perf record -q -B -e cpu-clock -o probe.data -- true > /dev/null 2>&1; then
	echo "not ok - perf record -e cpu-clock works (linux-perf)"
	test_done
fi

test_expect_success 'the kernel share of a syscall-heavy program is within the bound of perf'"'"'s' '
	"$PROFIL" record -q -F 1000 -o k -- perf record -q -B -e cpu-clock -c 1000000 -o perf.data \
		-- "$REC/syscalls" 150000 > out 2> err || { cat err; false; }
	"$PROFIL" report --tsv k/syscalls.*.profil > k.tsv &&
	set -- $(kernel_share k.tsv) && ours=$1 n=$2 &&
	perf report -i perf.data --stdio -q --comm syscalls --sort dso -F sample,dso \
		2> /dev/null > perf.txt &&
	set -- $(awk "{ n += \$1; if (\$2 ~ /^\\[kernel/) k += \$1 } END { print k + 0, n + 0 }" \
		perf.txt) && theirs=$1 m=$2 &&
	echo "profil: $ours of $n samples in the kernel; perf: $theirs of $m" &&
	test "$n" -ge 300 && test "$m" -ge 300 &&
	p=$(awk "BEGIN { print $theirs / $m }") &&
	share_ok "$ours" "$n" "$p" 1 "$(awk "BEGIN { printf \"%d\", $n * $m / ($n + $m) }")"
'

test_expect_success 'kernel functions are named from kallsyms, in stacks under the user frames' '
	grep -q "	read_zero	\[kernel\]	" k.tsv &&
	"$PROFIL" record -q -g -o g -- "$REC/syscalls" 50000 > /dev/null &&
	"$PROFIL" export -f folded g > g.folded &&
	grep -E "^syscalls;${TO_MAIN}read;([^;]*;)*read_zero [0-9]+$" g.folded | head -n 1 | grep . &&
	"$PROFIL" record -q --call-graph fp -o fp -- "$REC/syscalls" 50000 > /dev/null &&
	"$PROFIL" export -f folded fp | grep -E "read;([^;]*;)*read_zero [0-9]+$" | head -n 1 |
		grep .
'

test_expect_success '--user-only: no sample in the kernel' '
	"$PROFIL" record -q --user-only -o u -- "$REC/syscalls" 50000 > out &&
	"$PROFIL" dump u/syscalls.*.profil > d &&
	flags=$(dump_field d flags) && echo "flags $flags" &&
	test $((flags & 16)) = 0 &&
	! grep "^mapping .* \[kernel\]$" d &&
	"$PROFIL" report --tsv u > u.tsv &&
	set -- $(kernel_share u.tsv) && echo "$1 of $2 samples in the kernel" &&
	test "$1" = 0 && test "$2" -gt 0
'

# said_ok REPORT OUT: the seconds the report's title says were not sampled in the kernel, and
# the program's stime (its OUT), agree within two of /proc's clock ticks and 5%.
said_ok() {
	head -n 1 "$1" &&
	said=$(sed -n "1s/.* \([0-9.]*\) \(seconds in the kernel\|of them in the kernel\), not sampled.*/\1/p" "$1") &&
	stime=$(awk "\$1 == \"stime\" { print \$2 }" "$2") &&
	echo "said $said s, stime $stime s" && test -n "$said" &&
	awk -v a="$said" -v b="$stime" -v tck="$(getconf CLK_TCK)" "BEGIN {
		d = a - b; if (d < 0) d = -d; exit !(d <= 2 / tck + 0.05 * b) }"
}

if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ] && command -v setpriv > /dev/null
then
	chmod 755 "$TRASH"
	mkdir n && chmod 777 n
	cp "$PROFIL" "$B/libprofil-record.so" "$REC/syscalls" "$B/tests/record/libsplit.so" n/
	test_expect_success 'unprivileged: the report says the seconds in the kernel not sampled' '
		setpriv --reuid=65534 --regid=65534 --clear-groups env LD_LIBRARY_PATH="$TRASH/n" \
			n/profil record -q -o "$TRASH/n/out" -- n/syscalls 100000 > out &&
		"$PROFIL" report n/out > r && said_ok r out &&
		grep -q "seconds of user CPU; " r &&
		"$PROFIL" report --graph n/out | head -n 1 | grep "in the kernel, not sampled" &&
		"$PROFIL" export -f svg -o - n/out | grep -q "in the kernel, not sampled"
	'
fi

# CAP_PERFMON alone: the kernel may be sampled, but kallsyms reads as zeros without CAP_SYSLOG
# (kptr_restrict 0 shows addresses only where perf_event_paranoid <= 1).  profil(1): "such code
# is one function, [kernel], rather than a wrong name".
if [ -d n ] && [ "$(id -u)" = 0 ] && setpriv --reuid=65534 --regid=65534 --clear-groups \
	--inh-caps=+perfmon --ambient-caps=+perfmon true 2> /dev/null
then
	test_expect_success 'CAP_PERFMON without kallsyms addresses: kernel samples, one [kernel]' '
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+perfmon \
			--ambient-caps=+perfmon env LD_LIBRARY_PATH="$TRASH/n" \
			n/profil record -q -o "$TRASH/n/cap" -- n/syscalls 50000 > out &&
		"$PROFIL" dump n/cap/*.profil > d && ! grep "^code .* kallsyms " d &&
		"$PROFIL" report --tsv n/cap > cap.tsv &&
		awk -F "\t" "\$8 == \"[kernel]\" { print \$7, \$6 }" cap.tsv > kfuncs &&
		cat kfuncs && test "$(wc -l < kfuncs)" = 1 && grep -q "^\[kernel\] [0-9]" kfuncs
	'
fi

for clock in ring timer; do
	test_expect_success "inside ($clock clock): the report says the seconds in the kernel" '
		"$PROFIL" record -q --clock $clock -o $clock -- "$REC/syscalls" 100000 > out &&
		"$PROFIL" report $clock > r && said_ok r out
	'
done

test_done
