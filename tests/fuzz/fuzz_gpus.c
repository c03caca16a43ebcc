/*
 * fuzz_gpus.c - libFuzzer target for the --gpus spec parser, against
 * every workload's demand table of both kinds. An accepted spec must name
 * a row and stay within WL_GPUS_MAX; the message must be a terminated
 * string.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "workloads.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct wl_workload *w;
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	for (size_t i = 0; (w = wl_at(i)); i++) {
		for (int k = WL_DEMAND_TRAIN; k <= WL_DEMAND_MLPERF; k++) {
			struct wl_gpu_spec spec;
			char why[256];
			int err;

			memset(why, 'x', sizeof(why));
			err = wl_gpu_spec_parse(w, s, (enum wl_demand_kind)k,
						&spec, why, sizeof(why));
			if (!memchr(why, '\0', sizeof(why)))
				abort();
			if (err == 0) {
				if (!spec.row || spec.count > WL_GPUS_MAX)
					abort();
			} else if (err != -EINVAL && err != -ENOENT &&
				   err != -ENODATA) {
				abort();
			}
		}
	}
	free(s);
	return 0;
}
