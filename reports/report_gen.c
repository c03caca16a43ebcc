/*
 * report_gen.c - the one-line summary of `feedrate gen`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "rpt_text.h"
#include "fmt_write.h"
#include "gen_write.h"
#include "rpt_cmd.h"
#include "rpt_steps.h"
#include "workloads.h"

void rpt_gen_print(FILE *f, const char *dir, const struct wl_gen_stats *st,
		   uint64_t seed, unsigned jobs)
{
	char *t = rpt_path_text(dir, strlen(dir));

	fprintf(f, "gen: wrote %llu files in %u classes under %s/train: "
		"%.1f MB, mean %.1f KB, mean %.0f px; %llu grayscale, %llu "
		"CMYK, %llu progressive, %llu 4:4:4, %llu 4:2:0; seed %llu; "
		"%u jobs; %.1f s (%.1f MB/s)\n",
		(unsigned long long)st->files, st->classes, t ? t : "?",
		st->bytes / 1e6, st->files ? st->bytes / 1e3 / st->files : 0.0,
		st->files ? (double)st->pixels / st->files : 0.0,
		(unsigned long long)st->gray, (unsigned long long)st->cmyk,
		(unsigned long long)st->progressive,
		(unsigned long long)st->sub444, (unsigned long long)st->sub420,
		(unsigned long long)seed, jobs, st->elapsed_s,
		st->elapsed_s > 0 ? st->bytes / 1e6 / st->elapsed_s : 0.0);
	free(t);
}

void rpt_gen_print_files(FILE *f, const char *dir, const char *layout,
			 const struct wl_gen_stats *st, uint64_t seed,
			 unsigned jobs)
{
	char *t = rpt_path_text(dir, strlen(dir));
	char total[32], mean[32];

	rpt_fmt_bytes(total, sizeof(total), (double)st->bytes);
	rpt_fmt_bytes(mean, sizeof(mean), st->files ? (double)st->bytes /
		      (double)st->files : 0);
	fprintf(f, "gen: wrote %llu files (%s) into %s: %s, mean %s a file; "
		"seed %llu; %u jobs; %.1f s (%.1f MB/s)\n",
		(unsigned long long)st->files, layout ? layout : "?",
		t ? t : "?", total, mean, (unsigned long long)seed, jobs,
		st->elapsed_s, st->elapsed_s > 0 ? st->bytes / 1e6 /
		st->elapsed_s : 0.0);
	free(t);
}

void rpt_gen_progress(FILE *f, const struct wl_gen_stats *st, bool done)
{
	double frac = st->bytes_target ?
		(double)st->bytes / st->bytes_target :
		st->files_target ? (double)st->files / st->files_target : 0;
	double eta;

	if (frac > 1)
		frac = 1;
	eta = frac > 0 ? st->elapsed_s * (1 - frac) / frac : 0;
	fprintf(f, "\r\033[Kgen: %llu files, %.1f MB (%3.0f %%), "
		"%.0f files/s, %.1f MB/s, ETA %.0f s",
		(unsigned long long)st->files, st->bytes / 1e6, frac * 100,
		st->elapsed_s > 0 ? st->files / st->elapsed_s : 0,
		st->elapsed_s > 0 ? st->bytes / 1e6 / st->elapsed_s : 0, eta);
	if (done)
		fputc('\n', f);
}

/* The run's end after an error: what was complete, nothing partial. */
static void gen_failed_tail(FILE *f, int rc, const struct wl_gen_stats *st,
			    const struct wl_shard_stats *sst, uint64_t done)
{
	if (sst && (done || rc == -ENOSPC || rc == -EINTR))
		fprintf(f, "; stopped after %llu complete shards (%llu "
			"images, %.1f MB); no partial file was left",
			(unsigned long long)sst->shards,
			(unsigned long long)sst->samples, sst->bytes / 1e6);
	else if (done || rc == -ENOSPC || rc == -EINTR)
		fprintf(f, "; stopped after %llu complete files (%.1f MB); "
			"no partial file was left",
			(unsigned long long)st->files, st->bytes / 1e6);
	fputc('\n', f);
}

bool rpt_gen_failed(FILE *f, const struct rpt_gen_failure *g)
{
	const uint64_t done = g->sst ? g->sst->shards : g->st->files;
	const int rc = g->rc;

	fprintf(f, "feedrate gen: ");
	if ((rc == -ENOTEMPTY || rc == -ENOTDIR || rc == -EEXIST) &&
	    !strcmp(g->errpath, g->dir)) {
		rpt_put_path(f, g->dir);
		fprintf(f, rc == -ENOTDIR ? ": not a folder\n" :
			": folder is not empty; gen writes only into an empty "
			"or new folder\n");
		fprintf(f, "Try 'feedrate gen --help'.\n");
		return true;
	}
	if (rc == -EINTR) {
		fprintf(f, "interrupted");
	} else if (rc == -ENODATA && g->from) {
		fprintf(f, "no image in a class folder of ");
		rpt_put_path(f, g->from);
		fprintf(f, " (.jpg, .jpeg, .png, .webp in SRC/<class>/)");
	} else {
		fprintf(f, "%s", strerror(-rc));
		if (g->errpath[0]) {
			fprintf(f, done ? " writing " : ": ");
			rpt_put_path(f, g->errpath);
		}
	}
	gen_failed_tail(f, rc, g->st, g->sst, done);
	return false;
}

void rpt_gen_from_failed(FILE *f, const char *from, const char *dir,
			 int err, bool on_src)
{
	fprintf(f, "feedrate gen: ");
	if (err == -EEXIST) {
		rpt_put_path(f, dir);
		fprintf(f, " is inside ");
		rpt_put_path(f, from);
		fprintf(f, ", the folder it converts; gen never writes "
			"into SRC\nTry 'feedrate gen --help'.\n");
	} else if (on_src) {
		rpt_put_path(f, from);
		fprintf(f, ": %s\n", strerror(-err));
	} else {
		fprintf(f, "%s: ", strerror(-err));
		rpt_put_path(f, dir);
		fputc('\n', f);
	}
}

void rpt_gen_done(FILE *f, const struct rpt_gen_done *d,
		  const struct wl_gen_stats *st,
		  const struct wl_shard_stats *sst)
{
	if (d->shards)
		rpt_gen_print_shards(f, d->shards, st, sst);
	else if (d->images)
		rpt_gen_print(f, d->dir, st, d->seed, d->jobs);
	else
		rpt_gen_print_files(f, d->dir, d->layout, st, d->seed, d->jobs);
}

void rpt_gen_request_done(FILE *f, const struct wl_gen_request *g,
			  const struct wl_gen_stats *st,
			  const struct wl_shard_stats *sst)
{
	const struct wl_gen_ops *gen;
	const enum wl_gen_kind k = wl_gen_request_kind(g, &gen);
	const struct rpt_gen_shards sh = {
		g->from, g->dir, wl_format_name(g->so.format), g->so.zstd,
		g->so.zstd_level ? g->so.zstd_level : WL_ZSTD_DEFAULT_LEVEL,
		g->o.seed, g->o.jobs };

	/* token files: one writer (jobs 1); .bin.zst is no generator's */
	rpt_gen_done(f, &(struct rpt_gen_done){
		k == WL_GEN_SHARDS ? &sh : NULL, k == WL_GEN_IMAGES, g->dir,
		k == WL_GEN_TOKENS && g->so.zstd ? "uint16 .bin.zst" :
		gen ? gen->layout : "?", g->o.seed,
		k == WL_GEN_TOKENS ? 1 : g->o.jobs }, st, sst);
}

int rpt_gen_request_failed(FILE *f, const struct wl_gen_request *g, int rc,
			   const struct wl_gen_stats *st,
			   const struct wl_shard_stats *sst,
			   const char *errpath, int sig)
{
	const struct wl_gen_ops *gen;
	const bool shards = wl_gen_request_kind(g, &gen) == WL_GEN_SHARDS;

	if (rpt_gen_failed(f, &(struct rpt_gen_failure){ rc, g->dir,
			g->from, st, shards ? sst : NULL, errpath }))
		return FR_EXIT_USAGE;
	return rc == -EINTR ? rpt_exit_for_signal(sig) : FR_EXIT_ENV;
}

void rpt_gen_progress_tty(void *arg, const struct wl_gen_stats *st,
			  bool done)
{
	static double last;     /* one gen a process, one call at a time */

	(void)arg;
	if (!done && stg_now() - last < 0.1)
		return;
	last = stg_now();
	rpt_gen_progress(stderr, st, done);
}
