# tests/fleet/lib-push.sh - sourced by the push client's scripts (t5010, t5011) after tests/lib.sh:
# a real window (profil export --format=pprof of a recording of tests/progs/callers), the
# receiver of tests/fleet/ingest.py and the driver of tests/fleet/pushdrive.c.
DRIVE=$B/tests/fleet/pushdrive
INGEST=$TEST_DIR/fleet/ingest.py
"$B/profil" record -F 1000 -o rec -- "$B/tests/progs/callers" 1 > /dev/null 2>&1 &&
	"$B/profil" export -f pprof -o window.pb.gz rec 2> /dev/null ||
	echo "not ok - a window to push: profil record and export of tests/progs/callers"

# receiver_start ARGS...: the receiver in the background on 127.0.0.1, its port in $port and
# its process in $rpid; every request goes to ./log (one JSON line) and its body to ./bodies/.
receiver_start() {
	rm -rf port log bodies
	mkdir bodies
	python3 "$INGEST" --port-file port --log log --save bodies "$@" &
	rpid=$!
	for i in $(seq 100); do
		[ -s port ] && break
		sleep 0.05
	done
	port=$(cat port)
	test -n "$port"
}

receiver_stop() {
	kill "$rpid" 2> /dev/null
	wait "$rpid" 2> /dev/null
}

# push_stat KEY: a "key value" line of the driver's output in ./out.
push_stat() {
	sed -n "s/^$1 //p" out
}

# log_field KEY: that field of each request the receiver logged, one a line.
log_field() {
	python3 -c 'import json, sys
for line in open("log"):
    print(json.loads(line).get(sys.argv[1]))' "$1"
}

# No request the receiver logged broke the contract (each problem is said).
contract_kept() {
	python3 -c 'import json, sys
bad = [(e["n"], p) for e in map(json.loads, open("log")) for p in e["problems"]]
for n, p in bad:
    print("request %d: %s" % (n, p))
sys.exit(1 if bad else 0)'
}
