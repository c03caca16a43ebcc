/*
 * cmd_compare.c - `feedrate compare A.json B.json ...`: candidate VMs side
 * by side from their sweep reports, as a text table and (--html) a page.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "report_ckpt.h"
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

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o;
	int ret = compare_parse(argc, argv, &o);

	if (ret)
		return ret < 0 ? FR_EXIT_OK : ret;
	/* the page must not land on a device, a folder or a report read */
	for (int i = optind; i < argc && o.html && !ret; i++)
		ret = cli_check_reports("compare", &o.html, 1, NULL, argv[i]);
	if (ret)
		return ret;
	return rpt_compare_run(&(const struct rpt_compare_opts){
		.html = o.html, .price_name = o.prices.name,
		.price_usd = o.prices.usd, .nprices = o.prices.n,
		.cache = o.cache, .epoch_samples = o.epoch_samples },
		(const char *const *)argv + optind, (size_t)(argc - optind));
}
