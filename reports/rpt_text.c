/*
 * rpt_text.c - the report kit's text writer: printable names, wrapping,
 * appends.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "report.h"
#include "rpt_text.h"

/* ---- names ---- */

void rpt_put_bytes(FILE *f, const char *bytes, size_t len)
{
	char *t = rpt_path_text(bytes, strnlen(bytes, len));

	fputs(t ? t : "?", f);
	free(t);
}

void rpt_put_path(FILE *f, const char *path)
{
	if (path)
		rpt_put_bytes(f, path, strlen(path));
}

/* ---- words ---- */

/* How many bytes of TEXT (N long) go on a line with ROOM columns: up to
 * the last space that fits, or the whole first word when none fits. */
static size_t line_cut(const char *text, size_t n, size_t room)
{
	size_t cut;

	if (n <= room)
		return n;
	cut = room;
	while (cut && text[cut] != ' ')
		cut--;
	if (cut)
		return cut;
	return strcspn(text, " ");
}

void rpt_wrap(FILE *f, const char *text, size_t col, size_t width,
	      size_t indent)
{
	while (*text) {
		const size_t room = width > col ? width - col : 0;
		const size_t cut = line_cut(text, strlen(text), room);

		fprintf(f, "%.*s\n", (int)cut, text);
		text += cut;
		while (*text == ' ')
			text++;
		if (*text)
			fprintf(f, "%*s", (int)indent, "");
		col = indent;
	}
}

void rpt_vcat(char *buf, size_t len, const char *fmt, va_list ap)
{
	const size_t at = strnlen(buf, len);

	if (at + 1 >= len)
		return;
	vsnprintf(buf + at, len - at, fmt, ap);
}

void rpt_cat(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rpt_vcat(buf, len, fmt, ap);
	va_end(ap);
}

void rpt_note(char *notes, size_t len, const char *fmt, ...)
{
	const size_t used = strnlen(notes, len);
	va_list ap;

	if (used && used + 2 < len)
		memcpy(notes + used, "; ", 3);
	va_start(ap, fmt);
	rpt_vcat(notes, len, fmt, ap);
	va_end(ap);
}

/* ---- a growable string ---- */

void rpt_buf_init(struct rpt_buf *b)
{
	b->s = NULL;
	b->len = 0;
	b->cap = 0;
	b->ok = true;
}

static bool buf_reserve(struct rpt_buf *b, size_t more)
{
	size_t cap;
	char *n;

	if (!b->ok)
		return false;
	if (b->len + more + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more + 1)
		cap *= 2;
	n = realloc(b->s, cap);
	if (!n) {
		b->ok = false;
		return false;
	}
	b->s = n;
	b->cap = cap;
	return true;
}

void rpt_buf_printf(struct rpt_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !buf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void rpt_buf_put(struct rpt_buf *b, const char *s, size_t len)
{
	if (!buf_reserve(b, len))
		return;
	memcpy(b->s + b->len, s, len);
	b->len += len;
	b->s[b->len] = '\0';
}

char *rpt_buf_take(struct rpt_buf *b)
{
	char *s = b->ok ? b->s : NULL;

	if (!b->ok)
		free(b->s);
	else if (!s)
		s = calloc(1, 1);
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}
