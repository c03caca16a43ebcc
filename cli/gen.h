/*
 * gen.h - `feedrate gen`'s options, shared by its option wiring
 * (cmd_gen.c) and its checks (gen_steps.c). Private to cli/.
 */
#ifndef FEEDRATE_CLI_GEN_H
#define FEEDRATE_CLI_GEN_H

#include "cli.h"
#include "fmt_write.h"
#include "workloads.h"

struct gen_opts {
	const char *workload, *dir, *from;
	const struct wl_workload *wl; /* WORKLOAD, once resolved */
	struct wl_gen_opts o;
	struct wl_shard_opts so;     /* format WL_FORMAT_FOLDER: files */
	int compression;             /* --compression: 0 none, 1 zstd */
	bool quiet, have_size, have_files, have_level, have_format;
};

/* A token workload: its own files (.idx/.bin, or .bin.zst with
 * --compression zstd), not images. */
static inline bool gen_tokens(const struct gen_opts *g)
{
	return g->wl && g->wl->format == WL_FORMAT_TOKENS;
}

/* --from: SRC is a folder, and DIR is neither SRC nor inside it. 0, or
 * the exit code (printed). */
int cli_gen_from_check(const struct gen_opts *g);

/* The format G writes once its workload G->wl is known. 0 or
 * FR_EXIT_USAGE (printed). */
int cli_gen_format(struct gen_opts *g);

/* A failed generation, said; its exit code. SST: the shards complete
 * (NULL for the folder format). */
int cli_gen_failed(const struct gen_opts *g, int rc,
		   const struct wl_gen_stats *st,
		   const struct wl_shard_stats *sst, const char *errpath);

#endif
