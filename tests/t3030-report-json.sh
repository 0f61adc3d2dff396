#!/bin/sh
# t3030-report-json: `profil report --json` (docs/report-json.md) gives the text view's rows and
# numbers as data.  On real recordings (tests/record/split with -g, tests/record/threads, as
# t3011 records them) and on exact ones (tests/report/mkstacks, as t3010), each view's JSON
# parses, and rendered back with the rounding the document gives (tests/report/jsontext.py)
# it is the text view line for line: heading, rows, callers and callees.  Raw counts add up
# to the recording's samples without parsing any text; names with control characters and
# bytes that are not UTF-8 keep the document valid; the writer's strings and numbers are
# checked exactly by tests/report/json.c.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-record.sh"
test_needs python3:python3

JT="python3 $TEST_DIR/report/jsontext.py"

# The writer and the escaper's JSON mode, exactly (tests/report/json.c).
test_run_prog json "$B/tests/report/json"

# same VIEW-OPTIONS... PATH: the JSON parses, and equals the text view of the same options.
same() {
	"$PROFIL" report --json "$@" > j.json 2> /dev/null &&
	python3 -m json.tool j.json > /dev/null &&
	"$PROFIL" report "$@" > t.txt 2> /dev/null &&
	$JT j.json t.txt
}

"$PROFIL" record -g -o g -- "$REC/split" 1.0 "$PLUGIN" > /dev/null
"$PROFIL" record -g -o g2 -- "$REC/split" 0.5 "$PLUGIN" > /dev/null
"$PROFIL" record -o th -- "$REC/threads" 1.0 > /dev/null

for v in "" "-n 2" --per-process --per-program --graph "--graph -n 3" --lines "--lines -n 3" \
	"--diff g2"; do
	test_expect_success "--json $v on a -g recording: parses, and is the text view's rows" "
		same $v g
	"
done
test_expect_success '--json --threads: each thread'\''s rows, tid and name as the text' '
	same --threads th &&
	python3 -c "import json, sys
d = json.load(open(\"j.json\"))
names = {r[\"thread\"] for r in d[\"tables\"][0][\"rows\"]}
print(sorted(names))
sys.exit(not {\"worker-a\", \"worker-b\", \"worker-c\", \"worker-d\"} <= names)"
'

test_expect_success '--json: raw counts add up to the samples the file holds' '
	"$PROFIL" dump g/*.profil > dump.txt &&
	n=$(dump_total dump.txt) &&
	"$PROFIL" report --json g > flat.json &&
	python3 -c "import json, sys
d = json.load(open(\"flat.json\")); t = d[\"tables\"][0]; h = d[\"heading\"]
s = sum(r[\"samples\"] for r in t[\"rows\"])
print(s, t[\"total\"], h[\"time\"][\"samples\"], h[\"files\"][0][\"time\"][\"samples\"], $n)
sys.exit(not (s == t[\"total\"] == h[\"time\"][\"samples\"] == $n and
    len(t[\"rows\"]) == t[\"nrows_all\"] and h[\"time\"][\"says\"].startswith(\"%d samples\" % s)))"
'
test_expect_success '--json -n 2: two rows, nrows_all the rows there are' '
	"$PROFIL" report --json -n 2 g > two.json &&
	python3 -c "import json, sys
t = json.load(open(\"two.json\"))[\"tables\"][0]
sys.exit(not (len(t[\"rows\"]) == 2 and t[\"nrows_all\"] >= 4))"
'
test_expect_success '--json --graph: main_work50'\''s caller is main, with the arc'\''s samples' '
	"$PROFIL" report --json --graph g > graph.json &&
	python3 -c "import json, sys
fs = json.load(open(\"graph.json\"))[\"functions\"]
f = [f for f in fs if f[\"function\"] == \"main_work50\"][0]
c = [c for c in f[\"callers\"] if c[\"function\"] == \"main\"][0]
print(f[\"total\"], c[\"samples\"], fs[c[\"index\"] - 1][\"function\"])
sys.exit(not (c[\"samples\"] * 100 >= f[\"total\"] * 95 and
    fs[c[\"index\"] - 1][\"function\"] == \"main\"))"
'
test_expect_success '--json --annotate main_work50: lines and addresses add up to its samples' '
	"$PROFIL" report --json --annotate main_work50 g > a.json &&
	n=$(python3 -c "import json
print([r[\"samples\"] for r in json.load(open(\"flat.json\"))[\"tables\"][0][\"rows\"]
    if r[\"function\"] == \"main_work50\"][0])") &&
	python3 -c "import json, sys
d = json.load(open(\"a.json\"))
l = sum(r[\"samples\"] for r in d[\"lines\"]); a = sum(r[\"samples\"] for r in d[\"addresses\"])
print(d[\"samples\"], l, a, $n)
sys.exit(not (d[\"samples\"] == l == a == $n))"
'

objcopy --strip-debug "$B/tests/report/libplugin.so" nodebug.so
"$B/tests/report/mkstacks" base.profil nodebug.so > /dev/null &&
MKSTACKS_LEAF_B=260 "$B/tests/report/mkstacks" now.profil nodebug.so > /dev/null ||
	echo "not ok - mkstacks wrote two profiles"
test_expect_success '--json --diff on exact counts: the text view'\''s rows and verdicts' '
	same --diff base.profil now.profil &&
	python3 -c "import json, sys
d = json.load(open(\"j.json\")); r = {r[\"function\"]: r for r in d[\"rows\"]}
print(r[\"leaf_b\"], d[\"base_total\"], d[\"total\"])
sys.exit(not (r[\"leaf_b\"][\"base_samples\"] == 60 and r[\"leaf_b\"][\"samples\"] == 260 and
    r[\"leaf_b\"][\"beyond_noise\"] and not r[\"caller_top\"][\"beyond_noise\"] and
    d[\"base_total\"] == 310 and d[\"total\"] == 510))"
'
test_expect_success '--json --graph on exact stacks: the text view'\''s rows' '
	same --graph now.profil
'

python3 "$TEST_DIR/report/hostile.py" names n.profil || echo "not ok - hostile.py wrote a profile"
for v in "" --threads --per-process --graph --lines; do
	test_expect_success "--json $v with hostile names: valid JSON, the names as the text shows them" "
		\"\$PROFIL\" report --json $v n.profil > h.json 2> /dev/null &&
		python3 -m json.tool h.json > /dev/null &&
		! LC_ALL=C grep -q \"\$(printf '[\\001-\\011\\013-\\037\\177]')\" h.json &&
		python3 -c \"import json; json.load(open('h.json', encoding='utf-8'))\" &&
		grep -qF 'prog\\\\033]0;pwned\\\\007\\\\033[2J\\\\tTAB\\\\nNL' h.json
	"
done
test_expect_success '--json --threads with hostile names: rows equal the text view' '
	same --threads n.profil
'
test_expect_success '--json and --tsv together: a usage error (exit 2)' '
	"$PROFIL" report --json --tsv g > out 2> err
	test $? = 2 && grep -q "^profil: options cannot be combined: '\''--json'\''$" err
'
test_done
