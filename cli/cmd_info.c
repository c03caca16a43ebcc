/*
 * cmd_info.c - `feedrate info [PATH]`: options and wiring. The facts are
 * gathered and written by reports/rpt_info_run.c (storage/'s detectors,
 * measure/'s page-cache probe with --probe-cache).
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "rpt_steps.h"

int cmd_info(int argc, char **argv)
{
	const char *json = NULL, *path;
	double interval = 0;
	bool probe = false;
	const struct cli_bind b[] = {
		CLI_BIND("json", json),
		CLI_BIND("steal-interval", interval),
		CLI_BIND("probe-cache", probe),
	};
	int rc = cli_opts_read(CLI_INFO, argc, argv, b,
			       sizeof(b) / sizeof(b[0]));

	if (rc)
		return rc < 0 ? FR_EXIT_OK : rc;
	if (argc - optind > 1)
		return cli_usage_error("info", "at most one PATH");
	if (probe && optind == argc)
		return cli_usage_error("info", "--probe-cache needs a PATH");
	path = optind < argc ? argv[optind] : NULL;
	rc = cli_check_reports("info", &json, 1, path, NULL);
	return rc ? rc : rpt_info_run(path, interval, probe, json);
}
