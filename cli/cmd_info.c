/*
 * cmd_info.c - `feedrate info [PATH]`: options and wiring. The facts come
 * from storage/'s detectors (and measure/'s page-cache probe with
 * --probe-cache); reports/report_info.c writes them as text and JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "measure.h"
#include "report.h"
#include "storage.h"

struct info_opts {
	const char *json;       /* --json FILE|-, NULL none */
	double interval;        /* --steal-interval */
	bool probe;             /* --probe-cache */
	const char *path;       /* PATH, NULL none */
};

static void info_head(FILE *f)
{
	fprintf(f,
		"Usage: feedrate info [options] [PATH]\n\n"
		"Print what feedrate detects: usable vCPUs (affinity mask and "
		"cgroup quota),\nCPU model, SMT, NUMA nodes, steal time, RAM "
		"and cgroup memory limit, NVIDIA\nGPUs, the DMI product name, "
		"io_uring availability; and with PATH the\nfilesystem, mount "
		"and block device (with its model) that PATH is on, and the "
		"dataset format\nit holds (shards: how many, and their records)."
		"\n\n");
}

static void info_tail(FILE *f)
{
	fprintf(f, "/proc and /sys are read under $FEEDRATE_SYSROOT when it "
		"is set.\n");
}

static int info_parse(int argc, char **argv, struct info_opts *o)
{
	static const struct cli_usage usage = { info_head, info_tail };
	const struct cli_bind b[] = {
		CLI_BIND("json", o->json),
		CLI_BIND("steal-interval", o->interval),
		CLI_BIND("probe-cache", o->probe),
	};
	int ret;

	memset(o, 0, sizeof(*o));
	o->interval = CLI_STEAL_INTERVAL_S;
	ret = cli_opts_parse(CLI_INFO, argc, argv, b, sizeof(b) / sizeof(b[0]),
			     &usage);
	if (ret)
		return ret;
	if (argc - optind > 1)
		return cli_usage_error("info", "at most one PATH");
	if (o->probe && optind == argc)
		return cli_usage_error("info", "--probe-cache needs a PATH");
	o->path = optind < argc ? argv[optind] : NULL;
	return 0;
}

/* PATH as a dataset: its format, and for shards their count (the
 * headers are walked: small reads, nothing written). */
static void info_dataset(struct rpt_info *in)
{
	enum wl_format f;
	struct wl_shardset *s = NULL;
	struct stat st;

	if (stat(in->path, &st) || !S_ISDIR(st.st_mode))
		return;
	if (wl_format_detect(in->path, &f, in->format_why,
			     sizeof(in->format_why)))
		return;
	snprintf(in->format, sizeof(in->format), "%s", wl_format_name(f));
	if (!wl_format_can(f, WL_CAP_COUNT))
		return;
	in->ds_err = wl_shardset_open(in->path, f, &(struct wl_shardset_opts){ .estimate = true }, &s, in->ds_why,
				      sizeof(in->ds_why));
	if (in->ds_err)
		return;
	rpt_info_fill_shards(in, s);
	wl_shardset_free(s);
}

/* What the report shows, into *IN; *PROBE_FILE is the caller's to free. */
static void info_gather(const struct info_opts *o, struct rpt_info *in,
			char **probe_file)
{
	in->version = FEEDRATE_VERSION;
	stg_detect_cpu(o->interval, &in->cpu);
	stg_detect_mem(&in->mem);
	stg_detect_gpus(&in->gpus);
	stg_detect_dmi(&in->dmi);
	in->uring_err = stg_uring_probe(in->uring_why, sizeof(in->uring_why));
	*probe_file = NULL;
	if (!o->path)
		return;
	in->path = o->path;
	in->fs_err = stg_detect_fs(in->path, &in->fs);
	if (!in->fs_err)
		info_dataset(in);
	if (o->probe && !in->fs_err) {
		in->probed = true;
		in->probe_err = ms_io_cache_probe(in->path, probe_file,
						  &in->probe);
		in->probe_file = *probe_file;
	}
}

int cmd_info(int argc, char **argv)
{
	struct info_opts o;
	struct rpt_info *in;
	char *probe_file;
	int rc = info_parse(argc, argv, &o);

	if (rc)
		return rc < 0 ? FR_EXIT_OK : rc;
	rc = cli_check_reports("info", &o.json, 1, o.path, NULL);
	if (rc)
		return rc;
	in = calloc(1, sizeof(*in));
	if (!in) {
		fprintf(stderr, "feedrate info: out of memory\n");
		return FR_EXIT_ENV;
	}
	info_gather(&o, in, &probe_file);
	if (in->fs_err)
		rc = FR_EXIT_ENV;
	if (!o.json || strcmp(o.json, "-"))
		rpt_info_print(stdout, in);
	if (o.json) {
		json_t *root = rpt_info_json(in);
		int err = root ? rpt_json_write(root, o.json) : -ENOMEM;

		json_decref(root);
		if (err) {
			fprintf(stderr, "feedrate info: cannot write ");
			rpt_put_path(stderr, o.json);
			fprintf(stderr, ": %s\n", strerror(-err));
			rc = FR_EXIT_ENV;
		}
	}
	if (in->fs_err) {
		fprintf(stderr, "feedrate info: ");
		rpt_put_path(stderr, in->path);
		fprintf(stderr, ": %s\n", strerror(-in->fs_err));
	}
	free(probe_file);
	free(in);
	return rc;
}
