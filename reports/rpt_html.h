/*
 * rpt_html.h - the report kit's HTML writer (reports/ only): every page
 * starts with rpt_html_head (one style sheet) and ends with rpt_html_end;
 * text and names go in escaped. A page is built in order into a growable
 * string, never patched afterwards.
 */
#ifndef FEEDRATE_RPT_HTML_H
#define FEEDRATE_RPT_HTML_H

#include "rpt_text.h"
#include "storage.h"    /* STG_CACHE_STATES */

/* "<!DOCTYPE html>", the head titled TITLE (escaped) with the style
 * sheet, and "<body>". */
void rpt_html_head(struct rpt_buf *b, const char *title);
/* "</body></html>". */
void rpt_html_end(struct rpt_buf *b);

/* Append TEXT (UTF-8) with &, <, >, " and ' escaped. */
void rpt_buf_html(struct rpt_buf *b, const char *text);
/* Append raw BYTES of a path: rpt_path_text, then HTML-escaped. */
void rpt_buf_html_path(struct rpt_buf *b, const char *path);

/* ---- charts ---- */

/* Left margin of a chart, for its y tick labels (SVG pixels). */
#define RPT_SVG_MARGIN_LEFT 70.0

/* The colour of each cache state (cold, ram, warm) in every chart. */
extern const char *const rpt_html_cache_colour[STG_CACHE_STATES];

/* The top of an axis that shows V: 1, 2 or 5 times a power of ten, at
 * least V (1 when V is not above 0). */
double rpt_svg_nice_max(double v);

/* One attribute, " NAME=\"VALUE\"", VALUE escaped (NULL: empty). */
void rpt_html_attr(struct rpt_buf *b, const char *name, const char *value);

/* ---- tables ---- */

/* "<table class=\"CLS\">" (CLS escaped; NULL: no class) and, with N > 0,
 * a header row of HEADS[0..N) (escaped), then a newline. */
void rpt_html_table(struct rpt_buf *b, const char *cls,
		    const char *const *heads, size_t n);
/* The same in two steps, for a table with attributes of its own:
 * "<table class=\"CLS\"", the caller's attributes (rpt_html_attr), then
 * ">", the header row and a newline. */
void rpt_html_table_start(struct rpt_buf *b, const char *cls);
void rpt_html_table_heads(struct rpt_buf *b, const char *const *heads,
			  size_t n);
/* "</table>\n". */
void rpt_html_table_end(struct rpt_buf *b);
/* One cell, "<td>TEXT</td>", TEXT escaped (NULL: empty). */
void rpt_html_td(struct rpt_buf *b, const char *text);
/* One cell of the number V with DECIMALS decimals; a V that is not
 * finite writes "n/a" (never "nan" or "inf"). */
void rpt_html_td_num(struct rpt_buf *b, int decimals, double v);

/* ---- SVG ---- */

/* "<svg class=\"CLS\" xmlns=... width=\"W\" height=\"H\"" then EXTRA
 * (raw attributes written by the caller, with its leading space; NULL
 * none) and ">": the one way a chart opens. A size that is not finite
 * or below 0 is 0. */
void rpt_svg_open(struct rpt_buf *b, const char *cls, double w, double h,
		  const char *extra);
/* "</svg>\n". */
void rpt_svg_close(struct rpt_buf *b);
/* "<line x1=.. y1=.. x2=.. y2=.. stroke=\"STROKE\"/>" (one decimal);
 * nothing when a coordinate is not finite. */
void rpt_svg_line(struct rpt_buf *b, double x1, double y1, double x2,
		  double y2, const char *stroke);
/* The axes of a plot area LEFT, TOP, W x H: the y axis up its left side
 * and the x axis along its bottom, both "#333", then a newline. */
void rpt_svg_axes(struct rpt_buf *b, double left, double top, double w,
		  double h);

/* A polyline being written: open, points, close. */
struct rpt_svg_poly {
	struct rpt_buf *b;
	unsigned n;                     /* points written */
};

/* "<polyline" ATTRS (raw, with its leading space; NULL none) " points=\"":
 * rpt_svg_poly_start(), ATTRS, rpt_svg_poly_points(). */
void rpt_svg_poly_open(struct rpt_svg_poly *p, struct rpt_buf *b,
		       const char *attrs);
/* "<polyline": the caller writes its attributes (rpt_html_attr), then
 * rpt_svg_poly_points(). */
void rpt_svg_poly_start(struct rpt_svg_poly *p, struct rpt_buf *b);
/* " points=\"": the points follow. */
void rpt_svg_poly_points(struct rpt_svg_poly *p);
/* One point "X,Y" (one decimal), space-separated; skipped when not
 * finite. */
void rpt_svg_poly_point(struct rpt_svg_poly *p, double x, double y);
/* "\"/>": a polyline of no point is still well-formed (points=""). */
void rpt_svg_poly_close(struct rpt_svg_poly *p);
/* A whole polyline of the N points (XS[i], YS[i]). */
void rpt_svg_polyline(struct rpt_buf *b, const char *attrs,
		      const double *xs, const double *ys, size_t n);

#endif /* FEEDRATE_RPT_HTML_H */
