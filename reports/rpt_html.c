/*
 * rpt_html.c - the report kit's HTML writer: one page head with one style
 * sheet, the page's end, escaped text and names.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "rpt_html.h"

/* The one style sheet of every page (sweep, compare, cluster). */
static const char page_style[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;"
	"max-width:960px;color:#222}h1{font-size:1.5em}h2{font-size:1.15em;"
	"margin-top:1.8em;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"td,th{padding:.2em .6em;border-bottom:1px solid #eee;"
	"text-align:right}td:first-child,th:first-child{text-align:left}"
	".verdict{font-size:1.1em;background:#f4f7fb;padding:.8em;"
	"border-left:4px solid #1f5fbf}.note{color:#555;font-size:.9em}"
	".lost{color:#c0392b}svg text{font:11px sans-serif}"
	/* a white outline keeps a label readable over the lines it crosses */
	"svg .halo{paint-order:stroke;stroke:#fff;stroke-width:3px;"
	"stroke-linejoin:round}";

void rpt_html_head(struct rpt_buf *b, const char *title)
{
	rpt_buf_printf(b, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
		       "<meta charset=\"utf-8\"><title>");
	rpt_buf_html(b, title);
	rpt_buf_printf(b, "</title><style>%s</style></head><body>\n",
		       page_style);
}

void rpt_html_end(struct rpt_buf *b)
{
	rpt_buf_printf(b, "</body></html>\n");
}

void rpt_buf_html(struct rpt_buf *b, const char *text)
{
	for (const char *t = text ? text : ""; *t; t++) {
		const char *rep = NULL;

		switch (*t) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default: break;
		}
		if (rep) {
			rpt_buf_printf(b, "%s", rep);
		} else {
			rpt_buf_put(b, t, 1);
		}
	}
}

void rpt_buf_html_path(struct rpt_buf *b, const char *path)
{
	char *t = rpt_path_text(path ? path : "", path ? strlen(path) : 0);

	if (!t) {
		b->ok = false;
		return;
	}
	rpt_buf_html(b, t);
	free(t);
}

/* ---- charts ---- */

const char *const rpt_html_cache_colour[STG_CACHE_STATES] = {
	"#1f5fbf", "#c07a00", "#c0392b"
};

double rpt_svg_nice_max(double v)
{
	double p, m;

	if (!(v > 0))
		return 1;
	p = pow(10, floor(log10(v)));
	m = v / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}
