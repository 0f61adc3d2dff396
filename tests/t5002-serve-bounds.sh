#!/bin/sh
# profil serve listens on the network, so everything a client can send is bounded: a bearer
# token checked on every request when --token is given (401), and another address than
# loopback refused at start without one; 400 for a bad seconds or query, a body on GET; 404 for
# any other path, ".." and its encodings included, never a file; 405 for other methods; 414 and
# 431 for a URL or headers too long; 429 beyond four windows at once; a client that says
# nothing, or half a request, is closed after 10 s while others are served; a flood of 200
# connections is survived.  After all of it the server still serves a right profile, read by
# the real go tool pprof.  Clients are raw sockets (tests/serve/client.py) where a library would
# tidy the request.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
. "$TEST_DIR/serve/lib-serve.sh"
test_needs python3:python3 golang-go:go

test_expect_success 'another address than loopback without --token: refused at start' '
	"$PROFIL" serve --http 0.0.0.0:0 -- sleep 30 2> any.err; rc=$?
	cat any.err && test $rc -eq 2 && grep -q "needs --token FILE" any.err &&
	"$PROFIL" serve --http "[::]:0" -- sleep 30 2> any6.err; rc=$?
	cat any6.err && test $rc -eq 2 && grep -q "needs --token FILE" any6.err
'

test_expect_success 'bad options: a short or missing token file, no --http, two targets' '
	test_code() { want=$1; shift; "$@" > /dev/null 2>> bad.err; test $? -eq $want; } &&
	echo short > short.token &&
	test_code 2 "$PROFIL" serve --http 127.0.0.1:0 --token short.token -- true &&
	test_code 2 "$PROFIL" serve --http 127.0.0.1:0 --token missing.token -- true &&
	test_code 2 "$PROFIL" serve -- true &&
	test_code 2 "$PROFIL" serve --http 127.0.0.1:0 -a -p 1 &&
	test_code 2 "$PROFIL" serve --http 127.0.0.1 -- true &&
	cat bad.err && grep -q "16 to 4096 printable" bad.err
'

if ! "$PROFIL" record -q --clock outside -o probe -- true 2> probe.err; then
	cat probe.err
	echo "ok - skipped: perf events refused here (profil serve records from outside)"
	test_done
fi
mkdir tmp
export TMPDIR="$TRASH/tmp" HOME="$TRASH" PPROF_TMPDIR="$TRASH/pprof"

head -c 24 /dev/urandom | od -An -tx1 | tr -d " \n" > token
"$PROFIL" serve --http 127.0.0.1:0 --token token -- "$REC/split" 300 "$PLUGIN" \
	> /dev/null 2> serve.err &
sp=$!
port=$(serve_port serve.err)
client() {
	python3 "$TEST_DIR/serve/client.py" "$port" "$(cat token)" "$1"
}

test_expect_success '--token on loopback: 401 without the token or with another' '
	test -n "$port" && client token
'
test_expect_success '404 for any other path: .., encoded .., /etc/passwd' 'client notfound'
test_expect_success '400 with a reason: bad seconds, unknown parameters, a body; 405' '
	client badquery
'
test_expect_success '414, 431: a URL and headers beyond the bound' 'client oversized'
test_expect_success '429 with a reason: a fifth window while four are open' 'client concurrent'
test_expect_success 'a silent client and half a request: closed after 10 s, others served' '
	client slow
'
test_expect_success 'a flood of 200 connections: bounded, survived' 'client flood'

# go tool pprof 1.19 sends no header of ours: the token-carrying fetch is Python's, the reading
# is pprof's.
test_expect_success 'after all of it: a right profile, read by go tool pprof' '
	python3 -c "import sys, urllib.request as u
r = u.Request(\"http://127.0.0.1:%s/debug/pprof/profile?seconds=2\" % sys.argv[1],
    headers={\"Authorization\": \"Bearer \" + sys.argv[2]})
sys.stdout.buffer.write(u.urlopen(r).read())" "$port" "$(cat token)" > p.pb.gz &&
	go tool pprof -top -sample_index=samples -nodefraction=0 p.pb.gz > top.txt 2>&1
	cat top.txt &&
	n=$(sed -n "s/.*Total samples = \([0-9]*\) .*/\1/p" top.txt) && test "$n" -ge 100 &&
	share_ok "$(awk "\$6 == \"main_work50\" { print \$1 }" top.txt)" "$n" 0.50 4 &&
	share_ok "$(awk "\$6 == \"lib_work25\" { print \$1 }" top.txt)" "$n" 0.25 4 &&
	kill -0 $sp
'
kill $sp 2> /dev/null; wait $sp
test_expect_success 'the recording removed at the end' 'test -z "$(ls -A tmp)"'
test_done
