#!/bin/sh
# t2105-record-wall: profil record --wall (issue 12) samples every thread on wall-clock time,
# running or waiting.  A waiting thread's sample is its user stack, read from outside (/proc
# and process_vm_readv: no signal, no ptrace stop), with a leaf frame naming the system call
# it waits in and its state.  tests/record/waits.c: a thread that burns S seconds of CPU,
# sleeps S in nanosleep and blocks about S in read on a pipe gets a third of its samples in
# each, with no EINTR, as root and as nobody; without --wall nearly all its samples burn.
# Threads waiting on a mutex, in poll and in waitpid each have their wait named.  Issue 12:
# "The in-process fallback does the same": the same checks with the recorder preloaded (the
# timer and ring clocks, and where perf events are refused), its own thread reading /proc/self.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs golang-go:go util-linux:setpriv

W=$B/tests/record/waits
outside=1
if ! "$PROFIL" record --clock outside -o probe -- true 2> probe.err; then
	cat probe.err
	outside=0
fi

# reasons FOLDED: the mutex, poll and waitpid named, each with its whole stack.  From inside,
# threads start through the recorder's pthread_create, whose frame (thread_main) is not shown.
reasons() {
	! grep -q "thread_main" "$1" &&
	grep -E "^waits;${TO_THREAD}lock_waiter;.*\[wait: futex, sleeping\] [0-9]+$" "$1" &&
	grep -E "^waits;${TO_THREAD}poll_waiter;.*\[wait: poll, sleeping\] [0-9]+$" "$1" &&
	grep -E "^waits;_start;.*;main;reasons;.*\[wait: wait4, sleeping\] [0-9]+$" "$1"
}

# The inside recorder: wall samples flagged, none of its own threads sampled (they wait too).
inside_ok() {
	"$PROFIL" dump "$1"/waits.*.profil > "$1.dump" &&
	test $(( $(dump_field "$1.dump" flags) & 4 )) -eq 4 &&
	ours=$(awk '$1 == "thread" && $3 ~ /^profil-/ { printf "%s ", $2 }' "$1.dump") &&
	echo "recorder threads: $ours" && test -n "$ours" &&
	! awk -v ours=" $ours" '$1 == "sample" && index(ours, " " $3 " ") { print; bad = 1 }
		END { exit !bad }' "$1.dump"
}

for how in timer ring refused; do
	case $how in
	ring)
		if [ $outside = 0 ]; then
			echo "ok - skipped: inside, ring: perf events refused here"
			continue
		fi
		run="$PROFIL record --clock ring" ;;
	timer) run="$PROFIL record --clock timer" ;;
	refused) run="$REC/noperf $PROFIL record -q" ;;
	esac
	test_expect_success "inside ($how): a third each, no EINTR, the waits named" '
		$run --wall -o in-$how -- "$W" thirds 1 > in.txt 2> in-$how.err &&
		cat in-$how.err in.txt && grep -qx "eintr 0" in.txt &&
		"$PROFIL" export -f folded in-$how 2> /dev/null > in-$how.txt && thirds in-$how.txt &&
		inside_ok in-$how &&
		$run --wall -o why-$how -- "$W" reasons 0.5 > why.out 2> /dev/null &&
		grep -qx "eintr 0" why.out &&
		"$PROFIL" export -f folded why-$how 2> /dev/null > why-$how.txt && reasons why-$how.txt
	'
done

test_expect_success 'perf events refused: said in one line, then --wall from inside' '
	test $(wc -l < in-refused.err) -eq 1 &&
	grep "^profil: perf events refused (.*): recording from inside the program: " in-refused.err &&
	test "$(dump_field in-refused.dump clock)" = timer
'

if [ $outside = 0 ]; then
	echo "ok - skipped: outside: perf events refused here"
	test_done
fi

test_expect_success 'burning, sleeping, blocked in read: a third each, no EINTR' '
	"$PROFIL" record --wall -o root -- "$W" thirds 1 > out.txt &&
	cat out.txt && grep -qx "eintr 0" out.txt &&
	"$PROFIL" export -f folded root 2> /dev/null > root.txt && thirds root.txt
'

test_expect_success 'the report puts on-CPU and waiting time apart, and names the waits' '
	"$PROFIL" report root > report.txt 2> /dev/null && head -n 8 report.txt &&
	grep -q "seconds of threads. time: .* on a CPU.*, .* waiting" report.txt &&
	grep -q "\\[wait: clock_nanosleep, sleeping\\]" report.txt &&
	grep -q "\\[wait: read, sleeping\\]" report.txt
'

# burn waits only for a CPU, where the machine is busy: its waiting time is that.
test_expect_success 'the call graph splits the time of each function: waiting or on a CPU' '
	"$PROFIL" report --graph --tsv root 2> /dev/null > graph.tsv &&
	head -n 1 graph.tsv | grep -q "	waiting_s$" &&
	q=$(count root.txt ";thirds;burn;.*\\[wait: CPU, runnable\\] [0-9]+$") &&
	awk -F "\t" -v q="$q" "\$1 == \"function\" && (\$8 == \"burn\" || \$8 == \"snooze\" ||
		\$8 == \"blocked_read\") { print \$8, \$6, \$10
		if (\$8 == \"burn\") ok += (\$6 > \$10 && \$10 - q / 100 < 0.0005 &&
			q / 100 - \$10 < 0.0005)
		else ok += (\$10 == \$6 && \$6 > 0) } END { exit ok != 3 }" graph.tsv
'

test_expect_success 'without --wall the same program gives nearly all its samples to burn' '
	"$PROFIL" record -g -o cpu -- "$W" thirds 0.5 > /dev/null &&
	"$PROFIL" export -f folded cpu 2> /dev/null > cpu.txt &&
	b=$(count cpu.txt ";burn;|;burn ") && n=$(count cpu.txt .) &&
	! grep -q "\\[wait:" cpu.txt &&
	echo "burn $b of $n" && test $((100 * b)) -ge $((90 * n))
'

test_expect_success 'a mutex, poll and waitpid: each wait named, with its whole stack' '
	"$PROFIL" record --wall -o why -- "$W" reasons 0.5 > why.out && grep -qx "eintr 0" why.out &&
	"$PROFIL" export -f folded why 2> /dev/null > why.txt && reasons why.txt
'

test_expect_success 'pprof carries CPU and wall time as two sample types, wall the default' '
	"$PROFIL" export -f pprof -o root.pb.gz root &&
	go tool pprof -raw root.pb.gz > raw.txt 2> /dev/null &&
	grep -x "samples/count cpu/nanoseconds wall/nanoseconds\[dflt\]" raw.txt &&
	awk "/^ *[0-9]+ +[0-9]+ +[0-9]+:/ { n += \$1; c += \$2; w += \$3 }
		END { printf \"%d samples, cpu %.2f s, wall %.2f s\\n\", n, c / 1e9, w / 1e9
			exit !(c > 0 && w > c + 1.5e9) }" raw.txt
'

test_expect_success 'the flame graph draws the waits blue-violet' '
	"$PROFIL" export -f svg -o root.svg root &&
	grep -o "data-name=\"\[wait: [^\"]*\"><title>[^<]*</title><rect [^>]*fill=\"rgb([0-9,]*)\"" \
		root.svg > fills.txt && cat fills.txt &&
	sed "s/.*rgb(\([0-9]*\),\([0-9]*\),\([0-9]*\))\"/\1 \2 \3/" fills.txt |
		awk "{ n++; if (\$3 >= 220 && \$1 < 140 && \$2 < 150) ok++ } END { exit !(n > 0 && ok == n) }"
'

if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 2 ] || ! command -v setpriv > /dev/null
then
	echo "ok - skipped: perf events not allowed to users here, or no setpriv"
	test_done
fi
chmod 755 "$TRASH"
mkdir u && chmod 777 u
cp "$PROFIL" "$W" "$B/libprofil-record.so" u/
test_expect_success 'as nobody: the same thirds, no EINTR' '
	setpriv --reuid=65534 --regid=65534 --clear-groups u/profil record --wall -o u/out -- \
		u/waits thirds 1 > u.txt 2> u.err && cat u.err u.txt && grep -qx "eintr 0" u.txt &&
	"$PROFIL" export -f folded u/out 2> /dev/null > nobody.txt && thirds nobody.txt
'
test_expect_success 'as nobody, inside (timer clock): the same thirds, no EINTR' '
	setpriv --reuid=65534 --regid=65534 --clear-groups u/profil record --wall --clock timer \
		-o u/in -- u/waits thirds 1 > u.txt 2> u.err && cat u.err u.txt &&
	grep -qx "eintr 0" u.txt &&
	"$PROFIL" export -f folded u/in 2> /dev/null > nobody-in.txt && thirds nobody-in.txt
'
test_done
