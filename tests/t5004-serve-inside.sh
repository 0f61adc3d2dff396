#!/bin/sh
# profil serve where perf events are refused (a seccomp filter: tests/record/noperf): a command
# is recorded from inside it, says so, and its windows (to about a second: the recorder there
# rewrites its profile once a second) have the split's shares, read by go tool pprof; -p and
# -a cannot be recorded so, and are refused with one line naming the sysctl.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
. "$TEST_DIR/serve/lib-serve.sh"
test_needs golang-go:go curl:curl
mkdir tmp
export TMPDIR="$TRASH/tmp" HOME="$TRASH"

"$REC/noperf" "$PROFIL" serve --http 127.0.0.1:0 -- "$REC/split" 30 "$PLUGIN" \
	> /dev/null 2> serve.err &
sp=$!
port=$(serve_port serve.err)

test_expect_success 'a command from inside: said; a window of 3 s with the split 50/25/15/10' '
	cat serve.err && test -n "$port" &&
	refused="^profil: perf events refused (.*kernel.perf_event_paranoid=.*)" &&
	grep -q "$refused: recording from inside the program" serve.err &&
	sleep 1.5 &&
	curl -s -o in.pb.gz "http://127.0.0.1:$port/debug/pprof/profile?seconds=3" &&
	go tool pprof -top -sample_index=samples -nodefraction=0 in.pb.gz > top.txt 2>&1
	cat top.txt &&
	n=$(sed -n "s/.*Total samples = \([0-9]*\) .*/\1/p" top.txt) && test "$n" -ge 100 &&
	flat() { awk -v fn="$1" "\$6 == fn { print \$1; f = 1 } END { if (!f) print 0 }" top.txt; } &&
	share_ok "$(flat main_work50)" "$n" 0.50 4 &&
	share_ok "$(flat lib_work25)" "$n" 0.25 4 &&
	share_ok "$(flat plugin_work15)" "$n" 0.15 4 &&
	share_ok "$(flat main_work10)" "$n" 0.10 4
'
kill $sp 2> /dev/null; wait $sp

test_expect_success '-p where perf events are refused: one line, exit 1' '
	"$REC/split" 5 "$PLUGIN" > /dev/null & p=$!
	"$REC/noperf" "$PROFIL" serve --http 127.0.0.1:0 -p $p 2> p.err; rc=$?
	kill $p; wait $p; cat p.err && test $rc -eq 1 &&
	refused="^profil: perf events refused (.*kernel.perf_event_paranoid=.*)" &&
	grep -q "$refused: profil serve records -p and -a from outside" p.err &&
	test -z "$(ls -A tmp)"
'
test_done
