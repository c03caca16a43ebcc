/*
 * rpt_html.h - the report kit's HTML writer (reports/ only): escaped text
 * and names into a growable string.
 */
#ifndef FEEDRATE_RPT_HTML_H
#define FEEDRATE_RPT_HTML_H

#include "rpt_text.h"

/* Append TEXT (UTF-8) with &, <, >, " and ' escaped. */
void rpt_buf_html(struct rpt_buf *b, const char *text);
/* Append raw BYTES of a path: rpt_path_text, then HTML-escaped. */
void rpt_buf_html_path(struct rpt_buf *b, const char *path);

#endif /* FEEDRATE_RPT_HTML_H */
