#!/bin/sh
# profil serve: the real `go tool pprof` reads /debug/pprof/profile?seconds=N over HTTP, as it
# reads a Go service's, and gets the split program's shares (50/25/15/10, within the binomial
# bound of the window's samples); the answer has net/http/pprof's headers; samples carry pid and
# tid labels; a window holds its own seconds alone (a program that ended before it started is
# not in it, though its profile is still in the recording); the server ends with its command,
# with its status, and leaves nothing behind.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
. "$TEST_DIR/serve/lib-serve.sh"
test_needs golang-go:go curl:curl

if ! "$PROFIL" record -q --clock outside -o probe -- true 2> probe.err; then
	cat probe.err
	echo "ok - skipped: perf events refused here (profil serve records from outside)"
	test_done
fi
mkdir tmp
export TMPDIR="$TRASH/tmp" HOME="$TRASH" PPROF_TMPDIR="$TRASH/pprof"

# flat FILE FUNCTION: the samples `go tool pprof -top -sample_index=samples` gives FUNCTION.
flat() {
	awk -v fn="$2" '$6 == fn { print $1; f = 1 } END { if (!f) print 0 }' "$1"
}

"$PROFIL" serve --http 127.0.0.1:0 -- "$REC/split" 30 "$PLUGIN" > /dev/null 2> serve.err &
sp=$!
port=$(serve_port serve.err)

test_expect_success 'go tool pprof reads ?seconds=2: the split 50/25/15/10' '
	test -n "$port" && sleep 0.5 &&
	go tool pprof -top -sample_index=samples -nodefraction=0 \
		"http://127.0.0.1:$port/debug/pprof/profile?seconds=2" > top.txt 2> fetch.txt
	cat fetch.txt top.txt &&
	grep -q "^Fetching profile over HTTP from http://127.0.0.1:$port/debug/pprof/profile" \
		fetch.txt &&
	n=$(sed -n "s/.*Total samples = \([0-9]*\) .*/\1/p" top.txt) && test "$n" -ge 200 &&
	share_ok "$(flat top.txt main_work50)" "$n" 0.50 4 &&
	share_ok "$(flat top.txt lib_work25)" "$n" 0.25 4 &&
	share_ok "$(flat top.txt plugin_work15)" "$n" 0.15 4 &&
	share_ok "$(flat top.txt main_work10)" "$n" 0.10 4
'

test_expect_success 'net/http/pprof'"'"'s answer: gzip, octet-stream, attachment "profile"' '
	curl -s -D headers.txt -o p.pb.gz \
		"http://127.0.0.1:$port/debug/pprof/profile?seconds=1" &&
	cat headers.txt && grep -q "^HTTP/1.1 200" headers.txt &&
	grep -qi "^Content-Type: application/octet-stream" headers.txt &&
	grep -qi "^Content-Disposition: attachment; filename=\"profile\"" headers.txt &&
	gzip -t p.pb.gz &&
	go tool pprof -tags p.pb.gz > tags.txt 2>&1; cat tags.txt &&
	grep -q "^ *pid: Total" tags.txt && grep -q "^ *tid: Total" tags.txt &&
	child=$(pgrep -P $sp) && echo "split: $child" &&
	grep -q "(  100%): $child\$" tags.txt
'

# cpu_ms PID: the process's CPU time (user and system) so far, in ms (/proc/PID/stat 14, 15).
cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print int(($12 + $13) * 1000 / hz) }' \
		"/proc/$1/stat"
}

test_expect_success 'a window holds its own seconds: the CPU time the program took in it' '
	child=$(pgrep -P $sp) &&
	for i in $(seq 300); do test "$(cpu_ms $child)" -ge 1500 && break; sleep 0.1; done &&
	before=$(cpu_ms $child) &&
	go tool pprof -top -sample_index=samples \
		"http://127.0.0.1:$port/debug/pprof/profile?seconds=1" > top1.txt 2> /dev/null &&
	after=$(cpu_ms $child) &&
	n=$(sed -n "s/.*Total samples = \([0-9]*\) .*/\1/p" top1.txt) &&
	echo "CPU before $before ms, after $after ms; the window has $n samples at 1000 Hz" &&
	test "$before" -ge 1500 && test "$n" -gt 0 &&
	test "$n" -le $((after - before + 100))
'

test_expect_success 'the index page links the profile endpoint' '
	curl -s -o index.html "http://127.0.0.1:$port/" && cat index.html &&
	grep -q "href=\"/debug/pprof/profile?seconds=30\"" index.html
'
kill $sp 2> /dev/null; wait $sp

# A program that ends before the window starts is not in the window, though its profile stays
# in the recording; what runs in the window is.
"$PROFIL" serve --http 127.0.0.1:0 -- sh -c "\"$REC/split\" 1 \"$PLUGIN\" > /dev/null;
	touch \"$TRASH/split.done\"; \"$REC/split\" 30 \"$PLUGIN\" -x > /dev/null" \
	> /dev/null 2> serve2.err &
sp=$!
port=$(serve_port serve2.err)
test_expect_success 'a window holds its own seconds: an image ended before it is not in it' '
	for i in $(seq 100); do test -f split.done && break; sleep 0.1; done &&
	test -f split.done && sleep 0.3 &&
	go tool pprof -raw "http://127.0.0.1:$port/debug/pprof/profile?seconds=1" > raw.txt \
		2> fetch2.txt; cat fetch2.txt &&
	pids=$(awk "/^ *pid:/ { print \$2 }" raw.txt | sort -u) && echo "pids: $pids" &&
	test "$(echo "$pids" | wc -w)" -eq 1 && grep -q main_work50 raw.txt
'
kill -TERM $sp 2> /dev/null; wait $sp

test_expect_success 'ends with its command, with its status; the recording removed' '
	"$PROFIL" serve --http 127.0.0.1:0 -- sh -c "exit 7" 2> end.err; rc=$?
	cat end.err && test $rc -eq 7 && test -z "$(ls -A tmp)"
'
test_done
