/*
 * optparse.c - the option engine: getopt_long's arrays made from the
 * table (cli/options.c) for one command, each value checked as its row
 * says and stored where the command binds it, and one message for a bad
 * value that names what the option accepts.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"

#define LONG_BASE 256           /* getopt_long's value of row i: i + this */

static const char *const cmd_names[CLI_NCMDS] = {
	[CLI_RUN] = "run", [CLI_SWEEP] = "sweep", [CLI_COMPARE] = "compare",
	[CLI_IO] = "io", [CLI_INFO] = "info", [CLI_GEN] = "gen",
	[CLI_CKPT] = "ckpt",
};

const char *cli_cmd_name(enum cli_cmd cmd)
{
	return cmd_names[cmd];
}

const struct cli_opt *cli_opt_find(const char *name)
{
	for (size_t i = 0; i < cli_noptions; i++)
		if (!strcmp(cli_options[i].name, name))
			return &cli_options[i];
	return NULL;
}

bool cli_value_find(const struct cli_opt *row, enum cli_cmd cmd,
		    const char *name, int *v)
{
	for (const struct cli_value *x = row->values; x && x->name; x++)
		if ((x->cmds & (1u << cmd)) && !strcmp(x->name, name)) {
			*v = x->v;
			return true;
		}
	return false;
}

static bool in_range(const struct cli_opt *row, double v)
{
	if (row->gt ? !(v > row->lo) : !(v >= row->lo))
		return false;
	return !(row->hi > 0) || v <= row->hi;
}

/* An unsigned whole number of SIZE bytes into DST. */
static int store_uint(void *dst, size_t size, uint64_t v)
{
	if (size == sizeof(uint64_t)) {
		*(uint64_t *)dst = v;
		return 0;
	}
	assert(size == sizeof(uint32_t));
	if (v > UINT32_MAX)
		return -ERANGE;
	*(uint32_t *)dst = (uint32_t)v;
	return 0;
}

/* A duration; 0 spelled with any unit where the row allows it. */
static int parse_time(const struct cli_opt *row, const char *s, double *v)
{
	if (!cli_parse_duration(s, v))
		return in_range(row, *v) ? 0 : -ERANGE;
	if (row->gt || row->lo > 0 || cli_parse_warmup(s, v))
		return -EINVAL;
	*v = 0;                 /* cli_parse_warmup's zero */
	return 0;
}

static int parse_real(const struct cli_opt *row, const char *s, double *v)
{
	char *end;

	/* a plain decimal (exponent allowed): no sign, hex, inf or nan */
	if (!s || !isdigit((unsigned char)*s) || strpbrk(s, "xX"))
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v))
		return -EINVAL;
	return in_range(row, *v) ? 0 : -ERANGE;
}

/* ARG for ROW in CMD into B's field. 0, -EINVAL or -ERANGE. */
static int opt_take(const struct cli_opt *row, enum cli_cmd cmd,
		    const char *arg, const struct cli_bind *b)
{
	uint64_t u;
	double d;
	int v, err;

	switch (row->type) {
	case CLI_FLAG:
		*(bool *)b->dst = true;
		return 0;
	case CLI_TEXT:
		if (!*arg)
			return -EINVAL;
		*(const char **)b->dst = arg;
		return 0;
	case CLI_UINT:
		if (cli_parse_u64(arg, &u))
			return -EINVAL;
		if (!in_range(row, (double)u))
			return -ERANGE;
		return store_uint(b->dst, b->size, u);
	case CLI_SIZE:
		if ((err = cli_parse_size(arg, &u)))
			return err;
		if (!in_range(row, (double)u) || (row->step && u % row->step))
			return -ERANGE;
		return store_uint(b->dst, b->size, u);
	case CLI_TIME:
	case CLI_REAL:
	case CLI_COUNT:
		err = row->type == CLI_TIME ? parse_time(row, arg, &d) :
		      row->type == CLI_REAL ? parse_real(row, arg, &d) :
		      cli_parse_params(arg, &d);
		if (!err && !in_range(row, d))
			err = -ERANGE;
		if (!err)
			*(double *)b->dst = d;
		return err;
	case CLI_ENUM:
		if (!cli_value_find(row, cmd, arg, &v))
			return -EINVAL;
		*(int *)b->dst = v;
		return 0;
	case CLI_CUSTOM:
		return row->parse(row, cmd, (row->lists >> cmd) & 1, arg,
				  b->dst);
	}
	return -EINVAL;
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
		const struct cli_opt *r = &cli_options[i];

		if (!(r->cmds & (1u << cmd)))
			continue;
		lo[n].name = r->name;
		lo[n].has_arg = r->type == CLI_FLAG ? no_argument :
				required_argument;
		lo[n].flag = NULL;
		lo[n++].val = (int)i + LONG_BASE;
		if (r->shortopt) {
			shorts[k++] = r->shortopt;
			if (r->type != CLI_FLAG)
				shorts[k++] = ':';
		}
	}
	memset(&lo[n], 0, sizeof(lo[n]));
	shorts[k] = '\0';
}

/* The row of getopt_long's answer C for CMD; NULL for none. */
static const struct cli_opt *row_of(int c, enum cli_cmd cmd)
{
	if (c >= LONG_BASE)
		return &cli_options[c - LONG_BASE];
	for (size_t i = 0; i < cli_noptions; i++)
		if (cli_options[i].shortopt == c &&
		    (cli_options[i].cmds & (1u << cmd)))
			return &cli_options[i];
	return NULL;
}

int cli_opts_parse(enum cli_cmd cmd, int argc, char **argv,
		   const struct cli_bind *b, size_t nb,
		   const struct cli_usage *u)
{
	struct option *lo = calloc(cli_noptions + 1, sizeof(*lo));
	const char *name = cli_cmd_name(cmd);
	char shorts[128], want[512];
	int c, ret = 0;

	if (!lo)
		return rpt_fail(name, -ENOMEM, 0, "out of memory");
	opts_build(cmd, lo, shorts);
	optind = 1;
	opterr = 0;
	while (!ret && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct cli_opt *row = row_of(c, cmd);
		const struct cli_bind *bd;

		if (c == ':' || c == '?' || !row) {
			ret = cli_parse_bad(name, c, argv);
			break;
		}
		if (!strcmp(row->name, "help")) {
			u->head(stdout);
			cli_opts_help(stdout, cmd);
			if (u->tail)
				u->tail(stdout);
			ret = -1;
			break;
		}
		bd = bind_find(b, nb, row->name);
		assert(bd && "an option of the command without a binding");
		if (opt_take(row, cmd, row->type == CLI_FLAG ? "" : optarg,
			     bd))
			ret = cli_usage_error(name, "--%s wants %s, not '%s'",
					      row->name, cli_opt_want(row, cmd,
					      want, sizeof(want)), optarg);
		else if (bd->given)
			*bd->given = true;
	}
	free(lo);
	return ret;
}

int cli_parse_bad(const char *cmd, int c, char **argv)
{
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value",
				       argv[optind - 1]);
	return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}
