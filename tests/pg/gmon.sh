# tests/pg/gmon.sh - sourced by the t1xxx scripts after tests/lib.sh: the -pg programs and
# readers of GNU gprof's output.
PG=$B/tests/pg

# The one profile a run left in directory $1 (default .), or nothing.
gmon_file() {
	ls "${1:-.}"/gmon.*.out 2>/dev/null
}

# gmon_calls PROG FILE FUNC: the "calls" column of gprof's flat profile for FUNC (empty if none).
gmon_calls() {
	gprof -b -p "$1" "$2" | awk -v f="$3" 'NF == 7 && $7 == f { print $4 }'
}

# gmon_check_shares PROG FILE HZ: for spin_a, spin_b and spin_c, the share of their samples in
# gprof's flat profile against the share of CPU time truth.txt measured.  The bound is the
# binomial one of tests/tap.h (z = 5) plus two samples for the clock's phase at each end.
gmon_check_shares() {
	gprof -b -p "$1" "$2" > flat.txt || return 1
	awk -v hz="$3" '
		FNR == NR { truth[$1] = $2; tsum += $2; next }
		($NF == "spin_a" || $NF == "spin_b" || $NF == "spin_c") && $1 ~ /^[0-9.]+$/ {
			pct[$NF] = $1; psum += $1; secs += $3
		}
		END {
			n = secs * hz
			split("spin_a spin_b spin_c", fns, " ")
			for (i = 1; i <= 3; i++) {
				f = fns[i]
				p = truth[f] / tsum
				got = psum > 0 ? pct[f] / psum : 0
				bound = 5 * sqrt(p * (1 - p) / n) + 2 / n
				d = got - p
				if (d < 0)
					d = -d
				printf "%s - %s at %d Hz: share %.4f of %d samples, truth %.4f +- %.4f\n",
				    (n > 0 && d <= bound) ? "ok" : "not ok", f, hz, got, n, p, bound
			}
		}' truth.txt flat.txt
}

# gmon_check_rate PROG FILE HZ: the header rate is the real one: the samples gprof turns into
# seconds (each counts as 1/rate) add up to the CPU time the spin functions measured.
gmon_check_rate() {
	gprof -b -p "$1" "$2" > flat.txt || return 1
	awk -v hz="$3" '
		FNR == NR { tsum += $2; next }
		($NF == "spin_a" || $NF == "spin_b" || $NF == "spin_c") && $1 ~ /^[0-9.]+$/ {
			secs += $3
		}
		END {
			truth = tsum / 1e9
			# 5% of slack, three ticks of phase, and gprof rounds each line to 0.01 s.
			bound = 0.05 * truth + (3 + 0.015 * hz) / hz
			d = secs - truth
			if (d < 0)
				d = -d
			printf "%s - at %d Hz gprof counts %.3f s in the spin functions, they used %.3f s +- %.3f\n",
			    d <= bound ? "ok" : "not ok", hz, secs, truth, bound
		}' truth.txt flat.txt
}
