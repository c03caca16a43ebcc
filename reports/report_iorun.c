/*
 * report_iorun.c - the report of `feedrate io`: bandwidth, IOPS, files/s,
 * completion latency percentiles, errors by kind and the backend that
 * really ran, as text and as JSON (keys named as fio names them where fio
 * has them). Reads struct ms_io_config and struct ms_io_result only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "report.h"
#include "rpt_cmd.h"
#include "rpt_steps.h"
#include "rpt_json.h"

static const double io_pcts[] = { 50.0, 90.0, 99.0, 99.9 };
#define IO_NPCTS (sizeof(io_pcts) / sizeof(io_pcts[0]))

static void io_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000ull)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
}

static const char *io_cache_name(enum stg_cache_state c)
{
	return c == STG_CACHE_COLD ? "cold" :
	       c == STG_CACHE_WARM ? "warm" : "as found";
}

/* PATH (raw bytes, may be NULL) made printable; caller frees. */
static char *io_text(const char *path)
{
	return path ? rpt_path_text(path, strlen(path)) : NULL;
}

static double io_per_s(uint64_t n, double secs)
{
	return secs > 0 ? (double)n / secs : 0.0;
}

static void io_print_errors(FILE *f, const struct ms_io_result *res)
{
	if (!res->st.errors) {
		fprintf(f, "  errors    none\n");
	} else {
		fprintf(f, "  errors    %llu\n",
			(unsigned long long)res->st.errors);
		for (unsigned i = 0; i < res->nkinds; i++) {
			const struct ms_io_error_kind *k = &res->kinds[i];
			char *ex = io_text(k->example);

			fprintf(f, "    %-10s %llu  %s, e.g. %s\n",
				stg_errname(k->code),
				(unsigned long long)k->count,
				stg_strerror(k->code), ex ? ex : "?");
			free(ex);
		}
	}
	for (int k = 0; k < STG_DS_ERR_COUNT; k++) {
		const struct ms_io_listing_kind *l = &res->listing[k];
		char *ex;

		if (!l->count)
			continue;
		ex = io_text(l->example);
		fprintf(f, "  listing   %llu %s, e.g. %s\n",
			(unsigned long long)l->count,
			stg_ds_err_name((enum stg_ds_err)k), ex ? ex : "?");
		free(ex);
	}
}

void rpt_iorun_print(FILE *f, const struct rpt_setup *su,
		     const struct ms_io_config *cfg,
		     const struct ms_io_result *res)
{
	const struct stg_reader_config *rc = &cfg->rc;
	char *ds = io_text(su->dataset ? su->dataset : "");
	double mb = (double)res->st.bytes / 1e6, secs = res->seconds;
	char p[IO_NPCTS][32];

	fprintf(f, "feedrate io: %s\n", ds ? ds : "?");
	free(ds);
	fprintf(f, "  backend   %s (%s)\n", stg_backend_name(res->backend),
		res->reason);
	if (res->notes[0])
		fprintf(f, "  notes     %s\n", res->notes);
	fprintf(f, "  setup     %u thread%s, depth %u, block %u KiB, "
		"cache %s%s\n",
		cfg->threads, cfg->threads == 1 ? "" : "s", rc->depth,
		rc->block_size / 1024, io_cache_name(cfg->cache),
		rc->direct ? ", O_DIRECT" : "");
	fprintf(f, "  read      %llu of %zu files, %.1f MB in %.3f s\n",
		(unsigned long long)res->st.files_ok, res->files_listed, mb,
		secs);
	fprintf(f, "  speed     %.1f MB/s, %.0f files/s, %.0f IOPS\n",
		secs > 0 ? mb / secs : 0.0, io_per_s(res->st.files_ok, secs),
		io_per_s(res->st.reads, secs));
	for (size_t i = 0; i < IO_NPCTS; i++)
		io_fmt_ns(p[i], sizeof(p[i]),
			  stg_histo_percentile(&res->st.clat, io_pcts[i]));
	fprintf(f, "  clat      p50 %s, p90 %s, p99 %s, p99.9 %s\n",
		p[0], p[1], p[2], p[3]);
	io_print_errors(f, res);
	if (res->evict_errors)
		fprintf(f, "  cache     %llu files could not be evicted\n",
			(unsigned long long)res->evict_errors);
}

static json_t *io_json_options(const struct ms_io_config *cfg)
{
	const struct stg_reader_config *rc = &cfg->rc;

	return json_pack("{s:i,s:i,s:i,s:s,s:b,s:o,s:I}",
		"threads", (int)cfg->threads,
		"depth", (int)rc->depth,
		"block_size", (int)rc->block_size,
		"cache", io_cache_name(cfg->cache),
		"direct", rc->direct,
		"duration_s", rpt_jnum(cfg->duration_s),
		"max_sample_bytes", (json_int_t)rc->max_sample_bytes);
}

static json_t *io_json_clat(const struct stg_histo *h)
{
	json_t *pct = json_object();
	char key[32];

	for (size_t i = 0; pct && i < IO_NPCTS; i++) {
		snprintf(key, sizeof(key), "%f", io_pcts[i]);
		json_object_set_new(pct, key, json_integer((json_int_t)
			stg_histo_percentile(h, io_pcts[i])));
	}
	return json_pack("{s:I,s:I,s:o,s:o}",
		"min", (json_int_t)(h->count ? h->min : 0),
		"max", (json_int_t)h->max,
		"mean", rpt_jnum(stg_histo_mean(h)),
		"percentile", pct);
}

static json_t *io_json_errors(const struct ms_io_result *res)
{
	json_t *kinds = json_object();

	for (unsigned i = 0; kinds && i < res->nkinds; i++) {
		const struct ms_io_error_kind *k = &res->kinds[i];
		char *ex = io_text(k->example);

		json_object_set_new(kinds, stg_errname(k->code), json_pack(
			"{s:I,s:s,s:o}",
			"count", (json_int_t)k->count,
			"message", stg_strerror(k->code),
			"example", ex ? json_string(ex) : json_null()));
		free(ex);
	}
	return json_pack("{s:I,s:o}", "total", (json_int_t)res->st.errors,
			 "kinds", kinds);
}

/* "listing_errors" (counts by kind) and "listing_error_examples" into
 * ROOT; kinds without an error are left out. */
static void io_json_listing(json_t *root, const struct ms_io_result *res)
{
	json_t *lerr = json_object(), *lex = json_object();

	for (int k = 0; lerr && lex && k < STG_DS_ERR_COUNT; k++) {
		const struct ms_io_listing_kind *l = &res->listing[k];
		const char *name = stg_ds_err_name((enum stg_ds_err)k);

		if (!l->count)
			continue;
		json_object_set_new(lerr, name,
				    json_integer((json_int_t)l->count));
		/* one example path per kind, beside the counts */
		if (l->example)
			json_object_set_new(lex, name,
					    rpt_json_path(l->example));
	}
	json_object_set_new(root, "listing_errors", lerr);
	json_object_set_new(root, "listing_error_examples", lex);
}

json_t *rpt_iorun_json(const struct rpt_setup *su,
		       const struct ms_io_config *cfg,
		       const struct ms_io_result *res)
{
	const double secs = res->seconds;
	json_t *root = json_object();

	if (!root)
		return NULL;
	json_object_set_new(root, "command", json_string("io"));
	rpt_setup_json(root, su, RPT_SETUP_IO);
	json_object_set_new(root, "backend",
			    json_string(stg_backend_name(res->backend)));
	json_object_set_new(root, "backend_reason", json_string(res->reason));
	json_object_set_new(root, "notes", json_string(res->notes));
	json_object_set_new(root, "options", io_json_options(cfg));
	json_object_set_new(root, "files_listed",
			    json_integer((json_int_t)res->files_listed));
	json_object_set_new(root, "files",
			    json_integer((json_int_t)res->st.files_ok));
	json_object_set_new(root, "io_bytes",
			    json_integer((json_int_t)res->st.bytes));
	json_object_set_new(root, "total_ios",
			    json_integer((json_int_t)res->st.reads));
	json_object_set_new(root, "runtime_s", rpt_jnum(secs));
	json_object_set_new(root, "bw_bytes", json_integer((json_int_t)
			    io_per_s(res->st.bytes, secs)));
	json_object_set_new(root, "iops", rpt_jnum(io_per_s(res->st.reads,
							    secs)));
	json_object_set_new(root, "files_per_s",
			    rpt_jnum(io_per_s(res->st.files_ok, secs)));
	json_object_set_new(root, "clat_ns", io_json_clat(&res->st.clat));
	json_object_set_new(root, "errors", io_json_errors(res));
	io_json_listing(root, res);
	return root;
}

int rpt_iorun_report(const struct rpt_setup *setup,
		     const struct ms_io_config *cfg,
		     const struct ms_io_result *res, const char *json)
{
	FILE *f = (json && !strcmp(json, "-")) ? stderr : stdout;
	struct stg_stall stall;
	int ret = FR_EXIT_OK;

	rpt_iorun_print(f, setup, cfg, res);
	if (json) {
		json_t *root = rpt_iorun_json(setup, cfg, res);
		int err = root ? rpt_json_write(root, json) : -ENOMEM;

		json_decref(root);
		if (err) {
			fprintf(stderr, "feedrate io: cannot write %s: %s\n",
				json, strerror(-err));
			ret = FR_EXIT_ENV;
		}
	}
	if (ldr_watchdog_stall(&stall)) {
		char line[700];

		rpt_stall_text(&stall, line, sizeof(line));
		fprintf(f, "  stalled    %s\n", line);
		return rpt_stall_exit("io", &stall);
	}
	/* files the listing dropped count as errors, as in the report */
	if (ret == FR_EXIT_OK && (res->st.errors ||
				  stg_dataset_errors_sum(cfg->ds)))
		ret = FR_EXIT_SAMPLE_ERRORS;
	return ret;
}

void rpt_iorun_progress(enum ms_io_event ev, const struct ms_io_result *sofar,
			void *arg)
{
	(void)arg;
	if (ev == MS_IO_EV_CACHE && sofar->cache_note[0])
		fprintf(stderr, "feedrate io: %s\n", sofar->cache_note);
}
