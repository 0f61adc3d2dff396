#!/bin/sh
# bench/view.sh - the viewer page of a 1M-sample profile against speedscope opening the same
# profile, in one run: tests/report/mkbig writes 1,000,000 ticks over 50,000 distinct stacks of
# 256 functions in 8 threads, each tick timed (a minute of 10 ms slots); `profil export
# --format=html` writes the page and `--format=folded` the stacks speedscope reads (the npm
# package's own app, version as t4006 pins it, installed offline-first into $B/tests/npm).
# Both open from file:// in the same headless Chromium build at 1400x900 (tests/export/
# browser.py), BENCH_RUNS runs each (default 3), interleaved, medians.  Open time: from the
# navigation to the page having drawn (the viewer's script done: tables, timeline and graph
# drawn; speedscope's title naming the imported file, set once it has imported and drawn).
# Reported: the size of what is opened and the open time, with the ratio to speedscope.
. "$(dirname "$0")/lib.sh"
RUNS=${BENCH_RUNS:-3}
SS_VERSION=1.25.0
NPM_DIR=$B/tests/npm
SS=$NPM_DIR/node_modules/speedscope
bench_scratch view
if [ ! -x "$B/tests/report/mkbig" ]; then
	make -C "$ROOT" --no-print-directory B="$B" "$B/tests/report/mkbig" > make.log 2>&1 ||
		{ cat make.log >&2; exit 1; }
fi
if ! grep -q "\"version\": \"$SS_VERSION\"" "$SS/package.json" 2> /dev/null; then
	mkdir -p "$NPM_DIR" && npm install --no-audit --no-fund --silent --prefer-offline \
		--prefix "$NPM_DIR" "speedscope@$SS_VERSION" > npm.log 2>&1 ||
		{ echo "view.sh: npm could not install speedscope" >&2; cat npm.log >&2; exit 1; }
fi
"$B/tests/report/mkbig" big.profil > /dev/null || exit 1
s=$(date +%s%N)
"$PROFIL" export -f html -o big.html big.profil 2> /dev/null || exit 1
e=$(date +%s%N)
"$PROFIL" export -f folded -o big.folded big.profil 2> /dev/null || exit 1

python3 - "$ROOT/tests/export" "$SS" "$RUNS" $(((e - s) / 1000000)) <<'PY'
import base64, json, os, statistics, sys
sys.path.insert(0, sys.argv[1])
import browser
ss, runs, export_ms = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
W, H = 1400, 900
with open("big.folded", "rb") as f:
    data = base64.b64encode(f.read()).decode()
with open("big.folded.load.js", "w") as f:
    f.write("speedscope.loadFileFromBase64(%s, %s)" % (json.dumps("big.folded"), json.dumps(data)))
pages = {
    "profil html": ("file://" + os.path.abspath("big.html"),
                    "typeof profilViewer !== 'undefined' && profilViewer.drawn === true"),
    "speedscope": ("file://%s/dist/release/index.html#localProfilePath=%s"
                   % (os.path.abspath(ss), os.path.abspath("big.folded.load.js")),
                   "document.title === 'big.folded - speedscope'"),
}
took = {k: [] for k in pages}
for r in range(runs):
    for name, (url, ready) in pages.items():
        br, t = browser.open_page(url, W, H, ready, timeout=120)
        br.close()
        took[name].append(t if t is not None else float("nan"))
app = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in
          os.walk(os.path.join(ss, "dist", "release")) for f in fs)
size = {"profil html": os.path.getsize("big.html"),
        "speedscope": os.path.getsize("big.folded") + app}
med = {k: statistics.median(v) for k, v in took.items()}
print("## view.sh: the viewer page against speedscope, 1,000,000 samples")
print()
print("1,000,000 ticks, 50,000 distinct stacks, 8 threads, 1,000,000 timed entries; "
      "`profil export --format=html` took %d ms; %d runs each, medians." % (export_ms, runs))
print()
print("| viewer | opens | size, MB | open time, s | runs, s |")
print("|--------|-------|---------:|-------------:|---------|")
print("| profil html | one page, data embedded | %.1f | %.2f | %s |" % (
    size["profil html"] / 1e6, med["profil html"],
    " ".join("%.2f" % t for t in took["profil html"])))
print("| speedscope %s | its app + folded stacks | %.1f | %.2f | %s |" % (
    "1.25.0", size["speedscope"] / 1e6, med["speedscope"],
    " ".join("%.2f" % t for t in took["speedscope"])))
print()
print("Open time, profil html / speedscope: %.2f; size: %.2f." % (
    med["profil html"] / med["speedscope"], size["profil html"] / size["speedscope"]))
PY
