/*
 * gen_internal.h - declarations shared between gen/ files only: the
 * generators' ops tables (named by gen/wl_gens.c), the image worker pool
 * and where it puts images.
 */
#ifndef FEEDRATE_GEN_INTERNAL_H
#define FEEDRATE_GEN_INTERNAL_H

#include "gen_write.h"
#include "workloads.h"

/* The ImageFolder JPEG generator (gen_images.c). */
extern const struct wl_gen_ops wl_gen_imagefolder;

/* The token stream generator (gen_tokens.c): Megatron .idx/.bin pairs;
 * tokens.h's wl_gen_tokens_write for .bin.zst. */
extern const struct wl_gen_ops wl_gen_tokens;

/*
 * The 3-D generators (gen_volumes.c), sizes from the workload's
 * mean_file_bytes and sd_file_bytes (a normal truncated at the smallest
 * file that holds a 128^3 crop), content a CT-like phantom:
 *   npy_volumes  case_NNNNN_x.npy: f32 (D, 256, 256), as numpy.save writes
 *   npz_volumes  img_N_of_M.npz: x.npy u8 (256, 256, n) and y.npy (its
 *                label mask, u8, same shape), STORED, as numpy.savez
 *   cosmoflow    img_N_of_M.tfrecord: one tf.train.Example per file, "x"
 *                int16 of xp.cosmo_shape (a density field's counts) and
 *                "y" 4 floats
 */
extern const struct wl_gen_ops wl_gen_npy_volumes;
extern const struct wl_gen_ops wl_gen_npz_volumes;
extern const struct wl_gen_ops wl_gen_cosmoflow;

/*
 * 0 when DIR is an empty folder (creating it when absent), else -errno:
 * -ENOTEMPTY, -ENOTDIR, or what mkdir/opendir said.
 */
int wl_gen_dir_prepare(const char *dir);

/* Where the generator's images go: ImageFolder files or shards. */
struct wl_gen_sink {
	/* DIR is ready (empty) and open as DFD; the set has NCLS classes
	 * (image i is in class i % NCLS). 0 or -errno. */
	int (*open)(void *arg, int dfd, uint32_t ncls);
	/* Image I, encoded in BUF: called in index order, one call at a
	 * time (from whichever worker's turn it is). 0 or -errno. */
	int (*put)(void *arg, uint64_t i, const struct wl_image_spec *spec,
		   const struct aug_membuf *buf);
	/* The run ended with RC (0, -EINTR, -errno) after a successful
	 * open: finish or drop what is open, flush; returns the run's final
	 * result. */
	int (*close)(void *arg, int rc);
	void *arg;
};

/*
 * The generator's worker pool (gen_images.c): prepares DIR (empty or
 * new), opens SINK on it and hands it the images O asks for in index
 * order; fills ST as images are put. Returns 0 or -errno (-EINTR after a
 * stop request); the contract of wl_gen_ops.generate otherwise.
 */
int wl_gen_images_run(const struct wl_workload *w, const char *dir,
		      const struct wl_gen_opts *o, struct wl_gen_stats *st,
		      const struct wl_gen_sink *sink);

#endif /* FEEDRATE_GEN_INTERNAL_H */
