/*
 * rpt_text.h - the report kit's text writer (reports/ only): names from
 * users' datasets made printable, words wrapped, units, and appends to a
 * fixed buffer or a growable one.
 */
#ifndef FEEDRATE_RPT_TEXT_H
#define FEEDRATE_RPT_TEXT_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- names ---- */

/*
 * The first LEN bytes of BYTES (fewer when a NUL comes first, so a fixed
 * array that may lack its NUL is safe), printable as rpt_path_text makes
 * them, on F; "?" when out of memory.
 */
void rpt_put_bytes(FILE *f, const char *bytes, size_t len);

/* PATH (raw bytes; NULL prints nothing) printable on F. */
void rpt_put_path(FILE *f, const char *path);

/* ---- words ---- */

/*
 * TEXT on F, the cursor at column COL, in lines of at most WIDTH columns
 * broken at spaces; each further line starts with INDENT spaces. A word
 * longer than a line is kept whole (a path stays one piece to copy). Each
 * line ends with a newline; spaces where a line breaks are dropped, other
 * spaces are kept as they are.
 */
void rpt_wrap(FILE *f, const char *text, size_t col, size_t width,
	      size_t indent);

/* Append to BUF (LEN bytes, NUL-terminated) what FMT says; cut at LEN. */
void rpt_cat(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Append a remark to NOTES (LEN bytes): "; " after the ones there, then
 * what FMT says; cut at LEN. */
void rpt_note(char *notes, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* rpt_cat with the arguments in AP. */
void rpt_vcat(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* ---- a growable string ---- */

/* Every append fails soft (ok = false) on ENOMEM. */
struct rpt_buf {
	char *s;
	size_t len, cap;
	bool ok;
};

void rpt_buf_init(struct rpt_buf *b);
void rpt_buf_printf(struct rpt_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append LEN bytes of S as they are. */
void rpt_buf_put(struct rpt_buf *b, const char *s, size_t len);
/* The string (ownership passes to the caller), or NULL after ENOMEM. */
char *rpt_buf_take(struct rpt_buf *b);

/* ---- units ---- */

/* V rounded to a whole number with thousands commas: "1,234,567". */
static inline void rpt_fmt_count(char *buf, size_t len, double v)
{
	char tmp[32];
	size_t n, o = 0;

	snprintf(tmp, sizeof(tmp), "%.0f", fabs(v));
	n = strlen(tmp);
	if (v < 0 && o + 1 < len)
		buf[o++] = '-';
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
}

/* B bytes in decimal units: "1.50 TB", "2.00 GB", "3.5 MB", "512 B". */
static inline void rpt_fmt_bytes(char *buf, size_t len, double b)
{
	if (b >= 1e12)
		snprintf(buf, len, "%.2f TB", b / 1e12);
	else if (b >= 1e9)
		snprintf(buf, len, "%.2f GB", b / 1e9);
	else if (b >= 1e6)
		snprintf(buf, len, "%.1f MB", b / 1e6);
	else if (b >= 1e3)
		snprintf(buf, len, "%.1f KB", b / 1e3);
	else
		snprintf(buf, len, "%.0f B", b);
}

/* S seconds in words: "0.42 s", "95 s", "19 min 05 s", "2 h 03 min";
 * "-" when S < 0 (unknown). */
static inline void rpt_fmt_dur(char *buf, size_t len, double s)
{
	if (s < 0)
		snprintf(buf, len, "-");
	else if (s < 10)
		snprintf(buf, len, "%.2f s", s);
	else if (s < 100)
		snprintf(buf, len, "%.1f s", s);
	else if (s < 120)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.0f min %02.0f s", floor(s / 60),
			 fmod(floor(s), 60));
	else
		snprintf(buf, len, "%.0f h %02.0f min", floor(s / 3600),
			 floor(fmod(s, 3600) / 60));
}

#endif /* FEEDRATE_RPT_TEXT_H */
