#!/bin/sh
# t5011-push-outage: the push client (src/fleet/push.h) while the server is down, refuses or
# hangs.  Issue 22: "retries and a bounded queue while the server is down: what is dropped is
# counted and said, memory stays bounded".  A receiver down then up gets every window, in
# order; a long outage with a small queue drops the oldest windows, counts every byte, and the
# driver's memory stays flat while 192 MiB of windows pass through; 503 and 429 are retried
# (429 no sooner than its Retry-After), 400 is not; a server that accepts and never answers
# costs a time-out, never a blocked loop.  The receiver (tests/fleet/ingest.py) checks each
# request against Pyroscope's API as in t5010.
. "$(dirname "$0")/lib.sh"
test_needs python3:python3
. "$TEST_DIR/fleet/lib-push.sh"

# A port where nothing listens: the receiver's, once it has gone.
receiver_start --app app && down=$port && receiver_stop

test_expect_success 'receiver down, then up: windows queued, then all delivered in order' '
	"$DRIVE" -u "http://127.0.0.1:$down" -a app -f window.pb.gz -n 30 -i 100 -r 1000 \
		-s 1700000000 -W 15 -w 15000 > out & dp=$! &&
	sleep 1.5 && receiver_start --app app --port "$down" &&
	wait $dp; rc=$?; receiver_stop; cat out && test $rc -eq 0 &&
	contract_kept && test "$(push_stat sent)" = 30 && test "$(push_stat dropped)" = 0 &&
	test "$(push_stat failed)" -ge 1 && test "$(wc -l < log)" = 30 &&
	log_field from | awk "{ if (\$1 != 1700000000 + 15 * (NR - 1)) exit 1 }"
'

# 3000 windows of 64 KiB (filler: no receiver reads them) every millisecond into a queue of
# 256 KiB.  All of them are accounted for; the peak RSS may grow by the queue, the window in
# hand and libcurl's buffers, twice over for malloc's slack: 4 MiB, where keeping the windows
# would take 192 MiB.
test_expect_success 'a long outage, a small queue: the oldest dropped and counted, RSS flat' '
	"$DRIVE" -u "http://127.0.0.1:$down" -a app -z 65536 -n 3000 -i 1 -q 262144 -r 1000 \
		-w 200 > out; rc=$?; cat out && test $rc -eq 0 &&
	test "$(push_stat windows)" = 3000 && test "$(push_stat sent)" = 0 &&
	test $(($(push_stat dropped) + $(push_stat queued))) = 3000 &&
	test "$(push_stat dropped_bytes)" = $(($(push_stat dropped) * 65536)) &&
	test "$(push_stat queued_bytes)" -le 262144 && test "$(push_stat queued)" -ge 3 &&
	grep -q "^last_error Failed to connect to 127.0.0.1 port $down" out &&
	grow=$(($(push_stat rss_peak_kb) - $(push_stat rss_start_kb))) &&
	echo "RSS grew by $grow kB" && test $grow -lt 4096
'

# The same with real windows and a queue of four: when the receiver comes back, what it gets
# is the newest windows, the last one included; dropped and sent add up to all of them.
test_expect_success 'after drops, the newest windows are the ones delivered' '
	len=$(wc -c < window.pb.gz) &&
	"$DRIVE" -u "http://127.0.0.1:$down" -a app -f window.pb.gz -n 200 -i 10 \
		-q $((4 * len)) -r 1000 -s 1700000000 -W 15 -w 15000 > out & dp=$! &&
	sleep 3 && receiver_start --app app --port "$down" &&
	wait $dp; rc=$?; receiver_stop; cat out log && test $rc -eq 0 && contract_kept &&
	test "$(push_stat sent)" -ge 4 &&
	test $(($(push_stat sent) + $(push_stat dropped))) = 200 &&
	test "$(log_field from | tail -n 1)" = $((1700000000 + 199 * 15)) &&
	test "$(log_field from | sort -n -c && echo sorted)" = sorted
'

test_expect_success '503 twice: the same window tried three times, then sent' '
	receiver_start --app app --status 503,503 &&
	"$DRIVE" -u "http://127.0.0.1:$port" -a app -f window.pb.gz -r 2000 > out; rc=$?
	receiver_stop; cat out && test $rc -eq 0 &&
	test "$(push_stat attempts)" = 3 && test "$(push_stat retried)" = 2 &&
	test "$(push_stat sent)" = 1 && test "$(push_stat failed)" = 2 &&
	test "$(log_field from | sort -u | wc -l)" = 1 && test "$(wc -l < log)" = 3
'

test_expect_success '400: the window rejected, not tried again; the next one sent' '
	receiver_start --app app --status 400 &&
	"$DRIVE" -u "http://127.0.0.1:$port" -a app -f window.pb.gz -n 2 -r 2000 > out; rc=$?
	receiver_stop; cat out && test $rc -eq 0 &&
	test "$(push_stat attempts)" = 2 && test "$(push_stat retried)" = 0 &&
	test "$(push_stat rejected)" = 1 && test "$(push_stat sent)" = 1 &&
	grep -q "^last_error HTTP 400: status 400 asked by the test" out &&
	test "$(log_field from | sort -u | wc -l)" = 2
'

# The first backoff is 0.5 to 1 s: a second attempt 2 s later is the Retry-After.
test_expect_success '429 with Retry-After: 2: tried again no sooner than 2 s later' '
	receiver_start --app app --status 429 --retry-after 2 &&
	"$DRIVE" -u "http://127.0.0.1:$port" -a app -f window.pb.gz -r 5000 > out; rc=$?
	receiver_stop; cat out && test $rc -eq 0 &&
	test "$(push_stat attempts)" = 2 && test "$(push_stat sent)" = 1 &&
	log_field time | awk "NR == 1 { t = \$1 } NR == 2 { print \$1 - t; exit !(\$1 - t >= 2) }"
'

# Time-outs of 1 s while windows come every 100 ms: a client that waited for its answer would
# be a second late at least; the bound of 0.3 s leaves room for a busy machine's scheduling.
test_expect_success 'a receiver that never answers: the time-out fires, no call blocks' '
	receiver_start --app app --hang &&
	"$DRIVE" -u "http://127.0.0.1:$port" -a app -f window.pb.gz -n 20 -i 100 -t 1000 -r 1000 \
		-w 1500 > out; rc=$?
	receiver_stop; cat out && test $rc -eq 0 &&
	test "$(push_stat sent)" = 0 && test "$(push_stat failed)" -ge 1 &&
	grep -q "^last_error Operation timed out after 10[0-9][0-9] milliseconds" out &&
	test "$(push_stat slowest_call_us)" -lt 300000 &&
	test "$(push_stat latest_feed_us)" -lt 300000 &&
	test "$(push_stat feed_ms)" -lt 2300 &&
	grep -q "^flush timeout" out && test "$(push_stat flush_ms)" -lt 2000 &&
	test "$(push_stat queued)" -ge 1
'
test_done
