/*
 * report_fill.c - the reports' structs filled from measure/'s results: a
 * run's dataset, GPUs and point, a sweep's points. Plain copies and
 * words; nothing here measures, prints or decides a verdict.
 */
#include <errno.h>
#include <math.h>

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "measure.h"
#include "report.h"
#include "rpt_json.h"
#include "rpt_text.h"
#include "report_sweep.h"

/* Is KIND one of the shard formats' error keys? */
static bool fmt_kind(const char *kind)
{
	for (int e = WL_FMT_E_BASE; e < WL_FMT_E_END; e++) {
		const char *n = wl_fmt_err_name(-e);

		if (n && !strcmp(n, kind))
			return true;
	}
	return false;
}

void rpt_run_fill_listing(struct rpt_run *rr, const struct ms_dataset *md)
{
	const struct stg_dataset *ds = md->ds;

	for (int k = 0; k < STG_DS_ERR_COUNT; k++) {
		const enum stg_ds_err e = (enum stg_ds_err)k;
		const uint64_t n = stg_dataset_errors(ds, e);
		struct rpt_listing_kind *lk;

		rr->listing_errors += n;
		if (!n || rr->nlisting_kinds >= sizeof(rr->listing_kinds) /
						sizeof(rr->listing_kinds[0]))
			continue;
		lk = &rr->listing_kinds[rr->nlisting_kinds++];
		lk->kind = stg_ds_err_name(e);
		lk->count = n;
		lk->example = stg_dataset_error_example(ds, e);
	}
	/* shards that could not be counted at all (a read error, not a
	 * format error: those are failed records of the run, each epoch) */
	for (unsigned i = 0; md->shards && i < md->shards->nerr; i++) {
		const struct wl_open_error *oe = &md->shards->err[i];
		struct rpt_listing_kind *lk;

		if (fmt_kind(oe->kind))
			continue;
		rr->listing_errors += oe->count;
		if (rr->nlisting_kinds >= sizeof(rr->listing_kinds) /
					  sizeof(rr->listing_kinds[0]))
			continue;
		lk = &rr->listing_kinds[rr->nlisting_kinds++];
		lk->kind = oe->kind;
		lk->count = oe->count;
		lk->example = oe->example;
	}
}

void rpt_run_fill_result(struct rpt_run *rr, const struct ms_point_out *po,
			 const struct ldr_result *res, bool ram,
			 const struct ms_dataset *md, int stop, char *how,
			 size_t how_len, char *notes, size_t notes_len)
{
	rpt_run_fill_point(rr, po, res, ram, stg_dataset_count(md->ds), how,
			   how_len);
	rr->signal = po->rep.signal ? po->rep.signal : stop;
	rpt_prepare_fill(&rr->prepare, &po->prep.ph, md->list_s,
			 po->prep.method);
	if (po->prep.note[0])
		rpt_note(notes, notes_len, "%s", po->prep.note);
	if (po->odirect_refused)
		rpt_note(notes, notes_len, "cold: %s, so this run may not have "
			 "been cold (the hit ratio says)", po->odirect_why);
	if (po->measured && ram && res->epochs_done < 2 && !rr->signal &&
	    !res->stopped_by_max_errors)
		rpt_note(notes, notes_len, "only %llu epoch%s completed: the "
			 "hit ratio of a RAM-limited page cache settles from "
			 "the second epoch on",
			 (unsigned long long)res->epochs_done,
			 res->epochs_done == 1 ? "" : "s");
}

void rpt_run_fill_stalled(struct rpt_run *rr, const struct stg_stall *stall,
			  const struct ldr_result *partial, int held_pid,
			  char *text, size_t text_len, char *notes,
			  size_t notes_len)
{
	rpt_stall_text(stall, text, text_len);
	rr->stall = stall;
	rr->res = partial;
	rr->run_error = -ETIMEDOUT;
	rr->run_error_text = text;
	if (held_pid)
		rpt_note(notes, notes_len, "the measurement child (pid %d) "
			 "waits in the kernel on the stalled storage: it was "
			 "killed and is left to the kernel", held_pid);
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

double rpt_bytes_per_sample(uint64_t bytes, uint64_t records)
{
	return bytes && records ? (double)bytes / (double)records : 0;
}

void rpt_demand_json_extra(json_t *g, unsigned tokens_per_sample,
			   double eaten, double bytes_per_sample)
{
	if (!g)
		return;
	if (tokens_per_sample) {
		json_object_set_new(g, "tokens_per_sample",
				    json_integer(tokens_per_sample));
		json_object_set_new(g, "demand_tokens_per_s",
				    rpt_jnum(eaten * tokens_per_sample));
	}
	json_object_set_new(g, "reads_needed_bytes_per_s",
			    bytes_per_sample > 0 && eaten > 0 ?
			    rpt_jnum(eaten * bytes_per_sample) : json_null());
}

const char *rpt_demand_multi_words(const char *basis)
{
	return basis && !strcmp(basis, "measured") ?
	       "the source's measured multi-GPU figure" :
	       "a multi-GPU figure derived from a measured one";
}

size_t rpt_demand_text(char *buf, size_t len, const struct rpt_demand_words *d)
{
	const bool rate = d->basis && !strcmp(d->basis, "gpu-rate");
	const bool est = d->basis && !strcmp(d->basis, "estimate");
	char head[160], qty[224], range[96] = "", one[32], all[32], per[32];
	char tok[96] = "", need[128] = "";
	const double eaten = d->count ? d->total : d->single;
	int n;

	if (rate)
		snprintf(head, sizeof(head), "%s at the rate given with "
			 "--gpu-rate", nz(d->gpu_type));
	else
		snprintf(head, sizeof(head), "%s row (%s), %s, %s%s",
			 nz(d->gpu_type), nz(d->gpu_detail), nz(d->kind),
			 est ? "an ESTIMATE" : d->basis ? d->basis : "unknown",
			 d->default_type ? " (the default type; choose one "
			 "with --gpus NxTYPE)" : "");
	rpt_fmt_count(one, sizeof(one), d->single);
	rpt_fmt_count(all, sizeof(all), d->total);
	rpt_fmt_count(per, sizeof(per), d->count ? d->total / d->count : 0);
	if (!d->count)
		snprintf(qty, sizeof(qty), "%s samples/s per GPU (none "
			 "emulated)", one);
	else if (d->multi_measured)
		snprintf(qty, sizeof(qty), "%u x %s: %s samples/s, the "
			 "source's %s %u-GPU figure (%s per GPU)",
			 d->count, nz(d->gpu_type), all, d->basis &&
			 !strcmp(d->basis, "measured") ? "measured" :
			 "derived", d->count, per);
	else if (d->count == 1)
		snprintf(qty, sizeof(qty), "%s samples/s for 1 GPU", one);
	else
		snprintf(qty, sizeof(qty), "%u x %s = %s samples/s (%s)",
			 d->count, one, all, rate ? "count x the given rate" :
			 "no multi-GPU figure: count x per-GPU");
	if (d->range_lo > 0 && d->range_hi > d->range_lo) {
		char lo[32], hi[32];

		rpt_fmt_count(lo, sizeof(lo), d->range_lo);
		rpt_fmt_count(hi, sizeof(hi), d->range_hi);
		snprintf(range, sizeof(range), "; the source's figures give "
			 "%s-%s per GPU", lo, hi);
	}
	if (d->tokens_per_sample) {
		char t[32];

		rpt_fmt_count(t, sizeof(t), eaten * d->tokens_per_sample);
		snprintf(tok, sizeof(tok), " = %s tokens/s (%u tokens a "
			 "sample)", t, d->tokens_per_sample);
	}
	if (d->bytes_per_sample > 0 && eaten > 0) {
		char b[32], s[32];

		rpt_fmt_bytes(b, sizeof(b), eaten * d->bytes_per_sample);
		rpt_fmt_bytes(s, sizeof(s), d->bytes_per_sample);
		snprintf(need, sizeof(need), "; reads needed: %s/s (%s stored "
			 "per sample)", b, s);
	}
	n = snprintf(buf, len, "%s: %s%s%s%s; source: %s", head, qty, tok,
		     range, need, nz(d->source));
	return n > 0 ? (size_t)n : 0;
}

void rpt_vcpu_kind_text(char *buf, size_t len, enum stg_vcpu_kind kind,
			int threads_per_core)
{
	if (kind == STG_VCPU_THREAD && threads_per_core > 1)
		snprintf(buf, len, "thread (SMT siblings present: %d threads "
			 "per core)", threads_per_core);
	else if (kind == STG_VCPU_THREAD)
		snprintf(buf, len, "thread (SMT siblings present)");
	else if (kind == STG_VCPU_CORE)
		snprintf(buf, len, "core (no SMT siblings)");
	else
		snprintf(buf, len, "unknown (the CPU topology could not be "
			 "read)");
}

void rpt_ram_how(const struct ms_point_out *po, uint64_t epochs,
		 size_t files_total, char *how, size_t how_len)
{
	snprintf(how, how_len, "%.300s; page cache %.1f MB asked, cgroup "
		 "limit %.1f MB (with the run's own memory, %.1f MB%s), "
		 "%.1f MB held after the run%s; one unmeasured epoch filled "
		 "the cache, then %llu epoch%s measured%s; hit ratio %.200s",
		 po->cg_how, po->page_cache_bytes / 1e6,
		 po->cgroup_limit_bytes / 1e6, po->own_bytes / 1e6,
		 po->limit_recalibrated && po->limit_raised ? ", as "
		 "measured on a second fill epoch, given more room after "
		 "the first was killed at the limit" :
		 po->limit_recalibrated ? ", as measured on the fill epoch" :
		 po->limit_raised ? ", estimated, raised by a quarter and "
		 "64 MiB after the first fill epoch was killed at the "
		 "limit" : ", estimated", po->cache_seen_bytes / 1e6,
		 po->ram_not_limited ? ": NOT LIMITED (more than the "
		 "slack over the asked size), so the point ran warm and is not "
		 "a ram measurement" : "", (unsigned long long)epochs,
		 epochs == 1 ? "" : "s",
		 po->sample_files < files_total ? "; on an evenly spread "
		 "sample of the files, with the page cache scaled by the same "
		 "factor, so that the epochs fit in the budget" : "",
		 po->hit_src[0] ? po->hit_src : "unknown");
}

void rpt_run_fill_point(struct rpt_run *rr, const struct ms_point_out *po,
			const struct ldr_result *res, bool ram,
			size_t files_total, char *how, size_t how_len)
{
	rr->vcpus = po->cpus.count;
	rr->cpus_how = po->cpus.how;
	rr->fraction_resident = po->prep.fraction;
	rr->cpu_outside_mask_s = po->measured ? po->rep.cpu_outside_mask_s : -1;
	if (ram)
		rpt_ram_how(po, po->measured ? res->epochs_done : 0,
			    files_total, how, how_len);
	else
		snprintf(how, how_len, "%s", po->prep.how);
	rr->cache_how = how;
	rr->page_cache_bytes = ram ? po->page_cache_bytes : 0;
	rr->cgroup_limit_bytes = ram ? po->cgroup_limit_bytes : 0;
	rr->cache_seen_bytes = po->cache_seen_bytes;
	rr->ram_not_limited = po->ram_not_limited;
	rr->hit_ratio = po->hit_ratio;
	rr->hit_ratio_estimated = po->hit_estimated;
	rr->hit_ratio_source = po->hit_src;
	if (po->err) {
		rr->run_error = po->err;
		rr->run_error_text = po->err_text;
	}
	if (po->measured) {
		rr->res = res;
		rr->bottleneck = ldr_bottleneck_name(res->bottleneck);
	}
}

void rpt_point_fill(struct rpt_point *p, const struct ms_sweep_point *sp,
		    double demand_total, size_t files_total, char *how,
		    size_t how_len)
{
	const struct ms_point_out *po = &sp->out;
	const struct ldr_result *res = sp->res;

	p->vcpus = sp->vcpus;
	p->feed_vcpus = po->py.workers;  /* rpt_point_feed_vcpus reads it */
	p->cache = (__typeof__(p->cache))sp->cache;
	p->why = sp->why;
	p->ram_bytes = po->page_cache_bytes;
	p->ram_axis = sp->ram_axis;
	p->cgroup_bytes = po->cgroup_limit_bytes;
	p->cache_seen_bytes = po->cache_seen_bytes;
	p->ram_not_limited = po->ram_not_limited;
	p->fraction_resident = po->prep.fraction;
	p->hit_ratio = po->hit_ratio;
	p->hit_ratio_estimated = po->hit_estimated;
	p->sample_files = po->sample_files;
	p->sample_bytes = po->sample_bytes;
	p->au = -1;
	p->cpu_outside_mask_s = -1;
	p->odirect_refused = po->odirect_refused;
	p->reads_in_flight_max = po->reads_in_flight_max;
	p->read_latency_s = po->read_latency_s;
	p->status = sp->status == MS_SWEEP_MEASURED ? RPT_POINT_MEASURED :
		    sp->status == MS_SWEEP_FAILED ? RPT_POINT_FAILED :
		    RPT_POINT_DROPPED;
	if (p->status != RPT_POINT_MEASURED)
		return;
	p->samples_per_s = res->samples_per_s;
	p->au = demand_total > 0 ? fmin(1.0, res->samples_per_s /
					 demand_total) : -1;
	p->bottleneck = ldr_bottleneck_name(res->bottleneck);
	p->bottleneck_why = res->bottleneck_why;
	p->measured_s = res->measured_s;
	p->warmup_s = res->warmup_s;
	p->samples = res->samples;
	p->batches = res->batches;
	p->errors = res->errors;
	p->epochs_done = res->epochs_done;
	p->read_bytes_per_s = res->read_bytes_per_s;
	p->decompressed_bytes_per_s = res->measured_s > 0 ?
		(double)res->decompressed_bytes / res->measured_s : 0;
	p->files_per_s = res->measured_s > 0 ?
		(double)(res->samples + res->samples_failed) / res->measured_s :
		0;
	p->cpu_outside_mask_s = po->rep.cpu_outside_mask_s;
	p->stages.decode_s = res->steps.decode_s;
	p->stages.resize_s = res->steps.resize_s;
	p->stages.other_s = res->steps.other_s;
	p->stages.worker_cpu_s = res->worker_cpu_s;
	p->stages.reader_cpu_s = res->reader_cpu_s;
	p->stages.consumer_cpu_s = res->consumer_cpu_s;
	p->stages.process_cpu_s = res->process_cpu_s;
	p->stages.worker_busy_s = res->worker_busy_s;
	p->stages.worker_wait_s = res->worker_wait_s;
	p->backend = res->backend;
	p->series = res->series;
	p->series_len = res->series_len;
	if (sp->cache == STG_CACHE_RAM)
		rpt_ram_how(po, res->epochs_done, files_total, how, how_len);
	else
		snprintf(how, how_len, "%.500s%s%.250s", po->prep.how,
			 po->prep.note[0] ? "; " : "", po->prep.note);
	p->cache_how = how;
}

void rpt_prepare_fill(struct rpt_prepare *out, const struct ms_prep_phases *ph,
		      double list_s, const char *method)
{
	memset(out, 0, sizeof(*out));
	out->set = true;
	out->list_s = list_s;
	out->evict_s = ph->evict_s;
	out->warm_s = ph->warm_s;
	out->verify_s = ph->verify_s;
	out->files = ph->files;
	out->verify_sample = ph->verify_sample;
	out->verify_bound = ph->verify_sample ? ph->verify_bound : -1;
	out->confidence = MS_VERIFY_CONFIDENCE;
	out->listings = stg_dataset_listings();
	out->reused = ph->reused;
	out->method = method;
}

void rpt_prep_progress_line(char *buf, size_t len, const char *phase,
			    uint64_t done, uint64_t total, double elapsed_s)
{
	char d[32], t[32], r[32];
	const double rate = elapsed_s > 0 ? (double)done / elapsed_s : 0;

	rpt_fmt_count(d, sizeof(d), (double)done);
	rpt_fmt_count(t, sizeof(t), (double)total);
	rpt_fmt_count(r, sizeof(r), rate);
	snprintf(buf, len, "%s %s of %s files, %s files/s", phase, d, t, r);
}

void rpt_sweep_fill_setup(struct rpt_sweep *r,
			  const struct rpt_setup_src *in)
{
	rpt_setup_fill(&r->setup, in);
	/* a sweep counts one thread per core where none is known */
	if (r->setup.threads_per_core <= 0)
		r->setup.threads_per_core = 1;
}

void rpt_sweep_fill_reserve(struct rpt_sweep *s, const struct wl_workload *w,
			    unsigned batch, double vcpus,
			    const uint64_t *ram_given, char *how,
			    size_t how_len)
{
	const uint64_t sample = (uint64_t)w->out_channels * w->out_height *
				w->out_width * sizeof(float);

	s->reserve_vcpus_per_gpu = vcpus;
	if (ram_given) {
		s->reserve_ram_per_gpu = *ram_given;
		s->reserve_ram_how = "";
		return;
	}
	batch = batch ? batch : LDR_DEFAULT_BATCH;
	s->reserve_ram_per_gpu = jdg_reserve_ram(batch, RPT_PINNED_BATCHES,
						 sample);
	snprintf(how, how_len, "%u pinned batches of %u x %llu B + %llu GiB "
		 "for the process", RPT_PINNED_BATCHES, batch,
		 (unsigned long long)sample,
		 (unsigned long long)(RPT_RESERVE_PROCESS_BYTES >> 30));
	s->reserve_ram_how = how;
}

size_t rpt_shapes_fill(struct rpt_shape *out, size_t max,
		       const struct wl_workload *w, const struct ms_gpus *gs)
{
	const size_t n = wl_instance_count() < max ? wl_instance_count() : max;

	for (size_t i = 0; i < n; i++) {
		const struct wl_instance *in = wl_instance_at(i);
		const struct wl_demand *row = NULL;
		bool multi = false;

		/* its own GPU model's row, of the asked kind; with --gpu-rate
		 * (no row) the asked rate judges every shape of its family */
		if (gs && gs->row) {
			row = wl_demand_find(w, in->gpu_row, gs->row->kind);
			if (!row)
				row = wl_demand_find(w, in->gpu, gs->row->kind);
		}
		out[i] = (struct rpt_shape){
			.name = in->name, .cloud = in->cloud, .gpus = in->gpus,
			.gpu = in->gpu, .gpu_detail = in->gpu_detail,
			.vcpus = in->vcpus, .vcpu_kind = in->vcpu_kind,
			.vcpu_kind_source = in->vcpu_kind_source,
			.ram_gib = in->ram_gib, .recalled = in->ram_recalled,
			.demand_row = row ? row->gpu : NULL,
			.demand_total = wl_demand_total(row, in->gpus, &multi),
			.demand_basis = row ? wl_demand_basis_name(row->basis) :
					NULL,
			.demand_source = row ? row->source : NULL,
			.demand_multi_measured = multi,
		};
	}
	return n;
}

void rpt_sweep_fill_points(struct rpt_sweep *r, struct rpt_point *pts,
			   char (*how)[RPT_HOW_LEN], const struct ms_sweep *sw,
			   double demand_total, size_t files_total)
{
	r->backend = "";
	for (size_t i = 0; i < sw->npts; i++) {
		const struct ms_sweep_point *sp = &sw->pts[i];

		rpt_point_fill(&pts[i], sp, demand_total, files_total, how[i],
			       RPT_HOW_LEN);
		if (pts[i].backend && pts[i].backend[0])
			r->backend = pts[i].backend;
	}
	r->points = pts;
	r->npoints = sw->npts;
}

json_t *rpt_json_ram(uint64_t page_cache_bytes, uint64_t cgroup_limit_bytes)
{
	return json_pack("{s:I,s:o}", "page_cache_bytes",
			 (json_int_t)page_cache_bytes, "cgroup_limit_bytes",
			 cgroup_limit_bytes ? json_integer((json_int_t)
			 cgroup_limit_bytes) : json_null());
}
