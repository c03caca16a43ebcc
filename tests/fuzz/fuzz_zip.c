/*
 * fuzz_zip.c - libFuzzer target for the zip reader of .npz files: the
 * end records, the central directory walk and the member lookup
 * (wl_zip_find), then the member opened as a volume.
 *
 * Input: byte 0 picks the key (none, "x", "y", "x.npy"); the rest,
 * copied to a buffer of its exact size, is the file. Checks: the answer
 * is 0 or one of the documented codes with the fault that goes with it
 * and an offset inside the bytes; a member found lies inside the bytes
 * (its name, and its data before the central directory), has the name
 * asked for, and a STORED one has csize == usize; its .npy header parses
 * (the CRC is not in the way here) or fails with a .npy fault; wl_vol_open
 * (inflate capped at 1 MiB) answers a code of the same kinds; a second
 * lookup answers the same.
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
	case WL_VF_NOT_NUMPY:
	case WL_VF_ZIP_NO_MEMBER: return -AUG_ENOTJPEG;
	case WL_VF_NPY_VERSION:
	case WL_VF_NPY_DTYPE:
	case WL_VF_NPY_FORTRAN:
	case WL_VF_DIMS: return -AUG_EUNSUPPORTED;
	case WL_VF_NPY_HEADER:
	case WL_VF_NPY_SHAPE:
	case WL_VF_ZIP_LOCAL:
	case WL_VF_DEFLATE:
	case WL_VF_CRC: return -AUG_ECORRUPT;
	case WL_VF_NPY_SHORT:
	case WL_VF_ZIP_EOCD:
	case WL_VF_ZIP_TRUNCATED: return -AUG_ETRUNCATED;
	case WL_VF_TOO_LARGE: return -AUG_ETOOLARGE;
	default: return 1;
	}
}

/* ZIP_CDIR and ZIP_METHOD come as CORRUPT or UNSUPPORTED (a multi-disk
 * archive is unsupported; sizes that disagree are corrupt) */
static bool fits(int r, enum wl_vol_fault f)
{
	if (f == WL_VF_ZIP_CDIR || f == WL_VF_ZIP_METHOD)
		return r == -AUG_ECORRUPT || r == -AUG_EUNSUPPORTED;
	return code_of(f) == r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { NULL, "x", "y", "x.npy" };
	const char *key;
	struct wl_zip_member m, m2;
	struct wl_vol_err e;
	struct wl_vol_reader *v;
	struct wl_vol_array a;
	uint8_t *p;
	size_t n;
	int r;

	if (size < 1)
		return 0;
	key = keys[data[0] & 3];
	n = size - 1;
	p = malloc(n ? n : 1);
	if (!p)
		return 0;
	memcpy(p, data + 1, n);
	r = wl_zip_find(p, n, key, &m, &e);
	if (r) {
		if (!fits(r, e.fault) || e.off > n)
			abort();
	} else {
		struct wl_npy h;

		if (m.name < p || m.name_len > n ||
		    (size_t)(m.name - p) > n - m.name_len ||
		    m.data_off > n || m.csize > n - m.data_off ||
		    m.header_off >= m.data_off ||
		    (m.method != 0 && m.method != 8) ||
		    (m.method == 0 && m.csize != m.usize))
			abort();
		/* KEY given: exactly KEY.npy (or KEY, ending in .npy) */
		if (key && (m.name_len != 5 || m.name[0] != key[0] ||
			    memcmp(m.name + 1, ".npy", 4)))
			abort();
		if (m.name_len < 4 || memcmp(m.name + m.name_len - 4, ".npy",
					     4))
			abort();
		if (m.method == 0) {
			r = wl_npy_parse(p + m.data_off, (size_t)m.usize, &h,
					  &e);
			if (r && (!fits(r, e.fault) || e.off > m.usize))
				abort();
		}
	}
	r = wl_zip_find(p, n, key, &m, NULL);
	if (wl_zip_find(p, n, key, &m2, NULL) != r ||
	    (!r && memcmp(&m, &m2, sizeof(m))))
		abort();

	if (wl_vol_reader_create(1u << 20, &v))
		abort();
	r = wl_vol_open(v, p, n, key, &a, &e);
	if (r && (!fits(r, e.fault) || e.off > n))
		abort();
	wl_vol_reader_destroy(v);
	free(p);
	return 0;
}
