/*
 * rpt_keys.c - what a table of keys says in words (rpt_keys.h): a
 * context's --help options, and the table as markdown, with the accepted
 * values and defaults in the key engine's words (a bad value's error has
 * the same).
 */
#include <stdio.h>
#include <string.h>

#include "rpt_keys.h"
#include "rpt_text.h"

#define HELP_COL 25             /* where an option's text starts */
#define HELP_WIDTH 78

/* One row of CMD's --help. */
static void help_row(FILE *f, const struct wl_key *row, unsigned cmd)
{
	char left[64], text[2048], want[512], def[256];
	const bool has_def = wl_key_default_text(row, cmd, def, sizeof(def));
	int n;

	if (row->shortopt)
		n = snprintf(left, sizeof(left), "  -%c, --%s%s%s",
			     row->shortopt, row->name, row->arg ? " " : "",
			     row->arg ? row->arg : "");
	else
		n = snprintf(left, sizeof(left), "      --%s%s%s", row->name,
			     row->arg ? " " : "", row->arg ? row->arg : "");
	fprintf(f, "%s", left);
	if (n + 2 > HELP_COL) {
		fputs("  ", f);
	} else {
		fprintf(f, "%*s", HELP_COL - n, "");
		n = HELP_COL - 2;
	}
	if (row->type == WL_K_FLAG || row->type == WL_K_TEXT)
		want[0] = '\0';
	else
		wl_key_want(row, cmd, want, sizeof(want));
	snprintf(text, sizeof(text), "%s%s%s%s%s%s", row->help,
		 want[0] || has_def ? " (" : "", want,
		 want[0] && has_def ? "; " : "", has_def ? "default " : "",
		 has_def ? def : "");
	if (want[0] || has_def)
		strncat(text, ")", sizeof(text) - strlen(text) - 1);
	rpt_wrap(f, text, (size_t)n + 2, HELP_WIDTH, HELP_COL);
}

void rpt_keys_help(FILE *f, const struct rpt_keys *t, unsigned cmd)
{
	for (int g = 0; g < t->ngroups; g++) {
		bool title = false;

		for (size_t i = 0; i < t->n; i++) {
			const struct wl_key *row = &t->rows[i];

			if (row->group != g || !((row->uses >> cmd) & 1))
				continue;
			if (!title)
				fprintf(f, "%s:\n", t->groups[g]);
			title = true;
			help_row(f, row, cmd);
		}
		if (title)
			fputc('\n', f);
	}
}

/* ---- the README's list ---- */

typedef bool (*text_fn)(const struct wl_key *row, unsigned cmd, char *buf,
			size_t len);

static bool want_md(const struct wl_key *row, unsigned cmd, char *buf,
		    size_t len)
{
	if (row->type == WL_K_FLAG || row->type == WL_K_TEXT)
		return false;
	wl_key_want(row, cmd, buf, len);
	return true;
}

/* S on F, its '|' escaped for a table cell. */
static void md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* FN's text for each command of ROW, commands with the same text
 * together: "run, sweep: 32; ckpt: 4" ("-" when none has one). */
static void md_per_cmd(FILE *f, const struct rpt_keys *tb,
		       const struct wl_key *row, text_fn fn)
{
	unsigned done = 0;
	bool any = false;

	for (unsigned c = 0; c < tb->nctx; c++) {
		char t[512], u[512];
		bool first = true;

		if (!((row->uses >> c) & 1) || ((done >> c) & 1) ||
		    !fn(row, c, t, sizeof(t)))
			continue;
		fputs(any ? "; " : "", f);
		for (unsigned d = c; d < tb->nctx; d++) {
			if (!((row->uses >> d) & 1) || ((done >> d) & 1) ||
			    !fn(row, d, u, sizeof(u)) ||
			    strcmp(t, u))
				continue;
			done |= 1u << d;
			fprintf(f, "%s%s", first ? "" : ", ", tb->ctx_names[d]);
			first = false;
		}
		fputs(": ", f);
		md_text(f, t);
		any = true;
	}
	fputs(any ? " |" : "- |", f);
}

void rpt_keys_markdown(FILE *f, const struct rpt_keys *t)
{
	fputs("| Option | Commands | Accepts | Default | What it does |\n"
	      "| --- | --- | --- | --- | --- |\n", f);
	for (size_t i = 0; i < t->n; i++) {
		const struct wl_key *row = &t->rows[i];
		bool first = true;

		fputs("| ", f);
		if (row->shortopt)
			fprintf(f, "`-%c`, ", row->shortopt);
		fprintf(f, "`--%s", row->name);
		for (const char *p = row->arg ? " " : ""; *p; p++)
			fputc(*p, f);
		md_text(f, row->arg ? row->arg : "");
		fputs("` | ", f);
		for (unsigned c = 0; c < t->nctx; c++)
			if ((row->uses >> c) & 1) {
				fprintf(f, "%s%s", first ? "" : ", ",
					t->ctx_names[c]);
				first = false;
			}
		fputs(" | ", f);
		md_per_cmd(f, t, row, want_md);
		fputc(' ', f);
		md_per_cmd(f, t, row, wl_key_default_text);
		fputc(' ', f);
		md_text(f, row->help);
		fputs(" |\n", f);
	}
}
