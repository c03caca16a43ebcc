/*
 * optvals.c - the parsers of the option rows whose value is more than a
 * number, a word or a list of them (WL_K_CUSTOM in cli/options.c): page
 * cache sizes and shares, pipelines, prices, percentages, warm-up.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "options.h"

int cli_val_ram(const struct wl_key *row, unsigned cmd, bool list,
		const char *arg, void *dst)
{
	uint64_t *bytes = dst;

	(void)row, (void)cmd;
	if (list)
		return ms_ram_sizes_parse(arg, ((struct cli_ram_list *)dst)->v,
					  &((struct cli_ram_list *)dst)->n);
	return wl_parse_size(arg, bytes) || *bytes < MS_RAM_MIN_BYTES ?
	       -EINVAL : 0;
}

int cli_val_pipeline(const struct wl_key *row, unsigned cmd,
		     bool list, const char *arg, void *dst)
{
	struct ms_common_opts *o = dst;

	(void)row, (void)cmd;
	return ms_pipelines_parse(arg, o->pipe_buf, sizeof(o->pipe_buf),
				   o->pipes, list ? MS_PIPELINES_MAX : 1,
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
	const char *end;
	double v;

	(void)cmd, (void)list;
	if (wl_parse_number(arg, &v, &end) || (*end && strcmp(end, "%")) ||
	    !(row->gt ? v > row->lo : v >= row->lo) || !(v < row->hi))
		return -EINVAL;
	*(double *)dst = v / 100;
	return 0;
}

int cli_val_warmup(const struct wl_key *row, unsigned cmd, bool list,
		   const char *arg, void *dst)
{
	(void)row, (void)cmd, (void)list;
	return wl_parse_warmup(arg, dst);
}
