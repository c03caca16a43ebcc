/*
 * rpt_info_run.c - `feedrate info` past its options: the machine's facts
 * from storage/'s detectors, PATH's filesystem and dataset format, the
 * page-cache probe (measure/), gathered into one struct rpt_info and
 * written as text and JSON (report_info.c). One thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "measure.h"
#include "report.h"
#include "rpt_cmd.h"
#include "rpt_json.h"
#include "rpt_steps.h"
#include "rpt_text.h"
#include "shardset.h"

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
	/* info needs no exact epoch count: unwalked shards may be
	 * estimated (the report says which) */
	in->ds_err = wl_shardset_open(in->path, f, &(struct wl_shardset_opts){
				      .estimate = true }, &s, in->ds_why,
				      sizeof(in->ds_why));
	if (in->ds_err)
		return;
	rpt_info_fill_shards(in, s);
	wl_shardset_free(s);
}

/* What the report shows, into *IN; *PROBE_FILE is the caller's to free. */
static void info_gather(const char *path, double interval, bool probe,
			struct rpt_info *in, char **probe_file)
{
	in->version = FEEDRATE_VERSION;
	stg_detect_cpu(interval, &in->cpu);
	stg_detect_mem(&in->mem);
	stg_detect_gpus(&in->gpus);
	stg_detect_dmi(&in->dmi);
	in->uring_err = stg_uring_probe(in->uring_why, sizeof(in->uring_why));
	*probe_file = NULL;
	if (!path)
		return;
	in->path = path;
	in->fs_err = stg_detect_fs(in->path, &in->fs);
	if (!in->fs_err)
		info_dataset(in);
	if (probe && !in->fs_err) {
		in->probed = true;
		in->probe_err = ms_io_cache_probe(in->path, probe_file,
						  &in->probe);
		in->probe_file = *probe_file;
	}
}

int rpt_info_run(const char *path, double interval, bool probe,
		 const char *json)
{
	struct rpt_info *in = calloc(1, sizeof(*in));
	char *probe_file;
	int rc = 0;

	if (!in) {
		fprintf(stderr, "feedrate info: out of memory\n");
		return FR_EXIT_ENV;
	}
	info_gather(path, interval, probe, in, &probe_file);
	if (in->fs_err)
		rc = FR_EXIT_ENV;
	if (!json || strcmp(json, "-"))
		rpt_info_print(stdout, in);
	if (json) {
		json_t *root = rpt_info_json(in);
		int err = root ? rpt_json_write(root, json) : -ENOMEM;

		json_decref(root);
		if (err) {
			fprintf(stderr, "feedrate info: cannot write ");
			rpt_put_path(stderr, json);
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
