/*
 * cmd_compare.c - `feedrate compare A.json B.json ...`: candidate VMs side
 * by side from their sweep reports, as a text table and (--html) a page.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "measure.h"
#include "report.h"
#include "report_ckpt.h"
#include "report_sweep.h"
#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <sys/stat.h>

static void compare_usage(FILE *f)
{
	fprintf(f,
"Usage: feedrate compare [options] REPORT.json REPORT.json ...\n"
"\n"
"Put candidate VMs side by side from the JSON reports of 'feedrate sweep'\n"
"(--json FILE) run on each: machine, storage, samples/s and GPUs fed per\n"
"cache state, vCPUs per GPU, what limits each. GPUs fed are drawn again\n"
"from each report's numbers by this feedrate's verdict; where a report\n"
"says otherwise, a note says so. Reports of another schema version than\n"
"this feedrate's (%d) are refused.\n"
"\n"
"      --html FILE    also write the comparison as one self-contained page\n"
"      --price NAME=USD_PER_HOUR  the hourly price of candidate NAME (its\n"
"                     label: instance type, else the report's file name,\n"
"                     with or without .json), on-demand or spot as you\n"
"                     pay it; repeat per candidate. Adds USD per million\n"
"                     samples and per epoch at the feed a training job\n"
"                     gets, and names the cheapest candidate that feeds\n"
"                     the GPUs its report asked for. A 'feedrate ckpt'\n"
"                     JSON report in the same folder as a sweep report\n"
"                     adds its checkpoint save and restore times\n"
"      --cost-cache STATE  the cache state priced: cold, ram or warm\n"
"                     (default: each report's slowest measured state)\n"
"      --epoch-samples N   samples per epoch (default: each report's\n"
"                     dataset files, one sample per file)\n"
"  -h, --help         this help\n"
"\n"
"Exit status: 0 ok, 2 usage error or a report of the wrong kind or\n"
"version, 5 a report that cannot be read or parsed, or an unwritable FILE.\n",
		RPT_SWEEP_SCHEMA_VERSION);
}

/*
 * Read the sweep report FILE into *C. Returns 0, or an exit code after
 * printing why: 5 when it cannot be read, 2 when it is not a sweep
 * report of this version (JSON or not).
 */
static int compare_load(const char *file, struct rpt_candidate *c,
			double *files)
{
	json_error_t jerr;
	FILE *in = fopen(file, "r");
	json_t *root;
	char why[768];
	int err;

	if (!in) {
		/* the file named, escaped; jansson's text would repeat its
		 * raw bytes */
		err = errno;
		fprintf(stderr, "feedrate compare: cannot read ");
		cli_print_path(stderr, file);
		fprintf(stderr, ": %s\n", strerror(err));
		return FR_EXIT_ENV;
	}
	root = json_loadf(in, 0, &jerr);
	fclose(in);
	if (!root) {
		fprintf(stderr, "feedrate compare: cannot read ");
		cli_print_path(stderr, file);
		fprintf(stderr, ": not a JSON report: ");
		cli_print_path(stderr, jerr.text);
		fprintf(stderr, " (line %d)\n", jerr.line);
		return FR_EXIT_USAGE;
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

#define CMP_PRICES_MAX 64

struct compare_opts {
	const char *html;
	const char *price_name[CMP_PRICES_MAX];
	double price[CMP_PRICES_MAX];
	unsigned nprices;
	int cache;                      /* -1: each report's slowest */
	double epoch_samples;           /* <= 0: each report's files */
};

/* "NAME=USD" into O's prices. 0 or FR_EXIT_USAGE (printed). */
static int compare_price(const char *arg, struct compare_opts *o)
{
	const char *eq = strrchr(arg, '=');
	char *end;
	double v;

	if (!eq || eq == arg || !eq[1])
		return cli_usage_error("compare", "--price wants NAME="
				       "USD_PER_HOUR, not '%s'", arg);
	errno = 0;
	v = strtod(eq + 1, &end);
	if (errno || *end || !(v >= 0) || v > 1e6)
		return cli_usage_error("compare", "--price %s: the price must "
				       "be USD per hour (e.g. 32.77), not '%s'",
				       arg, eq + 1);
	if (o->nprices == CMP_PRICES_MAX)
		return cli_usage_error("compare", "at most %d --price",
				       CMP_PRICES_MAX);
	o->price_name[o->nprices] = arg;
	o->price[o->nprices++] = v;
	return 0;
}

static int compare_parse(int argc, char **argv, struct compare_opts *o)
{
	static const struct option lo[] = {
		{ "html", required_argument, NULL, 'H' },
		{ "price", required_argument, NULL, 'p' },
		{ "cost-cache", required_argument, NULL, 'c' },
		{ "epoch-samples", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum stg_cache_state cs;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->cache = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'H':
			o->html = optarg;
			break;
		case 'p':
			if ((ret = compare_price(optarg, o)))
				return ret;
			break;
		case 'c':
			if (stg_cache_state_parse(optarg, &cs))
				return cli_usage_error("compare", "--cost-cache "
					"wants cold, ram or warm, not '%s'",
					optarg);
			o->cache = (int)cs;
			break;
		case 'e':
			if (cli_parse_params(optarg, &o->epoch_samples))
				return cli_usage_error("compare", "--epoch-"
					"samples wants a count, not '%s'",
					optarg);
			break;
		case 'h':
			compare_usage(stdout);
			return -1;
		default:
			return cli_parse_bad("compare", c, argv);
		}
	}
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

/* The folder of report FILE into BUF. */
static void folder_of(const char *file, char *buf, size_t len)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", file);
	snprintf(buf, len, "%s", dirname(tmp));
}

/*
 * A ckpt report beside candidate I's sweep report (FILES[I]) into *X:
 * the only one in that folder when no other candidate's report shares
 * the folder, else the only one whose instance type is the candidate's
 * label. Nothing found is no error.
 */
static void compare_find_ckpt(char **files, size_t n, size_t i,
			      const struct rpt_candidate *c,
			      struct rpt_cost *x)
{
	char dir[PATH_MAX], other[PATH_MAX], path[2 * PATH_MAX];
	struct rpt_ckpt_brief b, found = { 0 }, match = { 0 };
	char found_path[2 * PATH_MAX] = "", match_path[2 * PATH_MAX] = "";
	unsigned nfound = 0, nmatch = 0;
	bool shared = false;
	struct dirent *e;
	DIR *d;

	folder_of(files[i], dir, sizeof(dir));
	for (size_t j = 0; j < n; j++) {
		folder_of(files[j], other, sizeof(other));
		shared |= j != i && !strcmp(dir, other);
	}
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		const size_t len = strlen(e->d_name);
		struct stat st;
		json_t *root;

		if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		/* reports are small: skip anything large */
		if (stat(path, &st) || !S_ISREG(st.st_mode) ||
		    st.st_size > (4 << 20))
			continue;
		root = json_load_file(path, 0, NULL);
		if (root && !rpt_ckpt_brief_from_json(root, &b)) {
			nfound++;
			found = b;
			snprintf(found_path, sizeof(found_path), "%s", path);
			if (*b.instance_type &&
			    !strcmp(b.instance_type, c->label)) {
				nmatch++;
				match = b;
				snprintf(match_path, sizeof(match_path), "%s",
					 path);
			}
		}
		json_decref(root);
	}
	closedir(d);
	if (nmatch == 1) {
		found = match;
		snprintf(found_path, sizeof(found_path), "%s", match_path);
	} else if (nfound != 1 || shared) {
		return;
	}
	x->have_ckpt = true;
	x->ckpt = found;
	{
		char *t = rpt_path_text(found_path, strlen(found_path));

		snprintf(x->ckpt_file, sizeof(x->ckpt_file), "%s",
			 t ? t : "?");
		free(t);
	}
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
	for (unsigned p = 0; p < o->nprices; p++) {
		bool any = false;

		for (size_t i = 0; i < n; i++)
			any |= price_names(o->price_name[p], &c[i]);
		if (!any) {
			char names[512] = "";

			for (size_t i = 0; i < n; i++)
				cli_note_add(names, sizeof(names), "%s",
					     c[i].label);
			return cli_usage_error("compare", "--price %s names no "
				"candidate (candidates: %s)",
				o->price_name[p], names);
		}
	}
	for (size_t i = 0; i < n; i++) {
		double usd = -1;

		for (unsigned p = 0; p < o->nprices; p++)
			if (price_names(o->price_name[p], &c[i]))
				usd = o->price[p];
		rpt_cost_fill(&c[i], usd, o->cache, o->epoch_samples > 0 ?
			      o->epoch_samples : ds_files[i], &costs[i]);
		compare_find_ckpt(files, n, i, &c[i], &costs[i]);
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
