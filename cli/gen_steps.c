/*
 * gen_steps.c - `feedrate gen`'s checks past its options (cmd_gen.c):
 * --from's folders, the format a workload is written as, and a failed
 * generation said with its exit code.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "gen_write.h"
#include "gen.h"
#include "jobfile.h"
#include "workloads.h"

/* A format gen writes as shards. */
static bool shard_format(int f)
{
	return f == WL_FORMAT_WDS || f == WL_FORMAT_MDS ||
	       f == WL_FORMAT_TFRECORD;
}

/* A failed generation, said; its exit code. SST: the shards complete
 * (NULL for the folder format). */
int cli_gen_failed(const struct gen_opts *g, int rc,
		   const struct wl_gen_stats *st,
		   const struct wl_shard_stats *sst, const char *errpath)
{
	const uint64_t done = sst ? sst->shards : st->files;

	fprintf(stderr, "feedrate gen: ");
	if ((rc == -ENOTEMPTY || rc == -ENOTDIR || rc == -EEXIST) &&
	    !strcmp(errpath, g->dir)) {
		cli_print_path(stderr, g->dir);
		fprintf(stderr, rc == -ENOTDIR ? ": not a folder\n" :
			": folder is not empty; gen writes only into an empty "
			"or new folder\n");
		fprintf(stderr, "Try 'feedrate gen --help'.\n");
		return FR_EXIT_USAGE;
	}
	if (rc == -EINTR) {
		fprintf(stderr, "interrupted");
	} else if (rc == -ENODATA && g->from) {
		fprintf(stderr, "no image in a class folder of ");
		cli_print_path(stderr, g->from);
		fprintf(stderr, " (.jpg, .jpeg, .png, .webp in SRC/<class>/)");
	} else {
		fprintf(stderr, "%s", strerror(-rc));
		if (errpath[0]) {
			fprintf(stderr, done ? " writing " : ": ");
			cli_print_path(stderr, errpath);
		}
	}
	if (sst && (done || rc == -ENOSPC || rc == -EINTR))
		fprintf(stderr, "; stopped after %llu complete shards (%llu "
			"images, %.1f MB); no partial file was left",
			(unsigned long long)sst->shards,
			(unsigned long long)sst->samples, sst->bytes / 1e6);
	else if (done || rc == -ENOSPC || rc == -EINTR)
		fprintf(stderr, "; stopped after %llu complete files (%.1f MB); "
			"no partial file was left",
			(unsigned long long)st->files, st->bytes / 1e6);
	fputc('\n', stderr);
	return rc == -EINTR ? cli_exit_for_signal(cli_stop) : FR_EXIT_ENV;
}

/* --from: SRC is a folder, and DIR is neither SRC nor inside it. 0, or
 * the exit code (printed). */
int cli_gen_from_check(const struct gen_opts *g)
{
	struct stat st;
	const int bad = stat(g->from, &st) ? errno :
			S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
	int in;

	if (bad) {
		fprintf(stderr, "feedrate gen: ");
		cli_print_path(stderr, g->from);
		fprintf(stderr, ": %s\n", strerror(bad));
		return FR_EXIT_ENV;
	}
	in = wl_path_inside(g->dir, g->from);
	if (in == 1) {
		fprintf(stderr, "feedrate gen: ");
		cli_print_path(stderr, g->dir);
		fprintf(stderr, " is inside ");
		cli_print_path(stderr, g->from);
		fprintf(stderr, ", the folder it converts; gen never writes "
			"into SRC\nTry 'feedrate gen --help'.\n");
		return FR_EXIT_USAGE;
	}
	if (in < 0) {
		fprintf(stderr, "feedrate gen: %s: ", strerror(-in));
		cli_print_path(stderr, g->dir);
		fputc('\n', stderr);
		return FR_EXIT_ENV;
	}
	return 0;
}

/* The format G writes once its workload G->wl is known. 0 or
 * FR_EXIT_USAGE (printed). */
int cli_gen_format(struct gen_opts *g)
{
	const struct wl_workload *w = g->wl;

	if (g->so.format == WL_FORMAT_FOLDER && g->so.zstd && !gen_tokens(g))
		return cli_usage_error("gen", "--compression is for --format "
				       "wds, mds, tfrecord (and a token "
				       "workload's .bin.zst)");
	/* an image workload is written as its format says (resnet50:
	 * TFRecord shards), else as its generator writes, unless --format
	 * says otherwise; any other workload as its generator writes */
	if (!g->have_format && !g->from && w->image_spec) {
		const struct wl_gen_entry *ge = w->gen ?
			wl_gen_find(w->gen->layout) : NULL;

		g->so.format = shard_format(w->format) ?
			       (enum wl_format)w->format :
			       ge && shard_format(ge->format) ?
			       (enum wl_format)ge->format : WL_FORMAT_FOLDER;
	}
	return 0;
}
