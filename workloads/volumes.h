/*
 * volumes.h - the 3-D workloads' per-sample pipelines as loader
 * transforms: volume-crop (.npy / .npz -> random crop, flips -> f32) and
 * cosmoflow (raw int16 -> log(1 + x) -> f32). wl_transform_make() builds
 * them from a workload's xform; the .npy / .npz reader is
 * formats/' (fmt_npy.h), the crop and log1p kernels augment/'s.
 */
#ifndef FEEDRATE_VOLUMES_H
#define FEEDRATE_VOLUMES_H

#include <stddef.h>

#include "workloads.h"

struct ldr_transform;

/* A crop side when the workload gives none (MLPerf unet3d: 128^3). */
#define WL_VOL_DEFAULT_CROP 128u

/*
 * The volume-crop transform from ST->xp: vol_crop (D, H, W; zeros: 128
 * each), vol_flip, key (the .npz member; "" = "x", else the first .npy).
 * A sample is a whole .npy or .npz file's bytes; its output is the crop
 * as D x H x W floats. Per worker a wl_vol_reader (inflate buffer up to
 * xp->max_inflate, 0: WL_VOL_DEFAULT_MAX_INFLATE) and an aug_vol. Step times: decode_s the open (zip
 * lookup, inflate, CRC, header), resize_s the crop and flips, other_s
 * the conversion to float and the draw; decompressed_bytes the bytes
 * inflated. Errors are wl_transform_err() of augment's codes. ST must
 * outlive every run that uses *OUT. Writes the pipeline in words to DESC
 * (DESC_LEN bytes). 0 or -EINVAL (a crop side over 4096). Any thread.
 */
int wl_volume_transform(struct wl_transform_state *st,
			struct ldr_transform *out, char *desc,
			size_t desc_len);

/*
 * The cosmoflow transform from ST->xp.cosmo_shape (D, H, W, C; zeros:
 * 70, 70, 72, 4, the MLPerf Storage record's size): a sample is the
 * bytes of the TFRecord feature holding the volume (little-endian
 * int16), its output D x H x W x C floats log(1 + x), a negative x taken
 * as 0. Bytes shorter than the shape: -LDR_ETRUNCATED; bytes past it are
 * not read. other_s holds the time. ST as above. 0 or -EINVAL (a shape
 * over 2^28 voxels). Any thread.
 */
int wl_cosmoflow_transform(struct wl_transform_state *st,
			   struct ldr_transform *out, char *desc,
			   size_t desc_len);

#endif /* FEEDRATE_VOLUMES_H */
