/*
 * optvals.c - the parsers of the option rows whose value is more than a
 * number, a word or a list of them (WL_K_CUSTOM in cli/options.c): page
 * cache sizes and shares, pipelines, prices, percentages, warm-up.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"

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

/* --ram LIST: sizes (at least MS_RAM_MIN_BYTES) or shares ("25%"), at
 * most MS_RAM_SIZES_MAX. */
static int parse_ram_list(const char *arg, struct cli_ram_list *l)
{
	const char *p = arg;

	l->n = 0;
	do {
		const size_t len = strcspn(p, ",");
		struct ms_ram_size *r = &l->v[l->n];
		char item[64];

		if (!len || len >= sizeof(item) || l->n >= MS_RAM_SIZES_MAX)
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
		l->n++;
		p += len;
	} while (*p++ == ',');
	return 0;
}

int cli_val_ram(const struct wl_key *row, unsigned cmd, bool list,
		const char *arg, void *dst)
{
	uint64_t *bytes = dst;

	(void)row;
	(void)cmd;
	if (list)
		return parse_ram_list(arg, dst);
	return wl_parse_size(arg, bytes) || *bytes < MS_RAM_MIN_BYTES ?
	       -EINVAL : 0;
}

int cli_val_pipeline(const struct wl_key *row, unsigned cmd,
		     bool list, const char *arg, void *dst)
{
	struct cli_common_opts *o = dst;

	(void)row;
	(void)cmd;
	return cli_parse_pipelines(arg, o->pipe_buf, sizeof(o->pipe_buf),
				   o->pipes, list ? CLI_PIPELINES_MAX : 1,
				   &o->npipes);
}

/* A decimal number in ROW's range into *V. */
static int parse_real_in(const struct wl_key *row, const char *s,
			 double *v)
{
	const char *end;

	if (wl_parse_number(s, v, &end) || *end ||
	    !(row->gt ? *v > row->lo : *v >= row->lo) || *v > row->hi)
		return -EINVAL;
	return 0;
}

int cli_val_price(const struct wl_key *row, unsigned cmd, bool list,
		  const char *arg, void *dst)
{
	struct cli_prices *p = dst;
	const char *eq = strrchr(arg, '=');
	double v;

	(void)list;
	if (cmd != CLI_COMPARE)
		return parse_real_in(row, arg, dst);
	if (!eq || eq == arg || parse_real_in(row, eq + 1, &v) ||
	    p->n == CLI_PRICES_MAX)
		return -EINVAL;
	p->name[p->n] = arg;
	p->usd[p->n++] = v;
	return 0;
}

int cli_val_percent(const struct wl_key *row, unsigned cmd, bool list,
		    const char *arg, void *dst)
{
	char num[64];
	size_t len = strlen(arg);
	double v;

	(void)cmd;
	(void)list;
	if (len && arg[len - 1] == '%')
		len--;
	if (len >= sizeof(num))
		return -EINVAL;
	memcpy(num, arg, len);
	num[len] = '\0';
	if (parse_real_in(row, num, &v) || !(v < row->hi))
		return -EINVAL;
	*(double *)dst = v / 100;
	return 0;
}

int cli_val_warmup(const struct wl_key *row, unsigned cmd, bool list,
		   const char *arg, void *dst)
{
	(void)row;
	(void)cmd;
	(void)list;
	return wl_parse_warmup(arg, dst);
}
