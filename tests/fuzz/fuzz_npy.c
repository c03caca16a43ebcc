/*
 * fuzz_npy.c - libFuzzer target for the .npy reader: the header
 * (wl_npy_parse) and, where it opens as a volume, a crop of it.
 *
 * Input: byte 0 picks the crop (sides 1..8 from its bits, flips), the
 * rest, copied to a buffer of its exact size, is the file. Checks: the
 * answer is 0 or one of the documented codes with the fault that goes
 * with it and an offset inside the bytes; on success the data lies
 * inside them and the shape gives its size; a second parse answers the
 * same; a crop of an opened volume reads nothing outside the bytes
 * (ASan) and fills the output.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "augment.h"
#include "fmt_npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int code_of(enum wl_vol_fault f)
{
	switch (f) {
	case WL_VF_NOT_NUMPY: return -AUG_ENOTJPEG;
	case WL_VF_NPY_VERSION:
	case WL_VF_NPY_DTYPE:
	case WL_VF_NPY_FORTRAN:
	case WL_VF_DIMS: return -AUG_EUNSUPPORTED;
	case WL_VF_NPY_HEADER:
	case WL_VF_NPY_SHAPE: return -AUG_ECORRUPT;
	case WL_VF_NPY_SHORT: return -AUG_ETRUNCATED;
	default: return 1;      /* not a fault of a .npy */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wl_npy h, h2;
	struct wl_vol_err e;
	struct wl_vol_reader *rd;
	struct aug_vol *v;
	struct wl_vol_array a;
	uint8_t *p;
	size_t n;
	int r;

	if (size < 1)
		return 0;
	n = size - 1;
	p = malloc(n ? n : 1);
	if (!p)
		return 0;
	memcpy(p, data + 1, n);
	r = wl_npy_parse(p, n, &h, &e);
	if (r) {
		if (code_of(e.fault) != r || e.off > n)
			abort();
	} else {
		uint64_t bytes = h.itemsize;

		if (h.version < 1 || h.version > 3 ||
		    h.ndim > WL_NPY_MAX_DIMS || h.data_off > n ||
		    h.data_bytes > n - h.data_off)
			abort();
		for (unsigned i = 0; i < h.ndim; i++)
			bytes *= h.shape[i];
		if (bytes != h.data_bytes)
			abort();
	}
	if (wl_npy_parse(p, n, &h2, NULL) != r ||
	    (!r && memcmp(&h, &h2, sizeof(h))))
		abort();

	if (r == -AUG_ENOTJPEG) {       /* not an .npy (a zip is fuzz_zip's) */
		free(p);
		return 0;
	}
	if (wl_vol_reader_create(1u << 20, &rd) || aug_vol_create(&v))
		abort();
	r = wl_vol_open(rd, p, n, NULL, &a, &e);
	if (!r) {
		const uint32_t size3[3] = { 1u + (data[0] & 7),
					    1u + (data[0] >> 3 & 7), 4 };
		struct aug_vol_crop c;
		float out[8 * 8 * 4];

		aug_vol_crop_draw(a.arr.dims, size3, data[0] & 0x40, data[0], 0,
				  n, &c);
		memset(out, 0xff, sizeof(out));
		if (aug_vol_crop_f32(v, &a.arr, &c, out, NULL))
			abort();
		for (size_t i = 0; i < (size_t)size3[0] * size3[1] * 4; i++) {
			uint32_t bits;

			memcpy(&bits, &out[i], 4);
			if (bits == 0xffffffffu && a.npy.dtype != AUG_VOL_F32)
				abort();        /* a voxel left unwritten */
		}
	} else if (code_of(e.fault) != r) {
		abort();
	}
	aug_vol_destroy(v);
	wl_vol_reader_destroy(rd);
	free(p);
	return 0;
}
