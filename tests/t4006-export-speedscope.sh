#!/bin/sh
# t4006-export-speedscope: folded stacks read by a real reader, speedscope (the npm package's web
# app, in headless Chromium): it imports the exact profile of tests/report/mkprofile and a real
# -g recording of tests/progs/callers, and its Sandwich table gives every function the self
# samples `profil report` gives it, and as total the samples of the stacks it is on.
# speedscope is installed once per build directory with npm (pinned version).
. "$(dirname "$0")/lib.sh"
test_needs npm:npm python3:python3

P=$B/profil
SS_VERSION=1.25.0
NPM_DIR=$B/tests/npm
SS=$NPM_DIR/node_modules/speedscope
if ! grep -q "\"version\": \"$SS_VERSION\"" "$SS/package.json" 2> /dev/null; then
	mkdir -p "$NPM_DIR" &&
	npm install --no-audit --no-fund --silent --prefix "$NPM_DIR" "speedscope@$SS_VERSION" \
		> npm.log 2>&1 || { sed 's/^/# /' npm.log; echo "not ok - npm installed speedscope"; }
fi

cp "$B/tests/report/libplugin.so" gone.so
"$B/tests/report/mkprofile" one.profil "$B/tests/report/libplugin.so" gone.so > /dev/null ||
	echo "not ok - mkprofile wrote a profile"
"$P" record -F 1000 -g -o rec -- "$B/tests/progs/callers" 0.4 > /dev/null 2>&1 ||
	echo "not ok - profil record ran the program"

# on_stacks FOLDED: "function samples" for every function, the samples of the stacks it is on
# (once per stack, however often it recurs).
on_stacks() {
	awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); delete seen
	    for (i = 1; i <= k; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; t[f[i]] += n } }
	    END { for (x in t) print x, t[x] }' "$1" | sort
}
for input in one.profil rec; do
	"$P" export -f folded -o "$input.folded" "$input" 2> /dev/null
	"$P" report --tsv "$input" 2> /dev/null |
		awk -F '\t' 'NR > 1 { print $7, $6 }' | sort > "$input.self.want"
	on_stacks "$input.folded" > "$input.total.want"
	test_run_prog "speedscope $input" python3 "$TEST_DIR/export/speedscope.py" "$SS" \
		"$input.folded" "$input.tsv"
	test_expect_success "speedscope: self samples of $input are profil report's, row by row" '
		awk -F "\t" "\$3 > 0 { print \$1, \$3 }" "$input.tsv" | sort > "$input.self.got" &&
		test -s "$input.self.got" && diff "$input.self.want" "$input.self.got"
	'
	test_expect_success "speedscope: total samples of $input are those of the stacks it is on" '
		awk -F "\t" "{ print \$1, \$2 }" "$input.tsv" | sort > "$input.total.got" &&
		diff "$input.total.want" "$input.total.got"
	'
done
test_done
