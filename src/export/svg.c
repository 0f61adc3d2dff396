/*
 * svg.c - a flame graph as one self-contained SVG: the frames are laid out here, so the file
 * shows the graph even where scripts do not run, and a small inline script adds the
 * interaction (details on hover, zoom on click, search).  Widths are ticks, siblings in name
 * order, as flamegraph.pl draws them; but frames hang from their callers, the root ("all") at
 * the top, as its --inverted icicle does.  Standing on the root at the bottom, a deep
 * recording (python3 running its json module, 200 frames) showed on the first screen only the
 * thin tips of its deepest stacks, the wide base 2,000 pixels further down (issue 21); hanging,
 * the root, the programs and the wide frames of the hot path are what a reader sees first, and
 * the details and search lines stay on the first screen too, above the graph.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export/tree.h"
#include "report/report.h"

#define SVG_WIDTH	1200
#define SVG_PAD		10	/* left and right margins */
#define SVG_FRAME	16	/* frame height */
#define SVG_TOP		90	/* title, help and key lines, search box, details line */
#define SVG_BOTTOM	10
#define SVG_CHAR	7.0	/* average glyph width of the 12px font, to shorten labels */
/*
 * Frames narrower than this many pixels are not drawn, nor anything above them (flamegraph.pl's
 * --minwidth): 64 MB of deep distinct stacks made a 2.5 GB file of invisible frames.  So the
 * frames drawn are at most SVG_WIDTH / SVG_MIN_WIDTH per level.
 */
#define SVG_MIN_WIDTH	1.0

/* The length of the valid UTF-8 sequence at s (no overlong forms, no surrogates, at most
 * U+10FFFF), or 0. */
static size_t
utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	cp = s[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* XML 1.0's Char excludes surrogates and U+FFFE, U+FFFF: one of them in a name made the
	 * whole file invalid. */
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff) || cp >= 0xfffe)) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* XML text of at most max characters: markup characters escaped, valid UTF-8 kept, control and
 * stray bytes (which would make the whole file unreadable) written as '?'. */
static void
xml_puts(FILE *out, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n, len;

	for (n = 0; *s != '\0' && n < max; s++, n++) {
		if (*s == '&') {
			fputs("&amp;", out);
		} else if (*s == '<') {
			fputs("&lt;", out);
		} else if (*s == '>') {
			fputs("&gt;", out);
		} else if (*s == '"') {
			fputs("&quot;", out);
		} else if (*s >= 0x20 && *s < 0x7f) {
			fputc(*s, out);
		} else if (*s >= 0x80 && (len = utf8_len(s)) > 0) {
			fwrite(s, 1, len, out);
			s += len - 1;
		} else {
			fputc('?', out);
		}
	}
}

/*
 * Colours from the name, so a function keeps its colour between graphs: warm for programs' code,
 * cool for shared libraries (so where a program's own code ends shows at a glance), blue-violet
 * for waits, green for the programs, processes and threads the stacks stand on, grey for code
 * that nothing names (module+0x..., [unmapped]) and cut stacks, as there is nothing to tell
 * those apart.
 */
static void
colour(const char *name, const char *module, int label, char *buf, size_t len)
{
	uint32_t h = 2166136261u;
	const char *s;

	for (s = name; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	/* What the code ran in: a program, process or thread, whatever its name says. */
	if (label) {
		snprintf(buf, len, "rgb(%u,%u,%u)", 150 + h % 40, 200 + (h >> 8) % 30,
		    140 + (h >> 16) % 40);
		return;
	}
	if (strstr(name, "+0x") != NULL || strcmp(name, "[unmapped]") == 0 ||
	    strncmp(name, "[stack cut", 10) == 0) {
		snprintf(buf, len, "rgb(190,190,190)");
		return;
	}
	/* A thread's wait (--wall): blue-violet, as flamegraph.pl draws off-CPU time. */
	if (strncmp(name, "[wait:", 6) == 0) {
		snprintf(buf, len, "rgb(%u,%u,%u)", 90 + h % 40, 90 + (h >> 8) % 50, 220 + (h >> 16) % 36);
		return;
	}
	if (module != NULL && strstr(module, ".so") != NULL)
		snprintf(buf, len, "rgb(%u,%u,%u)", 90 + h % 60, 170 + (h >> 8) % 50,
		    210 + (h >> 16) % 36);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", 220 + h % 36, 70 + (h >> 8) % 150,
		    40 + (h >> 16) % 50);
}

static void
print_head(FILE *out, const char *title, unsigned height,
    const struct profil_report_time *time)
{
	char said[256];

	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
	    "<svg version=\"1.1\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
	    "xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\">\n",
	    SVG_WIDTH, height, SVG_WIDTH, height);
	/* The document's own title, what a browser's tab and history show. */
	fputs("<title>", out);
	xml_puts(out, title, 200);
	fputs("</title>\n", out);
	fputs("<style type=\"text/css\">\n"
	    "text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
	    "#title { font-size: 17px; text-anchor: middle; }\n"
	    ".f { cursor: pointer; }\n"
	    ".f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
	    ".f text { pointer-events: none; }\n"
	    ".hidden { display: none; }\n"
	    ".parent rect { opacity: 0.5; }\n"
	    ".inl rect { stroke: rgb(80,80,80); stroke-width: 0.8; stroke-dasharray: 3,2; }\n"
	    "#reset { cursor: pointer; fill: rgb(0,0,160); }\n"
	    "input { font: 12px Verdana, sans-serif; width: 100%; box-sizing: border-box; }\n"
	    "</style>\n", out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" "
	    "fill=\"rgb(250,250,242)\"/>\n", SVG_WIDTH, height);
	fprintf(out, "<text id=\"title\" x=\"%d\" y=\"24\">", SVG_WIDTH / 2);
	xml_puts(out, title, 200);
	fprintf(out, "</text>\n<text x=\"%d\" y=\"44\">%s. "
	    "Hover for details, click to zoom.</text>\n", SVG_PAD,
	    profil_report_time_say(time, 1, said, sizeof(said)));
	fprintf(out, "<text x=\"%d\" y=\"%d\">Callers above callees. Green: programs; red to "
	    "yellow: their code; blue: shared libraries; %sgrey: unnamed code.</text>\n", SVG_PAD,
	    SVG_TOP - 28,
	    time->wall ? "blue-violet: waits; " : "");
	fprintf(out, "<text id=\"reset\" class=\"hidden\" x=\"%d\" y=\"24\">Reset zoom</text>\n",
	    SVG_PAD);
	fprintf(out, "<foreignObject x=\"%d\" y=\"30\" width=\"260\" height=\"24\">"
	    "<input xmlns=\"http://www.w3.org/1999/xhtml\" id=\"search\" type=\"search\" "
	    "placeholder=\"Search (regular expression)\"/></foreignObject>\n",
	    SVG_WIDTH - SVG_PAD - 260);
	/* Hover details and the search's share: on the first screen, however tall the graph. */
	fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
	    SVG_WIDTH - SVG_PAD, SVG_TOP - 10);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", SVG_PAD, SVG_TOP - 10);
}

/*
 * The script: frames carry their place in ticks (data-x, data-w) and depth, so zooming is
 * arithmetic on those.  Zoomed to a frame, its callers span the width dimmed, frames beside
 * it are hidden, and everything above it scales by total/width.
 */
static const char svg_script[] =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "var boxes, total, W = %d, PAD = %d, CH = %.1f, details, reset, matched, zoomed = null;\n"
    "function init(evt) {\n"
    "  boxes = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
    "  total = +boxes[0].getAttribute('data-w');\n"
    "  details = document.getElementById('details');\n"
    "  reset = document.getElementById('reset');\n"
    "  matched = document.getElementById('matched');\n"
    "  boxes.forEach(function (g) {\n"
    "    g.addEventListener('mouseover', function () { details.textContent = info(g); });\n"
    "    g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
    "    g.addEventListener('click', function () { zoom(g); });\n"
    "  });\n"
    "  reset.addEventListener('click', function () { zoom(boxes[0]); });\n"
    "  var s = document.getElementById('search');\n"
    "  s.addEventListener('input', function () { search(s.value); });\n"
    "  zoom(boxes[0]);\n"
    "}\n"
    "function name(g) { return g.getAttribute('data-name'); }\n"
    "function info(g) {\n"
    "  var w = +g.getAttribute('data-w');\n"
    "  var m = g.getAttribute('data-module');\n"
    "  return name(g) + (m ? ' in ' + m : '') +\n"
    "    (g.getAttribute('data-inline') ? ', inlined' : '') + ' (' + w + ' samples, ' +\n"
    "    (100 * w / total).toFixed(2) + '%%)';\n"
    "}\n"
    "function label(g, width) {\n"
    "  var n = name(g), fit = Math.floor((width - 6) / CH);\n"
    "  if (fit < 3) return '';\n"
    "  return n.length <= fit ? n : n.substring(0, fit - 2) + '..';\n"
    "}\n"
    "function zoom(z) {\n"
    "  var zx = +z.getAttribute('data-x'), zw = +z.getAttribute('data-w');\n"
    "  var zd = +z.getAttribute('data-d'), scale = (W - 2 * PAD) / zw;\n"
    "  zoomed = z;\n"
    "  reset.setAttribute('class', z === boxes[0] ? 'hidden' : '');\n"
    "  boxes.forEach(function (g) {\n"
    "    var x = +g.getAttribute('data-x'), w = +g.getAttribute('data-w');\n"
    "    var d = +g.getAttribute('data-d'), r = g.firstElementChild.nextElementSibling;\n"
    "    var t = r.nextElementSibling, cls = g.getAttribute('data-inline') ? 'f inl' : 'f';\n"
    "    if (x + w <= zx || x >= zx + zw || (d < zd && !(x <= zx && x + w >= zx + zw))) {\n"
    "      g.setAttribute('class', 'f hidden');\n"
    "      return;\n"
    "    }\n"
    "    var a = Math.max(x, zx), b = Math.min(x + w, zx + zw);\n"
    "    var px = PAD + (a - zx) * scale, pw = (b - a) * scale;\n"
    "    if (d < zd) cls += ' parent';\n"
    "    g.setAttribute('class', cls);\n"
    "    r.setAttribute('x', px.toFixed(2));\n"
    "    r.setAttribute('width', pw.toFixed(2));\n"
    "    t.setAttribute('x', (px + 3).toFixed(2));\n"
    "    t.textContent = label(g, pw);\n"
    "  });\n"
    "}\n"
    "function search(term) {\n"
    "  var re = null, sum = 0, end = -1;\n"
    "  if (term !== '') {\n"
    "    try { re = new RegExp(term, 'i'); } catch (e) { re = null; }\n"
    "  }\n"
    "  boxes.forEach(function (g) {\n"
    "    var r = g.firstElementChild.nextElementSibling;\n"
    "    if (re !== null && re.test(name(g))) {\n"
    "      r.setAttribute('fill', 'rgb(230,0,230)');\n"
    "      var x = +g.getAttribute('data-x');\n"
    "      var w = +g.getAttribute('data-w');\n"
    "      if (x >= end) { sum += w; end = x + w; }\n"
    "    } else {\n"
    "      r.setAttribute('fill', r.getAttribute('data-fill'));\n"
    "    }\n"
    "  });\n"
    "  matched.textContent = re === null ? '' :\n"
    "    'Matched: ' + (100 * sum / total).toFixed(2) + '%%';\n"
    "}\n"
    "]]></script>\n";

/* Frames in pre-order (callers before callees, siblings in name order), at x = ticks before
 * them in their caller; the search sums matches in this order without counting a match
 * inside another twice. */
static int
print_frames(const struct profil_tree *t, FILE *out)
{
	const struct profil_tree_node *nd = t->nodes;
	double scale = (double)(SVG_WIDTH - 2 * SVG_PAD) / (double)nd[0].total, px, pw;
	uint64_t *x = malloc(t->n * sizeof(*x));
	size_t n = 0, c, pruned = 0;
	uint64_t next;
	char fill[32], buf[256];
	unsigned y;
	int fit;

	if (x == NULL)
		return -ENOMEM;
	x[0] = 0;
	for (;;) {
		const char *name = n == 0 ? "all" : profil_tree_name(t, n, buf, sizeof(buf));

		next = x[n];
		for (c = nd[n].child; c != 0; c = nd[c].next) {
			x[c] = next;
			next = profil_count_add(next, nd[c].total);
		}
		px = SVG_PAD + (double)x[n] * scale;
		pw = (double)nd[n].total * scale;
		if (n != 0 && pw < SVG_MIN_WIDTH) {
			pruned++;
			goto next;
		}
		y = SVG_TOP + nd[n].depth * SVG_FRAME;
		if (n == 0)
			snprintf(fill, sizeof(fill), "rgb(200,200,200)");
		else
			colour(name, nd[n].module, nd[n].label, fill, sizeof(fill));
		fprintf(out, "<g class=\"%s\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64
		    "\" data-d=\"%u\" data-name=\"", nd[n].inlined ? "f inl" : "f", x[n],
		    nd[n].total, nd[n].depth);
		xml_puts(out, name, 4096);
		if (nd[n].module != NULL) {
			fprintf(out, "\" data-module=\"");
			xml_puts(out, nd[n].module, 4096);
		}
		if (nd[n].inlined)
			fprintf(out, "\" data-inline=\"1");
		fprintf(out, "\"><title>");
		xml_puts(out, name, 4096);
		if (nd[n].module != NULL) {
			fprintf(out, " in ");
			xml_puts(out, nd[n].module, 4096);
		}
		if (nd[n].inlined)
			fprintf(out, ", inlined");
		fprintf(out, " (%" PRIu64 " samples, %.2f%%)</title>", nd[n].total,
		    100.0 * (double)nd[n].total / (double)nd[0].total);
		fprintf(out, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%d\" rx=\"2\" "
		    "fill=\"%s\" data-fill=\"%s\"/>", px, y, pw, SVG_FRAME - 1, fill, fill);
		fprintf(out, "<text x=\"%.2f\" y=\"%u\">", px + 3, y + SVG_FRAME - 4);
		/* pw is at most the width, but only if the counts were sane: never trust a cast. */
		fit = pw > 6 && pw < SVG_WIDTH ? (int)((pw - 6) / SVG_CHAR) : pw >= SVG_WIDTH ?
		    (int)(SVG_WIDTH / SVG_CHAR) : 0;
		if (fit >= 3 && strlen(name) <= (size_t)fit) {
			xml_puts(out, name, 4096);
		} else if (fit >= 3) {
			xml_puts(out, name, (size_t)fit - 2);
			fputs("..", out);
		}
		fprintf(out, "</text></g>\n");
		if (nd[n].child != 0) {
			n = nd[n].child;
			continue;
		}
next:
		while (n != 0 && nd[n].next == 0)
			n = nd[n].parent;
		if (n == 0)
			break;
		n = nd[n].next;
	}
	free(x);
	if (pruned > 0)
		fprintf(out, "<!-- %zu frames narrower than %.1f pixel not drawn, nor what stands "
		    "on them -->\n", pruned, SVG_MIN_WIDTH);
	return 0;
}

int
profil_export_svg(struct profil_report *r, const char *title, FILE *out)
{
	struct profil_report_time time;
	struct profil_tree t;
	unsigned height;
	int err;

	err = profil_tree_build(&t, r);
	if (err != 0)
		goto out;
	if (t.nodes[0].total == 0) {
		/* Nothing to draw: an empty graph would only divide by zero. */
		err = -ENODATA;
		goto out;
	}
	height = SVG_TOP + (t.max_depth + 1) * SVG_FRAME + SVG_BOTTOM;
	profil_report_time(r, PROFIL_REPORT_ALL, &time);
	print_head(out, title, height, &time);
	fprintf(out, svg_script, SVG_WIDTH, SVG_PAD, SVG_CHAR);
	err = print_frames(&t, out);
	fprintf(out, "</svg>\n");
	if (err == 0 && ferror(out))
		err = -EIO;
out:
	profil_tree_release(&t);
	return err;
}
