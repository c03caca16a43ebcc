/*
 * aug_gpudec.c - the host's share of a GPU JPEG decode (DALI's "mixed"
 * decoder): header parse, the crop and flip drawn per sample, and the
 * payload staged for the GPU (compressed bytes for a hardware decoder,
 * entropy-decoded coefficients for the hybrid path). augment.h says
 * which file takes which path and what the payload holds.
 *
 * Threads: everything here works on the caller's decoder, one thread at
 * a time per decoder; nothing is shared.
 */
#include <errno.h>
#include <string.h>

#include "aug_internal.h"

const char *aug_gd_path_name(enum aug_gd_path p)
{
	switch (p) {
	case AUG_GD_HW: return "hw";
	case AUG_GD_HYBRID: return "hybrid";
	case AUG_GD_HYBRID_PROGRESSIVE: return "hybrid_progressive";
	case AUG_GD_HYBRID_CMYK: return "hybrid_cmyk";
	default: return "?";
	}
}

const char *aug_gd_subsamp_name(enum aug_gd_subsamp s)
{
	static const char *const names[] = {
		"4:4:4", "4:2:2", "4:2:0", "4:4:0", "4:1:1", "4:1:0", "gray",
		"other",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] :
	       "other";
}

/* The subsampling of a 1- or 3-component file from its factors. */
static enum aug_gd_subsamp gd_subsamp(const struct aug_image_info *in)
{
	unsigned h, v;

	if (in->components == 1)
		return AUG_GD_SS_GRAY;
	if (in->components != 3 || in->h_samp[1] != 1 || in->v_samp[1] != 1 ||
	    in->h_samp[2] != 1 || in->v_samp[2] != 1)
		return AUG_GD_SS_OTHER;
	h = in->h_samp[0];
	v = in->v_samp[0];
	if (h == 1 && v == 1)
		return AUG_GD_SS_444;
	if (h == 2 && v == 1)
		return AUG_GD_SS_422;
	if (h == 2 && v == 2)
		return AUG_GD_SS_420;
	if (h == 1 && v == 2)
		return AUG_GD_SS_440;
	if (h == 4 && v == 1)
		return AUG_GD_SS_411;
	if (h == 4 && v == 2)
		return AUG_GD_SS_410;
	return AUG_GD_SS_OTHER;
}

int aug_gd_stage(struct aug_decoder *d, const void *buf, size_t len,
		 bool in_place, enum aug_gd_mode mode, const struct aug_rrc_opts *rrc,
		 double flip_p, uint64_t seed, uint64_t epoch, uint64_t id,
		 aug_gd_alloc_fn alloc, void *alloc_arg,
		 struct aug_gd_desc *desc, bool *png,
		 struct aug_gd_stats *st)
{
	struct aug_gd_stats s = { 0 };
	struct aug_image_info info;
	struct aug_rng rng;
	uint64_t t0 = aug_now_ns(), t1;
	bool cmyk;
	int err;

	memset(desc, 0, sizeof(*desc));
	*png = false;
	err = aug_decoder_open(d, buf, len, &info);
	if (!err && info.format == AUG_FMT_PNG) {
		/* nvJPEG and NVJPG take JPEG only */
		aug_decoder_close(d);
		*png = true;
		err = -AUG_EUNSUPPORTED;
	}
	if (err)
		goto out;
	desc->magic = AUG_GD_MAGIC;
	desc->components = (uint8_t)info.components;
	desc->width = info.width;
	desc->height = info.height;
	desc->subsamp = (uint8_t)gd_subsamp(&info);
	memcpy(desc->h_samp, info.h_samp, sizeof(desc->h_samp));
	memcpy(desc->v_samp, info.v_samp, sizeof(desc->v_samp));
	cmyk = info.colorspace == AUG_CS_CMYK ||
	       info.colorspace == AUG_CS_YCCK;
	desc->flags = (uint8_t)((info.progressive ? AUG_GD_PROGRESSIVE : 0) |
				(cmyk ? AUG_GD_CMYK : 0));
	aug_rng_seed(&rng, seed, epoch, id);
	aug_rrc_params(rrc, info.width, info.height, &rng, &desc->crop);
	if (aug_rng_uniform(&rng) < flip_p)
		desc->flags |= AUG_GD_FLIP;
	if (mode == AUG_GD_MODE_HYBRID)
		desc->path = AUG_GD_HYBRID;
	else if (info.progressive)
		desc->path = AUG_GD_HYBRID_PROGRESSIVE;
	else if (cmyk)
		desc->path = AUG_GD_HYBRID_CMYK;
	else
		desc->path = AUG_GD_HW;
	t1 = aug_now_ns();
	s.parse_ns = t1 - t0;
	if (desc->path == AUG_GD_HW) {
		const uint8_t *p = buf;

		aug_decoder_close(d);
		if (!in_place) {
			uint8_t *q = alloc(alloc_arg, len);

			if (!q) {
				err = -ENOBUFS;
				goto out;
			}
			memcpy(q, buf, len);
			p = q;
		}
		desc->payload = p;
		desc->payload_bytes = len;
		s.stage_ns = aug_now_ns() - t1;
	} else {
		err = aug_decoder_read_coefs(d, alloc, alloc_arg, desc,
					     &s.entropy_ns);
		t0 = aug_now_ns();
		s.stage_ns = t0 - t1 > s.entropy_ns ?
			     t0 - t1 - s.entropy_ns : 0;
	}
out:
	if (err)
		desc->payload = NULL;
	if (st)
		*st = s;
	return err;
}
