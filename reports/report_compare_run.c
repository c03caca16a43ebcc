/*
 * report_compare_run.c - `compare`'s reports read and put side by side:
 * each sweep report loaded (and judged again by rpt_candidate_from_json),
 * --price matched to its candidate, the costs filled, the table on
 * stdout and the page written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report.h"
#include "report_ckpt.h"
#include "report_sweep.h"
#include "rpt_cmd.h"
#include "rpt_load.h"
#include "rpt_text.h"

/*
 * Read the sweep report FILE into *C, and its dataset's file count into
 * *FILES (-1 unknown). Returns 0, or an exit code after printing why: 5
 * when it cannot be read, 2 when it is not a sweep report of this
 * version (JSON or not).
 */
static int compare_load(const char *file, struct rpt_candidate *c,
			double *files)
{
	json_t *root;
	const json_t *v;
	char why[768];
	int err;

	err = rpt_report_load(file, 0, &root, why, sizeof(why));
	if (err) {
		fprintf(stderr, "feedrate compare: cannot read ");
		rpt_put_path(stderr, file);
		fprintf(stderr, ": %s\n", why);
		return err == -EINVAL ? FR_EXIT_USAGE : FR_EXIT_ENV;
	}
	err = rpt_candidate_from_json(root, file, c, why, sizeof(why));
	v = json_object_get(json_object_get(root, "dataset"), "files");
	*files = json_is_number(v) ? json_number_value(v) : -1;
	json_decref(root);
	if (err == -ENOMEM)
		return rpt_fail("compare", err, 0, "out of memory");
	if (err) {
		fprintf(stderr, "feedrate compare: %s\n", why);
		return FR_EXIT_USAGE;
	}
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
static int compare_costs(const struct rpt_compare_opts *o,
			 const struct rpt_candidate *c,
			 const char *const *files, const double *ds_files,
			 size_t n, struct rpt_cost *costs)
{
	for (unsigned p = 0; p < o->nprices; p++) {
		char names[512] = "", why[1024];
		bool any = false;

		for (size_t i = 0; i < n; i++)
			any |= price_names(o->price_name[p], &c[i]);
		if (any)
			continue;
		for (size_t i = 0; i < n; i++)
			rpt_note_add(names, sizeof(names), "%s", c[i].label);
		snprintf(why, sizeof(why), "--price %s names no candidate "
			 "(candidates: %s)", o->price_name[p], names);
		return rpt_usage("compare", why);
	}
	for (size_t i = 0; i < n; i++) {
		double usd = -1;

		for (unsigned p = 0; p < o->nprices; p++)
			if (price_names(o->price_name[p], &c[i]))
				usd = o->price_usd[p];
		rpt_cost_fill(&c[i], usd, o->cache, o->epoch_samples > 0 ?
			      o->epoch_samples : ds_files[i], &costs[i]);
		rpt_cost_find_ckpt(files, n, i, c[i].label, &costs[i]);
	}
	return 0;
}

/* The candidates side by side: the table (and costs) on stdout, the
 * page to O->html. */
static int compare_out(const struct rpt_compare_opts *o,
		       const struct rpt_candidate *c,
		       const struct rpt_cost *costs, size_t n)
{
	bool with_cost = false;

	for (size_t i = 0; i < n; i++)
		with_cost |= costs[i].priced || costs[i].have_ckpt;
	rpt_compare_print(stdout, c, n);
	if (with_cost)
		rpt_cost_print(stdout, c, costs, n);
	fflush(stdout);
	if (!o->html)
		return 0;
	return rpt_write_report("compare", o->html, NULL, rpt_compare_page(c,
				with_cost ? costs : NULL, n), "HTML");
}

int rpt_compare_run(const struct rpt_compare_opts *o,
		    const char *const *files, size_t nfiles)
{
	struct rpt_candidate *cand = calloc(nfiles, sizeof(*cand));
	double *ds_files = calloc(nfiles, sizeof(*ds_files));
	struct rpt_cost *costs = calloc(nfiles, sizeof(*costs));
	size_t n = 0;
	int ret = 0;

	if (!cand || !ds_files || !costs)
		ret = rpt_fail("compare", -ENOMEM, 0, "out of memory");
	for (size_t i = 0; i < nfiles && !ret; i++)
		if (!(ret = compare_load(files[i], &cand[n], &ds_files[n])))
			n++;
	if (!ret)
		ret = compare_costs(o, cand, files, ds_files, n, costs);
	if (!ret)
		ret = compare_out(o, cand, costs, n);
	for (size_t i = 0; i < n; i++)
		rpt_candidate_free(&cand[i]);
	free(cand);
	free(ds_files);
	free(costs);
	return ret;
}
