#!/bin/sh
# t5010-push-ingest-contract: a contract test of the Pyroscope push client (src/fleet/push.h)
# against Pyroscope's documented ingest API.  A loopback receiver (tests/fleet/ingest.py, whose
# comments cite each rule) checks every request: POST <prefix>/ingest, only the documented
# parameters, name=APP{labels} percent-encoded and as labelset.Parse reads it, from and until
# in UNIX seconds, format=pprof with the gzipped profile.proto as the raw body (no multipart),
# a profile Pyroscope names process_cpu.  What it received is the window byte for byte, and the
# real `go tool pprof` reads it.  Credentials and the tenant go as Pyroscope's clients send
# them; arguments Pyroscope would refuse or misread are refused with a sentence.
. "$(dirname "$0")/lib.sh"
test_needs python3:python3 golang-go:go
. "$TEST_DIR/fleet/lib-push.sh"

test_expect_success 'each window posted once, in order: name, labels, from, until, format=pprof' '
	receiver_start --app web.cpu-1 --labels host=h1.example,program=callers &&
	"$DRIVE" -u "http://127.0.0.1:$port" -a web.cpu-1 -l host=h1.example,program=callers \
		-f window.pb.gz -n 4 -i 50 -s 1700000000 -W 15 > out; rc=$?
	receiver_stop; cat out log && test $rc -eq 0 &&
	contract_kept &&
	test "$(push_stat sent)" = 4 && test "$(push_stat attempts)" = 4 &&
	test "$(log_field from | tr "\n" " ")" = "1700000000 1700000015 1700000030 1700000045 " &&
	test "$(log_field until | tr "\n" " ")" = "1700000015 1700000030 1700000045 1700000060 "
'

test_expect_success 'the body is the window byte for byte; go tool pprof -raw reads it' '
	cmp window.pb.gz bodies/0000.pb.gz && cmp window.pb.gz bodies/0003.pb.gz &&
	go tool pprof -raw bodies/0000.pb.gz > raw.txt 2>&1 && head -n 12 raw.txt &&
	grep -q "^PeriodType: cpu nanoseconds" raw.txt &&
	grep -q "^Samples:" raw.txt && grep -q "^samples/count cpu/nanoseconds" raw.txt &&
	test "$(log_field samples | sort -u)" -gt 0
'

test_expect_success 'a URL with a path prefix and a trailing slash: <prefix>/ingest' '
	receiver_start --app app --prefix /pyroscope &&
	"$DRIVE" -u "http://127.0.0.1:$port/pyroscope/" -a app -f window.pb.gz > out; rc=$?
	receiver_stop; cat out log && test $rc -eq 0 &&
	contract_kept && test "$(push_stat sent)" = 1 &&
	test "$(log_field path)" = /pyroscope/ingest
'

# Grafana Cloud takes HTTP basic auth (examples/api/ingest_pprof.py), pyroscope-go sends a
# bearer token; a multi-tenant Pyroscope reads X-Scope-OrgID ("Server HTTP API",
# Authentication).
test_expect_success 'an auth file: user:password as basic auth, a token as bearer; the tenant' '
	printf "12345:glc_secret\n" > basic && printf "tok-123\n" > bearer &&
	receiver_start --app app &&
	"$DRIVE" -u "http://127.0.0.1:$port" -a app -f window.pb.gz -A basic -T team-1 > out &&
	"$DRIVE" -u "http://127.0.0.1:$port" -a app -f window.pb.gz -A bearer > out2; rc=$?
	receiver_stop; cat log && test $rc -eq 0 && contract_kept &&
	basic=$(printf 12345:glc_secret | base64) &&
	test "$(log_field authorization | sed -n 1p)" = "Basic $basic" &&
	test "$(log_field tenant | sed -n 1p)" = team-1 &&
	test "$(log_field authorization | sed -n 2p)" = "Bearer tok-123" &&
	test "$(log_field tenant | sed -n 2p)" = None
'

# The receiver is no rubber stamp: requests that break the contract get 400 and are logged.
test_expect_success 'the receiver refuses a multipart body, a plain-text body, a bare name' '
	receiver_start --app app &&
	python3 -c "import sys, urllib.request, urllib.error
base = \"http://127.0.0.1:%s/ingest?\" % sys.argv[1]
q = \"name=app%7B%7D&from=1700000000&until=1700000015&format=pprof\"
tries = [(q, \"multipart/form-data; boundary=x\", open(\"window.pb.gz\", \"rb\").read()),
         (q, \"application/octet-stream\", b\"foo;bar 100\\n\"),
         (q.replace(\"app%7B%7D\", \"app{}\"), \"application/octet-stream\",
          open(\"window.pb.gz\", \"rb\").read())]
for query, ctype, body in tries:
    r = urllib.request.Request(base.replace(\"?\", \"?\" + query), body, {\"Content-Type\": ctype})
    try:
        urllib.request.urlopen(r)
        sys.exit(\"accepted\")
    except urllib.error.HTTPError as e:
        print(e.code, e.read().decode())
        assert e.code == 400" "$port"; rc=$?
	receiver_stop; test $rc -eq 0 && ! contract_kept > problems; cat problems &&
	grep -q "^request 0: multipart body" problems &&
	grep -q "^request 1: the body is not gzip" problems &&
	grep -q "^request 2: name not percent-encoded" problems
'

# bad ARGS... MESSAGE: the driver refuses the client with that sentence, before any request.
bad() {
	msg=$1
	shift
	"$DRIVE" -f window.pb.gz "$@" > out; rc=$?
	cat out && test $rc -eq 1 && grep -q "^error $msg" out
}
test_expect_success 'what Pyroscope would refuse or misread is refused, with a sentence' '
	bad "the application name must be" -u http://127.0.0.1:1 -a "my app" &&
	bad "the application name must be" -u http://127.0.0.1:1 -a "app{x=y}" &&
	bad "a label is not key=value: .host." -u http://127.0.0.1:1 -a app -l host &&
	bad "a label.s value is empty or has space" -u http://127.0.0.1:1 -a app -l "h=a b" &&
	bad "a label.s value is empty or has space" -u http://127.0.0.1:1 -a app -l "h=a}" &&
	bad "a label.s key has characters" -u http://127.0.0.1:1 -a app -l "__name__=x" &&
	bad "the labels have an empty one" -u http://127.0.0.1:1 -a app -l "a=b,,c=d" &&
	bad "not an http:// or https:// URL: .ftp://h/." -u ftp://h/ -a app &&
	bad "not an http:// or https:// URL" -u 127.0.0.1:4040 -a app &&
	bad "the server.s URL has a query" -u "http://h/?x=1" -a app &&
	bad "cannot read the auth file (No such file or directory)" -u http://h -a app -A nofile
'
test_done
