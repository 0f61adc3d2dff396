# compare.awk - are two flat profiles of the same run the same within sampling noise?
#
# usage: awk -v what=NAME -f compare.awk OURS PERF
# Each input line is "KEY<TAB>COUNT", KEY being "function|module" (see t3003).  For every
# function among the ten heaviest of either side, and for every module over 1% on either side,
# the two shares must differ by at most the binomial bound of tests/tap.h for the difference of
# two independent proportions: 5 * sqrt(p(1-p)(1/n1 + 1/n2)) + one sample of each side, p the
# pooled share.  Prints TAP lines and "# " diagnostics.
BEGIN { FS = "\t" }
FNR == 1 { side++ }
{
	c[side, $1] += $2
	n[side] += $2
	keys[$1] = 1
	split($1, part, "|")
	m[side, part[2]] += $2
	mods[part[2]] = 1
}

function check(label, k1, k2,    p1, p2, p, bound, d) {
	p1 = k1 / n[1]
	p2 = k2 / n[2]
	p = (k1 + k2) / (n[1] + n[2])
	bound = 5 * sqrt(p * (1 - p) * (1 / n[1] + 1 / n[2])) + 1 / n[1] + 1 / n[2]
	d = p1 - p2
	if (d < 0)
		d = -d
	printf "%s - %s: %s: profil %.4f (%d), perf %.4f (%d), bound %.4f\n",
	    (d <= bound) ? "ok" : "not ok", what, label, p1, k1, p2, k2, bound
}

# The keys of one side, heaviest first, into order[side, 1..]; returns how many.
function rank(s,    k, i, j, t, cnt) {
	cnt = 0
	for (k in keys)
		if (c[s, k] > 0)
			order[s, ++cnt] = k
	for (i = 2; i <= cnt; i++)
		for (j = i; j > 1 && c[s, order[s, j]] > c[s, order[s, j - 1]]; j--) {
			t = order[s, j]
			order[s, j] = order[s, j - 1]
			order[s, j - 1] = t
		}
	return cnt
}

END {
	printf "%s - %s: both sides have at least 300 samples (profil %d, perf %d)\n",
	    (n[1] >= 300 && n[2] >= 300) ? "ok" : "not ok", what, n[1], n[2]
	if (n[1] == 0 || n[2] == 0)
		exit
	for (s = 1; s <= 2; s++) {
		cnt = rank(s)
		for (i = 1; i <= cnt && i <= 10; i++)
			top[order[s, i]] = 1
	}
	cnt = rank(1)
	for (i = 1; i <= cnt; i++)
		if (order[1, i] in top)
			check("function " order[1, i], c[1, order[1, i]], c[2, order[1, i]])
	for (k in top)
		if (c[1, k] == 0)
			check("function " k, 0, c[2, k])
	for (k in mods)
		if (m[1, k] / n[1] > 0.01 || m[2, k] / n[2] > 0.01)
			check("module " k, m[1, k], m[2, k])
}
