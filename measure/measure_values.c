/*
 * measure_values.c - the values of measure's own that the command line
 * names: a list of pipelines, a list of page-cache sizes or shares.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "measure.h"

_Static_assert(WL_KEY_COUNTS_MAX == MS_SWEEP_MAX_VCPUS,
	       "--vcpus LIST (struct wl_key_counts) fills a sweep's counts");

int ms_pipelines_parse(const char *s, char *buf, size_t buf_len,
		       struct ms_pipeline_spec *out, unsigned max, unsigned *n)
{
	char *save = NULL, *tok;
	unsigned k = 0;

	if (!s || strlen(s) >= buf_len)
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct ms_pipeline_spec sp;

		memset(&sp, 0, sizeof(sp));
		if (k >= max || ms_pipeline_parse(tok, &sp))
			return -EINVAL;
		for (unsigned j = 0; j < k; j++)
			if (out[j].kind == sp.kind &&
			    (sp.kind != MS_PIPELINE_FILE ||
			     !strcmp(out[j].file, sp.file)))
				return -EINVAL;
		out[k++] = sp;
	}
	if (!k)
		return -EINVAL;
	*n = k;
	return 0;
}

/* "25%": a share of the dataset, more than 0 and at most 1, into *F. */
static int parse_share(char *item, double *f)
{
	const size_t len = strlen(item);
	char *end;

	item[len - 1] = '\0';
	for (const char *q = item; *q; q++)
		if (!isdigit((unsigned char)*q) && *q != '.')
			return -EINVAL;
	errno = 0;
	*f = strtod(item, &end) / 100;
	return errno || end == item || *end || !(*f > 0) || *f > 1 ?
	       -EINVAL : 0;
}

int ms_ram_sizes_parse(const char *arg, struct ms_ram_size *v, unsigned *n)
{
	const char *p = arg;

	*n = 0;
	do {
		const size_t len = strcspn(p, ",");
		struct ms_ram_size *r = &v[*n];
		char item[64];

		if (!len || len >= sizeof(item) || *n >= MS_RAM_SIZES_MAX)
			return -EINVAL;
		memcpy(item, p, len);
		item[len] = '\0';
		memset(r, 0, sizeof(*r));
		if (item[len - 1] == '%') {
			if (parse_share(item, &r->fraction))
				return -EINVAL;
		} else if (wl_parse_size(item, &r->bytes) ||
			   r->bytes < MS_RAM_MIN_BYTES) {
			return -EINVAL;
		}
		(*n)++;
		p += len;
	} while (*p++ == ',');
	return 0;
}
