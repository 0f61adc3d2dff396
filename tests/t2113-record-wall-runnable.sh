#!/bin/sh
# t2113-record-wall-runnable: issue 20, "Runnable time in --wall, in both recorders: a thread
# that is runnable but not on a CPU is counted as such (a leaf saying it waits for a CPU), so
# the thirds hold under any load; the report says how much time threads waited for a CPU, per
# thread."  tests/record/waits.c thirds burns, sleeps and blocks in read a third of its wall
# time each; two CPU burners pinned to the one CPU it is pinned to keep it off that CPU for
# about two thirds of its burning third.  Before, that time was counted nowhere and the
# burning third fell to about a seventh.  Recorded from outside and from inside (timer clock).
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs util-linux:taskset coreutils:timeout

W=$B/tests/record/waits
cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')

# loaded DIR RECORD-OPTIONS...: waits thirds 1 recorded, on one CPU beside two burners of it.
loaded() {
	d=$1
	shift
	taskset -c "$cpu" timeout 30 sh -c 'while :; do :; done' > /dev/null 2>&1 &
	b1=$!
	taskset -c "$cpu" timeout 30 sh -c 'while :; do :; done' > /dev/null 2>&1 &
	b2=$!
	"$PROFIL" record --wall "$@" -o "$d" -- taskset -c "$cpu" "$W" thirds 1 > "$d.out" \
		2> "$d.err"
	rc=$?
	kill "$b1" "$b2" 2> /dev/null
	wait "$b1" "$b2" 2> /dev/null
	cat "$d.err" "$d.out"
	return $rc
}

# waited DIR: the thirds under load, the time waiting for a CPU in the burning third, and the
# report's time waiting for a CPU per thread: waits' main thread has most of it, and the
# threads' seconds add up to the process's.
waited() {
	grep -qx "eintr 0" "$1.out" &&
	"$PROFIL" export -f folded "$1" 2> /dev/null > "$1.txt" && thirds "$1.txt" &&
	q=$(count "$1.txt" ";thirds;burn;.*\\[wait: CPU, runnable\\] [0-9]+$") &&
	echo "waiting for a CPU in burn: $q samples" && test "$q" -ge 20 &&
	"$PROFIL" report "$1" > "$1.report" 2> /dev/null && head -n 6 "$1.report" &&
	grep -q "seconds of threads. time: .* on a CPU.*, .* waiting (.* for a CPU)$" "$1.report" &&
	grep "^  waits\\[[0-9]*\\]: .* waiting, [0-9]* of them for a CPU)" "$1.report" &&
	grep "^    waited for a CPU: " "$1.report" | grep " waits\\[[0-9]*\\] " | awk '{
		sub(/^ *waited for a CPU: /, ""); split($0, h, "; "); all = h[1] + 0
		n = split(h[2], t, ", ")
		for (i = 1; i <= n; i++) {
			split(t[i], f, " "); s += f[2]
			if (i == 1 && f[1] ~ /^waits\[/) main = f[2]
		}
		printf "process %.3f s, its threads %.3f s, main %.3f s\n", all, s, main
		exit !(main >= all / 2 && s - all < 0.002 * n && all - s < 0.002 * n) }'
}

test_expect_success 'inside (timer clock), beside two burners: a third each, the CPU waits said' '
	loaded in --clock timer && waited in
'

if ! "$PROFIL" record --clock outside -o probe -- true 2> probe.err; then
	cat probe.err
	echo "ok - skipped: outside: perf events refused here"
	test_done
fi

test_expect_success 'outside, beside two burners: a third each, the CPU waits said' '
	loaded out && waited out
'
test_done
