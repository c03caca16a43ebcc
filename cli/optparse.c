/*
 * optparse.c - getopt_long's arrays made from the option table for one
 * command; each value checked and stored by the key engine where the
 * command binds it, or refused in its words (what the option accepts).
 */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "rpt_keys.h"
#include "rpt_usage.h"

#define LONG_BASE 256           /* getopt_long's value of row i: i + this */

static const char *const cmd_names[CLI_NCMDS] = {
	[CLI_RUN] = "run", [CLI_SWEEP] = "sweep", [CLI_COMPARE] = "compare",
	[CLI_IO] = "io", [CLI_INFO] = "info", [CLI_GEN] = "gen",
	[CLI_CKPT] = "ckpt",
};

static const char *const group_titles[G_COUNT] = {
	[G_WORKLOAD] = "Workload and GPUs", [G_MEASURE] = "What to measure",
	[G_ENGINE] = "Engine and I/O", [G_DATASET] = "Dataset",
	[G_PIPELINE] = "Pipeline (whose CPU cost the verdict speaks of)",
	[G_REPORT] = "Reports and cost",
	[G_MPI] = "Under mpirun (a build with `make MPI=1`)",
	[G_OTHER] = "Other",
};

/* The option table as reports/rpt_keys.c writes it. */
#define TABLE (&(const struct rpt_keys){ cli_options, cli_noptions, \
		cmd_names, CLI_NCMDS, group_titles, G_COUNT })

const char *cli_cmd_name(enum cli_cmd cmd)
{
	return cmd_names[cmd];
}

void cli_opts_help(FILE *f, enum cli_cmd cmd)
{
	rpt_keys_help(f, TABLE, cmd);
}

void cli_opts_markdown(FILE *f)
{
	rpt_keys_markdown(f, TABLE);
}

static const struct cli_bind *bind_find(const struct cli_bind *b, size_t nb,
					const char *name)
{
	for (size_t i = 0; i < nb; i++)
		if (!strcmp(b[i].name, name))
			return &b[i];
	return NULL;
}

/* getopt_long's arrays for CMD: LO (cli_noptions + 1 entries) and the
 * short options into SHORTS (at least 2 x 26 x 2 + 2 bytes). */
static void opts_build(enum cli_cmd cmd, struct option *lo, char *shorts)
{
	size_t n = 0, k = 0;

	shorts[k++] = ':';
	for (size_t i = 0; i < cli_noptions; i++) {
		const struct wl_key *r = &cli_options[i];

		if (!(r->uses & (1u << cmd)))
			continue;
		lo[n].name = r->name;
		lo[n].has_arg = r->type == WL_K_FLAG ? no_argument :
				required_argument;
		lo[n].flag = NULL;
		lo[n++].val = (int)i + LONG_BASE;
		if (r->shortopt) {
			shorts[k++] = r->shortopt;
			if (r->type != WL_K_FLAG)
				shorts[k++] = ':';
		}
	}
	memset(&lo[n], 0, sizeof(lo[n]));
	shorts[k] = '\0';
}

/* The row of getopt_long's answer C for CMD; NULL for none. */
static const struct wl_key *row_of(int c, enum cli_cmd cmd)
{
	if (c >= LONG_BASE)
		return &cli_options[c - LONG_BASE];
	for (size_t i = 0; i < cli_noptions; i++)
		if (cli_options[i].shortopt == c &&
		    (cli_options[i].uses & (1u << cmd)))
			return &cli_options[i];
	return NULL;
}

/* One option ROW of CMD with its value: stored through B's binding, or
 * refused (FR_EXIT_USAGE); -1 after --help. */
static int opt_one(enum cli_cmd cmd, const struct wl_key *row,
		   const struct cli_bind *b, size_t nb,
		   const struct cli_usage *u)
{
	const struct cli_bind *bd = bind_find(b, nb, row->name);
	char why[640];

	if (!strcmp(row->name, "help")) {
		if (u)
			u->head(stdout);
		else
			rpt_usage_head(stdout, cli_cmd_name(cmd));
		cli_opts_help(stdout, cmd);
		if (u && u->tail)
			u->tail(stdout);
		else if (!u)
			rpt_usage_tail(stdout, cli_cmd_name(cmd));
		return -1;
	}
	assert(bd && "an option of the command without a binding");
	if (wl_key_take(row, cmd, row->type == WL_K_FLAG ? "" : optarg,
			bd->dst, bd->size))
		return cli_usage_error(cli_cmd_name(cmd), "--%s %s", row->name,
				       wl_key_refusal(row, cmd, optarg, why,
						      sizeof(why)));
	if (bd->given)
		*bd->given = true;
	return 0;
}

/* An unknown option, or one without its value. */
static int cli_parse_bad(const char *cmd, int c, char **argv)
{
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value",
				       argv[optind - 1]);
	return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

int cli_opts_parse(enum cli_cmd cmd, int argc, char **argv,
		   const struct cli_bind *b, size_t nb,
		   const struct cli_usage *u)
{
	struct option *lo = calloc(cli_noptions + 1, sizeof(*lo));
	const char *name = cli_cmd_name(cmd);
	char shorts[128];
	int c, ret = 0;

	if (!lo)
		return rpt_fail(name, -ENOMEM, 0, "out of memory");
	opts_build(cmd, lo, shorts);
	optind = 1;
	opterr = 0;
	while (!ret && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct wl_key *row = row_of(c, cmd);

		if (c == ':' || c == '?' || !row)
			ret = cli_parse_bad(name, c, argv);
		else
			ret = opt_one(cmd, row, b, nb, u);
	}
	free(lo);
	return ret;
}

int cli_opts_read(enum cli_cmd cmd, int argc, char **argv,
		  const struct cli_bind *b, size_t nb)
{
	for (size_t i = 0; i < nb; i++) {
		const struct wl_key *row = wl_key_find(cli_options,
						       cli_noptions, b[i].name);

		if (row && (row->uses >> cmd) & 1)
			wl_key_default_store(row, cmd, b[i].dst, b[i].size);
	}
	return cli_opts_parse(cmd, argc, argv, b, nb, NULL);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "feedrate %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'feedrate %s --help'.\n", cmd);
	return FR_EXIT_USAGE;
}
