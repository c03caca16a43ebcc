/*
 * fmt_gen.h - the contract between a dataset writer and those who start
 * one: what a generator is handed (wl_gen_opts), what it fills
 * (wl_gen_stats), its ops table (wl_gen_ops) and the table of generators a
 * job file names (wl_gen_entry). The writers themselves are in gen/; the
 * contract sits here, below workloads/ (a workload names its generator)
 * and measure/ (which runs it for the default dataset), so that no include
 * runs from them up to gen/. Uses augment/'s public header (the encoder's
 * settings in wl_image_spec).
 */
#ifndef FEEDRATE_FMT_GEN_H
#define FEEDRATE_FMT_GEN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "augment.h"

/* ---- synthetic images ---- */

/* Everything that decides one generated image; drawn per file index. */
struct wl_image_spec {
	uint32_t width, height;
	int quality;                   /* JPEG quality */
	enum aug_enc_subsamp subsamp;
	enum aug_enc_pixfmt fmt;       /* RGB, GRAY or CMYK */
	bool progressive;
	uint64_t content_seed;         /* seeds the picture itself */
};

/* Statistics of a generated set, filled as it is written. */
struct wl_gen_stats {
	uint64_t files;        /* complete files under their final names */
	uint64_t bytes;        /* their total size */
	uint64_t pixels;       /* total width*height */
	uint64_t files_target; /* planned count (an estimate for --size) */
	uint64_t bytes_target; /* requested bytes (0 with --files) */
	uint32_t classes;      /* class folders */
	uint64_t gray, cmyk, progressive, sub444, sub420;
	double elapsed_s;
};

/* Most worker threads a generator uses. */
#define WL_GEN_MAX_JOBS 256u

/* How to generate: one of size_bytes / files is set, the other is 0. */
struct wl_gen_opts {
	uint64_t size_bytes;  /* stop once the set reaches this many bytes */
	uint64_t files;       /* or: exactly this many files */
	uint64_t seed;        /* same seed, same request => identical bytes */
	unsigned jobs;        /* worker threads (0 = 1, at most
	                         WL_GEN_MAX_JOBS); the output does not depend
	                         on it */
	/* Called after each file (and once at the end with done=true), one
	 * call at a time, from whichever worker thread wrote the file; may be
	 * NULL. */
	void (*progress)(void *arg, const struct wl_gen_stats *st, bool done);
	void *progress_arg;
	/* Polled between files; when it becomes non-zero the generator removes
	 * its temporary file and returns -EINTR. May be NULL. */
	volatile sig_atomic_t *stop;
	/* On failure: the path (inside the dataset folder) that failed, for
	 * the error message; may be NULL. */
	char *err_path;
	size_t err_path_len;
};

struct wl_workload;

/* A workload's dataset generator (an ops table: one per data layout). */
struct wl_gen_ops {
	const char *layout; /* e.g. "imagefolder-jpeg" */
	/*
	 * Writes a synthetic dataset into `dir`, which must exist and be empty
	 * (-ENOTEMPTY otherwise). Every file is written under a temporary name
	 * in its own folder and renamed only once complete and closed, so a
	 * failure (-ENOSPC, -EIO, ...) or a stop never leaves a partial file
	 * under a final name; the temporary file is removed. The finished set
	 * is flushed with one syncfs() at the end. `st` is filled as files are
	 * written (also on failure). Returns 0 or -errno.
	 */
	int (*generate)(const struct wl_workload *w, const char *dir,
			const struct wl_gen_opts *opts, struct wl_gen_stats *st);
};

/* A generator a job file can name with `gen = NAME`. */
struct wl_gen_entry {
	const struct wl_gen_ops *ops;   /* NAME is ops->layout */
	/* the image draw it uses (NULL: it writes no images) */
	void (*image_spec)(uint64_t seed, uint64_t index,
			   struct wl_image_spec *spec);
	int format;                     /* enum wl_format it writes */
	bool needs_sizes;               /* draws file sizes from the
	                                   workload's mean_file_bytes (and
	                                   sd_file_bytes) */
	uint32_t max_side, max_channels; /* cosmoflow records: the largest
	                                   shape it writes (0: any) */
};

/*
 * The generator named NAME ("imagefolder-jpeg", "tfrecord-jpeg", ...), or
 * NULL when there is none of that name. The names are one table in
 * gen/wl_gens.c. Any thread.
 */
const struct wl_gen_entry *wl_gen_find(const char *name);

/* The generator names, separated by ", ", into BUF (always NUL-terminated
 * when LEN > 0). Returns the length the full list needs (like snprintf). */
size_t wl_gen_names(char *buf, size_t len);

#endif /* FEEDRATE_FMT_GEN_H */
