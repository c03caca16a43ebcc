/*
 * report_gen_shards.c - `feedrate gen`'s summary of a sharded set (wds,
 * mds, tfrecord), written or converted with --from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_write.h"
#include "report.h"
#include "workloads.h"

static void print_path(FILE *f, const char *p)
{
	char *t = rpt_path_text(p, strlen(p));

	fputs(t ? t : "?", f);
	free(t);
}

/* The summary of a sharded set: gen's line with the format, the shard
 * count and bytes in place of the folder. */
void rpt_gen_print_shards(FILE *f, const struct rpt_gen_shards *g,
			  const struct wl_gen_stats *st,
			  const struct wl_shard_stats *sst)
{
	const double mb_s = st->elapsed_s > 0 ? sst->bytes / 1e6 /
			    st->elapsed_s : 0;

	if (g->from) {
		fprintf(f, "gen: converted %llu images in %u classes from ",
			(unsigned long long)sst->samples, sst->classes);
		print_path(f, g->from);
	} else {
		fprintf(f, "gen: wrote %llu images in %u classes",
			(unsigned long long)sst->samples, sst->classes);
	}
	fprintf(f, " into ");
	print_path(f, g->dir);
	fprintf(f, " as %s%s: %llu shards, %.1f MB", g->format,
		g->zstd ? " (zstd)" : "",
		(unsigned long long)sst->shards, sst->bytes / 1e6);
	if (g->zstd)
		fprintf(f, " (%.1f MB uncompressed, level %d)",
			sst->raw_bytes / 1e6, g->zstd_level);
	fprintf(f, ", images %.1f MB, mean %.1f KB", sst->image_bytes / 1e6,
		sst->samples ? sst->image_bytes / 1e3 / sst->samples : 0.0);
	if (!g->from)
		fprintf(f, ", mean %.0f px; %llu grayscale, %llu CMYK, %llu "
			"progressive, %llu 4:4:4, %llu 4:2:0; seed %llu",
			st->files ? (double)st->pixels / st->files : 0.0,
			(unsigned long long)st->gray,
			(unsigned long long)st->cmyk,
			(unsigned long long)st->progressive,
			(unsigned long long)st->sub444,
			(unsigned long long)st->sub420,
			(unsigned long long)g->seed);
	fprintf(f, "; %u %s; %.1f s (%.1f MB/s)\n", g->jobs,
		g->from ? "readers" : "jobs", st->elapsed_s, mb_s);
	if (g->from && (sst->skipped || sst->empty_classes ||
			sst->list_errors))
		fprintf(f, "gen: left out %llu files (outside a class folder, "
			"or not .jpg/.jpeg/.png/.webp) and %llu entries the "
			"listing could not follow; %u class folders hold no "
			"image (their labels stay unused)\n",
			(unsigned long long)sst->skipped,
			(unsigned long long)sst->list_errors,
			sst->empty_classes);
}
