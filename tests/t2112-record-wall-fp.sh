#!/bin/sh
# t2112-record-wall-fp: a waiting thread's stack is right or cut, never a wrong caller (issue
# 20, item 3).  /proc gives a waiting thread's sp and pc but not rbp, which the rule of a
# function framed by it needs (CFA = rbp + 16).  tests/record/waitfp.c waits in read(2) in such
# a function, whose buffer holds stale frame records that each chain to main through callers
# that are not the real ones.  Recorded with --wall -g by both recorders, outside and inside
# (the timer clock), while gdb prints the backtrace of the same waiting process: every waiting
# stack is gdb's caller chain from main to the waiting function, or begins with a
# "[stack cut: ...]" frame followed by a leaf-side part of that chain; rbp is found, and the
# stacks whole, where the function's prologue proves where it is; not where rsp moves after the
# prologue (an array of variable length), where the slot the prologue gives holds a stale
# record.  The man page: "never in a wrong caller".  First tests/report/waiting.c, the walk
# over hand-made code and rows, rule by rule.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs gdb:gdb

test_run_prog waiting "$B/tests/report/waiting"

W=$B/tests/record/waitfp

# record NAME LEN ARGS...: waitfp LEN recorded with --wall -g and ARGS, blocked in read until
# gdb has written its backtrace of every thread to NAME.gdb; NAME.txt is the folded export.
record() {
	name=$1 len=$2
	shift 2
	rm -f fifo && mkfifo fifo &&
	{ "$PROFIL" record --wall -g "$@" -o "$name" -- "$W" $len < fifo > "$name.out" \
		2> "$name.err" & } && exec 3> fifo &&
	i=0 && while ! grep -q "^ready" "$name.out" && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1)); done &&
	pid=$(awk '$1 == "ready" { print $2 }' "$name.out") &&
	sleep 0.5 && gdb -p "$pid" -batch -ex "thread apply all bt" > "$name.gdb" 2>&1
	sleep 0.5
	echo x >&3 && exec 3>&- && wait &&
	cat "$name.err" && grep -q "^done 1" "$name.out" &&
	folded_code "$name" > "$name.txt"
}

# chain NAME: gdb's frames of the thread in $fn, root first, from main to $fn.
chain() {
	awk '/^Thread / { keep = / "waitfp"\)/ }
		keep && /^#[0-9]/ { f = $2; if (f ~ /^0x/) f = $4; fr[n++] = f }
		END { for (i = n - 1; i >= 0; i--) { if (fr[i] == "main") on = 1
			if (on) s = s (s == "" ? "" : ";") fr[i]; if (fr[i] == fn) break }
			print s }' fn="$fn" "$1.gdb"
}

# judge NAME: each waiting stack (of read) whole to main as gdb's, or cut and then a leaf-side
# part of gdb's chain; prints the counts, fails on any other.  fn: the waiting function.
judge() {
	g=$(chain "$1") && echo "gdb: $g" && test "${g#main;}" != "$g" &&
	awk -v g="$g" -v fn="$fn" -v tomain="^$TO_MAIN" 'index($0, "[wait: read,") {
			s = $0; c = $NF; sub(/ [0-9]+$/, "", s); n += c
			# the last: a wrong walk may name the function as its own caller
			w = 0; t = s ";"
			while ((i = index(substr(t, w + 1), ";" fn ";")) > 0) w += i
			if (!w) { bad += c; if (nb++ < 3) print "not in " fn ":", $0; next }
			head = substr(s, 1, w - 1) ";" fn
			if (head ~ /^\[stack cut/) {
				rest = head; sub(/^\[stack cut[^;]*;/, "", rest)
				if (rest == g || substr(g, length(g) - length(rest)) == ";" rest) cut += c
				else { bad += c; if (nb++ < 3) print "wrong after the cut:", $0 }
			} else if (sub(tomain, "main;", head) && head == g) whole += c
			else { bad += c; if (nb++ < 3) print "wrong caller:", $0 }
		}
		END { printf "%d waiting samples: %d whole, %d cut, %d wrong\n", n, whole, cut, bad
			exit !(n > 0 && bad == 0) }' "$1.txt"
}

# whole NAME: the recovered stacks: more than half of the waiting samples go to main.
whole() {
	judge "$1" | awk '/waiting samples/ { print; exit !($1 > 0 && 2 * $4 > $1) }'
}

outside=1
if ! "$PROFIL" record --clock outside -o probe -- true 2> probe.err; then
	cat probe.err
	outside=0
fi
for how in outside inside; do
	if [ $how = outside ] && [ $outside = 0 ]; then
		echo "ok - skipped: outside: perf events refused here"
		continue
	fi
	clock=
	[ $how = inside ] && clock="--clock timer"
	fn=waiter
	test_expect_success "$how: every waiting stack is gdb's chain to main, or cut" '
		record $how-fixed "" $clock && judge $how-fixed
	'
	test_expect_success "$how: the frame pointer found, the stacks reach main" '
		whole $how-fixed
	'
	# 192 bytes: the slot the prologue alone gives is the 4th of stale()'s records.
	fn=waiter_vla
	test_expect_success "$how: an array of variable length, right or cut" '
		record $how-vla 192 $clock && judge $how-vla
	'
done
test_done
