/*
 * rpt_html.c - the report kit's HTML writer: one page head with one style
 * sheet, the page's end, escaped text and names.
 */
#include <math.h>
#include <stdio.h>
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

void rpt_html_attr(struct rpt_buf *b, const char *name, const char *value)
{
	rpt_buf_printf(b, " %s=\"", name);
	rpt_buf_html(b, value);
	rpt_buf_printf(b, "\"");
}

/* ---- tables ---- */

void rpt_html_table_start(struct rpt_buf *b, const char *cls)
{
	rpt_buf_printf(b, "<table");
	if (cls)
		rpt_html_attr(b, "class", cls);
}

void rpt_html_table(struct rpt_buf *b, const char *cls,
		    const char *const *heads, size_t n)
{
	rpt_html_table_start(b, cls);
	rpt_html_table_heads(b, heads, n);
}

void rpt_html_table_heads(struct rpt_buf *b, const char *const *heads,
			  size_t n)
{
	rpt_buf_printf(b, ">");
	if (n) {
		rpt_buf_printf(b, "<tr>");
		for (size_t i = 0; i < n; i++) {
			rpt_buf_printf(b, "<th>");
			rpt_buf_html(b, heads[i]);
			rpt_buf_printf(b, "</th>");
		}
		rpt_buf_printf(b, "</tr>");
	}
	rpt_buf_printf(b, "\n");
}

void rpt_html_table_end(struct rpt_buf *b)
{
	rpt_buf_printf(b, "</table>\n");
}

void rpt_html_td(struct rpt_buf *b, const char *text)
{
	rpt_buf_printf(b, "<td>");
	rpt_buf_html(b, text);
	rpt_buf_printf(b, "</td>");
}

void rpt_html_td_num(struct rpt_buf *b, int decimals, double v)
{
	if (!isfinite(v))
		rpt_buf_printf(b, "<td>n/a</td>");
	else
		rpt_buf_printf(b, "<td>%.*f</td>", decimals, v);
}

/* ---- SVG ---- */

static double svg_size(double v)
{
	return isfinite(v) && v > 0 ? v : 0;
}

void rpt_svg_open(struct rpt_buf *b, const char *cls, double w, double h,
		  const char *extra)
{
	rpt_buf_printf(b, "<svg class=\"");
	rpt_buf_html(b, cls);
	rpt_buf_printf(b, "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		       "height=\"%.0f\"%s>", svg_size(w), svg_size(h),
		       extra ? extra : "");
}

void rpt_svg_close(struct rpt_buf *b)
{
	rpt_buf_printf(b, "</svg>\n");
}

void rpt_svg_line(struct rpt_buf *b, double x1, double y1, double x2,
		  double y2, const char *stroke)
{
	if (!isfinite(x1) || !isfinite(y1) || !isfinite(x2) || !isfinite(y2))
		return;
	rpt_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		       "y2=\"%.1f\" stroke=\"%s\"/>", x1, y1, x2, y2, stroke);
}

void rpt_svg_axes(struct rpt_buf *b, double left, double top, double w,
		  double h)
{
	rpt_svg_line(b, left, top, left, top + h, "#333");
	rpt_svg_line(b, left, top + h, left + w, top + h, "#333");
	rpt_buf_printf(b, "\n");
}

void rpt_svg_poly_start(struct rpt_svg_poly *p, struct rpt_buf *b)
{
	p->b = b;
	p->n = 0;
	rpt_buf_printf(b, "<polyline");
}

void rpt_svg_poly_points(struct rpt_svg_poly *p)
{
	rpt_buf_printf(p->b, " points=\"");
}

void rpt_svg_poly_open(struct rpt_svg_poly *p, struct rpt_buf *b,
		       const char *attrs)
{
	rpt_svg_poly_start(p, b);
	rpt_buf_printf(b, "%s", attrs ? attrs : "");
	rpt_svg_poly_points(p);
}

void rpt_svg_poly_point(struct rpt_svg_poly *p, double x, double y)
{
	if (!isfinite(x) || !isfinite(y))
		return;
	rpt_buf_printf(p->b, "%s%.1f,%.1f", p->n ? " " : "", x, y);
	p->n++;
}

void rpt_svg_poly_close(struct rpt_svg_poly *p)
{
	rpt_buf_printf(p->b, "\"/>");
}

void rpt_svg_polyline(struct rpt_buf *b, const char *attrs,
		      const double *xs, const double *ys, size_t n)
{
	struct rpt_svg_poly p;

	rpt_svg_poly_open(&p, b, attrs);
	for (size_t i = 0; i < n; i++)
		rpt_svg_poly_point(&p, xs[i], ys[i]);
	rpt_svg_poly_close(&p);
}
