/*
 * gen_write.h - gen/'s public header: the dataset writers a command calls
 * by name (shards from a synthetic set or from a user's ImageFolder, token
 * streams) and the image synthesiser. Each writes through formats/ (the
 * shard writer of fmt_write.h, the token formats of tokens.h); a
 * workload's own generator is reached through its wl_gen_ops (fmt_gen.h).
 */
#ifndef FEEDRATE_GEN_WRITE_H
#define FEEDRATE_GEN_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt_write.h"
#include "workloads.h"

/*
 * Generates workload W's synthetic images as O asks (wl_gen_ops.generate's
 * contract: DIR empty or new, the same images for the same seed whatever
 * O->jobs) into shards of SO in DIR: sample i has the key
 * "<class>/<class>_<n>" (the ImageFolder file's path without .JPEG) and
 * label i % classes. ST counts the images handed to the shards, SST the
 * shards complete. A stop request completes the open shard. Returns 0,
 * -ENOTSUP (W has no image generator) or -errno (the failed file's path
 * in O->err_path).
 */
int wl_gen_shards(const struct wl_workload *w, const char *dir,
		  const struct wl_gen_opts *o, const struct wl_shard_opts *so,
		  struct wl_gen_stats *st, struct wl_shard_stats *sst);

/*
 * Converts the ImageFolder SRC into shards of SO in DIR (empty or new; it
 * must not be SRC or inside it: -EINVAL). Classes are SRC's folders
 * sorted bytewise, as torchvision's find_classes sorts them, and a file's
 * label is its class folder's index; the files come in the walk's order
 * (storage's stg_dataset_scan: bytewise within a folder), a file's key is
 * its path under SRC without the extension. Only .jpg, .jpeg, .png and
 * .webp files (any case) in class folders are taken, byte for byte; SRC
 * is only read. O gives jobs (parallel readers; the output does not
 * depend on them), progress, stop and err_path; its size and files are
 * ignored. ST: files (samples) and bytes (image bytes) handed to the
 * shards, their targets, classes. Returns 0, -ENODATA (no image found),
 * or -errno (the failed path in O->err_path).
 */
int wl_shards_from_folder(const char *src, const char *dir,
			  const struct wl_gen_opts *o,
			  const struct wl_shard_opts *so,
			  struct wl_gen_stats *st, struct wl_shard_stats *sst);

/*
 * 1 when PATH (which need not exist yet) is the folder DIR or lies inside
 * it, 0 when not, -errno when DIR cannot be stat'ed. Compared by device
 * and inode along PATH's resolved ancestors, so "..", symlinked parents
 * and bind mounts are seen through.
 */
int wl_path_inside(const char *path, const char *dir);

/* ---- the generator (gen_tokens.c) ---- */

/*
 * Write W's synthetic token streams into DIR (empty or new; the contract
 * of wl_gen_ops.generate): files tokens-00000.bin with their Megatron
 * .idx (uint16, GPT-2's vocabulary, documents ending with EOD), or with
 * ZSTD tokens-00000.bin.zst (the same stream, no .idx: a flat uint16
 * nanoGPT stream compressed at LEVEL, 0: 3) until the files on disk total
 * O->size_bytes (or O->files files). Deterministic in O->seed, whatever
 * O->jobs. Returns 0 or -errno (the failed path in O->err_path).
 */
int wl_gen_tokens_write(const struct wl_workload *w, const char *dir,
			const struct wl_gen_opts *o, bool zstd, int level,
			struct wl_gen_stats *st);

/* ---- the image synthesiser (used by the imagefolder generator) ---- */

/* Largest image side the synthesiser renders. */
#define WL_SYNTH_MAX_SIDE 4096u

struct wl_synth;

/*
 * Creates a renderer with buffers for images up to max_w x max_h
 * (<= WL_SYNTH_MAX_SIDE). Returns NULL when out of memory. One renderer
 * per thread: it holds scratch buffers.
 */
struct wl_synth *wl_synth_create(uint32_t max_w, uint32_t max_h);

/* Frees a renderer; accepts NULL. */
void wl_synth_destroy(struct wl_synth *s);

/*
 * Renders the picture `spec` describes: a natural-looking scene (1/f
 * textures, shaded regions, occluding shapes with soft edges, correlated
 * colour), deterministic in spec->content_seed. On success *pixels points
 * to `height` rows `*stride` bytes apart in spec->fmt, valid until the
 * next call on `s`. Returns 0, or -EINVAL for a size beyond the renderer.
 */
int wl_synth_render(struct wl_synth *s, const struct wl_image_spec *spec,
		    const uint8_t **pixels, size_t *stride);

/*
 * Renders and encodes `spec` into `out` (see aug_jpeg_encode()).
 * Returns 0 or -errno.
 */
int wl_synth_jpeg(struct wl_synth *s, const struct wl_image_spec *spec,
		  struct aug_membuf *out);

/* ---- one `feedrate gen` request (gen_request.c) ---- */

/* gen --jobs with --from: readers (a network disk wants requests in
 * flight more than CPUs). */
#define WL_GEN_FROM_JOBS 8u

/* What gen is asked for: the options as parsed, the workload resolved. */
struct wl_gen_request {
	const struct wl_workload *wl;
	const char *dir, *from;      /* DIR; --from SRC or NULL */
	struct wl_gen_opts o;
	struct wl_shard_opts so;     /* format WL_FORMAT_FOLDER: files */
	int compression;             /* --compression: 0 none, 1 zstd */
	bool have_size, have_files, have_level, have_format;
};

/* What a request writes: shards, token files, ImageFolder images or the
 * workload's own generator's files. */
enum wl_gen_kind {
	WL_GEN_SHARDS, WL_GEN_TOKENS, WL_GEN_IMAGES, WL_GEN_FILES
};

/*
 * Checks R's options against each other and against the format rows
 * (formats.h: a shard format is one the writer writes, compression one
 * the row compresses, --shard-size under the row's limit), then sets the
 * format an image workload is written as when --format was not given
 * (its job file's format, else its generator's, else folder) and the
 * jobs when --jobs was not given (--from: WL_GEN_FROM_JOBS, else the
 * CPUs this process may use, at most WL_GEN_MAX_JOBS). R->wl may
 * be NULL for the checks that need no workload (then the format is left).
 * Returns 0, or -EINVAL with one line for the user in WHY (CAP bytes).
 */
int wl_gen_request_check(struct wl_gen_request *r, char *why, size_t cap);

/* What R writes, once checked; the generator of WL_GEN_IMAGES and
 * WL_GEN_FILES in *GEN (NULL: the workload has none). */
enum wl_gen_kind wl_gen_request_kind(const struct wl_gen_request *r,
				     const struct wl_gen_ops **gen);

/*
 * --from: 0 when SRC is a folder and DIR is neither SRC nor inside it;
 * -EEXIST when DIR is inside SRC; else -errno with *ON_SRC saying whether
 * SRC (true) or DIR (false) could not be looked at.
 */
int wl_gen_from_check(const struct wl_gen_request *r, bool *on_src);

/* Runs R (checked) as its kind says: ST, and SST for shards, filled as
 * the files are written. Returns 0, -ENOTSUP (no generator to write
 * with) or the writer's -errno (its path in R->o.err_path). */
int wl_gen_request_run(const struct wl_gen_request *r,
		       struct wl_gen_stats *st, struct wl_shard_stats *sst);

#endif /* FEEDRATE_GEN_WRITE_H */
