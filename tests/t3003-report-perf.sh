#!/bin/sh
# t3003-report-perf: real programs nobody here wrote, from Debian (the python3 interpreter, the
# xz and gzip compressors, the sqlite3 database shell), recorded by `profil record` and by
# `perf record -e cpu-clock:u` in the same run.  Issue 4: "the top functions and modules agree
# within the sampling noise"; the bound comes from the sample counts (tests/report/compare.awk).
#
# Both sides name functions by their ELF symbols, choosing among aliases the same way.  Code no
# symbol covers profil counts by the unwind-table entry (FDE) that holds it, named by the file
# offset where the entry starts; perf by address: its addresses are put in the entries that
# readelf lists (binutils, not profil's reader), so both sides count the same functions.
# perf also sees the recorder's own signal handler, which profil by design does not sample:
# those samples (libprofil-record.so, the signal return trampoline __restore_rt, the `profil
# record` launcher) are left out of perf's side and reported.
. "$(dirname "$0")/lib.sh"
test_needs linux-perf:perf python3:python3 xz-utils:xz gzip:gzip sqlite3:sqlite3

P=$B/profil
if ! perf record -q -e cpu-clock:u -o probe.data -- true > /dev/null 2>&1; then
	echo "not ok - perf record -e cpu-clock:u works (linux-perf, perf_event_paranoid)"
	test_done
fi

# ours TSV FDES: `profil report --tsv` as "function|module<TAB>count"; unnamed code keeps its
# offset, but the PLT stubs (sections .plt, .plt.sec, .plt.got in FDES) are one "plt" per module:
# perf names each stub by the function it calls (memcpy@plt), profil by the FDE of the section.
ours() {
	awk -F '\t' 'function hex(s,  i, v) { v = 0; sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		FILENAME == fdes { if ($2 == "plt") { np[$1]++; plo[$1, np[$1]] = $3
				phi[$1, np[$1]] = $4 }
			next }
		FNR > 1 {
		f = $7; mod = $8
		if (f == "[unmapped]")
			key = "?|?"
		else if (f ~ /\+0x[0-9a-f]+$/) {
			key = substr(f, index(f, "+0x") + 1) "|" mod
			a = hex(substr(f, index(f, "+0x") + 1))
			for (i = 1; i <= np[mod]; i++)
				if (a >= plo[mod, i] && a < phi[mod, i])
					key = "plt|" mod
		} else {
			sub(/@.*/, "", f); key = f "|" mod
		}
		print key "\t" $6
	}' fdes="$2" "$2" "$1"
}

# fdes TSV: "module<TAB>start<TAB>end" of the FDEs of every module of profil's rows, as file
# offsets (ELF addresses moved by the executable segment's offset), from readelf.
fdes() {
	awk -F '\t' 'NR > 1 && $10 ~ /^\// { print $8 "\t" $10 }' "$1" | sort -u |
	while IFS='	' read -r mod path; do
		d=$(readelf -lW "$path" | awk '$1 == "LOAD" && / R E / { print $2, $3; exit }')
		# The PLT sections, as file offsets: "module<TAB>plt<TAB>start<TAB>end".
		readelf -SW "$path" | awk -v mod="$mod" 'function hex(s,  i, v) { v = 0
				for (i = 1; i <= length(s); i++)
					v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return v }
			{ sub(/^ *\[ *[0-9]+\] */, "") }
			$1 ~ /^\.plt/ { printf "%s\tplt\t%d\t%d\n", mod, hex($4), hex($4) + hex($5) }'
		readelf --debug-dump=frames "$path" 2> /dev/null |
			awk -v mod="$mod" -v d="$d" 'function hex(s,  i, v) { v = 0; sub(/^0x/, "", s)
					for (i = 1; i <= length(s); i++)
						v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
					return v }
				BEGIN { split(d, o, " "); delta = hex(o[1]) - hex(o[2]) }
				$4 == "FDE" { split(substr($6, 4), r, "[.][.]")
					printf "%s\t%d\t%d\n", mod, hex(r[1]) + delta, hex(r[2]) + delta }'
	done
}

# theirs PERFDATA FDES: perf report's flat view in the same shape, the recorder's own cost left
# out, and code no symbol covers counted by the FDE that holds it (FDES, from fdes()).
theirs() {
	perf report -i "$1" --stdio -q --no-children --sort dso,sym -F sample,dso,sym -t '|' \
		2> /dev/null | awk -F '|' -v fdes="$2" '
	function hex(s,  i, v) { v = 0; sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	BEGIN {
		while ((getline line < fdes) > 0) {
			split(line, f, "\t")
			if (f[2] == "plt") {
				np[f[1]]++; plo[f[1], np[f[1]]] = f[3]; phi[f[1], np[f[1]]] = f[4]
				continue
			}
			nf[f[1]]++; lo[f[1], nf[f[1]]] = f[2]; hi[f[1], nf[f[1]]] = f[3]
		}
	}
	{
		n = $1 + 0; dso = $2; sym = $3
		gsub(/^ +| +$/, "", dso); sub(/^ *\[[.k]\] */, "", sym); sub(/ +$/, "", sym)
		if (dso == "[unknown]") dso = "?"
		if (dso == "libprofil-record.so" || dso == "profil" || sym == "__restore_rt") {
			print "perf: left out " n " samples of the recorder: " sym " (" dso ")" \
				> "/dev/stderr"
			next
		}
		if (sym ~ /@plt$/) {
			key = "plt|" dso
		} else if (sym ~ /^0x[0-9a-f]+$/) {
			a = hex(sym)
			for (i = 1; i <= nf[dso]; i++)
				if (a >= lo[dso, i] && a < hi[dso, i]) {
					sym = sprintf("%x", lo[dso, i])
					break
				}
			sub(/^0x/, "", sym); sub(/^0*/, "", sym); key = "0x" sym "|" dso
			for (i = 1; i <= np[dso]; i++)
				if (a >= plo[dso, i] && a < phi[dso, i])
					key = "plt|" dso
		} else if (dso == "?" || sym == "[unknown]") {
			key = "?|" dso
		} else {
			sub(/@.*/, "", sym); key = sym "|" dso
		}
		print key "\t" n
	}'
}

# compare NAME COMMAND...: record COMMAND with both profilers at 1 kHz, compare the views.
compare() {
	name=$1
	shift
	mkdir "$name"
	(
		cd "$name" &&
		# perf runs inside profil: perf 6.1 aborts in its build-id code when the process it
		# records opens perf events of its own.  perf's own process is then left out.  Both
		# sample user space alone (perf's :u, profil's --user-only).
		"$P" record --user-only -F 1000 -o profil.out -- \
			perf record -q -e cpu-clock:u -c 1000000 -o perf.data -- "$@" \
			> /dev/null 2> record.err &&
		rm -f profil.out/perf.*.profil &&
		"$P" report --tsv profil.out > ours.tsv 2> report.err
	) || { echo "not ok - $name: recorded by perf and profil"; cat "$name"/*.err; return; }
	fdes "$name/ours.tsv" > "$name/fdes.tsv"
	ours "$name/ours.tsv" "$name/fdes.tsv" > "$name/ours.txt"
	theirs "$name/perf.data" "$name/fdes.tsv" > "$name/perf.txt" 2> "$name/left-out"
	sed 's/^/#   /' "$name/left-out"
	awk -v what="$name" -f "$ROOT/tests/report/compare.awk" "$name/ours.txt" "$name/perf.txt" |
		tee "$name/result"
	grep -q '^not ok' "$name/result" && sed 's/^/#   profil: /' "$name/ours.tsv" | head -n 15
	# Seconds: profil divides ticks by the rate it achieved per CPU second (user and system),
	# perf's samples are 1 ms of user time each, counted by a periodic clock (a few ticks of
	# rounding).  CPU-bound programs spend little in the kernel, so they agree to 10%.
	awk -F '\t' -v w="$name" -v n="$(awk -F '\t' '{ s += $2 } END { print s + 0 }' \
		"$name/perf.txt")" 'NR > 1 { s += $5 } END {
		bound = 0.1 + 5 / (n > 0 ? n : 1); d = s / (n / 1000) - 1
		ok = (n > 0 && d <= bound && -d <= bound) ? "ok" : "not ok"
		printf "%s - %s: seconds from the achieved rate: profil %.3f s, " \
		    "perf %.3f s of user time, bound %.0f%%\n", ok, w, s, n / 1000, 100 * bound
	}' "$name/ours.tsv"
}

# Inputs: a Python CPU loop, text that compresses like logs (also by two threads, which xz
# creates with every signal blocked), a recursive SQL query.
cat > loop.py <<'EOF'
import sys
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
def strings(n):
    s = 0
    for i in range(n):
        s += len(str(i) * 3)
    return s
for _ in range(int(sys.argv[1])):
    fib(20)
    strings(10000)
EOF
seq 1 120000 | awk '{ print $1 * 7919 % 1000003, "lorem ipsum dolor", $1 % 97, $1 }' > data.txt

compare python3 /usr/bin/python3 "$PWD/loop.py" 250
compare xz xz -2 -T1 -c "$PWD/data.txt"
# Two threads share the work: twice the input keeps each side well over compare.awk's 300.
cat data.txt data.txt > data2.txt
compare xz-threads xz -2 -T2 --block-size=1MiB -c "$PWD/data2.txt"
compare gzip gzip -9 -c "$PWD/data.txt"
compare sqlite3 sqlite3 :memory: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1
	FROM c LIMIT 1600000) SELECT count(*), sum(x * x % 7), count(DISTINCT x % 1000) FROM c;"

# The comparisons above must not pass because both sides saw nothing named: python3's and
# sqlite3's heaviest functions are named on both sides.
# heaviest SIDE-FILE: the heaviest key of ours.txt or perf.txt.
heaviest() {
	sort -t "	" -k2,2nr "$1" | head -n 1 | cut -f 1
}
# is KEY PATTERN: KEY matches the shell PATTERN.
is() {
	echo "heaviest: $1"
	case "$1" in $2) ;; *) return 1 ;; esac
}
test_expect_success 'python3: the interpreter loop is named and heaviest on both sides' '
	is "$(heaviest python3/ours.txt)" "_PyEval_EvalFrameDefault|python3*" &&
	is "$(heaviest python3/perf.txt)" "_PyEval_EvalFrameDefault|python3*"
'
test_expect_success 'xz-threads: both compressing threads have samples, each a fair part' '
	"$P" dump xz-threads/profil.out/*.profil |
		awk "\$1 == \"sample\" { n[\$3] += \$2; t += \$2 } END {
			for (tid in n) if (n[tid] > t / 5) big++
			print big + 0, \"threads with over a fifth of\", t, \"samples\"
			exit big < 2 }"
'
test_expect_success 'sqlite3: the VDBE is named and heaviest on both sides' '
	is "$(heaviest sqlite3/ours.txt)" "sqlite3VdbeExec|libsqlite3.so*" &&
	is "$(heaviest sqlite3/perf.txt)" "sqlite3VdbeExec|libsqlite3.so*"
'
test_done
