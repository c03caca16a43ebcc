/*
 * opthelp.c - what the option table says in words: the accepted values of
 * an option (for --help and for the error about a bad value alike), each
 * command's --help options, and the README's option list.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "rpt_text.h"

#define HELP_COL 25             /* where an option's text starts */
#define HELP_WIDTH 78

static const char *const group_titles[G_COUNT] = {
	[G_WORKLOAD] = "Workload and GPUs", [G_MEASURE] = "What to measure",
	[G_ENGINE] = "Engine and I/O", [G_DATASET] = "Dataset",
	[G_PIPELINE] = "Pipeline (whose CPU cost the verdict speaks of)",
	[G_REPORT] = "Reports and cost",
	[G_MPI] = "Under mpirun (a build with `make MPI=1`)",
	[G_OTHER] = "Other",
};

/* V as ROW's type writes it: 64M, 30s, 1.5. */
static const char *num_text(const struct cli_opt *row, double v, char *buf,
			    size_t len)
{
	static const char units[] = "KMGT";
	const unsigned long long u = (unsigned long long)v;
	int k = 3;

	if (row->type == CLI_TIME) {
		snprintf(buf, len, "%gs", v);
		return buf;
	}
	while (row->type == CLI_SIZE && u && k >= 0 &&
	       u % (1ull << (10 * (k + 1))))
		k--;
	if (row->type != CLI_SIZE || !u || k < 0)
		snprintf(buf, len, "%.10g", v);
	else
		snprintf(buf, len, "%llu%c", u >> (10 * (k + 1)), units[k]);
	return buf;
}

/* ROW's accepted values for CMD: "a, b or c" (LIST: "a, b, c"). */
static void values_text(const struct cli_opt *row, enum cli_cmd cmd,
			bool list, char *buf, size_t len)
{
	size_t n = 0, k = 0, used = 0;

	for (const struct cli_value *x = row->values; x->name; x++)
		n += (x->cmds >> cmd) & 1;
	buf[0] = '\0';
	for (const struct cli_value *x = row->values; x->name; x++) {
		if (!((x->cmds >> cmd) & 1))
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
					 "%s%s", k ? (k + 1 == n && !list ?
					 " or " : ", ") : "", x->name);
		k++;
	}
}

/* ROW's range: "1..4096", "> 0", ">= 1". */
static void range_text(const struct cli_opt *row, char *buf, size_t len)
{
	char lo[32], hi[32];

	num_text(row, row->lo, lo, sizeof(lo));
	num_text(row, row->hi, hi, sizeof(hi));
	if (row->hi > 0 && !row->gt)
		snprintf(buf, len, "%s..%s", lo, hi);
	else if (row->hi > 0)
		snprintf(buf, len, "> %s, at most %s", lo, hi);
	else
		snprintf(buf, len, "%s %s", row->gt ? ">" : ">=", lo);
}

const char *cli_opt_want(const struct cli_opt *row, enum cli_cmd cmd,
			 char *buf, size_t len)
{
	const bool list = (row->lists >> cmd) & 1;
	char r[96], v[256];

	range_text(row, r, sizeof(r));
	if (row->values) {
		values_text(row, cmd, list, v, sizeof(v));
		snprintf(buf, len, "%s%s", list ? "a comma-separated list of "
			 : "", v);
	} else if (row->want) {
		snprintf(buf, len, "%s", row->want);
	} else if (row->type == CLI_SIZE) {
		snprintf(buf, len, "a size (e.g. 4K, 64M, 1.5G), %s%s", r,
			 row->step ? ", a multiple of 4K" : "");
	} else if (row->type == CLI_TIME) {
		snprintf(buf, len, "a duration (e.g. 30s, 5m), %s", r);
	} else if (row->type == CLI_COUNT) {
		snprintf(buf, len, "a count such as 7B, 350M or 1281167");
	} else if (row->type == CLI_TEXT) {
		snprintf(buf, len, "a value");
	} else {
		snprintf(buf, len, "%s%s", list ? "a comma-separated list of "
			 "counts " : "", r);
	}
	return buf;
}

/* ROW's default for CMD in words into BUF; false when it has none. */
static bool default_text(const struct cli_opt *row, enum cli_cmd cmd,
			 char *buf, size_t len)
{
	for (size_t i = 0; i < 3 && row->defs[i].cmds; i++) {
		const struct cli_default *d = &row->defs[i];
		char num[32];

		if (!((d->cmds >> cmd) & 1))
			continue;
		num_text(row, d->def, num, sizeof(num));
		if (!d->text)
			snprintf(buf, len, "%s", num);
		else if (strstr(d->text, "%s"))   /* the number in the text */
			snprintf(buf, len, "%.*s%s%s",
				 (int)(strstr(d->text, "%s") - d->text),
				 d->text, num, strstr(d->text, "%s") + 2);
		else
			snprintf(buf, len, "%s", d->text);
		return true;
	}
	return false;
}

/* One row of CMD's --help. */
static void help_row(FILE *f, const struct cli_opt *row, enum cli_cmd cmd)
{
	char left[64], text[2048], want[512], def[256];
	const bool has_def = default_text(row, cmd, def, sizeof(def));
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
	if (row->type == CLI_FLAG || row->type == CLI_TEXT)
		want[0] = '\0';
	else
		cli_opt_want(row, cmd, want, sizeof(want));
	snprintf(text, sizeof(text), "%s%s%s%s%s%s", row->help,
		 want[0] || has_def ? " (" : "", want,
		 want[0] && has_def ? "; " : "", has_def ? "default " : "",
		 has_def ? def : "");
	if (want[0] || has_def)
		strncat(text, ")", sizeof(text) - strlen(text) - 1);
	rpt_wrap(f, text, (size_t)n + 2, HELP_WIDTH, HELP_COL);
}

void cli_opts_help(FILE *f, enum cli_cmd cmd)
{
	for (int g = 0; g < G_COUNT; g++) {
		bool title = false;

		for (size_t i = 0; i < cli_noptions; i++) {
			const struct cli_opt *row = &cli_options[i];

			if (row->group != (enum cli_group)g ||
			    !((row->cmds >> cmd) & 1))
				continue;
			if (!title)
				fprintf(f, "%s:\n", group_titles[g]);
			title = true;
			help_row(f, row, cmd);
		}
		if (title)
			fputc('\n', f);
	}
}

/* ---- the README's list ---- */

typedef bool (*text_fn)(const struct cli_opt *row, enum cli_cmd cmd,
			char *buf, size_t len);

static bool want_md(const struct cli_opt *row, enum cli_cmd cmd, char *buf,
		    size_t len)
{
	if (row->type == CLI_FLAG || row->type == CLI_TEXT)
		return false;
	cli_opt_want(row, cmd, buf, len);
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
static void md_per_cmd(FILE *f, const struct cli_opt *row, text_fn fn)
{
	unsigned done = 0;
	bool any = false;

	for (int c = 0; c < CLI_NCMDS; c++) {
		char t[512], u[512];
		bool first = true;

		if (!((row->cmds >> c) & 1) || ((done >> c) & 1) ||
		    !fn(row, (enum cli_cmd)c, t, sizeof(t)))
			continue;
		fputs(any ? "; " : "", f);
		for (int d = c; d < CLI_NCMDS; d++) {
			if (!((row->cmds >> d) & 1) || ((done >> d) & 1) ||
			    !fn(row, (enum cli_cmd)d, u, sizeof(u)) ||
			    strcmp(t, u))
				continue;
			done |= 1u << d;
			fprintf(f, "%s%s", first ? "" : ", ",
				cli_cmd_name((enum cli_cmd)d));
			first = false;
		}
		fputs(": ", f);
		md_text(f, t);
		any = true;
	}
	fputs(any ? " |" : "- |", f);
}

void cli_opts_markdown(FILE *f)
{
	fputs("| Option | Commands | Accepts | Default | What it does |\n"
	      "| --- | --- | --- | --- | --- |\n", f);
	for (size_t i = 0; i < cli_noptions; i++) {
		const struct cli_opt *row = &cli_options[i];
		bool first = true;

		fputs("| ", f);
		if (row->shortopt)
			fprintf(f, "`-%c`, ", row->shortopt);
		fprintf(f, "`--%s", row->name);
		for (const char *p = row->arg ? " " : ""; *p; p++)
			fputc(*p, f);
		md_text(f, row->arg ? row->arg : "");
		fputs("` | ", f);
		for (int c = 0; c < CLI_NCMDS; c++)
			if ((row->cmds >> c) & 1) {
				fprintf(f, "%s%s", first ? "" : ", ",
					cli_cmd_name((enum cli_cmd)c));
				first = false;
			}
		fputs(" | ", f);
		md_per_cmd(f, row, want_md);
		fputc(' ', f);
		md_per_cmd(f, row, default_text);
		fputc(' ', f);
		md_text(f, row->help);
		fputs(" |\n", f);
	}
}
