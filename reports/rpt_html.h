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

#endif /* FEEDRATE_RPT_HTML_H */
