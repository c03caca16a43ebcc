/*
 * report_csv.c - the CSV report of a sweep: a header line, then one row
 * per point (measured, failed or dropped) of each pipeline the sweep
 * measured (its own first, then --pipeline's others), RFC 4180 quoting
 * for text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "rpt_text.h"
#include "report_sweep.h"

/* The columns, in order; docs/report-schema.md lists them too. */
static const char csv_header[] =
	"pipeline,vcpus,cache,status,ram_bytes,page_cache_seen_bytes,"
	"samples_per_s,au,hit_ratio,"
	"hit_ratio_estimated,bottleneck,read_mb_per_s,files_per_s,"
	"cpu_ms_per_sample,measured_s,samples,errors,epochs_done,"
	"sample_files,decode_s,resize_s,other_s,worker_cpu_s,reader_cpu_s,"
	"process_cpu_s,cpu_outside_mask_s,why\n";

/* TEXT as one CSV field: quoted when it holds a comma, quote or newline. */
static void csv_text(struct rpt_buf *b, const char *text)
{
	const char *t = text ? text : "";

	if (!strpbrk(t, ",\"\r\n")) {
		rpt_buf_printf(b, "%s", t);
		return;
	}
	rpt_buf_printf(b, "\"");
	for (; *t; t++) {
		if (*t == '"')
			rpt_buf_printf(b, "\"\"");
		else
			rpt_buf_printf(b, "%c", *t);
	}
	rpt_buf_printf(b, "\"");
}

/* A number, or an empty field when unknown. */
static void csv_num(struct rpt_buf *b, double v, bool known, int prec)
{
	if (known && isfinite(v))
		rpt_buf_printf(b, "%.*f", prec, v);
	rpt_buf_printf(b, ",");
}

/* The rows of one pipeline's points (S's own, not its others'). */
static void csv_rows(struct rpt_buf *b, const struct rpt_sweep *s)
{
	const char *name = s->pipeline_name ? s->pipeline_name : "native";

	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];
		const bool m = p->status == RPT_POINT_MEASURED;

		csv_text(b, name);
		rpt_buf_printf(b, ",%u,%s,%s,", p->vcpus,
			       stg_cache_state_name(p->cache),
			       p->status == RPT_POINT_DROPPED ? "dropped" :
			       p->status == RPT_POINT_FAILED ? "failed" :
			       "measured");
		if (p->cache == STG_CACHE_RAM && p->ram_bytes)
			rpt_buf_printf(b, "%llu", (unsigned long long)
				       p->ram_bytes);
		rpt_buf_printf(b, ",");
		if (m && p->cache == STG_CACHE_RAM && p->cache_seen_bytes)
			rpt_buf_printf(b, "%llu", (unsigned long long)
				       p->cache_seen_bytes);
		rpt_buf_printf(b, ",");
		csv_num(b, p->samples_per_s, m, 2);
		csv_num(b, p->au, m && p->au >= 0, 4);
		csv_num(b, p->hit_ratio, m && p->hit_ratio >= 0, 4);
		rpt_buf_printf(b, "%s,", m ? (p->hit_ratio_estimated ? "1" :
					       "0") : "");
		if (m)
			csv_text(b, p->bottleneck);
		rpt_buf_printf(b, ",");
		csv_num(b, p->read_bytes_per_s / 1e6, m, 2);
		csv_num(b, p->files_per_s, m, 2);
		csv_num(b, rpt_point_cpu_s_per_sample(p) * 1e3, m, 4);
		csv_num(b, p->measured_s, m, 2);
		csv_num(b, (double)p->samples, m, 0);
		csv_num(b, (double)p->errors, m, 0);
		csv_num(b, (double)p->epochs_done, m, 0);
		csv_num(b, (double)p->sample_files, m, 0);
		csv_num(b, p->stages.decode_s, m, 4);
		csv_num(b, p->stages.resize_s, m, 4);
		csv_num(b, p->stages.other_s, m, 4);
		csv_num(b, p->stages.worker_cpu_s, m, 4);
		csv_num(b, p->stages.reader_cpu_s, m, 4);
		csv_num(b, p->stages.process_cpu_s, m, 4);
		csv_num(b, p->cpu_outside_mask_s,
			m && p->cpu_outside_mask_s >= 0, 3);
		csv_text(b, m ? "" : p->why);
		rpt_buf_printf(b, "\n");
	}
}

char *rpt_sweep_csv(const struct rpt_sweep *s)
{
	struct rpt_buf b;

	rpt_buf_init(&b);
	rpt_buf_printf(&b, "%s", csv_header);
	csv_rows(&b, s);
	for (size_t i = 0; i < s->nothers; i++)
		csv_rows(&b, s->others[i]);
	return rpt_buf_take(&b);
}
