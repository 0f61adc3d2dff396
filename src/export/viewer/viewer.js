/*
 * viewer.js - the profil viewer (docs/viewer.md), embedded into every page that
 * `profil export --format=html` writes.  It reads the profile from the page's
 * data element (id profil-data) and draws, with no library and
 * nothing loaded from elsewhere:
 *  - a timeline, a track per thread (grouped by process), time on a CPU and time waiting told
 *    apart; dragging selects a time range, a click on a track's name selects the thread;
 *  - the hottest functions and the threads as tables of text (self, total, 95% intervals);
 *  - a flame graph or icicle (click to zoom, search, focus on or hide a function), the call tree
 *    top-down and inverted, the sandwich of a function (its callers and callees), and the source
 *    lines of a function where its binary has them;
 *  - with --diff, each frame coloured by the change of its function's share, the significant
 *    changes marked.
 * Every selection (threads, time range, focus, hidden functions) filters every view.
 * Names from the profile are only ever put in the page as text (textContent), never as markup.
 */
(function () {
'use strict';

/* How long each step took, ms: for bench/view.sh and anyone asking why a page is slow. */
var timings = {}, t0 = performance.now();
function lap(what) {
	var now = performance.now();
	timings[what] = Math.round(now - t0);
	t0 = now;
}
var D = JSON.parse(document.getElementById('profil-data').textContent);
lap('parse');
var S = D.strings;
var Z95 = 1.96;

/* ---- The data, in typed arrays. ---- */

/* The tree of frames: node 0 is the root; a child's number is above its parent's. */
var NN = D.nodes.length / 4 + 1;
var nParent = new Int32Array(NN), nName = new Int32Array(NN), nMod = new Int32Array(NN);
var nFlags = new Uint8Array(NN);
nParent[0] = -1; nName[0] = -1; nMod[0] = -1;
for (var i = 1; i < NN; i++) {
	nParent[i] = D.nodes[4 * i - 4];
	nName[i] = D.nodes[4 * i - 3];
	nMod[i] = D.nodes[4 * i - 2];
	nFlags[i] = D.nodes[4 * i - 1];
}
/* The sample records: leaf node, thread, count, whether the thread waited. */
var NS = D.stacks.length / 4;
var sLeaf = new Int32Array(NS), sThread = new Int32Array(NS), sCount = new Float64Array(NS);
var sWait = new Uint8Array(NS);
for (i = 0; i < NS; i++) {
	sLeaf[i] = D.stacks[4 * i];
	sThread[i] = D.stacks[4 * i + 1];
	sCount[i] = D.stacks[4 * i + 2];
	sWait[i] = D.stacks[4 * i + 3];
}
var procs = D.processes.map(function (p) {
	return { pid: p[0], prog: p[1] >= 0 ? S[p[1]] : '?', start: p[2] / 1e6, end: p[3] / 1e6,
		slot: p[4] / 1e6 };
});
var threads = [];
for (i = 0; i < D.threads.length; i += 3)
	threads.push({ proc: D.threads[i], tid: D.threads[i + 1],
		name: D.threads[i + 2] >= 0 ? S[D.threads[i + 2]] : '' });
/*
 * When ticks were taken: stack, start (ms from the first start), count.  The data holds them
 * by stack: "stack, n", then n entries of "slot step, count", or -(step) - 1 for one tick.
 */
var T = D.times, NT = 0, at, k2;
for (at = 0; at < T.length; ) {
	var n2 = T[at + 1];
	NT += n2;
	for (at += 2, k2 = 0; k2 < n2; k2++)
		at += T[at] < 0 ? 1 : 2;
}
var tStack = new Int32Array(NT), tStart = new Float64Array(NT), tCount = new Float64Array(NT);
var tEnd = 0;
for (var e2 = 0, at = 0; at < T.length; ) {
	var st = T[at], nst = T[at + 1], pr = procs[threads[sThread[st]].proc], slot = 0;
	at += 2;
	for (k2 = 0; k2 < nst; k2++, e2++) {
		var v = T[at++];
		slot += v < 0 ? -v - 1 : v;
		tStack[e2] = st;
		tStart[e2] = pr.start + slot * pr.slot;
		tCount[e2] = v < 0 ? 1 : T[at++];
		if (tStart[e2] + pr.slot > tEnd)
			tEnd = tStart[e2] + pr.slot;
	}
}
procs.forEach(function (p) { if (p.end > tEnd && NT > 0) tEnd = p.end; });

function str(k) { return k >= 0 ? S[k] : ''; }
function threadLabel(t) {
	var p = procs[t.proc];
	return (t.name || p.prog) + ' [' + t.tid + ']' + (t.name && t.name !== p.prog ?
		' in ' + p.prog : '');
}

/* ---- Figures. ---- */

/* The 95% interval of the share k/n (Wilson score), as `profil report` gives it. */
function wilson(k, n) {
	if (n <= 0)
		return [0, 1];
	var p = k / n, z2 = Z95 * Z95, d = 1 + z2 / n;
	var c = (p + z2 / (2 * n)) / d;
	var h = Z95 * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / d;
	return [Math.max(0, c - h), Math.min(1, c + h)];
}
function pct(x) { return (100 * x).toFixed(x >= 0.1 ? 1 : 2) + '%'; }
function share(k, n) { return n > 0 ? pct(k / n) : '-'; }
function interval(k, n) {
	var w = wilson(k, n);
	return (100 * w[0]).toFixed(1) + '\u2013' + (100 * w[1]).toFixed(1);
}
function fmtMs(ms) {
	return ms >= 1000 ? (ms / 1000).toFixed(ms >= 10000 ? 1 : 2) + ' s' :
		ms.toFixed(ms >= 10 ? 0 : 1) + ' ms';
}

/* ---- The state every view follows. ---- */

var state = {
	threads: null,		/* Set of thread numbers, or null: all */
	range: null,		/* [from, to] ms, or null: the whole recording */
	focus: -1,		/* a function (string number): only stacks through it */
	hidden: new Set(),	/* functions left out of stacks (their callees join the caller) */
	selected: -1,		/* the function the details and the sandwich show */
	tab: 'flame',
	icicle: true,
	search: null,		/* RegExp */
	zoom: 0			/* node of the view tree zoomed to */
};

/*
 * The view tree: the tree of frames under the filters, functions hidden, only stacks
 * through the focus; vSelf and vTotal in ticks, vWait the ticks of waiting threads.
 */
var V = null;

/*
 * fn(stack, ticks) for the ticks selected by time: in the time range, the timed ticks whose
 * slot's middle is in it; without one, every tick.  Threads are the caller's to filter.
 */
function eachTick(fn) {
	var k, s, r = state.range;
	if (r === null) {
		for (s = 0; s < NS; s++)
			fn(s, sCount[s]);
		return;
	}
	for (k = 0; k < NT; k++) {
		s = tStack[k];
		var mid = tStart[k] + procs[threads[sThread[s]].proc].slot / 2;
		if (mid >= r[0] && mid < r[1])
			fn(s, tCount[k]);
	}
}

function tickWeights() {
	var self = new Float64Array(NN), wait = new Float64Array(NN), th = state.threads;
	eachTick(function (s, n) {
		if (th !== null && !th.has(sThread[s]))
			return;
		self[sLeaf[s]] += n;
		if (sWait[s])
			wait[sLeaf[s]] += n;
	});
	return { self: self, wait: wait };
}

/*
 * A tree under construction, merged by (parent, name): typed arrays and an open-addressing
 * table, grown by doubling (a Map of 700,000 entries took seconds).  Node 0 is the root.
 */
function Tree(cap) {
	this.n = 1;
	this.alloc(Math.max(cap || 0, 64));
	this.parent[0] = this.name[0] = this.mod[0] = -1;
}
Tree.prototype.alloc = function (cap) {
	var old = this, k;
	function grown(A, a) {
		var b = new A(cap);
		if (a)
			b.set(a.subarray(0, old.n));
		return b;
	}
	this.parent = grown(Int32Array, this.parent);
	this.name = grown(Int32Array, this.name);
	this.mod = grown(Int32Array, this.mod);
	this.flags = grown(Uint8Array, this.flags);
	this.self = grown(Float64Array, this.self);
	this.wait = grown(Float64Array, this.wait);
	this.cap = cap;
	var size = 1;
	while (size < 2 * cap)
		size *= 2;
	this.mask = size - 1;
	this.keyP = new Int32Array(size).fill(-1);
	this.keyN = new Int32Array(size);
	this.val = new Int32Array(size);
	for (k = 1; k < this.n; k++)
		this.slot(this.parent[k], this.name[k], k);
};
/* The table's slot of (p, name), given the node c when it is new. */
Tree.prototype.slot = function (p, name, c) {
	var h = (Math.imul(p, 73856093) ^ Math.imul(name, 19349663)) & this.mask;
	while (this.keyP[h] !== -1 && (this.keyP[h] !== p || this.keyN[h] !== name))
		h = (h + 1) & this.mask;
	if (this.keyP[h] === -1 && c >= 0) {
		this.keyP[h] = p;
		this.keyN[h] = name;
		this.val[h] = c;
	}
	return h;
};
Tree.prototype.child = function (p, name, mod, flags) {
	var h = this.slot(p, name, -1), c;
	if (this.keyP[h] !== -1)
		return this.val[h];
	if (this.n === this.cap) {
		this.alloc(2 * this.cap);
		h = this.slot(p, name, -1);
	}
	c = this.n++;
	this.parent[c] = p; this.name[c] = name; this.mod[c] = mod; this.flags[c] = flags;
	this.slot(p, name, c);
	return c;
};
/* Totals from selves (children come after parents), and children lists heaviest first. */
Tree.prototype.finish = function () {
	var n, c;
	if (this.keyP !== undefined) {
		/* Built here: the arrays keep their spare room until now. */
		var me = this;
		['parent', 'name', 'mod', 'flags', 'self', 'wait'].forEach(function (a) {
			me[a] = me[a].subarray(0, me.n);
		});
		this.keyP = this.keyN = this.val = undefined;
		this.total = new Float64Array(this.n);
	}
	n = this.parent.length;
	for (c = 0; c < n; c++)
		this.total[c] = this.self[c];
	var waitT = Float64Array.from(this.wait);
	for (c = n - 1; c > 0; c--) {
		this.total[this.parent[c]] += this.total[c];
		waitT[this.parent[c]] += waitT[c];
	}
	this.waitTotal = waitT;
	/* Children lists in one array (a big profile has hundreds of thousands of nodes):
	 * node c's are kidList[kidStart[c] .. kidStart[c + 1]), heaviest first. */
	var start = new Int32Array(n + 1), tot = this.total, nm = this.name, par = this.parent;
	for (c = 1; c < n; c++)
		if (tot[c] > 0)
			start[par[c] + 1]++;
	for (c = 0; c < n; c++)
		start[c + 1] += start[c];
	var list = new Int32Array(start[n]), pos = start.slice(0, n);
	for (c = 1; c < n; c++)
		if (tot[c] > 0)
			list[pos[par[c]]++] = c;
	for (c = 0; c < n; c++)
		if (start[c + 1] - start[c] > 1)
			list.subarray(start[c], start[c + 1]).sort(function (a, b) {
				return tot[b] - tot[a] || (S[nm[a]] < S[nm[b]] ? -1 : 1);
			});
	this.kidStart = start;
	this.kidList = list;
	return this;
};

/* The children of node n, heaviest first: a view, not a copy. */
Tree.prototype.kidsOf = function (n) {
	return this.kidList.subarray(this.kidStart[n], this.kidStart[n + 1]);
};

function buildView() {
	var w = tickWeights(), t, map = new Int32Array(NN), through;
	var f = state.focus, hid = state.hidden, n;
	if (f >= 0) {
		/* A stack is through the focus when its leaf's path is. */
		through = new Uint8Array(NN);
		for (n = 1; n < NN; n++)
			through[n] = through[nParent[n]] || nName[n] === f ? 1 : 0;
	}
	if (hid.size === 0) {
		/* Nothing hidden: the view tree is the tree of frames, weighed. */
		t = Object.create(Tree.prototype);
		t.parent = nParent; t.name = nName; t.mod = nMod; t.flags = nFlags;
		t.self = w.self; t.wait = w.wait;
		t.total = new Float64Array(NN);
		if (f >= 0)
			for (n = 1; n < NN; n++)
				if (!through[n])
					t.self[n] = t.wait[n] = 0;
		return t.finish();
	}
	/* Hidden functions leave their callees to their caller: merged again. */
	t = new Tree(NN);
	for (n = 1; n < NN; n++) {
		var p = map[nParent[n]];
		map[n] = hid.has(nName[n]) ? p : t.child(p, nName[n], nMod[n], nFlags[n]);
		if (f >= 0 && !through[n])
			continue;
		t.self[map[n]] += w.self[n];
		t.wait[map[n]] += w.wait[n];
	}
	return t.finish();
}

/*
 * Per function (string number): self ticks, total ticks (each stack once however often
 * recursion puts it there), its module, and the nodes where it is outermost on its path.
 */
function functions(t) {
	var fn = new Map(), onPath = new Int32Array(S.length + 1);
	var byName = new Array(S.length + 1), k, c, e;
	/* Depth first (children after parents in the kids lists), counting each function's
	 * frames on the path: a frame is outermost when none is above it.  hosts[d] is the
	 * function whose machine code the frame at depth d is: itself, or for code inlined into
	 * it, the nearest caller that is not inlined, which gets that code's self time, as the
	 * report's flat view gives it (the machine code is the host symbol's). */
	var stack = [0], it = [0], hosts = [null];
	while (stack.length > 0) {
		var top = stack[stack.length - 1], d = stack.length - 1;
		k = it[it.length - 1];
		/* Labels (program, process, thread) are what code ran in, not functions. */
		if (k === 0 && top !== 0 && !(t.flags[top] & 4)) {
			var nm = t.name[top] + 1;
			e = byName[nm];
			if (e === undefined) {
				e = byName[nm] = { name: t.name[top], mod: t.mod[top], self: 0,
					total: 0, wait: 0, tops: [], code: false };
				fn.set(t.name[top], e);
			}
			var host = e;
			if (t.flags[top] & 1 && hosts[d - 1] !== null)
				host = hosts[d - 1];
			else
				e.code = true;
			hosts[d] = host;
			host.self += t.self[top];
			host.wait += t.wait[top];
			if (onPath[nm] === 0) {
				e.total += t.total[top];
				e.tops.push(top);
			}
			onPath[nm]++;
		}
		c = t.kidStart[top];
		if (k < t.kidStart[top + 1] - c) {
			it[it.length - 1] = k + 1;
			stack.push(t.kidList[c + k]);
			it.push(0);
			hosts.push(hosts[d]);
		} else {
			if (top !== 0 && !(t.flags[top] & 4))
				onPath[t.name[top] + 1]--;
			hosts.pop();
			stack.pop();
			it.pop();
		}
	}
	return fn;
}

/* ---- Diff: the --diff rows by function, and colours. ---- */

var diffBy = null;
if (D.diff) {
	diffBy = new Map();
	var R = D.diff.rows;
	for (i = 0; i < R.length; i += 5) {
		var key = S[R[i]], prev = diffBy.get(key);
		var row = { k0: R[i + 2], k1: R[i + 3], z: R[i + 4] };
		/* A name in two modules: the larger change stands for the function. */
		if (prev === undefined || Math.abs(row.z) > Math.abs(prev.z))
			diffBy.set(key, row);
	}
}
function diffOf(nameId) {
	if (diffBy === null)
		return null;
	var d = diffBy.get(S[nameId]);
	if (d === undefined)
		return null;
	var n0 = D.diff.base_total, n1 = D.diff.total;
	return { diff: 100 * ((n1 > 0 ? d.k1 / n1 : 0) - (n0 > 0 ? d.k0 / n0 : 0)), z: d.z,
		sig: Math.abs(d.z) >= D.diff.z, k0: d.k0, k1: d.k1 };
}

/* ---- Colours, as the SVG export's: warm programs, cool libraries, waits, grey. ---- */

function hash(s) {
	var h = 2166136261;
	for (var k = 0; k < s.length; k++)
		h = Math.imul(h ^ s.charCodeAt(k), 16777619) >>> 0;
	return h;
}
function colour(t, n) {
	var name = str(t.name[n]), mod = str(t.mod[n]), h = hash(name);
	if (t.flags[n] & 4)
		return 'rgb(200,210,225)';
	if (diffBy !== null) {
		var d = diffOf(t.name[n]);
		if (d === null)
			return 'rgb(215,215,215)';
		var a = Math.min(1, Math.abs(d.diff) / 5), lo = d.sig ? 0 : 80;
		var v = Math.round(235 - a * (235 - 60 - lo));
		return d.diff > 0 ? 'rgb(235,' + v + ',' + v + ')' : 'rgb(' + v + ',' + v + ',235)';
	}
	if (t.flags[n] & 2)
		return 'rgb(190,190,190)';
	if (name.lastIndexOf('[wait:', 0) === 0)
		return 'rgb(' + (90 + h % 40) + ',' + (90 + (h >>> 8) % 50) + ',' +
			(220 + (h >>> 16) % 36) + ')';
	if (mod.indexOf('.so') >= 0)
		return 'rgb(' + (90 + h % 60) + ',' + (170 + (h >>> 8) % 50) + ',' +
			(210 + (h >>> 16) % 36) + ')';
	return 'rgb(' + (220 + h % 36) + ',' + (70 + (h >>> 8) % 150) + ',' +
		(40 + (h >>> 16) % 50) + ')';
}

/* ---- The page. ---- */

function el(tag, attrs, text) {
	var e = document.createElement(tag);
	if (attrs)
		for (var a in attrs)
			e.setAttribute(a, attrs[a]);
	if (text !== undefined)
		e.textContent = text;
	return e;
}
/* fn on a click, and on Enter or Space when focused: tables read without a mouse too. */
function clickable(e, fn) {
	e.setAttribute('tabindex', '0');
	e.addEventListener('click', fn);
	e.addEventListener('keydown', function (ev) {
		if (ev.key === 'Enter' || ev.key === ' ') {
			ev.preventDefault();
			fn(ev);
		}
	});
}
function add(parent) {
	for (var k = 1; k < arguments.length; k++)
		parent.appendChild(arguments[k]);
	return parent;
}

document.title = str(D.title) + ' - profil';
var header = el('header');
add(header, el('h1', null, str(D.title)), el('p', { class: 'says' }, str(D.says) +
	(D.diff ? '. Compared with a base of ' + D.diff.base_total + ' samples: red grew, ' +
	'blue shrank; * marks a change beyond the sampling noise (|z| \u2265 ' + D.diff.z +
	').' : '')));
var bar = add(el('div', { class: 'bar' }));
var search = el('input', { type: 'search', id: 'search',
	placeholder: 'Search functions (regular expression)', 'aria-label': 'Search' });
var matched = el('span', { id: 'matched', 'aria-live': 'polite' });
var filterSay = el('span', { id: 'filter', 'aria-live': 'polite' });
var clearBtn = el('button', { id: 'clear' }, 'Show everything');
add(bar, search, matched, filterSay, clearBtn);
add(header, bar);

var timeline = el('section', { id: 'timeline', 'aria-label': 'Timeline' });
var mainEl = el('main');
var left = el('section', { id: 'left', 'aria-label': 'Hottest functions and threads' });
var right = el('section', { id: 'right' });
var tabs = el('div', { id: 'tabs', role: 'tablist' });
var panel = el('div', { id: 'panel', role: 'tabpanel' });
var details = el('div', { id: 'details', 'aria-live': 'polite' });
var tip = el('div', { id: 'tip', role: 'tooltip' });
/* The keyboard's frame in a graph: outlined, and said to screen readers. */
var cursorBox = el('div', { id: 'fcursor' });
var flameSaid = el('div', { id: 'flamesaid', class: 'sr', 'aria-live': 'polite' });
add(right, tabs, panel, details);
add(mainEl, left, right);
add(document.body, header, timeline, mainEl, tip, flameSaid);

var TABS = [['flame', 'Flame graph'], ['tree', 'Call tree'], ['inverted', 'Inverted'],
	['sandwich', 'Sandwich'], ['lines', 'Source lines']];
var tabBtn = {};
TABS.forEach(function (x) {
	var b = el('button', { role: 'tab', id: 'tab-' + x[0], 'aria-selected': 'false' }, x[1]);
	b.addEventListener('click', function () { state.tab = x[0]; renderRight(); });
	tabBtn[x[0]] = b;
	tabs.appendChild(b);
});
var icicleBtn = el('button', { id: 'icicle', 'aria-pressed': 'true',
	title: 'Roots at the top (icicle) or at the bottom (flame graph)' }, 'Roots on top');
icicleBtn.addEventListener('click', function () {
	state.icicle = !state.icicle;
	icicleBtn.setAttribute('aria-pressed', String(state.icicle));
	renderRight();
});
var resetZoom = el('button', { id: 'reset' }, 'Reset zoom');
resetZoom.addEventListener('click', function () { state.zoom = 0; renderRight(); });
add(tabs, el('span', { style: 'flex:1' }), resetZoom, icicleBtn);

/* ---- Left: the hottest functions and the threads, as text. ---- */

var FN = null;		/* functions of the view tree */

function hotTable() {
	var total = V.total[0], rows = Array.from(FN.values());
	rows.sort(function (a, b) { return b.self - a.self || b.total - a.total; });
	var tbl = el('table', { id: 'hot' });
	var cap = el('caption', { style: 'text-align:left' });
	add(tbl, cap);
	/* With a base, the change comes next to the name, in place of the samples. */
	var head = diffBy === null ? ['Function', 'Self', '95%', 'Total', '95%', 'Samples',
		'Module'] : ['Function', 'Change', 'Self', '95%', 'Total', '95%', 'Module'];
	var tr = el('tr');
	head.forEach(function (h, k) {
		tr.appendChild(el('th', { class: k === 0 ? 'name' : '', scope: 'col' }, h));
	});
	add(tbl, add(el('thead'), tr));
	var body = el('tbody'), shown = 0;
	rows.forEach(function (f) {
		/* Code only ever inlined has no machine code of its own: its host has the row. */
		if (shown >= 60 || f.self === 0 && f.total === 0 || !f.code)
			return;
		if (f.self === 0 && shown >= 20)
			return;
		shown++;
		var r = el('tr', { 'data-fn': String(f.name) });
		if (f.name === state.selected)
			r.className = 'sel';
		r.appendChild(el('td', { class: 'name' }, S[f.name]));
		if (diffBy !== null) {
			var d = diffOf(f.name), c = el('td');
			if (d !== null) {
				c.textContent = (d.diff >= 0 ? '+' : '') + d.diff.toFixed(2) +
					' pts' + (d.sig ? ' *' : '');
				c.className = (d.sig ? 'sig ' : '') + (d.diff >= 0 ? 'up' : 'down');
				c.title = 'z = ' + d.z.toFixed(2) + ', base ' + d.k0 + ' samples';
			}
			r.appendChild(c);
		}
		add(r, el('td', null, share(f.self, total)),
			el('td', { class: 'ci' }, interval(f.self, total)),
			el('td', null, share(f.total, total)),
			el('td', { class: 'ci' }, interval(f.total, total)));
		if (diffBy === null)
			r.appendChild(el('td', null, String(f.self)));
		r.appendChild(el('td', { class: 'mod', title: str(f.mod) }, str(f.mod)));
		clickable(r, function () { select(f.name); });
		body.appendChild(r);
	});
	tbl.appendChild(body);
	cap.textContent = 'Hottest functions, by self time: of ' + total + ' samples' +
		(state.threads || state.range || state.focus >= 0 || state.hidden.size ?
			' selected' : '') + '; 95% intervals of each share.';
	return tbl;
}

function threadTable() {
	var byThread = new Float64Array(threads.length), waitT = new Float64Array(threads.length);
	var k, total = 0;
	eachTick(function (s, n) {
		byThread[sThread[s]] += n;
		if (sWait[s])
			waitT[sThread[s]] += n;
	});
	for (k = 0; k < threads.length; k++)
		total += byThread[k];
	var tbl = el('table', { id: 'threads' });
	add(tbl, el('caption', { style: 'text-align:left' },
		'Threads: a click selects one (Ctrl-click adds), and every view follows.'));
	var tr = el('tr');
	['Thread', 'Process', 'Samples', 'Share', '95%'].concat(D.wall ? ['Waiting'] : [])
		.forEach(function (h, j) {
			tr.appendChild(el('th', { class: j === 0 ? 'name' : '', scope: 'col' }, h));
		});
	add(tbl, add(el('thead'), tr));
	var body = el('tbody'), order = threads.map(function (t, j) { return j; });
	order.sort(function (a, b) { return byThread[b] - byThread[a]; });
	order.forEach(function (j) {
		var t = threads[j], p = procs[t.proc];
		var row = el('tr', { 'data-thread': String(j) });
		if (state.threads !== null && state.threads.has(j))
			row.className = 'sel';
		add(row, el('td', { class: 'name' }, (t.name || p.prog) + ' [' + t.tid + ']'),
			el('td', null, p.prog + ' [' + p.pid + ']'),
			el('td', null, String(byThread[j])),
			el('td', null, share(byThread[j], total)),
			el('td', { class: 'ci' }, interval(byThread[j], total)));
		if (D.wall)
			row.appendChild(el('td', null, share(waitT[j], byThread[j])));
		clickable(row, function (ev) { pickThreads([j], ev.ctrlKey || ev.metaKey); });
		body.appendChild(row);
	});
	tbl.appendChild(body);
	return tbl;
}

function renderLeft() {
	left.textContent = '';
	add(left, el('h2', null, 'Hottest functions'), hotTable(), el('h2', null, 'Threads'),
		threadTable());
}

/* ---- Flame graph and icicle, on a canvas. ---- */

var ROW = 18;
var layout = null;	/* the frames drawn: {t, n, x, y, w} */

/*
 * Draws tree t (from node root, zoomed to node zoom) on a new canvas: widths are ticks.
 * Zoomed, the frames above the zoomed one span the width and the others beside it go.
 */
function flame(t, root, zoom, icicle, label) {
	var W = Math.max(300, panel.clientWidth - 2), depth = 0, n, frames = [];
	var z = zoom || root, zt = t.total[z], scale = W / (zt || 1);
	/* The path from the root to the zoomed frame, drawn full width. */
	var path = [];
	for (n = z; n >= 0; n = n === root ? -1 : t.parent[n])
		path.unshift(n);
	path.forEach(function (p, k) { frames.push({ n: p, x: 0, w: W, d: k }); });
	depth = path.length - 1;
	var todo = [];
	function kidsOf(m, x, d) {
		t.kidsOf(m).forEach(function (c) {
			var w = t.total[c] * scale;
			if (w >= 0.4)
				todo.push([c, x, d]);
			x += w;
		});
	}
	kidsOf(z, 0, depth + 1);
	while (todo.length > 0) {
		var it = todo.pop(), x = it[1], d = it[2];
		n = it[0];
		frames.push({ n: n, x: x, w: t.total[n] * scale, d: d });
		if (d > depth)
			depth = d;
		kidsOf(n, x, d + 1);
	}
	var H = (depth + 1) * ROW + 4;
	var cv = el('canvas', { class: 'flame', role: 'img', 'aria-label': label });
	var dpr = window.devicePixelRatio || 1;
	cv.width = W * dpr;
	cv.height = H * dpr;
	cv.style.width = W + 'px';
	cv.style.height = H + 'px';
	var g = cv.getContext('2d');
	g.scale(dpr, dpr);
	g.font = '12px system-ui, "DejaVu Sans", Verdana, sans-serif';
	g.textBaseline = 'middle';
	var re = state.search, lay = [];
	frames.forEach(function (f) {
		var y = icicle ? f.d * ROW : H - (f.d + 1) * ROW - 2, nm;
		nm = f.n === 0 ? 'all (' + t.total[0] + ' samples)' : str(t.name[f.n]);
		var hit = re !== null && f.n !== 0 && re.test(nm);
		g.fillStyle = f.n === 0 ? 'rgb(200,200,200)' : hit ? 'rgb(230,0,230)' :
			colour(t, f.n);
		g.fillRect(f.x, y, Math.max(f.w - 0.5, 0.5), ROW - 1);
		if (diffBy !== null && f.n !== 0) {
			var dd = diffOf(t.name[f.n]);
			if (dd !== null && dd.sig) {
				g.strokeStyle = 'rgb(0,0,0)';
				g.lineWidth = 1.5;
				g.strokeRect(f.x + 0.75, y + 0.75, Math.max(f.w - 2, 0.5),
					ROW - 2.5);
				nm = '* ' + nm;
			}
		}
		if (f.w > 30) {
			var fit = Math.floor((f.w - 6) / 6.6);
			g.fillStyle = 'rgb(0,0,0)';
			g.fillText(nm.length <= fit ? nm : nm.substring(0, fit - 2) + '..', f.x + 3,
				y + ROW / 2);
		}
		lay.push({ t: t, n: f.n, x: f.x, y: y, w: f.w, h: ROW - 1, d: f.d, cv: cv });
	});
	cv.frames = lay;
	/* The keyboard walks the frames as the mouse points at them (flameKey). */
	cv.setAttribute('tabindex', '0');
	cv.cursor = -1;
	cv.icicle = icicle;
	cv.addEventListener('keydown', function (ev) { flameKey(cv, ev); });
	cv.addEventListener('blur', function () {
		tip.style.display = 'none';
		cursorBox.style.display = 'none';
	});
	cv.addEventListener('mousemove', function (ev) {
		var f = frameAt(cv, ev);
		if (f === null) {
			tip.style.display = 'none';
			return;
		}
		tip.textContent = frameSay(f.t, f.n);
		tip.style.display = 'block';
		tip.style.left = Math.min(ev.clientX + 12, window.innerWidth - 420) + 'px';
		tip.style.top = (ev.clientY + 14) + 'px';
	});
	cv.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
	return cv;
}

/*
 * Keys on a focused graph: the arrows toward the leaves (down with roots on top, up without)
 * and back toward the root, left and right along a depth; Enter zooms to the frame (cv.pick),
 * Escape back to the whole graph.  The frame is outlined and said as hovering says it.
 */
function flameKey(cv, ev) {
	var fs = cv.frames, cur = cv.cursor >= 0 ? fs[cv.cursor] : null, next = -1, k;
	var deeper = cv.icicle ? 'ArrowDown' : 'ArrowUp';
	var shallower = cv.icicle ? 'ArrowUp' : 'ArrowDown';
	var arrow = ev.key === deeper || ev.key === shallower || ev.key === 'ArrowLeft' ||
		ev.key === 'ArrowRight';

	if (arrow && cur === null) {
		next = 0;
	} else if (arrow) {
		for (k = 0; k < fs.length; k++) {
			var f = fs[k], better = next < 0;
			if (ev.key === deeper) {
				if (f.d !== cur.d + 1 || f.x < cur.x - 0.01 || f.x >= cur.x + cur.w)
					continue;
				better = better || f.w > fs[next].w;
			} else if (ev.key === shallower) {
				if (f.d !== cur.d - 1 || cur.x < f.x - 0.01 || cur.x >= f.x + f.w)
					continue;
			} else if (ev.key === 'ArrowLeft') {
				if (f.d !== cur.d || f.x >= cur.x)
					continue;
				better = better || f.x > fs[next].x;
			} else {
				if (f.d !== cur.d || f.x <= cur.x)
					continue;
				better = better || f.x < fs[next].x;
			}
			if (better)
				next = k;
		}
	} else if ((ev.key === 'Enter' || ev.key === ' ') && cur !== null && cv.pick) {
		cv.pick(cur);
	} else if (ev.key === 'Escape' && cv.pick && fs.length > 0) {
		cv.pick(fs[0]);
	} else {
		return;
	}
	ev.preventDefault();
	if (next >= 0)
		flameCursor(cv, next);
}

/* Puts the keyboard's cursor on frame k of cv: outlined, scrolled to, said. */
function flameCursor(cv, k) {
	var f = cv.frames[k], b;
	cv.cursor = k;
	cursorBox.style.left = (cv.offsetLeft + f.x) + 'px';
	cursorBox.style.top = (cv.offsetTop + f.y) + 'px';
	cursorBox.style.width = Math.max(f.w, 2) + 'px';
	cursorBox.style.height = f.h + 'px';
	cursorBox.style.display = 'block';
	if (cursorBox.parentNode !== cv.parentNode)
		cv.parentNode.appendChild(cursorBox);
	cursorBox.scrollIntoView({ block: 'nearest' });
	b = cv.getBoundingClientRect();
	tip.textContent = frameSay(f.t, f.n);
	tip.style.display = 'block';
	tip.style.left = Math.max(0, Math.min(b.left + f.x + 4, window.innerWidth - 420)) + 'px';
	tip.style.top = (b.top + f.y + f.h + 4) + 'px';
	flameSaid.textContent = tip.textContent;
}

function frameAt(cv, ev) {
	var b = cv.getBoundingClientRect(), x = ev.clientX - b.left, y = ev.clientY - b.top;
	var fs = cv.frames;
	for (var k = fs.length - 1; k >= 0; k--)
		if (x >= fs[k].x && x < fs[k].x + fs[k].w && y >= fs[k].y && y < fs[k].y + fs[k].h)
			return fs[k];
	return null;
}

/* What a frame stands for: name, module, its ticks and share with the interval. */
function frameSay(t, n) {
	var all = V.total[0];
	if (n === 0)
		return 'all: ' + t.total[0] + ' samples';
	var s = str(t.name[n]) + (t.mod[n] >= 0 ? ' in ' + str(t.mod[n]) : '') +
		(t.flags[n] & 1 ? ', inlined' : '') + ': total ' + t.total[n] + ' samples, ' +
		share(t.total[n], all) + ' (95% ' + interval(t.total[n], all) + '), self ' +
		t.self[n] + ', ' + share(t.self[n], all);
	if (t.waitTotal && t.waitTotal[n] > 0)
		s += '; waiting ' + share(t.waitTotal[n], t.total[n]) + ' of it';
	var d = diffOf(t.name[n]);
	if (d !== null)
		s += '; change ' + (d.diff >= 0 ? '+' : '') + d.diff.toFixed(2) + ' pts, z ' +
			d.z.toFixed(2) + (d.sig ? ', beyond the noise' : ', within the noise');
	return s;
}

function flamePanel() {
	var cv = flame(V, 0, state.zoom, state.icicle, 'Flame graph of ' + V.total[0] +
		' samples; the tables say the same as text');
	cv.id = 'flame';
	cv.pick = function (f, keys) {
		state.zoom = f.n;
		if (f.n !== 0 && !(V.flags[f.n] & 4))
			state.selected = V.name[f.n];
		renderRight();
		renderDetails();
		markSelected();
		/* From the keyboard: the new graph keeps the focus, on the frame zoomed to. */
		var now = document.getElementById('flame');
		if (keys !== false && now !== null) {
			now.focus();
			for (var k = 0; k < now.frames.length; k++)
				if (now.frames[k].n === f.n)
					flameCursor(now, k);
		}
	};
	cv.addEventListener('click', function (ev) {
		var f = frameAt(cv, ev);
		if (f !== null)
			cv.pick(f, false);
	});
	panel.appendChild(cv);
	if (!state.icicle)
		panel.scrollTop = panel.scrollHeight;
	searchSay();
}

/* The share of the frames matching the search, each stack once. */
function searchSay() {
	var re = state.search;
	if (re === null) {
		matched.textContent = '';
		return;
	}
	var sum = 0, todo = [0];
	while (todo.length > 0) {
		var n = todo.pop();
		if (n !== 0 && re.test(str(V.name[n]))) {
			sum += V.total[n];
			continue;
		}
		V.kidsOf(n).forEach(function (c) { todo.push(c); });
	}
	matched.textContent = 'Matched: ' + share(sum, V.total[0]);
}

/* ---- Call trees: expandable rows of text. ---- */

function treeTable(t, root, id, what) {
	var all = V.total[0], open = new Set(), tbl = el('table', { id: id, class: 'tree',
		role: 'treegrid', 'aria-label': what });
	var tr = el('tr');
	['Function', 'Total', '95%', 'Self', '95%', 'Samples', 'Module'].forEach(function (h, k) {
		tr.appendChild(el('th', { class: k === 0 ? 'name' : '', scope: 'col' }, h));
	});
	add(tbl, add(el('thead'), tr));
	var body = el('tbody');
	tbl.appendChild(body);
	/* Open the hot path: the heaviest child, and on while it holds most of its parent. */
	open.add(root);
	for (var n = t.kidsOf(root)[0]; n !== undefined && t.kidsOf(n).length > 0; ) {
		open.add(n);
		var c = t.kidsOf(n)[0];
		if (t.total[c] * 2 < t.total[n])
			break;
		n = c;
	}
	function draw() {
		body.textContent = '';
		var todo = Array.from(t.kidsOf(root)).reverse().map(function (c) {
			return [c, 0];
		});
		while (todo.length > 0) {
			var it = todo.pop(), m = it[0], d = it[1];
			var row = el('tr', { 'aria-level': String(d + 1),
				'data-fn': String(t.name[m]),
				'aria-expanded': t.kidsOf(m).length ? String(open.has(m)) : null });
			if (!t.kidsOf(m).length)
				row.removeAttribute('aria-expanded');
			var name = el('td', { class: 'name',
				style: 'padding-left:' + (4 + 14 * d) + 'px' });
			add(name, el('span', { class: 'tog' }, t.kidsOf(m).length ? (open.has(m) ?
				'\u25be' : '\u25b8') : ''),
				document.createTextNode(str(t.name[m])));
			add(row, name, el('td', null, share(t.total[m], all)),
				el('td', { class: 'ci' }, interval(t.total[m], all)),
				el('td', null, share(t.self[m], all)),
				el('td', { class: 'ci' }, interval(t.self[m], all)),
				el('td', null, String(t.total[m])),
				el('td', { class: 'mod' }, str(t.mod[m])));
			(function (node) {
				clickable(row, function () {
					if (open.has(node))
						open.delete(node);
					else
						open.add(node);
					state.selected = t.name[node];
					draw();
					renderDetails();
					markSelected();
				});
			})(m);
			body.appendChild(row);
			if (open.has(m))
				Array.from(t.kidsOf(m)).reverse().forEach(function (c) {
					todo.push([c, d + 1]);
				});
		}
	}
	draw();
	return tbl;
}

/*
 * Inverted: the leaves at the root, each followed by its callers.  A stack's ticks go to
 * the end of its inverted path, so totals sum what passes through each node; a node's self
 * is then what its function did itself: the ticks of a root child.
 */
function invertedTree() {
	var t = new Tree(V.parent.length), n, m, p;
	for (n = 1; n < V.parent.length; n++) {
		if (V.self[n] === 0)
			continue;
		for (p = 0, m = n; m > 0; m = V.parent[m])
			p = t.child(p, V.name[m], V.mod[m], V.flags[m]);
		t.self[p] += V.self[n];
	}
	t.finish();
	for (n = 1; n < t.parent.length; n++)
		t.self[n] = t.parent[n] === 0 ? t.total[n] : 0;
	return t;
}

/* The sandwich of function f: its callers (inverted from f) and its callees. */
function sandwich(f) {
	var fe = FN.get(f), callers = new Tree(), callees = new Tree();
	if (fe === undefined)
		return null;
	callers.child(0, f, fe.mod, 0);
	callees.child(0, f, fe.mod, 0);
	fe.tops.forEach(function (top) {
		/* Callers: the path above its outermost frame, with that frame's ticks. */
		var p = 1;
		for (var m = V.parent[top]; m > 0; m = V.parent[m])
			p = callers.child(p, V.name[m], V.mod[m], V.flags[m]);
		callers.self[p] += V.total[top];
		/* Callees: everything below it, merged. */
		var todo = [[top, 1]];
		while (todo.length > 0) {
			var it = todo.pop(), node = it[0], q = it[1];
			callees.self[q] += V.self[node];
			V.kidsOf(node).forEach(function (c) {
				todo.push([c, callees.child(q, V.name[c], V.mod[c], V.flags[c])]);
			});
		}
	});
	callers.finish();
	for (var n = 2; n < callers.parent.length; n++)
		callers.self[n] = 0;
	callers.self[1] = fe.self;
	return { callers: callers, callees: callees.finish() };
}

function sandwichPanel() {
	var f = state.selected;
	if (f < 0) {
		panel.appendChild(el('p', { class: 'note' }, 'Pick a function (a row of the ' +
			'table or a frame) to see its callers and callees.'));
		return;
	}
	var sw = sandwich(f);
	if (sw === null) {
		panel.appendChild(el('p', { class: 'note' }, S[f] + ': no samples selected.'));
		return;
	}
	var box = el('div', { class: 'sandwich', id: 'sandwich' });
	add(box, el('h2', null, 'Callers of ' + S[f]),
		flame(sw.callers, 1, 1, false, 'Callers of ' + S[f]),
		treeTable(sw.callers, 1, 'callers', 'Callers of ' + S[f]),
		el('h2', null, 'Callees of ' + S[f]),
		flame(sw.callees, 1, 1, true, 'Callees of ' + S[f]),
		treeTable(sw.callees, 1, 'callees', 'Callees of ' + S[f]));
	panel.appendChild(box);
}

function linesPanel() {
	var f = state.selected;
	if (f < 0) {
		panel.appendChild(el('p', { class: 'note' }, 'Pick a function to see its hot ' +
			'source lines.'));
		return;
	}
	var rows = [], L = D.lines, sum = 0, k;
	for (k = 0; k < L.length; k += 5)
		if (S[L[k]] === S[f]) {
			rows.push({ file: str(L[k + 1]), line: L[k + 2], n: L[k + 3],
				text: str(L[k + 4]) });
			sum += L[k + 3];
		}
	if (rows.length === 0) {
		panel.appendChild(el('p', { class: 'note' }, S[f] + ': no line information ' +
			'(its binary has no debug information, or no sample has it at the leaf).'));
		return;
	}
	var tbl = el('table', { id: 'lines', class: 'srcline' });
	add(tbl, el('caption', { style: 'text-align:left' }, 'Source lines of ' + S[f] +
		' where samples were taken (whole recording): ' + sum + ' samples.'));
	var tr = el('tr');
	['Line', 'Samples', 'Of the function', 'Source'].forEach(function (h, j) {
		tr.appendChild(el('th', { class: j === 0 || j === 3 ? 'name' : '' }, h));
	});
	add(tbl, add(el('thead'), tr));
	var body = el('tbody');
	rows.forEach(function (r) {
		add(body, add(el('tr'), el('td', { class: 'name' }, r.file + ':' + r.line),
			el('td', null, String(r.n)), el('td', null, share(r.n, sum)),
			el('td', { class: 'src' }, r.text)));
	});
	tbl.appendChild(body);
	panel.appendChild(tbl);
}

function renderRight() {
	panel.textContent = '';
	TABS.forEach(function (x) {
		tabBtn[x[0]].setAttribute('aria-selected', String(state.tab === x[0]));
	});
	resetZoom.disabled = state.zoom === 0;
	if (V.total[0] === 0) {
		panel.appendChild(el('p', { class: 'note' }, 'No samples in this selection.'));
		return;
	}
	if (state.tab === 'flame')
		flamePanel();
	else if (state.tab === 'tree')
		panel.appendChild(treeTable(V, 0, 'calltree', 'Call tree'));
	else if (state.tab === 'inverted')
		panel.appendChild(treeTable(invertedTree(), 0, 'calltree', 'Inverted call tree'));
	else if (state.tab === 'sandwich')
		sandwichPanel();
	else
		linesPanel();
}

/* ---- Details of the selected function, with what can be done with it. ---- */

function renderDetails() {
	details.textContent = '';
	var f = state.selected, fe = f >= 0 ? FN.get(f) : undefined, all = V.total[0];
	if (f < 0) {
		details.textContent = 'Click a frame to zoom into it; pick a function in the ' +
			'table for its callers, callees and source lines.';
		return;
	}
	add(details, el('span', { class: 'name' }, S[f]), document.createTextNode(fe ?
		': self ' + share(fe.self, all) + ' (95% ' + interval(fe.self, all) + '), total ' +
		share(fe.total, all) + ' (95% ' + interval(fe.total, all) + '), ' + fe.total +
		' samples ' : ': no samples selected '));
	function btn(id, text, fn) {
		var b = el('button', { id: id }, text);
		b.addEventListener('click', fn);
		details.appendChild(b);
	}
	btn('do-sandwich', 'Callers and callees', function () {
		state.tab = 'sandwich';
		renderRight();
	});
	btn('do-lines', 'Source lines', function () {
		state.tab = 'lines';
		renderRight();
	});
	btn('do-focus', state.focus === f ? 'Unfocus' : 'Focus on it', function () {
		state.focus = state.focus === f ? -1 : f;
		state.zoom = 0;
		update();
	});
	btn('do-hide', 'Hide it', function () {
		state.hidden.add(f);
		state.zoom = 0;
		state.selected = -1;
		update();
	});
}

function markSelected() {
	Array.prototype.forEach.call(left.querySelectorAll('#hot tbody tr'), function (r) {
		r.className = +r.getAttribute('data-fn') === state.selected ? 'sel' : '';
	});
}

function select(f) {
	state.selected = f;
	if (state.tab === 'flame' || state.tab === 'tree' || state.tab === 'inverted')
		state.tab = 'sandwich';
	renderRight();
	renderDetails();
	markSelected();
}

/* ---- The timeline. ---- */

var trackEls = [];
var selEl = el('div', { id: 'sel' });

function buildTimeline() {
	timeline.textContent = '';
	trackEls = [];
	if (NT === 0) {
		timeline.appendChild(el('p', { class: 'note' }, 'No time in this recording: ' +
			'the profile has no TIME records (recorded before profil kept time).'));
		return;
	}
	var axis = el('div', { class: 'axis' });
	var key = el('span', { class: 'label' }, 'Time (' + fmtMs(tEnd) + '): ');
	add(key, el('span', { class: 'cpu' }, 'on a CPU'));
	if (D.wall)
		add(key, document.createTextNode(', '),
			el('span', { class: 'waiting' }, 'waiting'));
	add(axis, key, el('canvas', { id: 'axis' }));
	timeline.appendChild(axis);
	/* Processes with the most samples first (a build's compiler, not the make that ran it,
	 * a pyenv shim's python3, not its bash), each process's threads together. */
	var procTicks = new Float64Array(procs.length);
	for (var s3 = 0; s3 < NS; s3++)
		procTicks[threads[sThread[s3]].proc] += sCount[s3];
	var order = threads.map(function (t, j) { return j; });
	order.sort(function (a, b) {
		var pa = threads[a].proc, pb = threads[b].proc;
		return procTicks[pb] - procTicks[pa] || pa - pb || threads[a].tid - threads[b].tid;
	});
	/* A track per process of more than one thread (all of them), then one per thread. */
	function track(list, text, cls) {
		var tr = el('div', { class: 'track' + cls });
		if (list.length === 1)
			tr.setAttribute('data-thread', String(list[0]));
		var lab = el('span', { class: 'label', title: text, role: 'button' }, text);
		var cv = el('canvas', { role: 'img', 'aria-label': 'When ' + text + ' ran' +
			(D.wall ? ' and waited' : '') });
		add(tr, lab, cv);
		clickable(lab, function (ev) { pickThreads(list, ev.ctrlKey || ev.metaKey); });
		timeline.appendChild(tr);
		trackEls.push({ el: tr, cv: cv, threads: list });
	}
	order.forEach(function (j, k) {
		var p = threads[j].proc;
		if (k === 0 || threads[order[k - 1]].proc !== p) {
			var mine = order.filter(function (i) { return threads[i].proc === p; });
			if (mine.length > 1)
				track(mine, procs[p].prog + ' [' + procs[p].pid + '], ' +
					mine.length + ' threads', ' proc');
		}
		track([j], threadLabel(threads[j]), '');
	});
	timeline.appendChild(selEl);
	drawTimeline();
	timeline.addEventListener('mousedown', dragStart);
}

function drawTimeline() {
	if (NT === 0)
		return;
	var ax = document.getElementById('axis'), W = ax.clientWidth;
	ax.width = W;
	ax.height = 16;
	var g = ax.getContext('2d'), step = niceStep(tEnd / 8), x;
	g.fillStyle = '#777';
	g.font = '10px system-ui, sans-serif';
	g.textBaseline = 'middle';
	for (var t = 0; t <= tEnd; t += step) {
		x = t / tEnd * W;
		g.fillRect(x, 10, 1, 6);
		g.fillText(fmtMs(t), x + 2, 6);
	}
	/* Per track, the ticks per pixel: on a CPU warm, waiting blue-violet. */
	var byThread = new Map(), bins = [];
	trackEls.forEach(function (tr) {
		var w = tr.cv.clientWidth, b = { tr: tr, cpu: new Float64Array(w),
			wait: new Float64Array(w) };
		tr.cv.width = w;
		tr.cv.height = 21;
		bins.push(b);
		tr.threads.forEach(function (j) {
			if (!byThread.has(j))
				byThread.set(j, []);
			byThread.get(j).push(b);
		});
	});
	function spread(b, k, s) {
		/* A slot's ticks spread over the pixels it covers, as a rate. */
		var W2 = b.cpu.length, sw = procs[threads[sThread[s]].proc].slot;
		var x0 = tStart[k] / tEnd * W2;
		var x1 = Math.max(x0 + 1e-9, (tStart[k] + sw) / tEnd * W2);
		var into = sWait[s] ? b.wait : b.cpu, rate = tCount[k] / (x1 - x0);
		for (var px = Math.floor(x0); px < Math.min(W2, Math.ceil(x1)); px++)
			into[px] += rate * (Math.min(px + 1, x1) - Math.max(px, x0));
	}
	for (var k = 0; k < NT; k++) {
		var s = tStack[k], bs = byThread.get(sThread[s]);
		for (var i = 0; bs !== undefined && i < bs.length; i++)
			spread(bs[i], k, s);
	}
	bins.forEach(function (b) {
		/*
		 * Scaled to the track's 98th percentile, not its peak: a recorder may put a
		 * burst of ticks in one slot (a wait counted when it ends), and one such pixel
		 * made the rest of the track flat.  Taller pixels are cut at the top.
		 */
		var g2 = b.tr.cv.getContext('2d'), sums = [], p;
		/* A moving average over a few pixels: at 1 kHz a pixel holds a tick or none,
		 * and single ticks drew a comb, not how busy the thread was. */
		smooth(b.cpu);
		smooth(b.wait);
		for (p = 0; p < b.cpu.length; p++)
			if (b.cpu[p] + b.wait[p] > 0)
				sums.push(b.cpu[p] + b.wait[p]);
		if (sums.length === 0)
			return;
		sums.sort(function (x, y) { return x - y; });
		var max = sums[Math.floor(0.98 * (sums.length - 1))];
		for (p = 0; p < b.cpu.length; p++) {
			var cut = Math.min(1, max / (b.cpu[p] + b.wait[p] || 1));
			var hc = b.cpu[p] * cut / max * 20, hw = b.wait[p] * cut / max * 20;
			if (hc > 0) {
				g2.fillStyle = 'rgb(230,120,40)';
				g2.fillRect(p, 21 - hc, 1, hc);
			}
			if (hw > 0) {
				g2.fillStyle = 'rgb(110,110,235)';
				g2.fillRect(p, 21 - hc - hw, 1, hw);
			}
		}
	});
	placeSel();
}

function smooth(a) {
	var r = Math.max(1, Math.round(a.length / 400)), c = Float64Array.from(a), sum = 0, p;
	for (p = 0; p < a.length + r; p++) {
		if (p < a.length)
			sum += c[p];
		if (p - 2 * r - 1 >= 0)
			sum -= c[p - 2 * r - 1];
		/* The running sum's rounding leaves crumbs (1e-17) where nothing ran: they are
		 * nothing, or a track of a few ticks is drawn busy to its end. */
		if (p - r >= 0 && p - r < a.length)
			a[p - r] = sum > 1e-9 ? sum / (2 * r + 1) : 0;
	}
}

function niceStep(x) {
	var p = Math.pow(10, Math.floor(Math.log10(Math.max(x, 1e-3))));
	return x / p >= 5 ? 5 * p : x / p >= 2 ? 2 * p : p;
}

/* Time in ms at a client x, on the tracks' scale. */
function timeAt(clientX) {
	var cv = trackEls.length ? trackEls[0].cv : null;
	if (cv === null)
		return 0;
	var b = cv.getBoundingClientRect();
	return Math.max(0, Math.min(tEnd, (clientX - b.left) / b.width * tEnd));
}

function placeSel() {
	if (state.range === null || trackEls.length === 0) {
		selEl.style.display = 'none';
		return;
	}
	var b = trackEls[0].cv.getBoundingClientRect(), tb = timeline.getBoundingClientRect();
	selEl.style.display = 'block';
	selEl.style.left = (b.left - tb.left + state.range[0] / tEnd * b.width) + 'px';
	selEl.style.width = Math.max(1, (state.range[1] - state.range[0]) / tEnd * b.width) + 'px';
}

function dragStart(ev) {
	if (ev.target.tagName !== 'CANVAS' || ev.button !== 0)
		return;
	var t0 = timeAt(ev.clientX);
	ev.preventDefault();
	function move(e) {
		var t1 = timeAt(e.clientX);
		state.range = [Math.min(t0, t1), Math.max(t0, t1)];
		placeSel();
	}
	function up(e) {
		document.removeEventListener('mousemove', move);
		document.removeEventListener('mouseup', up);
		var t1 = timeAt(e.clientX);
		/* A click without a drag clears the range. */
		state.range = Math.abs(t1 - t0) < tEnd / 500 ? null :
			[Math.min(t0, t1), Math.max(t0, t1)];
		state.zoom = 0;
		update();
	}
	document.addEventListener('mousemove', move);
	document.addEventListener('mouseup', up);
}

/* Selects the threads of list (a thread's or a process's track); with addIt, adds them to the
 * selection or, when all are in it, takes them out.  Picking the selection again clears it. */
function pickThreads(list, addIt) {
	var sel = state.threads, all = sel !== null && list.every(function (j) {
		return sel.has(j);
	});
	if (sel === null || !addIt) {
		state.threads = all && sel.size === list.length ? null : new Set(list);
	} else if (all) {
		list.forEach(function (j) { sel.delete(j); });
		if (sel.size === 0)
			state.threads = null;
	} else {
		list.forEach(function (j) { sel.add(j); });
	}
	state.zoom = 0;
	update();
}

function sayFilter() {
	var parts = [];
	if (state.threads !== null)
		parts.push(Array.from(state.threads).map(function (j) {
			return threadLabel(threads[j]);
		}).join(', '));
	if (state.range !== null)
		parts.push(fmtMs(state.range[0]) + ' to ' + fmtMs(state.range[1]));
	if (state.focus >= 0)
		parts.push('through ' + S[state.focus]);
	if (state.hidden.size > 0)
		parts.push('hidden: ' + Array.from(state.hidden).map(function (f) {
			return S[f];
		}).join(', '));
	filterSay.textContent = parts.length ? 'Showing ' + parts.join('; ') : '';
	clearBtn.style.display = parts.length ? '' : 'none';
	trackEls.forEach(function (tr) {
		var sel = state.threads, on = sel !== null && tr.threads.every(function (j) {
			return sel.has(j);
		});
		tr.el.className = 'track' + (tr.threads.length > 1 ? ' proc' : '') +
			(on ? ' on' : '');
	});
}

/* ---- Putting it together. ---- */

function update() {
	V = buildView();
	lap('tree');
	FN = functions(V);
	lap('functions');
	if (state.zoom >= V.parent.length)
		state.zoom = 0;
	sayFilter();
	renderLeft();
	lap('tables');
	renderRight();
	lap('graph');
	renderDetails();
	placeSel();
}

clearBtn.addEventListener('click', function () {
	state.threads = null;
	state.range = null;
	state.focus = -1;
	state.hidden = new Set();
	state.zoom = 0;
	update();
});
search.addEventListener('input', function () {
	var v = search.value;
	try {
		state.search = v === '' ? null : new RegExp(v, 'i');
	} catch (e) {
		state.search = new RegExp(v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
	}
	if (state.tab === 'flame')
		renderRight();
	else
		searchSay();
});
var resizeTimer = 0;
window.addEventListener('resize', function () {
	clearTimeout(resizeTimer);
	resizeTimer = setTimeout(function () { drawTimeline(); renderRight(); }, 100);
});

lap('arrays');
buildTimeline();
lap('timeline');
update();
lap('views');
/* Open on the hottest function's details, so the first screen names it. */
window.profilViewer = {
	state: state,
	update: update,
	tEnd: tEnd,
	timings: timings,
	/* The frames drawn on a canvas, with page coordinates: for tests and tools. */
	frames: function (id) {
		var cv = document.getElementById(id || 'flame');
		if (!cv || !cv.frames)
			return [];
		var b = cv.getBoundingClientRect();
		return cv.frames.map(function (f) {
			return { name: f.n === 0 ? 'all' : str(f.t.name[f.n]), node: f.n,
				x: b.left + f.x, y: b.top + f.y, w: f.w, h: f.h };
		});
	},
	drawn: true
};
})();
