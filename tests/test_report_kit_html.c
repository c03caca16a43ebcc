/*
 * test_report_kit_html.c - the report kit's tables and SVG (rpt_html.c):
 * well-formed for edge inputs (no row, no header, one point, no point,
 * points that are NaN or infinite, names to escape); a number that is not
 * finite is never written as "nan" or "inf".
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "rpt_html.h"
#include "rpt_text.h"

/*
 * Is S well-formed markup: every element closed in order (or
 * self-closed), attribute values quoted, no bare '<' or '&' in text?
 * Writes what is wrong into WHY.
 */
static bool well_formed(const char *s, char *why, size_t len)
{
	char stack[64][24];
	size_t depth = 0;

	for (const char *p = s; *p; p++) {
		char name[24];
		size_t n = 0;
		bool closing, quoted = false;
		const char *e;

		if (*p == '&') {
			if (strncmp(p, "&amp;", 5) && strncmp(p, "&lt;", 4) &&
			    strncmp(p, "&gt;", 4) && strncmp(p, "&quot;", 6) &&
			    strncmp(p, "&#39;", 5)) {
				snprintf(why, len, "bare & at %td", p - s);
				return false;
			}
			continue;
		}
		if (*p != '<')
			continue;
		if (!strncmp(p, "<!DOCTYPE", 9)) {
			p = strchr(p, '>');
			if (!p)
				return false;
			continue;
		}
		closing = p[1] == '/';
		for (e = p + 1 + closing; isalnum((unsigned char)*e) &&
		     n + 1 < sizeof(name); e++)
			name[n++] = *e;
		name[n] = '\0';
		if (!n) {
			snprintf(why, len, "bare < at %td", p - s);
			return false;
		}
		for (; *e && (quoted || *e != '>'); e++)
			if (*e == '"')
				quoted = !quoted;
			else if (*e == '<' && !quoted) {
				snprintf(why, len, "< inside a tag at %td", e - s);
				return false;
			}
		if (!*e) {
			snprintf(why, len, "unclosed tag %s", name);
			return false;
		}
		if (closing) {
			if (!depth || strcmp(stack[depth - 1], name)) {
				snprintf(why, len, "</%s> closes %s", name,
					 depth ? stack[depth - 1] : "nothing");
				return false;
			}
			depth--;
		} else if (e[-1] != '/' && strcmp(name, "meta")) {
			if (depth == 64)
				return false;
			memcpy(stack[depth++], name, n + 1);
		}
		p = e;
	}
	if (depth)
		snprintf(why, len, "<%s> left open", stack[depth - 1]);
	return depth == 0;
}

/* Nothing that is not finite was written as a number. */
static void no_nan(const char *s)
{
	cr_expect_null(strstr(s, "nan"), "%s", s);
	cr_expect_null(strstr(s, "inf"), "%s", s);
	cr_expect_null(strstr(s, "NaN"), "%s", s);
}

static char *take_checked(struct rpt_buf *b)
{
	char *s = rpt_buf_take(b);
	char why[128] = "";

	cr_assert_not_null(s);
	cr_expect(well_formed(s, why, sizeof(why)), "%s: %s", why, s);
	no_nan(s);
	return s;
}

FR_TEST(report_kit_html, the_checker_refuses_broken_markup)
{
	char why[128];

	cr_expect(well_formed("<a><b/></a>", why, sizeof(why)));
	cr_expect_not(well_formed("<a><b></a>", why, sizeof(why)));
	cr_expect_not(well_formed("<a>", why, sizeof(why)));
	cr_expect_not(well_formed("<a x=\"<\"></a>x < y", why, sizeof(why)));
	cr_expect_not(well_formed("<p>a & b</p>", why, sizeof(why)));
}

FR_TEST(report_kit_html, tables_empty_headless_and_escaped)
{
	static const char *const heads[] = { "a <b>", "", "c & d" };
	struct rpt_buf b;
	char *s;

	rpt_buf_init(&b);
	rpt_html_table(&b, "t", heads, 3);
	rpt_html_table_end(&b);
	rpt_html_table(&b, NULL, NULL, 0);
	rpt_html_table_end(&b);
	rpt_html_table_start(&b, "x\"y");
	rpt_html_attr(&b, "data-cache", "<cold>");
	rpt_html_table_heads(&b, heads, 1);
	rpt_buf_printf(&b, "<tr>");
	rpt_html_td(&b, NULL);
	rpt_html_td(&b, "1 < 2 & 'q'");
	rpt_html_td_num(&b, 1, NAN);
	rpt_html_td_num(&b, 0, INFINITY);
	rpt_html_td_num(&b, 0, -INFINITY);
	rpt_html_td_num(&b, 2, 1.005);
	rpt_buf_printf(&b, "</tr>");
	rpt_html_table_end(&b);
	s = take_checked(&b);
	cr_expect_not_null(strstr(s, "<table class=\"t\"><tr><th>a &lt;b&gt;"
				  "</th><th></th><th>c &amp; d</th></tr>\n"));
	cr_expect_not_null(strstr(s, "<table>\n</table>\n"));
	cr_expect_not_null(strstr(s, "<table class=\"x&quot;y\" data-cache="
				  "\"&lt;cold&gt;\"><tr>"));
	cr_expect_not_null(strstr(s, "<td>n/a</td><td>n/a</td><td>n/a</td>"
				  "<td>1."));
	free(s);
}

FR_TEST(report_kit_html, svg_axes_and_polylines_for_edge_inputs)
{
	const double xs[] = { 1, NAN, 3, INFINITY, 5 };
	const double ys[] = { 10, 20, -INFINITY, 40, 50 };
	struct rpt_svg_poly p;
	struct rpt_buf b;
	char *s;

	rpt_buf_init(&b);
	rpt_svg_open(&b, "plot", NAN, -5, " role=\"img\"");
	rpt_svg_axes(&b, 70, 10, 300, 200);
	rpt_svg_axes(&b, NAN, 10, 300, 200);      /* nothing drawn */
	rpt_svg_line(&b, 0, 0, INFINITY, 1, "#333");
	/* no point, one point, points with holes */
	rpt_svg_polyline(&b, " class=\"empty\"", xs, ys, 0);
	rpt_svg_polyline(&b, " class=\"one\"", xs, ys, 1);
	rpt_svg_polyline(&b, " class=\"holes\"", xs, ys, 5);
	rpt_svg_poly_start(&p, &b);
	rpt_html_attr(&b, "data-cache", "a\"b");
	rpt_svg_poly_points(&p);
	rpt_svg_poly_point(&p, NAN, NAN);
	rpt_svg_poly_close(&p);
	cr_expect_eq(p.n, 0);
	rpt_svg_close(&b);
	s = take_checked(&b);
	cr_expect_eq(strncmp(s, "<svg class=\"plot\" xmlns=\"http://www.w3.org/"
			     "2000/svg\" width=\"0\" height=\"0\" role=\"img\">",
			     strlen("<svg class=\"plot\" xmlns=\"http://www.w3."
				    "org/2000/svg\" width=\"0\" height=\"0\" "
				    "role=\"img\">")), 0, "%s", s);
	/* the axes: up the left side, along the bottom; one pair only */
	cr_expect_not_null(strstr(s, "<line x1=\"70.0\" y1=\"10.0\" x2=\"70.0\" "
				  "y2=\"210.0\" stroke=\"#333\"/><line x1=\"70.0\""
				  " y1=\"210.0\" x2=\"370.0\" y2=\"210.0\""));
	cr_expect_null(strstr(strstr(s, "<line") + 1, "<line x1=\"70.0\" y1="
			      "\"10.0\""));
	cr_expect_not_null(strstr(s, "<polyline class=\"empty\" points=\"\"/>"));
	cr_expect_not_null(strstr(s, "<polyline class=\"one\" points=\"1.0,10.0"
				  "\"/>"));
	cr_expect_not_null(strstr(s, "<polyline class=\"holes\" points=\"1.0,"
				  "10.0 5.0,50.0\"/>"));
	cr_expect_not_null(strstr(s, "<polyline data-cache=\"a&quot;b\" "
				  "points=\"\"/>"));
	cr_expect_str_eq(s + strlen(s) - 7, "</svg>\n");
	free(s);
}

FR_TEST(report_kit_html, a_whole_page_is_well_formed)
{
	static const char *const heads[] = { "x", "y" };
	const double xs[] = { 0.5 }, ys[] = { NAN };
	struct rpt_buf b;
	char *s;

	rpt_buf_init(&b);
	rpt_html_head(&b, "t & <u>");
	rpt_html_table(&b, "points", heads, 2);
	rpt_html_table_end(&b);
	rpt_svg_open(&b, "plot", 320, 200, NULL);
	rpt_svg_axes(&b, 10, 10, 300, 180);
	rpt_svg_polyline(&b, NULL, xs, ys, 1);
	rpt_svg_close(&b);
	rpt_html_end(&b);
	s = take_checked(&b);
	free(s);
}
