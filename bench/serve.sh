#!/bin/sh
# bench/serve.sh - what `profil serve` costs a host that is scraped: its own CPU time (recording
# and answering) and the bytes of each window's profile, over BENCH_WINDOWS (default 3) windows
# of BENCH_SECONDS (default 15, Parca's and Alloy's default interval) scraped back to back, while
# two `split` programs (the command served) burn both CPUs at 1 kHz; flat and with call stacks
# (-g).  One run each.  The CPU time is read from /proc before the first window and after the
# last; the answer's delay is from the window's end to the last byte.  Environment: B.
. "$(dirname "$0")/lib.sh"
SECS=${BENCH_SECONDS:-15}
N=${BENCH_WINDOWS:-3}
bench_scratch serve

SPLIT=$B/tests/record/split
PLUGIN=$B/tests/record/libsplitplugin.so
[ -x "$SPLIT" ] || { echo "serve.sh: build $SPLIT first (make tests)" >&2; exit 1; }
if ! "$PROFIL" record -q --clock outside -o probe -- true > /dev/null 2>&1; then
	echo "serve.sh: perf events refused here (profil serve records from outside)" >&2
	exit 1
fi
export TMPDIR="$TMP"
HZ=$(getconf CLK_TCK)

# cpu_ms PID: user and system time of PID so far.
cpu_ms() {
	awk -v hz="$HZ" '{ sub(/.*\) /, ""); print int(($12 + $13) * 1000 / hz) }' "/proc/$1/stat"
}

# One row per mode: "MODE CPU_MS BYTES_MEAN SAMPLES_MEAN DELAY_MS_MEAN".
for mode in flat g; do
	flag=
	[ "$mode" = g ] && flag=-g
	total=$(((N + 1) * SECS + 10))
	"$PROFIL" serve --http 127.0.0.1:0 $flag -- sh -c "\"$SPLIT\" $total \"$PLUGIN\" & \
		\"$SPLIT\" $total \"$PLUGIN\"; wait" > /dev/null 2> serve.err &
	sp=$!
	port=
	for i in $(seq 100); do
		port=$(sed -n 's|^profil: serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' serve.err 2> /dev/null)
		[ -n "$port" ] && break
		sleep 0.1
	done
	[ -n "$port" ] || { cat serve.err >&2; exit 1; }
	sleep 1
	c0=$(cpu_ms $sp)
	: > windows
	for w in $(seq "$N"); do
		s=$(date +%s%N)
		curl -s -o "w$w.pb.gz" "http://127.0.0.1:$port/debug/pprof/profile?seconds=$SECS"
		e=$(date +%s%N)
		n=$(go tool pprof -raw "w$w.pb.gz" 2> /dev/null |
		    awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
			on && $1 ~ /^[0-9]+$/ { s += $1 } END { print s + 0 }')
		echo "$(wc -c < "w$w.pb.gz") $n $(((e - s) / 1000000 - SECS * 1000))" >> windows
	done
	c1=$(cpu_ms $sp)
	kill $sp 2> /dev/null
	wait $sp 2> /dev/null
	awk -v m="$mode" -v c=$((c1 - c0)) '{ b += $1; n += $2; d += $3 }
		END { printf "%s %d %d %d %d\n", m, c, b / NR, n / NR, d / NR }' windows
done > raw
load=$(cut -d" " -f1-3 /proc/loadavg)

echo "## serve.sh: profil serve scraped every $SECS s"
echo
echo "$N windows of $SECS s (\`/debug/pprof/profile?seconds=$SECS\`) scraped back to back from"
echo "\`profil serve\` of two \`split\` programs burning both CPUs at 1 kHz: serve's own CPU"
echo "time (recording, building and answering each window), the bytes of a window's profile"
echo "(gzipped pprof), its samples, and how long after the window's end the answer was in."
echo "One run; the machine's load average at the end: $load (the answer's delay is mostly"
echo "the wait for a CPU where that is above the CPUs' count)."
echo
printf '%s\n' "| mode | serve's CPU ms a second | CPU ms a window | bytes a window |" \
    " samples a window | answer after the end, ms |" | tr -d '\n'
echo
echo "|---|---|---|---|---|---|"
awk -v secs="$SECS" -v n="$N" '{
	printf "| %s | %.1f | %d | %d | %d | %d |\n", $1 == "g" ? "-g" : "flat",
	    $2 / (n * secs), $2 / n, $3, $4, $5 }' raw
