/*
 * gen_request.c - one `feedrate gen` request: its options checked against
 * the format rows (formats.c states what each format can do: nothing here
 * asks a format's name), the format an image workload is written as, and
 * the writer that runs it. cli/cmd_gen.c parses the options and prints;
 * the writers are gen_images.c, gen_shards.c, gen_tokens.c and the
 * workload's own generator.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "gen_internal.h"

static int refuse(char *why, size_t cap, const char *msg)
{
	snprintf(why, cap, "%s", msg);
	return -EINVAL;
}

/* A token workload: its own files (.idx/.bin, or .bin.zst with
 * --compression zstd), not images. */
static bool tokens_of(const struct wl_gen_request *r)
{
	return r->wl && wl_format_can((enum wl_format)r->wl->format,
				      WL_CAP_TOKENS);
}

/* The options among themselves. */
static int check_opts(const struct wl_gen_request *r, char *why, size_t cap)
{
	const enum wl_format f = r->so.format;
	const struct wl_format_row *row = wl_format_row(f);
	const bool writes = wl_format_can(f, WL_CAP_WRITE);

	if (r->from && !writes)
		return refuse(why, cap, "--from needs --format wds, mds or "
			      "tfrecord (SRC is an ImageFolder already)");
	if (r->from && (r->have_size || r->have_files))
		return refuse(why, cap, "--from converts every image of SRC: "
			      "no --size or --files");
	if (!r->from && r->have_size == r->have_files)
		return refuse(why, cap, "give exactly one of --size and "
			      "--files");
	if (!writes && r->so.shard_size)
		return refuse(why, cap, "--shard-size is for --format wds, "
			      "mds, tfrecord");
	if (r->so.zstd && writes && !wl_format_can(f, WL_CAP_COMPRESS))
		return refuse(why, cap, "--compression zstd is for wds and mds "
			      "(TFRecord has no zstd form)");
	if (r->have_level && !r->so.zstd)
		return refuse(why, cap, "--zstd-level needs --compression zstd");
	if (row && row->max_shard_bytes &&
	    r->so.shard_size >= row->max_shard_bytes)
		return refuse(why, cap, "--shard-size for mds must be under 4G "
			      "(MDS offsets are 32-bit)");
	return 0;
}

int wl_gen_request_check(struct wl_gen_request *r, char *why, size_t cap)
{
	const struct wl_workload *w = r->wl;
	int rc = check_opts(r, why, cap);

	if (rc || !w)
		return rc;
	if (!wl_format_can(r->so.format, WL_CAP_WRITE) && r->so.zstd &&
	    !tokens_of(r))
		return refuse(why, cap, "--compression is for --format wds, "
			      "mds, tfrecord (and a token workload's "
			      ".bin.zst)");
	/* an image workload is written as its format says (resnet50:
	 * TFRecord shards), else as its generator writes, unless --format
	 * says otherwise; any other workload as its generator writes */
	if (!r->have_format && !r->from && w->image_spec) {
		const struct wl_gen_entry *ge = w->gen ?
			wl_gen_find(w->gen->layout) : NULL;

		r->so.format = wl_format_can(w->format, WL_CAP_WRITE) ?
			       (enum wl_format)w->format :
			       ge && wl_format_can(ge->format, WL_CAP_WRITE) ?
			       (enum wl_format)ge->format : WL_FORMAT_FOLDER;
	}
	if (!r->o.jobs)
		r->o.jobs = r->from ? WL_GEN_FROM_JOBS :
			    stg_cpus_usable() < WL_GEN_MAX_JOBS ?
			    stg_cpus_usable() : WL_GEN_MAX_JOBS;
	return 0;
}

enum wl_gen_kind wl_gen_request_kind(const struct wl_gen_request *r,
				     const struct wl_gen_ops **gen)
{
	const struct wl_gen_entry *images = wl_gen_find("imagefolder-jpeg");

	/* an image workload's folder is ImageFolder JPEGs, whatever layout
	 * its own generator writes */
	*gen = r->wl->image_spec && images ? images->ops : r->wl->gen;
	if (r->from || wl_format_can(r->so.format, WL_CAP_WRITE))
		return WL_GEN_SHARDS;
	if (tokens_of(r))
		return WL_GEN_TOKENS;
	return r->wl->image_spec ? WL_GEN_IMAGES : WL_GEN_FILES;
}

int wl_gen_from_check(const struct wl_gen_request *r, bool *on_src)
{
	struct stat st;
	int in;

	*on_src = true;
	if (stat(r->from, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	*on_src = false;
	in = wl_path_inside(r->dir, r->from);
	return in == 1 ? -EEXIST : in < 0 ? in : 0;
}

int wl_gen_request_run(const struct wl_gen_request *r,
		       struct wl_gen_stats *st, struct wl_shard_stats *sst)
{
	const struct wl_gen_ops *gen;

	switch (wl_gen_request_kind(r, &gen)) {
	case WL_GEN_SHARDS:
		return r->from ? wl_shards_from_folder(r->from, r->dir, &r->o,
						       &r->so, st, sst) :
				 wl_gen_shards(r->wl, r->dir, &r->o, &r->so,
					       st, sst);
	case WL_GEN_TOKENS:
		return wl_gen_tokens_write(r->wl, r->dir, &r->o, r->so.zstd,
					   r->so.zstd_level, st);
	default:
		return gen ? gen->generate(r->wl, r->dir, &r->o, st) :
			     -ENOTSUP;
	}
}
