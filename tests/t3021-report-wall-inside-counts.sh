#!/bin/sh
# t3021-report-wall-inside-counts: counts in headers equal to the rows beneath them (issue 20,
# item 4).  The in-process recorder's header counts its CPU ticks alone, so a shell that only
# waited for its child showed "sh[PID]: 0 samples at 0.0 Hz" above its 100 wait4 rows.  Each
# process's line now counts what its rows hold, on a CPU and waiting apart, as do the titles
# of the per-process tables.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"

test_expect_success 'an in-process --wall recording of a shell waiting for sleep 1' '
	"$PROFIL" record -q --clock timer --wall -o w -- sh -c "sleep 1; :" &&
	"$PROFIL" report w > report.txt 2> /dev/null && cat report.txt &&
	"$PROFIL" report --per-process --tsv w > rows.tsv 2> /dev/null
'

# rows PID: "N samples (C on a CPU, W waiting, R of them for a CPU)" from the per-process
# table's rows of PID.
rows() {
	awk -F "\t" -v pid="$1" 'NR > 1 && $11 == pid { n += $6; if ($7 ~ /^\[wait: /) w += $6
		if ($7 == "[wait: CPU, runnable]") c += $6 }
		END { printf "%d samples (%d on a CPU, %d waiting, %d of them for a CPU)\n", n,
			n - w, w, c }' rows.tsv
}

test_expect_success 'each process line counts its rows, waiting ones too' '
	sed -n "s/^  \\([a-z]*\\)\\[\\([0-9]*\\)\\]: \\(.*)\\) at .*/\\1 \\2 \\3/p" report.txt > lines &&
	cat lines && test "$(wc -l < lines)" -eq 2 &&
	grep -q "^sh [0-9]* [1-9][0-9]* samples (0 on a CPU, [1-9][0-9]* waiting, [0-9]* of" lines &&
	while read -r prog pid said; do
		echo "$prog[$pid]: $said, rows: $(rows $pid)" &&
		test "$said" = "$(rows $pid)" || exit 1
	done < lines
'

test_expect_success 'the per-process tables say what their rows hold' '
	"$PROFIL" report --per-process w > pp.txt 2> /dev/null &&
	title="^[a-z]*\\[\\([0-9]*\\)\\]: \\([0-9]*\\) samples, .* \\([0-9.]*\\) waiting (.*" &&
	sed -n "s/$title/\\1 \\2 \\3/p" pp.txt > titles &&
	cat titles && test "$(wc -l < titles)" -eq 2 &&
	while read -r pid n wait; do
		test "$n samples" = "$(rows $pid | cut -d " " -f 1-2)" &&
		test "$wait" != 0.000 || exit 1
	done < titles
'
test_done
