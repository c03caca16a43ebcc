/*
 * fuzz_protobuf.c - libFuzzer target for the tf.train.Example reader
 * (wl_pb_example_find). The input, copied to a buffer of its exact size,
 * is the serialized Example. Checks: the answer is 0 with a non-empty
 * image inside the input, -WL_EBADREC or -WL_ENOIMAGE; a second call
 * answers the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_internal.h"
#include "fuzz_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *p = fz_copy(data, size);
	struct wl_sample_view v, w;
	int r = wl_pb_example_find(p, size, &v);

	if (r && r != -WL_EBADREC && r != -WL_ENOIMAGE)
		abort();
	fz_view_check(r, p, size, &v);
	if (r && (v.image || v.has_label))
		abort();        /* nothing half-filled on an error */
	if (v.image_kind != WL_IMAGE_UNKNOWN && v.image_kind != WL_IMAGE_JPEG &&
	    v.image_kind != WL_IMAGE_PNG && v.image_kind != WL_IMAGE_WEBP)
		abort();
	if (wl_pb_example_find(p, size, &w) != r ||
	    memcmp(&v, &w, sizeof(v)))
		abort();
	free(p);
	return 0;
}
