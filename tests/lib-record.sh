# tests/lib-record.sh - sourced by the t2xxx record scripts after tests/lib.sh.
REC=$B/tests/record
PLUGIN=$REC/libsplitplugin.so
PROFIL=$B/profil

# share_ok HITS N P QUANTUM [NEFF]: the binomial bound of tests/tap.h (z = 5 standard deviations
# plus QUANTUM whole samples of rounding the construction allows); prints the comparison.  NEFF,
# when given and smaller, is the number of independent observations behind the N ticks: timer
# signals that each carry several coalesced expirations are fewer draws than their ticks.
share_ok() {
	awk -v h="$1" -v n="$2" -v p="$3" -v q="$4" -v e="${5:-0}" 'BEGIN {
		if (n <= 0) { print "no samples"; exit 1 }
		m = e > 0 && e < n ? e : n
		got = h / n; bound = 5 * sqrt(p * (1 - p) / m) + q / n
		d = got - p; if (d < 0) d = -d
		printf "share %.4f of %d samples, expected %.4f +- %.4f\n", got, n, p, bound
		exit d <= bound ? 0 : 1 }'
}

# report_samples FILE FUNCTION: the samples `profil report --tsv` gives FUNCTION (0 if absent).
report_samples() {
	awk -F '\t' -v fn="$2" '$7 == fn { s += $6 } END { print s + 0 }' "$1"
}

# dump_field FILE KEY: a header field of `profil dump` output.
dump_field() {
	sed -n "s/^header .* $2=\\([^ ]*\\).*/\\1/p" "$1" | head -n 1
}

# dump_total FILE: the samples a dump holds (sum of counts).
dump_total() {
	awk '$1 == "sample" { s += $2 } END { print s + 0 }' "$1"
}

# libc's local functions (__libc_start_call_main, start_thread, clone3) are not in its dynamic
# symbol table: they have names only where their debug symbols are installed (Debian's
# libc6-dbg, which tools/deps.sh leaves out: a stack reaches main through libc's start-up
# whether or not those frames have names).  Without them such a frame is "libc.so.6+0xOFFSET".
# These extended regular expressions (for grep -E and awk) hold both ways.
LIBC_LOCAL='libc[.]so[.]6[+]0x[0-9a-f]+'
# A program's stack from its entry to main, and a thread's from the kernel's clone to its start
# routine, each ending with the ';' before the next frame.
TO_MAIN="_start;__libc_start_main;(__libc_start_call_main|$LIBC_LOCAL);main;"
TO_THREAD="((clone3|$LIBC_LOCAL);)?(start_thread|$LIBC_LOCAL);"
# A process's outermost frame: the program's _start, or, for a sample of the dynamic loader's
# start-up before it, the loader's own entry (_start with libc6-dbg, unnamed without).
ENTRY="^(_start|ld-linux-x86-64[.]so[.]2[+]0x[0-9a-f]+);"

# folded_code PATH...: the folded stacks of a recording without the program each stands on
# (`profil export` puts it first, issue 21): the frames of code alone, root first, for checks
# of the walk.
folded_code() {
	"$PROFIL" export -f folded "$@" 2> /dev/null | sed 's/^[^;]*;//'
}

# count FOLDED RE: the samples of the folded stacks that match RE.
count() {
	awk -v re="$2" '$0 ~ re { s += $NF } END { print s + 0 }' "$1"
}

# thirds FOLDED: tests/record/waits.c thirds' three functions' shares of the samples of the
# thread that ran them, each a third within the binomial bound.
thirds() {
	b=$(count "$1" ";thirds;burn[; ]") && z=$(count "$1" ";thirds;snooze;.*\\[wait: clock_nanosleep") &&
	r=$(count "$1" ";thirds;blocked_read;.*\\[wait: read,") &&
	n=$((b + z + r)) && echo "burn $b, snooze $z, blocked_read $r" &&
	share_ok "$b" "$n" 0.3333 1 && share_ok "$z" "$n" 0.3333 1 && share_ok "$r" "$n" 0.3333 1
}

# clock_ok CLOCK: whether `profil record --clock CLOCK` runs here (perf events allowed, a
# tracer's rights); where not, says why (its refusal) and fails.
clock_ok() {
	"$PROFIL" record --clock "$1" -o probe -- true 2> probe.err && return 0
	cat probe.err
	return 1
}
