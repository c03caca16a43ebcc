/*
 * cmd_compare.c - `feedrate compare A.json B.json ...`: candidate VMs side
 * by side from their sweep reports, as a text table and (--html) a page.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "report_ckpt.h"

struct compare_opts {
	const char *html;
	struct wl_key_named prices;   /* --price NAME=USD_PER_HOUR */
	int cache;                      /* -1: each report's slowest */
	double epoch_samples;           /* <= 0: each report's files */
};

static int compare_parse(int argc, char **argv, struct compare_opts *o)
{
	const struct cli_bind b[] = {
		CLI_BIND("html", o->html),
		CLI_BIND("price", o->prices),
		CLI_BIND("cost-cache", o->cache),
		CLI_BIND("epoch-samples", o->epoch_samples),
	};
	int ret;

	memset(o, 0, sizeof(*o));
	o->cache = -1;
	ret = cli_opts_read(CLI_COMPARE, argc, argv, b,
			    sizeof(b) / sizeof(b[0]));
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
		.price_usd = o.prices.v, .nprices = o.prices.n,
		.cache = o.cache, .epoch_samples = o.epoch_samples },
		(const char *const *)argv + optind, (size_t)(argc - optind));
}
