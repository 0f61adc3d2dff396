#!/bin/sh
# t5012-serve-push: profil serve --push posts each window of its recording to a Pyroscope-style
# /ingest (issue 22, item 4).  The loopback receiver of t5010 (tests/fleet/ingest.py, a contract
# test of Pyroscope's documented API) gets the windows one after the other, each labelled with
# the host and the program, each a pprof go tool pprof reads; all of them together hold the
# program's known split (tests/progs/callers: hot_b 0.625 of hot_a + hot_b, within the binomial
# bound of their samples).  With the receiver down the
# server still ends with its command, in a bounded time, and says what it could not push.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs python3:python3 golang-go:go curl:curl

if ! "$PROFIL" record -q --clock outside -o probe -- true 2> probe.err; then
	cat probe.err
	echo "ok - skipped: perf events refused here (profil serve records from outside)"
	test_done
fi
. "$TEST_DIR/fleet/lib-push.sh"
mkdir tmp
export TMPDIR="$TRASH/tmp" HOME="$TRASH" PPROF_TMPDIR="$TRASH/pprof"
host=$(uname -n)

# flat FILE FUNCTION: the samples `go tool pprof -top -sample_index=samples` gives FUNCTION.
flat() {
	awk -v fn="$2" '$6 == fn { print $1; f = 1 } END { if (!f) print 0 }' "$1"
}

test_expect_success '--push --window 1: windows in order, labelled, each read by go tool pprof' '
	receiver_start --app svc --labels "host=$host,program=callers" &&
	"$PROFIL" serve --push "http://127.0.0.1:$port" --window 1 --app svc -- \
		"$B/tests/progs/callers" 2 > serve.out 2> serve.err; rc=$?
	receiver_stop; cat serve.err && test $rc -eq 0 && contract_kept &&
	n=$(wc -l < log) && echo "$n windows" && test "$n" -ge 2 &&
	grep -q "^profil serve: pushed $n of $n windows (.*); 0 dropped (0 bytes), 0 rejected, 0 unsent" serve.err &&
	log_field from > from && log_field until > until &&
	paste from until | awk "NR > 1 && \$1 != last { exit 1 } { last = \$2 }" &&
	for f in bodies/*.pb.gz; do go tool pprof -raw "$f" > raw 2>&1 &&
		grep -q "^PeriodType: cpu nanoseconds" raw || { cat raw; exit 1; }; done &&
	test -z "$(ls -A tmp)"
'

test_expect_success 'the windows together: the split of callers (hot_b 0.625 of hot_a + hot_b)' '
	go tool pprof -top -sample_index=samples -nodefraction=0 bodies/*.pb.gz > top.txt 2>&1 &&
	cat top.txt && a=$(flat top.txt hot_a) && b=$(flat top.txt hot_b) &&
	share_ok "$b" $((a + b)) 0.625 4
'

# Both at once: one loop serves a scrape while it pushes every window.
test_expect_success '--http and --push at once: a scrape answered, every window pushed' '
	receiver_start --app svc --labels "host=$host,program=callers" &&
	{ "$PROFIL" serve --http 127.0.0.1:0 --push "http://127.0.0.1:$port" --window 1 \
		--app svc -- "$B/tests/progs/callers" 2 > both.out 2> both.err & sp=$!; } &&
	for i in $(seq 100); do
		hp=$(sed -n "s|^profil: serving http://\([0-9.:]*\)/.*|\1|p" both.err)
		test -n "$hp" && break; sleep 0.1
	done
	code=$(curl -s -m 20 -o scrape.pb.gz -w "%{http_code}" \
		"http://$hp/debug/pprof/profile?seconds=1")
	wait $sp; rc=$?; receiver_stop; cat both.err && echo "scrape: $code" &&
	test $rc -eq 0 && test "$code" = 200 && contract_kept &&
	go tool pprof -raw scrape.pb.gz > sraw 2>&1 && grep -q "^PeriodType: cpu" sraw &&
	n=$(wc -l < log) && test "$n" -ge 2 &&
	grep -q "^profil serve: pushed $n of $n windows" both.err && test -z "$(ls -A tmp)"
'

# Nothing listens: the server ends with its command, after at most its flush of 5 s, and says
# that nothing was pushed, with the reason.
test_expect_success 'the receiver down: serve ends with its command and says what was lost' '
	receiver_start --app svc && down=$port; receiver_stop;
	start=$(date +%s) &&
	"$PROFIL" serve --push "http://127.0.0.1:$down" --window 1 -- \
		"$B/tests/progs/callers" 1 > /dev/null 2> down.err; rc=$?
	took=$(($(date +%s) - start)); cat down.err && echo "took $took s" && test $rc -eq 0 &&
	grep -q "^profil serve: pushed 0 of [1-9][0-9]* windows (0 bytes); .* [1-9][0-9]* unsent; [1-9][0-9]* failed attempts, the last: Failed to connect to 127.0.0.1 port $down" down.err &&
	test "$took" -lt 30 && test -z "$(ls -A tmp)"
'

test_expect_success 'usage: no destination, a bad window, a URL or label Pyroscope refuses' '
	"$PROFIL" serve -- true 2> e1; r1=$? &&
	"$PROFIL" serve --push http://127.0.0.1:1 --window 0 -- true 2> e2; r2=$? &&
	"$PROFIL" serve --push ftp://127.0.0.1/ -- true 2> e3; r3=$? &&
	"$PROFIL" serve --push http://127.0.0.1:1 --app "a b" -- true 2> e4; r4=$? &&
	cat e1 e2 e3 e4 && test $r1 = 2 && test $r2 = 2 && test $r3 = 2 && test $r4 = 2 &&
	grep -q "^profil: where profiles go: --http ADDR:PORT, --push URL or both" e1 &&
	grep -q "^profil: the push window must be 1 to 3600 s: .0.$" e2 &&
	grep -q "^profil: not an http:// or https:// URL: .ftp://127.0.0.1/.$" e3 &&
	grep -q "^profil: the application name must be" e4
'
test_done
