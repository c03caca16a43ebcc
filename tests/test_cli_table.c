/*
 * test_cli_table.c - the option table (cli/options.c) and what is made
 * from it: for each command, every option it takes parses a valid value,
 * refuses a bad one with exit 2 and a message naming what it accepts, and
 * appears in --help; the table's own rules (sorted, one short option per
 * command, defaults within range); the README's option list matches it.
 * The per-command cases run the real binary ($FEEDRATE_BIN).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aug_testlib.h"
#include "cli.h"
#include "harness.h"
#include "options.h"

/* The option row named N. */
#define OPT(n) wl_key_find(cli_options, cli_noptions, (n))

static char *slurp(const char *path)
{
	size_t len;
	char *s = (char *)tl_read_file(path, &len);

	cr_assert_not_null(s, "%s unreadable", path);
	s[len] = '\0';
	return s;
}

static char *out_of(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return slurp(path);
}

/* `feedrate CMD --OPT [VALUE] --help`: its exit code. */
static int run_opt(const char *dir, enum cli_cmd cmd,
		   const struct wl_key *row, const char *value)
{
	char opt[96];
	char *argv[6];
	int a = 0;

	snprintf(opt, sizeof(opt), "--%s", row->name);
	argv[a++] = (char *)fr_test_bin();
	argv[a++] = (char *)cli_cmd_name(cmd);
	argv[a++] = opt;
	if (value)
		argv[a++] = (char *)value;
	argv[a++] = "--help";
	argv[a] = NULL;
	return fr_test_run(dir, argv, 60);
}

/* Values a custom row takes in CMD, and one it refuses. */
static const char *custom_ok(const struct wl_key *row, enum cli_cmd cmd)
{
	const bool list = (row->lists >> cmd) & 1;
	static const struct { const char *name, *one, *list; } t[] = {
		{ "cache", "warm", "cold,warm" },
		{ "ckpt-budget", "5%", NULL },
		{ "pipeline", "native", "native,torch" },
		{ "price", "1.5", NULL },
		{ "ram", "16M", "25%,16M" },
		{ "vcpus", "1", "1,2" },
		{ "warmup", "0", NULL },
	};

	if (!strcmp(row->name, "price") && cmd == CLI_COMPARE)
		return "vm1=1.5";
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(t[i].name, row->name))
			return list ? t[i].list : t[i].one;
	cr_assert_fail("no test value for the custom row --%s", row->name);
	return NULL;
}

/* A value ROW takes in CMD (NULL: a flag). */
static const char *ok_value(const struct wl_key *row, enum cli_cmd cmd,
			    char *buf, size_t len)
{
	switch (row->type) {
	case WL_K_FLAG:
		return NULL;
	case WL_K_TEXT:
		return "x";
	case WL_K_UINT:
	case WL_K_SIZE:
		snprintf(buf, len, "%.0f", row->step ? (double)row->step :
			 row->lo > 0 ? row->lo : 1);
		return buf;
	case WL_K_TIME:
		return "1s";
	case WL_K_REAL:
		snprintf(buf, len, "%g", row->hi > 0 ? row->hi : row->lo + 1);
		return buf;
	case WL_K_COUNT:
		return "7B";
	case WL_K_ENUM:
		for (const struct wl_key_value *v = row->values; v->name; v++)
			if ((v->uses >> cmd) & 1)
				return v->name;
		return NULL;
	case WL_K_CUSTOM:
		return custom_ok(row, cmd);
	default:        /* job-file types: no option has them */
		cr_assert_fail("--%s: a type no option has", row->name);
	}
	return NULL;
}

/* A value ROW refuses in CMD: out of its range where it has one. */
static const char *bad_value(const struct wl_key *row, char *buf,
			     size_t len)
{
	switch (row->type) {
	case WL_K_TEXT:
		return "";
	case WL_K_UINT:
	case WL_K_SIZE:
	case WL_K_REAL:
		if (row->hi > 0) {
			snprintf(buf, len, "%.0f", row->hi + (row->step ?
				 row->step : 1));
			return buf;
		}
		if (row->lo > 0)
			return "0";
		return "-1";
	case WL_K_TIME:
		if (row->hi > 0) {
			snprintf(buf, len, "%.0fs", row->hi + 1);
			return buf;
		}
		return "-1s";
	case WL_K_COUNT:
		return "0";
	default:
		return "bogus";
	}
}

/* Every option of CMD: valid, refused, in --help. */
static void check_command(enum cli_cmd cmd)
{
	char *dir = fr_test_tmpdir(), *help, buf[64];
	char *argv[] = { (char *)fr_test_bin(), (char *)cli_cmd_name(cmd),
			 "--help", NULL };

	cr_assert_eq(fr_test_run(dir, argv, 60), 0);
	help = out_of(dir, "stdout");
	for (size_t i = 0; i < cli_noptions; i++) {
		const struct wl_key *row = &cli_options[i];
		char opt[96], *err;
		const char *bad;
		int rc;

		if (!((row->uses >> cmd) & 1))
			continue;
		snprintf(opt, sizeof(opt), "--%s", row->name);
		cr_expect_not_null(strstr(help, opt), "%s --help lacks %s",
				   cli_cmd_name(cmd), opt);
		rc = run_opt(dir, cmd, row, ok_value(row, cmd, buf,
						     sizeof(buf)));
		cr_expect_eq(rc, 0, "%s %s %s: exit %d", cli_cmd_name(cmd),
			     opt, ok_value(row, cmd, buf, sizeof(buf)), rc);
		if (row->type == WL_K_FLAG)
			continue;
		bad = bad_value(row, buf, sizeof(buf));
		rc = run_opt(dir, cmd, row, bad);
		cr_expect_eq(rc, 2, "%s %s '%s': exit %d", cli_cmd_name(cmd),
			     opt, bad, rc);
		err = out_of(dir, "stderr");
		cr_expect_not_null(strstr(err, opt), "%s", err);
		for (const struct wl_key_value *v = row->values; v && v->name; v++)
			if ((v->uses >> cmd) & 1) {
				cr_expect_not_null(strstr(err, v->name),
					"%s %s: the error lacks %s: %s",
					cli_cmd_name(cmd), opt, v->name, err);
				cr_expect_not_null(strstr(help, v->name),
					"%s --help lacks %s", opt, v->name);
			}
		free(err);
	}
	free(help);
	fr_test_rmtree(dir);
}

FR_TEST(cli_table, run_takes_checks_and_lists_each_option)
{
	check_command(CLI_RUN);
}

FR_TEST(cli_table, sweep_takes_checks_and_lists_each_option)
{
	check_command(CLI_SWEEP);
}

FR_TEST(cli_table, io_takes_checks_and_lists_each_option)
{
	check_command(CLI_IO);
}

FR_TEST(cli_table, ckpt_takes_checks_and_lists_each_option)
{
	check_command(CLI_CKPT);
}

FR_TEST(cli_table, gen_takes_checks_and_lists_each_option)
{
	check_command(CLI_GEN);
}

FR_TEST(cli_table, compare_takes_checks_and_lists_each_option)
{
	check_command(CLI_COMPARE);
}

FR_TEST(cli_table, info_takes_checks_and_lists_each_option)
{
	check_command(CLI_INFO);
}

FR_TEST(cli_table, rows_are_sorted_and_short_options_unique_per_command)
{
	for (size_t i = 1; i < cli_noptions; i++)
		cr_expect_lt(strcmp(cli_options[i - 1].name,
				    cli_options[i].name), 0, "%s before %s",
			     cli_options[i - 1].name, cli_options[i].name);
	for (int c = 0; c < CLI_NCMDS; c++)
		for (size_t i = 0; i < cli_noptions; i++)
			for (size_t j = i + 1; j < cli_noptions; j++) {
				const struct wl_key *a = &cli_options[i];
				const struct wl_key *b = &cli_options[j];

				cr_expect(!a->shortopt ||
					  a->shortopt != b->shortopt ||
					  !((a->uses & b->uses) >> c & 1),
					  "-%c twice in %s", a->shortopt,
					  cli_cmd_name((enum cli_cmd)c));
			}
}

FR_TEST(cli_table, numeric_defaults_lie_in_their_range)
{
	for (size_t i = 0; i < cli_noptions; i++) {
		const struct wl_key *r = &cli_options[i];

		if (r->type != WL_K_UINT && r->type != WL_K_SIZE &&
		    r->type != WL_K_TIME && r->type != WL_K_REAL)
			continue;
		for (size_t k = 0; k < 3 && r->defs[k].uses; k++) {
			const double d = r->defs[k].def;

			if (r->defs[k].text && !strstr(r->defs[k].text, "%s"))
				continue;
			cr_expect(r->gt ? d > r->lo : d >= r->lo, "--%s %g",
				  r->name, d);
			cr_expect(!(r->hi > 0) || d <= r->hi, "--%s %g",
				  r->name, d);
		}
	}
}

FR_TEST(cli_table, a_bad_enum_value_names_every_accepted_one)
{
	const struct wl_key *row = OPT("format");
	char want[256];

	cr_assert_not_null(row);
	wl_key_want(row, CLI_RUN, want, sizeof(want));
	cr_expect_not_null(strstr(want, "tokens"), "%s", want);
	wl_key_want(row, CLI_GEN, want, sizeof(want));
	cr_expect_null(strstr(want, "tokens"), "%s", want);
	cr_expect_null(strstr(want, "auto"), "%s", want);
	row = OPT("backend");
	wl_key_want(row, CLI_IO, want, sizeof(want));
	cr_expect_not_null(strstr(want, "null"), "%s", want);
	wl_key_want(row, CLI_RUN, want, sizeof(want));
	cr_expect_null(strstr(want, "null"), "%s", want);
}

FR_TEST(cli_table, the_readme_lists_the_options_of_the_table)
{
	char *readme = slurp("README.md"), *md = NULL, *begin, *end;
	size_t len = 0;
	FILE *f = open_memstream(&md, &len);

	cr_assert_not_null(f);
	cli_opts_markdown(f);
	fclose(f);
	begin = strstr(readme, "<!-- options:begin -->\n");
	end = strstr(readme, "<!-- options:end -->");
	cr_assert(begin && end && end > begin, "README.md has no option list");
	begin += strlen("<!-- options:begin -->\n");
	cr_expect_eq((size_t)(end - begin), len, "README's list differs from "
		     "the table: run make readme-options");
	cr_expect_eq(strncmp(begin, md, len), 0, "README's list differs "
		     "from the table: run make readme-options");
	free(md);
	free(readme);
}

/* A row's plain default is stored as help prints it; a default in words
 * stores nothing; an ENUM's default naming a value stores that value. */
FR_TEST(cli_table, each_rows_default_is_stored_as_help_prints_it)
{
	for (size_t i = 0; i < cli_noptions; i++) {
		const struct wl_key *r = &cli_options[i];

		for (unsigned c = 0; c < CLI_NCMDS; c++) {
			union { uint64_t u; double d; int e; } v;
			const struct wl_key_default *d = NULL;
			char text[128];
			bool stored;

			if (!((r->uses >> c) & 1) || ((r->lists >> c) & 1))
				continue;
			for (size_t k = 0; k < 3 && r->defs[k].uses && !d; k++)
				if ((r->defs[k].uses >> c) & 1)
					d = &r->defs[k];
			memset(&v, 0xa5, sizeof(v));
			stored = wl_key_default_store(r, c, &v,
						      sizeof(uint64_t));
			if (!d || !wl_key_default_text(r, c, text,
						       sizeof(text))) {
				cr_expect(!stored, "--%s", r->name);
				continue;
			}
			if (r->type == WL_K_ENUM) {
				int want;

				cr_expect_eq(stored, wl_key_value_find(r, c,
					     text, &want), "--%s", r->name);
				if (stored)
					cr_expect_eq(v.e, want, "--%s",
						     r->name);
			} else if (d->text || r->type == WL_K_TEXT ||
				   r->type == WL_K_CUSTOM) {
				cr_expect(!stored, "--%s %s", r->name, text);
			} else if (r->type == WL_K_UINT ||
				   r->type == WL_K_SIZE) {
				cr_expect(stored, "--%s", r->name);
				cr_expect_eq(v.u, (uint64_t)d->def, "--%s",
					     r->name);
			} else {
				cr_expect(stored, "--%s", r->name);
				cr_expect_eq(v.d, d->def, "--%s", r->name);
			}
		}
	}
	/* the numbers the commands relied on */
	{
		uint64_t u = 0;
		double d = 0;
		int e = -1;

		cr_expect(wl_key_default_store(OPT("depth"), CLI_IO, &u, 8));
		cr_expect_eq(u, STG_DEFAULT_DEPTH);
		cr_expect(wl_key_default_store(OPT("depth"), CLI_CKPT, &u, 8));
		cr_expect_eq(u, STG_SEQ_DEPTH_DEFAULT);
		cr_expect(wl_key_default_store(OPT("steal-interval"), CLI_INFO,
					       &d, sizeof(d)));
		cr_expect_eq(d, CLI_STEAL_INTERVAL_S);
		cr_expect(wl_key_default_store(OPT("gpu-sync"), CLI_RUN, &e,
					       sizeof(e)));
		cr_expect_eq(e, LDR_GPU_SYNC_ALL);
		cr_expect(!wl_key_default_store(OPT("batch"), CLI_RUN, &u, 8),
			  "the workload's batch is not stored");
		cr_expect(!wl_key_default_store(OPT("gpus"), CLI_CKPT, &u, 8),
			  "text is never a number");
	}
}

/* cli_opts_read: the rows' defaults first, then what argv gives. */
FR_TEST(cli_table, a_command_reads_its_defaults_from_the_rows)
{
	unsigned depth = 0, threads = 0;
	uint32_t block = 0;
	uint64_t max = 0;
	double duration = -5;
	int backend = -1;
	const struct cli_bind b[] = {
		CLI_BIND("depth", depth), CLI_BIND("threads", threads),
		CLI_BIND("block-size", block),
		CLI_BIND("max-sample-bytes", max),
		CLI_BIND("duration", duration), CLI_BIND("backend", backend),
	};
	char *none[] = { "io", "DIR", NULL };
	char *given[] = { "io", "--depth", "8", "DIR", NULL };

	cr_assert_eq(cli_opts_read(CLI_IO, 2, none, b, 6), 0);
	cr_expect_eq(depth, STG_DEFAULT_DEPTH);
	cr_expect_eq(threads, 1);
	cr_expect_eq(block, STG_DEFAULT_BLOCK_SIZE);
	cr_expect_eq(max, CLI_IO_MAX_SAMPLE_BYTES);
	cr_expect_eq(backend, STG_BACKEND_AUTO);
	cr_expect_eq(duration, -5, "a default in words stores nothing");
	cr_assert_eq(cli_opts_read(CLI_IO, 4, given, b, 6), 0);
	cr_expect_eq(depth, 8);
	cr_expect_eq(threads, 1);
}

/* run and sweep read their defaults from the rows too: what "not given"
 * used to mean (-1, 0) is now the row's default, and a given flag says
 * whether the option was given. */
FR_TEST(cli_table, run_and_sweep_read_their_defaults_from_the_rows)
{
	double duration = -1, solo = -1, mpi = 0, stall = 0, runner = 0;
	double budget = 0, reserve = -1;
	unsigned shuffle = 0;
	uint32_t read_size = 0;
	bool duration_given = false, solo_given = false;
	const struct cli_bind rb[] = {
		CLI_BIND_G("duration", duration, duration_given),
		CLI_BIND_G("solo", solo, solo_given),
		CLI_BIND("mpi-timeout", mpi), CLI_BIND("stall-timeout", stall),
		CLI_BIND("runner-timeout", runner),
		CLI_BIND("shuffle-buffer", shuffle),
		CLI_BIND("read-size", read_size),
	};
	const struct cli_bind sb[] = {
		CLI_BIND("budget", budget),
		CLI_BIND("reserve-vcpus-per-gpu", reserve),
	};
	char *none[] = { "run", "DIR", NULL };
	char *given[] = { "run", "--solo", "0", "DIR", NULL };
	char *sweep[] = { "sweep", "DIR", NULL };

	cr_assert_eq(cli_opts_read(CLI_RUN, 2, none, rb, 7), 0);
	cr_expect_eq(duration, LDR_DEFAULT_DURATION_S);
	cr_expect_not(duration_given);
	cr_expect_eq(solo, MS_RUN_SOLO_S);
	cr_expect_eq(mpi, MS_CLUSTER_DEFAULT_TIMEOUT_S);
	cr_expect_eq(stall, LDR_DEFAULT_STALL_TIMEOUT_S);
	cr_expect_eq(runner, MS_PYTHON_TIMEOUT_S);
	cr_expect_eq(shuffle, LDR_DEFAULT_SHUFFLE_BUFFER);
	cr_expect_eq(read_size, STG_STREAM_BLOCK_DEFAULT);
	cr_assert_eq(cli_opts_read(CLI_RUN, 4, given, rb, 7), 0);
	cr_expect_eq(solo, 0, "--solo 0 skips the reads alone");
	cr_expect(solo_given);
	cr_expect_not(duration_given);
	cr_assert_eq(cli_opts_read(CLI_SWEEP, 2, sweep, sb, 2), 0);
	cr_expect_eq(budget, CLI_SWEEP_BUDGET_S);
	cr_expect_eq(reserve, RPT_RESERVE_VCPUS_PER_GPU);
}
