/*
 * cmd_compare.c - `feedrate compare A.json B.json ...`: candidate VMs side
 * by side from their sweep reports, as a text table and (--html) a page.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "measure.h"
#include "report.h"
#include "report_ckpt.h"
#include "rpt_load.h"
#include "report_sweep.h"

static void compare_head(FILE *f)
{
	fprintf(f,
"Usage: feedrate compare [options] REPORT.json REPORT.json ...\n"
"\n"
"Put candidate VMs side by side from the JSON reports of 'feedrate sweep'\n"
"(--json FILE) run on each: machine, storage, samples/s and GPUs fed per\n"
"cache state, vCPUs per GPU, what limits each. GPUs fed are drawn again\n"
"from each report's numbers by this feedrate's verdict; where a report\n"
"says otherwise, a note says so. Reports of another schema version than\n"
"this feedrate's (%d) are refused. With --price, a 'feedrate ckpt' JSON\n"
"report in the same folder as a sweep report adds its checkpoint save and\n"
"restore times.\n"
"\n", RPT_SWEEP_SCHEMA_VERSION);
}

static void compare_tail(FILE *f)
{
	fprintf(f,
"Exit status: 0 ok, 2 usage error or a report of the wrong kind or\n"
"version, 5 a report that cannot be read or parsed, or an unwritable FILE.\n");
}

/*
 * Read the sweep report FILE into *C. Returns 0, or an exit code after
 * printing why: 5 when it cannot be read, 2 when it is not a sweep
 * report of this version (JSON or not).
 */
static int compare_load(const char *file, struct rpt_candidate *c,
			double *files)
{
	json_t *root;
	char why[768];
	int err;

	err = rpt_report_load(file, 0, &root, why, sizeof(why));
	if (err) {
		fprintf(stderr, "feedrate compare: cannot read ");
		cli_print_path(stderr, file);
		fprintf(stderr, ": %s\n", why);
		return err == -EINVAL ? FR_EXIT_USAGE : FR_EXIT_ENV;
	}
	err = rpt_candidate_from_json(root, file, c, why, sizeof(why));
	{
		const json_t *v = json_object_get(json_object_get(root,
			"dataset"), "files");

		*files = json_is_number(v) ? json_number_value(v) : -1;
	}
	json_decref(root);
	if (err == -ENOMEM)
		return cli_fail("compare", err, 0, "out of memory");
	if (err) {
		fprintf(stderr, "feedrate compare: %s\n", why);
		return FR_EXIT_USAGE;
	}
	return 0;
}

struct compare_opts {
	const char *html;
	struct cli_prices prices;
	int cache;                      /* -1: each report's slowest */
	double epoch_samples;           /* <= 0: each report's files */
};

static int compare_parse(int argc, char **argv, struct compare_opts *o)
{
	static const struct cli_usage usage = { compare_head, compare_tail };
	const struct cli_bind b[] = {
		CLI_BIND("html", o->html),
		CLI_BIND("price", o->prices),
		CLI_BIND("cost-cache", o->cache),
		CLI_BIND("epoch-samples", o->epoch_samples),
	};
	int ret;

	memset(o, 0, sizeof(*o));
	o->cache = -1;
	ret = cli_opts_parse(CLI_COMPARE, argc, argv, b,
			     sizeof(b) / sizeof(b[0]), &usage);
	if (ret)
		return ret;
	if (optind >= argc)
		return cli_usage_error("compare", "give one or more sweep "
				       "reports (feedrate sweep --json FILE)");
	return 0;
}

/* Does --price's NAME (up to its '=') name candidate C? */
static bool price_names(const char *spec, const struct rpt_candidate *c)
{
	const size_t n = (size_t)(strrchr(spec, '=') - spec);
	const char *base = strrchr(c->file, '/');
	size_t blen;

	base = base ? base + 1 : c->file;
	blen = strlen(base);
	if ((strlen(c->label) == n && !strncmp(c->label, spec, n)) ||
	    (strlen(c->file) == n && !strncmp(c->file, spec, n)) ||
	    (blen == n && !strncmp(base, spec, n)))
		return true;
	return blen > 5 && !strcmp(base + blen - 5, ".json") &&
	       blen - 5 == n && !strncmp(base, spec, n);
}

/*
 * The cost of each of the N candidates C (report files FILES, dataset
 * files DS_FILES) into COSTS. Returns 0 or FR_EXIT_USAGE when a --price
 * names no candidate.
 */
static int compare_costs(const struct compare_opts *o,
			 const struct rpt_candidate *c, char **files,
			 const double *ds_files, size_t n,
			 struct rpt_cost *costs)
{
	for (unsigned p = 0; p < o->prices.n; p++) {
		bool any = false;

		for (size_t i = 0; i < n; i++)
			any |= price_names(o->prices.name[p], &c[i]);
		if (!any) {
			char names[512] = "";

			for (size_t i = 0; i < n; i++)
				cli_note_add(names, sizeof(names), "%s",
					     c[i].label);
			return cli_usage_error("compare", "--price %s names no "
				"candidate (candidates: %s)",
				o->prices.name[p], names);
		}
	}
	for (size_t i = 0; i < n; i++) {
		double usd = -1;

		for (unsigned p = 0; p < o->prices.n; p++)
			if (price_names(o->prices.name[p], &c[i]))
				usd = o->prices.usd[p];
		rpt_cost_fill(&c[i], usd, o->cache, o->epoch_samples > 0 ?
			      o->epoch_samples : ds_files[i], &costs[i]);
		rpt_cost_find_ckpt((const char *const *)files, n, i,
				   c[i].label, &costs[i]);
	}
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o;
	struct rpt_candidate *cand;
	struct rpt_cost *costs = NULL;
	double *ds_files;
	bool with_cost = false;
	size_t n = 0;
	int ret = compare_parse(argc, argv, &o);

	if (ret)
		return ret < 0 ? FR_EXIT_OK : ret;
	/* the page must not land on a device, a folder or a report read */
	for (int i = optind; i < argc && o.html && !ret; i++)
		ret = cli_check_reports("compare", &o.html, 1, NULL, argv[i]);
	if (ret)
		return ret;
	cand = calloc((size_t)(argc - optind), sizeof(*cand));
	ds_files = calloc((size_t)(argc - optind), sizeof(*ds_files));
	costs = calloc((size_t)(argc - optind), sizeof(*costs));
	if (!cand || !ds_files || !costs) {
		free(cand);
		free(ds_files);
		free(costs);
		return cli_fail("compare", -ENOMEM, 0, "out of memory");
	}
	for (int i = optind; i < argc && !ret; i++)
		if (!(ret = compare_load(argv[i], &cand[n], &ds_files[n])))
			n++;
	if (!ret)
		ret = compare_costs(&o, cand, argv + optind, ds_files, n,
				    costs);
	for (size_t i = 0; i < n; i++)
		with_cost |= costs[i].priced || costs[i].have_ckpt;
	if (!ret) {
		rpt_compare_print(stdout, cand, n);
		if (with_cost)
			rpt_cost_print(stdout, cand, costs, n);
		fflush(stdout);
		if (o.html)
			ret = cli_write_report("compare", o.html, NULL,
					       rpt_compare_page(cand, with_cost ?
								costs : NULL,
								n), "HTML");
	}
	for (size_t i = 0; i < n; i++)
		rpt_candidate_free(&cand[i]);
	free(cand);
	free(ds_files);
	free(costs);
	return ret;
}
