/*
 * wl_gens.c - the generators a job file can name (`gen = NAME`): one
 * table, name -> ops (and the image draw for image generators). A new
 * layout is one row here and its ops in the file that writes it.
 */
#include <stdio.h>
#include <string.h>

#include "gen_internal.h"

/*
 * ImageNet-statistics JPEGs as TFRecord shards of tf.train.Example (the
 * layout of MLPerf Storage's resnet50), with the shard writer's defaults.
 */
static int gen_tfrecord_jpeg(const struct wl_workload *w, const char *dir,
			     const struct wl_gen_opts *o,
			     struct wl_gen_stats *st)
{
	const struct wl_shard_opts so = { .format = WL_FORMAT_TFRECORD };
	struct wl_shard_stats sst;

	return wl_gen_shards(w, dir, o, &so, st, &sst);
}

static const struct wl_gen_ops gen_tfrecord = {
	.layout = "tfrecord-jpeg",
	.generate = gen_tfrecord_jpeg,
};

/* Named by each ops' layout. */
static const struct wl_gen_entry gens[] = {
	{ &wl_gen_imagefolder, wl_imagenet_spec, WL_FORMAT_FOLDER },
	{ &gen_tfrecord, wl_imagenet_spec, WL_FORMAT_TFRECORD },
	{ &wl_gen_npy_volumes, NULL, WL_FORMAT_FOLDER, true, 0, 0 },
	{ &wl_gen_npz_volumes, NULL, WL_FORMAT_FOLDER, true, 0, 0 },
	/* gen_volumes.c's bounds: sides up to 4096, at most 4 channels */
	{ &wl_gen_cosmoflow, NULL, WL_FORMAT_TFRECORD, true, 4096, 4 },
	{ &wl_gen_tokens, NULL, WL_FORMAT_TOKENS },
};

#define NGENS (sizeof(gens) / sizeof(gens[0]))

const struct wl_gen_entry *wl_gen_find(const char *name)
{
	for (size_t i = 0; name && i < NGENS; i++)
		if (!strcmp(gens[i].ops->layout, name))
			return &gens[i];
	return NULL;
}

size_t wl_gen_names(char *buf, size_t len)
{
	size_t need = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < NGENS; i++) {
		const int n = snprintf(len > need ? buf + need : NULL,
				       len > need ? len - need : 0, "%s%s",
				       i ? ", " : "", gens[i].ops->layout);

		if (n > 0)
			need += (size_t)n;
	}
	return need;
}
