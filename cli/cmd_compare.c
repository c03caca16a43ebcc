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

int cmd_compare(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "html", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rpt_candidate *cand = NULL;
	const char *html = NULL;
	size_t n = 0;
	int c, ret = FR_EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'H':
			html = optarg;
			break;
		case 'h':
			compare_usage(stdout);
			return FR_EXIT_OK;
		case ':':
			return cli_usage_error("compare", "option '%s' needs a "
					       "value", argv[optind - 1]);
		default:
			return cli_usage_error("compare", "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("compare", "give one or more sweep "
				       "reports (feedrate sweep --json FILE)");
	cand = calloc((size_t)(argc - optind), sizeof(*cand));
	if (!cand) {
		fprintf(stderr, "feedrate compare: out of memory\n");
		return FR_EXIT_ENV;
	}
	for (int i = optind; i < argc; i++) {
		json_error_t jerr;
		FILE *in = fopen(argv[i], "r");
		json_t *root;
		char why[768];
		int err;

		if (!in) {
			/* the file named, escaped; jansson's text would
			 * repeat its raw bytes */
			err = errno;
			fprintf(stderr, "feedrate compare: cannot read ");
			cli_print_path(stderr, argv[i]);
			fprintf(stderr, ": %s\n", strerror(err));
			ret = FR_EXIT_ENV;
			goto out;
		}
		root = json_loadf(in, 0, &jerr);
		fclose(in);
		if (!root) {
			fprintf(stderr, "feedrate compare: cannot read ");
			cli_print_path(stderr, argv[i]);
			fprintf(stderr, ": not a JSON report: ");
			cli_print_path(stderr, jerr.text);
			fprintf(stderr, " (line %d)\n", jerr.line);
			ret = FR_EXIT_ENV;
			goto out;
		}
		err = rpt_candidate_from_json(root, argv[i], &cand[n], why,
					      sizeof(why));
		json_decref(root);
		if (err == -ENOMEM) {
			fprintf(stderr, "feedrate compare: out of memory\n");
			ret = FR_EXIT_ENV;
			goto out;
		}
		if (err) {
			fprintf(stderr, "feedrate compare: %s\n", why);
			ret = FR_EXIT_USAGE;
			goto out;
		}
		n++;
	}
	rpt_compare_print(stdout, cand, n);
	fflush(stdout);
	if (html) {
		char *page = rpt_compare_html(cand, n);
		int err = page ? rpt_file_write(html, page, strlen(page)) :
			  -ENOMEM;

		free(page);
		if (err) {
			fprintf(stderr, "feedrate compare: cannot write ");
			cli_print_path(stderr, html);
			fprintf(stderr, ": %s\n", strerror(-err));
			ret = FR_EXIT_ENV;
		}
	}
out:
	for (size_t i = 0; i < n; i++)
		rpt_candidate_free(&cand[i]);
	free(cand);
	return ret;
}
