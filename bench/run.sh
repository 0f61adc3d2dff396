#!/bin/sh
# bench/run.sh - what `make bench` runs: every bench/*.sh but itself and lib.sh (profil.sh, and gmon.sh,
# record.sh and the like when they exist), after a header with the machine's facts, since
# figures mean nothing without them.  Benchmarks print figures; they do not pass or fail on
# them.  A script that cannot run is reported and the others still run; the exit status is
# then 1.  Save the output as bench/RESULTS.md when the machine is quiet.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$ROOT/build}
export B

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo "# profil benchmarks"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "- machine: $(nproc) CPUs, ${cpu:-unknown CPU}, Linux $(uname -r) $(uname -m)"
echo "- libc: $(getconf GNU_LIBC_VERSION 2>/dev/null || echo unknown)," \
    "perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo -)," \
    "load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
ran=0
for s in "$ROOT"/bench/*.sh; do
	[ -f "$s" ] || continue
	case $(basename "$s") in run.sh|lib.sh) continue ;; esac
	echo
	if ! sh "$s"; then
		echo "bench: $(basename "$s") failed" >&2
		status=1
	fi
	ran=$((ran + 1))
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
if [ "$ran" -eq 0 ]; then
	echo "bench: no bench/*.sh to run" >&2
	status=1
fi
exit "$status"
