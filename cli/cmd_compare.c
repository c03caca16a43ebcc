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
#include "report_sweep.h"

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
static int compare_load(const char *file, struct rpt_candidate *c)
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
	json_decref(root);
	if (err == -ENOMEM)
		return cli_fail("compare", err, 0, "out of memory");
	if (err) {
		fprintf(stderr, "feedrate compare: %s\n", why);
		return FR_EXIT_USAGE;
	}
	return 0;
}

static int compare_parse(int argc, char **argv, const char **html)
{
	static const struct option lo[] = {
		{ "html", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'H':
			*html = optarg;
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

int cmd_compare(int argc, char **argv)
{
	struct rpt_candidate *cand;
	const char *html = NULL;
	size_t n = 0;
	int ret = compare_parse(argc, argv, &html);

	if (ret)
		return ret < 0 ? FR_EXIT_OK : ret;
	/* the page must not land on a device, a folder or a report read */
	for (int i = optind; i < argc && html && !ret; i++)
		ret = cli_check_reports("compare", &html, 1, NULL, argv[i]);
	if (ret)
		return ret;
	cand = calloc((size_t)(argc - optind), sizeof(*cand));
	if (!cand)
		return cli_fail("compare", -ENOMEM, 0, "out of memory");
	for (int i = optind; i < argc && !ret; i++)
		if (!(ret = compare_load(argv[i], &cand[n])))
			n++;
	if (!ret) {
		rpt_compare_print(stdout, cand, n);
		fflush(stdout);
		if (html)
			ret = cli_write_report("compare", html, NULL,
					       rpt_compare_html(cand, n), "HTML");
	}
	for (size_t i = 0; i < n; i++)
		rpt_candidate_free(&cand[i]);
	free(cand);
	return ret;
}
