/*
 * report_ckpt.c - the report of `feedrate ckpt`: save and restore
 * bandwidth and times, the spread over shards, the storage they were on,
 * and what those times mean for a training job (the share of time spent
 * saving at an interval, the interval that keeps it under a budget, the
 * work a spot interruption loses); text and JSON, and a ckpt report read
 * back for `feedrate compare`.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "measure.h"
#include "report.h"
#include "rpt_html.h"
#include "rpt_json.h"
#include "report_ckpt.h"
#include "rpt_text.h"
#include "report_sweep.h"

/* ---- the arithmetic ---- */

double rpt_ckpt_share(double save_s, double interval_s)
{
	return jdg_ckpt_share(save_s, interval_s);
}

double rpt_ckpt_min_interval(double save_s, double budget)
{
	return jdg_ckpt_min_interval(save_s, budget);
}

double rpt_ckpt_lost(double save_s, double interval_s)
{
	return jdg_ckpt_lost(save_s, interval_s);
}

void rpt_ckpt_training(const struct rpt_ckpt_training_in *in,
		       struct rpt_ckpt_training *out)
{
	jdg_ckpt_judge(in, out);
}

/* ---- text ---- */

static void print_phase(FILE *f, const char *name,
			const struct ms_ckpt_phase *p)
{
	char b[32], r[32], t[32], lo[32], med[32], hi[32];

	if (!p->done) {
		fprintf(f, "  %-8s not completed\n", name);
		return;
	}
	rpt_fmt_bytes(b, sizeof(b), (double)p->bytes);
	rpt_fmt_bytes(r, sizeof(r), p->bytes_per_s);
	rpt_fmt_dur(t, sizeof(t), p->seconds);
	rpt_fmt_dur(lo, sizeof(lo), p->shard_min_s);
	rpt_fmt_dur(med, sizeof(med), p->shard_median_s);
	rpt_fmt_dur(hi, sizeof(hi), p->shard_max_s);
	fprintf(f, "  %-8s %s in %s: %s/s\n", name, b, t, r);
	fprintf(f, "  %-8s per shard %s / %s / %s (fastest / median / "
		"slowest)\n", "", lo, med, hi);
}

static void print_training(FILE *f, const struct rpt_ckpt *r)
{
	const struct rpt_ckpt_training *t = &r->t;
	char a[32], b[32], c[32];

	fprintf(f, "\nWhat it means for training (the GPUs wait while a "
		"checkpoint is saved)\n");
	rpt_fmt_dur(a, sizeof(a), r->tin.save_s);
	if (r->tin.interval_s > 0) {
		rpt_fmt_dur(b, sizeof(b), r->tin.interval_s);
		rpt_fmt_dur(c, sizeof(c), t->lost_at_interval_s);
		fprintf(f, "  a save every %s of training costs %.1f %% of the "
			"time; a spot\n  interruption then loses %s of "
			"training on average\n", b,
			100 * t->share_at_interval, c);
	}
	rpt_fmt_dur(b, sizeof(b), t->min_interval_s);
	fprintf(f, "  to keep saving under %.1f %% of the time, save no more "
		"often than\n  every %s of training", 100 * t->budget, b);
	if (t->min_interval_steps >= 0)
		fprintf(f, " (%.0f steps of %.3g s)", t->min_interval_steps,
			r->tin.step_s);
	fprintf(f, "\n");
	rpt_fmt_dur(c, sizeof(c), t->lost_s);
	rpt_fmt_dur(b, sizeof(b), r->tin.restore_s);
	fprintf(f, "  on spot, at that interval an interruption loses %s of "
		"training on\n  average (any moment equally likely), plus %s "
		"to restore\n", c, b);
	if (t->epoch_s > 0) {
		rpt_fmt_dur(b, sizeof(b), t->epoch_s);
		fprintf(f, "  one epoch of %.0f samples at %.0f samples/s takes "
			"%s; one save per epoch\n  costs %.1f %% of the time\n",
			r->tin.epoch_samples, r->tin.demand_total, b,
			100 * t->share_per_epoch);
	}
	if (r->tin.step_s <= 0 && t->epoch_s < 0)
		fprintf(f, "  (--step-time, or --epoch-samples with the GPUs' "
			"demand, puts this in steps or epochs)\n");
}

const char *rpt_ckpt_bpp_meaning(double bytes_per_param,
				 const char **detail)
{
	static const struct {
		double bpp;
		const char *what, *detail;
	} known[] = {
		{ 14, "a mixed-precision Adam checkpoint",
		  "bf16/fp16 weights 2 + fp32 master 4 + two fp32 moments 8" },
		{ 16, "mixed-precision Adam's training memory, not a checkpoint",
		  "the checkpoint's 14 + fp16 gradients 2, which are not saved" },
		{ 12, "fp32 weights and Adam moments",
		  "fp32 weights 4 + two fp32 moments 8" },
		{ 4, "fp32 weights only", "fp32 weights 4, no optimizer state" },
		{ 2, "bf16/fp16 weights only",
		  "bf16/fp16 weights 2, no optimizer state" },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (bytes_per_param == known[i].bpp) {
			if (detail)
				*detail = known[i].detail;
			return known[i].what;
		}
	if (detail)
		*detail = "";
	return "as given with --bytes-per-param";
}

void rpt_ckpt_print(FILE *f, const struct rpt_ckpt *r)
{
	const struct ms_ckpt_result *res = r->res;
	char *dir = rpt_path_text(r->setup.dataset, strlen(r->setup.dataset));
	char b[32], sb[32];

	rpt_fmt_bytes(b, sizeof(b), (double)res->bytes);
	rpt_fmt_bytes(sb, sizeof(sb), (double)res->shard_bytes);
	fprintf(f, "feedrate ckpt: %s checkpoint in %u shard%s on %s\n", b,
		res->shards, res->shards == 1 ? "" : "s", dir ? dir : "?");
	if (r->params > 0) {
		const char *detail;
		const char *what = rpt_ckpt_bpp_meaning(r->bytes_per_param,
							&detail);

		fprintf(f, "  model    %.4g%s parameters x %.4g bytes: %s\n",
			r->params >= 1e9 ? r->params / 1e9 : r->params >= 1e6 ?
			r->params / 1e6 : r->params, r->params >= 1e9 ? "B" :
			r->params >= 1e6 ? "M" : "", r->bytes_per_param, what);
		if (*detail)
			fprintf(f, "           (%s)\n", detail);
	}
	fprintf(f, "  shards   %u x %s, one writer each at once", res->shards,
		sb);
	if (r->setup.gpu_type && r->setup.gpu_count)
		fprintf(f, " (the ranks of %ux%s)", r->setup.gpu_count,
			r->setup.gpu_type);
	fprintf(f, "\n  storage  %s%s%s%s\n", *r->setup.fs_type ?
		r->setup.fs_type :
		"unknown filesystem", *r->setup.fs_device ? " on " : "",
		r->setup.fs_device, r->setup.fs_network ? " (network)" : "");
	fprintf(f, "  I/O      %s (%s)\n  %-8s %u KiB blocks, %u in flight per "
		"shard, %s\n", stg_backend_name(res->backend),
		res->backend_reason, "", res->block_size / 1024, res->depth,
		r->direct ? "O_DIRECT, fsync per shard then the folder" :
		"buffered, fsync per shard then the folder");
	print_phase(f, "save", &res->save);
	if (res->save.done)
		fprintf(f, "  %-8s longest shard fsync %.2f s, folder fsync "
			"%.3f s\n", "", res->save.sync_max_s,
			res->dir_sync_s);
	print_phase(f, "restore", &res->restore);
	if (res->restore.done) {
		if (res->resident_before_restore >= 0)
			fprintf(f, "  %-8s read cold: %.1f %% of the shards "
				"were in the page cache after eviction\n", "",
				100 * res->resident_before_restore);
		fprintf(f, "  %-8s %s\n", "", res->bad_pages ?
			"pages read back NOT as written" :
			"every page read back as written");
		if (res->bad_pages)
			fprintf(f, "  %-8s %llu pages differ\n", "",
				(unsigned long long)res->bad_pages);
	}
	if (res->save.done && res->restore.done)
		print_training(f, r);
	if (r->error && *r->error)
		fprintf(f, "\n  stopped: %s\n", r->error);
	fprintf(f, "\n  %s\n", res->kept ? "shards kept (--keep)" :
		res->removed_all ? "every file it wrote was removed" :
		"some files it wrote could not be removed");
	free(dir);
}

/* ---- JSON ---- */

static json_t *phase_json(const struct ms_ckpt_phase *p)
{
	if (!p->done)
		return json_null();
	return json_pack("{s:I, s:o, s:o, s:{s:o, s:o, s:o}}",
			 "bytes", (json_int_t)p->bytes,
			 "seconds", rpt_jnum(p->seconds),
			 "bytes_per_s", rpt_jnum(p->bytes_per_s),
			 "shard_seconds", "min", rpt_jnum(p->shard_min_s),
			 "median", rpt_jnum(p->shard_median_s), "max", rpt_jnum(p->shard_max_s));
}

static json_t *str_json(const char *s)
{
	return json_string(s ? s : "");
}

json_t *rpt_ckpt_json(const struct rpt_ckpt *r)
{
	const struct ms_ckpt_result *res = r->res;
	const struct rpt_ckpt_training *t = &r->t;
	const bool both = res->save.done && res->restore.done;
	json_t *root, *save;

	root = json_object();
	if (!root)
		return NULL;
	save = phase_json(&res->save);
	if (save && json_is_object(save)) {
		json_object_set_new(save, "sync_max_s",
				    rpt_jnum(res->save.sync_max_s));
		json_object_set_new(save, "dir_sync_s",
				    rpt_jnum(res->dir_sync_s));
	}
	json_object_set_new(root, "schema", json_string(RPT_CKPT_SCHEMA_NAME));
	json_object_set_new(root, "schema_version",
			    json_integer(RPT_CKPT_SCHEMA_VERSION));
	json_object_set_new(root, "command", json_string("ckpt"));
	rpt_setup_json(root, &r->setup, RPT_SETUP_CKPT);
	json_object_set_new(root, "checkpoint", json_pack(
		"{s:o, s:o, s:o, s:I, s:I, s:i, s:I, s:o, s:i}",
		"params", rpt_jnum_pos(r->params),
		"bytes_per_param", rpt_jnum_pos(r->bytes_per_param),
		"bytes_per_param_meaning", r->params > 0 ?
		json_string(rpt_ckpt_bpp_meaning(r->bytes_per_param, NULL)) :
		json_null(),
		"bytes_asked", (json_int_t)r->bytes_asked,
		"bytes", (json_int_t)res->bytes,
		"shards", (int)res->shards,
		"shard_bytes", (json_int_t)res->shard_bytes,
		"gpu_type", r->setup.gpu_type ? json_string(r->setup.gpu_type) :
		json_null(), "gpu_count", (int)r->setup.gpu_count));
	json_object_set_new(root, "io", json_pack(
		"{s:s, s:o, s:i, s:i, s:b}",
		"backend", stg_backend_name(res->backend),
		"backend_reason", str_json(res->backend_reason),
		"block_size", (int)res->block_size, "depth", (int)res->depth,
		"direct", r->direct));
	json_object_set_new(root, "save", save ? save : json_null());
	json_object_set_new(root, "restore", phase_json(&res->restore));
	if (res->restore.done) {
		json_t *rs = json_object_get(root, "restore");

		json_object_set_new(rs, "resident_before",
				    rpt_jnum_nonneg(res->resident_before_restore));
		json_object_set_new(rs, "bad_pages",
				    json_integer((json_int_t)res->bad_pages));
	}
	json_object_set_new(root, "training", !both ? json_null() : json_pack(
		"{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		"budget", rpt_jnum(t->budget),
		"step_time_s", rpt_jnum_pos(r->tin.step_s),
		"interval_s", rpt_jnum_pos(r->tin.interval_s),
		"share_at_interval", rpt_jnum_nonneg(t->share_at_interval),
		"min_interval_s", rpt_jnum(t->min_interval_s),
		"min_interval_steps", rpt_jnum_nonneg(t->min_interval_steps),
		"lost_per_interruption_s", rpt_jnum(t->lost_s),
		"lost_at_interval_s", rpt_jnum_nonneg(t->lost_at_interval_s),
		"demand_samples_per_s", rpt_jnum_pos(r->tin.demand_total),
		"epoch_samples", rpt_jnum_pos(r->tin.epoch_samples),
		"epoch_s", rpt_jnum_nonneg(t->epoch_s),
		"share_per_epoch", rpt_jnum_nonneg(t->share_per_epoch)));
	json_object_set_new(root, "kept", json_boolean(res->kept));
	json_object_set_new(root, "removed_all",
			    json_boolean(res->removed_all));
	json_object_set_new(root, "interrupted", json_boolean(r->signal));
	json_object_set_new(root, "error", str_json(r->error));
	/* a pack that ran out of memory left a key out */
	if (json_object_size(root) != 16) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* ---- read back ---- */

static double num_at(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : -1;
}

int rpt_ckpt_brief_from_json(const json_t *root, struct rpt_ckpt_brief *out)
{
	const json_t *save = json_object_get(root, "save");
	const json_t *restore = json_object_get(root, "restore");
	const json_t *ck = json_object_get(root, "checkpoint");
	const json_t *it = json_object_get(json_object_get(root, "machine"),
					   "instance_type");
	const json_t *schema = json_object_get(root, "schema");

	memset(out, 0, sizeof(*out));
	if (!json_is_string(schema) ||
	    strcmp(json_string_value(schema), RPT_CKPT_SCHEMA_NAME) ||
	    json_integer_value(json_object_get(root, "schema_version")) !=
	    RPT_CKPT_SCHEMA_VERSION || !json_is_object(save) ||
	    !json_is_object(restore))
		return -EINVAL;
	if (json_is_string(it))
		snprintf(out->instance_type, sizeof(out->instance_type), "%s",
			 json_string_value(it));
	out->bytes = (uint64_t)fmax(0, num_at(save, "bytes"));
	out->shards = (unsigned)fmax(0, num_at(ck, "shards"));
	out->save_s = num_at(save, "seconds");
	out->restore_s = num_at(restore, "seconds");
	out->save_bps = num_at(save, "bytes_per_s");
	out->restore_bps = num_at(restore, "bytes_per_s");
	return out->save_s >= 0 && out->restore_s >= 0 ? 0 : -EINVAL;
}

/* ---- HTML ---- */

void rpt_ckpt_html(struct rpt_buf *b, const struct rpt_ckpt_brief *ck)
{
	char sz[32], sr[32], rr[32];

	rpt_fmt_bytes(sz, sizeof(sz), (double)ck->bytes);
	rpt_fmt_bytes(sr, sizeof(sr), ck->save_bps);
	rpt_fmt_bytes(rr, sizeof(rr), ck->restore_bps);
	rpt_buf_printf(b, "<h2>checkpoint</h2>\n");
	rpt_html_table(b, "ckpt", NULL, 0);
	rpt_buf_printf(b, "<tr><td>size</td><td>%s in %u shards</td></tr>\n"
		       "<tr><td>save</td><td data-ckpt=\"save\">%.2f s, "
		       "%s/s</td></tr>\n<tr><td>restore</td><td data-ckpt="
		       "\"restore\">%.2f s, %s/s</td></tr>\n",
		       sz, ck->shards, ck->save_s, sr, ck->restore_s, rr);
	rpt_html_table_end(b);
}

/* ---- a sweep's checkpoint and cost ---- */

void rpt_sweep_cost_fill(const struct rpt_sweep *s, enum stg_cache_state k,
			 struct rpt_sweep_cost *out)
{
	const struct rpt_cache_verdict *cv = &s->v.cache[k];
	const double demand = jdg_demand_total(s->setup.demand_total,
			s->setup.demand_per_gpu, s->setup.gpu_count);

	memset(out, 0, sizeof(*out));
	out->epoch_samples = (double)s->setup.files;
	out->epoch_s = out->usd_per_msample = out->usd_per_epoch = -1;
	if (!cv->measured || !(cv->samples_per_s > 0))
		return;
	out->judged = true;
	out->measured_per_s = cv->samples_per_s;
	out->feed_per_s = jdg_cost_feed(cv->samples_per_s, demand,
					&out->gpu_bound);
	if (out->epoch_samples > 0)
		out->epoch_s = out->epoch_samples / out->feed_per_s;
	if (!(s->usd_per_hour > 0))
		return;
	out->usd_per_msample = jdg_cost_per_msample(s->usd_per_hour,
						    out->feed_per_s);
	out->usd_per_epoch = jdg_cost_per_epoch(s->usd_per_hour,
						out->feed_per_s,
						out->epoch_samples);
}

/* "95.2 s", "19 min", "2.5 h"; "-" when unknown. */
static void dur_text(char *buf, size_t len, double s)
{
	if (s < 0)
		snprintf(buf, len, "-");
	else if (s < 100)
		snprintf(buf, len, "%.1f s", s);
	else if (s < 6000)
		snprintf(buf, len, "%.0f min", s / 60);
	else
		snprintf(buf, len, "%.1f h", s / 3600);
}

/* "$0.0304", "-" when unknown. */
static void usd_text(char *buf, size_t len, double usd)
{
	if (usd < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "$%.4g", usd);
}

void rpt_sweep_cost_print(FILE *f, const struct rpt_sweep *s)
{
	const struct rpt_ckpt_brief *ck = s->ckpt;
	char a[32], b[32], c[32], d[32];
	bool any = false, bound = false;

	if (!ck && !(s->usd_per_hour > 0))
		return;
	fprintf(f, "\ncheckpoint and cost\n");
	if (ck) {
		rpt_fmt_bytes(a, sizeof(a), (double)ck->bytes);
		fprintf(f, "  checkpoint %s in %u shard%s", a, ck->shards,
			ck->shards == 1 ? "" : "s");
		if (*ck->instance_type)
			fprintf(f, " (a ckpt report of %.30s)",
				ck->instance_type);
		dur_text(a, sizeof(a), ck->save_s);
		rpt_fmt_bytes(b, sizeof(b), ck->save_bps);
		dur_text(c, sizeof(c), ck->restore_s);
		rpt_fmt_bytes(d, sizeof(d), ck->restore_bps);
		fprintf(f, "\n           save %s at %s/s, restore %s at %s/s\n",
			a, b, c, d);
	}
	if (!(s->usd_per_hour > 0))
		return;
	rpt_fmt_count(a, sizeof(a), jdg_demand_total(s->setup.demand_total,
		      s->setup.demand_per_gpu, s->setup.gpu_count));
	rpt_fmt_count(b, sizeof(b), (double)s->setup.files);
	fprintf(f, "  cost     $%g per hour (as given), at the feed the GPUs "
		"get:\n           the measured samples/s, at most the demand "
		"of %u x %.12s\n           (%s/s); an epoch is the dataset's "
		"%s files\n", s->usd_per_hour, s->setup.gpu_count,
		s->setup.gpu_type ? s->setup.gpu_type : "?", a, b);
	for (int k = 0; k < STG_CACHE_STATES; k++) {
		struct rpt_sweep_cost x;

		rpt_sweep_cost_fill(s, (enum stg_cache_state)k, &x);
		if (!x.judged)
			continue;
		if (!any)
			fprintf(f, "           %-8s %9s%-2s%13s  %10s  %s\n",
				"state", "feed/s", "", "USD/M samples",
				"USD/epoch", "epoch");
		any = true;
		bound |= x.gpu_bound;
		rpt_fmt_count(a, sizeof(a), x.feed_per_s);
		usd_text(b, sizeof(b), x.usd_per_msample);
		usd_text(c, sizeof(c), x.usd_per_epoch);
		dur_text(d, sizeof(d), x.epoch_s);
		fprintf(f, "           %-8s %9s%-2s%13s  %10s  %s\n",
			stg_cache_state_name((enum stg_cache_state)k), a,
			x.gpu_bound ? "*" : "", b, c, d);
	}
	if (!any)
		fprintf(f, "           no cache state was judged: nothing to "
			"price\n");
	if (bound)
		fprintf(f, "           * the asked GPUs' demand: they eat no "
			"faster than that\n");
}

int rpt_sweep_cost_json(json_t *root, const struct rpt_sweep *s)
{
	const struct rpt_ckpt_brief *ck = s->ckpt;
	json_t *cost = json_null(), *per, *ckj = json_null();

	if (ck)
		ckj = json_pack("{s:s, s:I, s:i, s:o, s:o, s:o, s:o}",
				"instance_type", ck->instance_type,
				"bytes", (json_int_t)ck->bytes,
				"shards", (int)ck->shards,
				"save_s", rpt_jnum(ck->save_s),
				"save_bytes_per_s", rpt_jnum(ck->save_bps),
				"restore_s", rpt_jnum(ck->restore_s),
				"restore_bytes_per_s", rpt_jnum(ck->restore_bps));
	if (s->usd_per_hour > 0) {
		per = json_array();
		for (int k = 0; per && k < STG_CACHE_STATES; k++) {
			struct rpt_sweep_cost x;

			rpt_sweep_cost_fill(s, (enum stg_cache_state)k, &x);
			if (x.judged && json_array_append_new(per, json_pack(
				"{s:s, s:o, s:o, s:b, s:o, s:o, s:o}",
				"cache", stg_cache_state_name(
					(enum stg_cache_state)k),
				"measured_samples_per_s", rpt_jnum(x.measured_per_s),
				"feed_samples_per_s", rpt_jnum(x.feed_per_s),
				"feed_is_gpu_demand", x.gpu_bound,
				"usd_per_million_samples",
				rpt_jnum_nonneg(x.usd_per_msample),
				"usd_per_epoch", rpt_jnum_nonneg(x.usd_per_epoch),
				"epoch_s", rpt_jnum_nonneg(x.epoch_s)))) {
				json_decref(per);
				per = NULL;
			}
		}
		cost = per ? json_pack("{s:o, s:o, s:o}", "usd_per_hour",
				       rpt_jnum(s->usd_per_hour), "epoch_samples",
				       rpt_jnum_pos((double)s->setup.files),
				       "per_cache", per) : NULL;
	}
	if (!ckj || !cost) {
		json_decref(ckj);
		json_decref(cost);
		return -ENOMEM;
	}
	/* json_object_set_new takes the value even when it fails */
	if (json_object_set_new(root, "checkpoint", ckj)) {
		json_decref(cost);
		return -ENOMEM;
	}
	return json_object_set_new(root, "cost", cost) ? -ENOMEM : 0;
}

void rpt_sweep_cost_html(struct rpt_buf *b, const struct rpt_sweep *s)
{
	static const char *const cost_heads[] = {
		"cache", "feed (samples/s)", "USD per million samples",
		"USD per epoch", "epoch",
	};
	char fd[32], ms[32], ep[32], et[32];
	bool bound = false;

	if (s->ckpt)
		rpt_ckpt_html(b, s->ckpt);
	if (!(s->usd_per_hour > 0))
		return;
	rpt_buf_printf(b, "<h2>cost</h2>\n");
	rpt_html_table(b, "cost", cost_heads,
		       sizeof(cost_heads) / sizeof(cost_heads[0]));
	for (int k = 0; k < STG_CACHE_STATES; k++) {
		struct rpt_sweep_cost x;

		rpt_sweep_cost_fill(s, (enum stg_cache_state)k, &x);
		if (!x.judged)
			continue;
		bound |= x.gpu_bound;
		rpt_fmt_count(fd, sizeof(fd), x.feed_per_s);
		usd_text(ms, sizeof(ms), x.usd_per_msample);
		usd_text(ep, sizeof(ep), x.usd_per_epoch);
		dur_text(et, sizeof(et), x.epoch_s);
		rpt_buf_printf(b, "<tr data-cache=\"%s\"><td>%s</td><td>%s%s"
			       "</td><td data-cost=\"msample\">%s</td><td "
			       "data-cost=\"epoch\">%s</td><td>%s</td></tr>\n",
			       stg_cache_state_name((enum stg_cache_state)k),
			       stg_cache_state_name((enum stg_cache_state)k),
			       fd, x.gpu_bound ? " (the GPUs' demand)" : "", ms,
			       ep, et);
	}
	rpt_html_table_end(b);
	rpt_buf_printf(b, "<p class=\"note\">At $%g per hour, as "
		       "given with --price; the feed is the measured samples/s "
		       "of each cache state, at most the demand of the asked "
		       "GPUs; an epoch is the dataset's %llu files.%s</p>\n",
		       s->usd_per_hour, (unsigned long long)s->setup.files,
		       bound ? " The GPUs eat no faster than their demand." :
		       "");
}

void rpt_ckpt_fill(struct rpt_ckpt *r, const struct rpt_ckpt_ask *a,
		   uint64_t bytes, const struct ms_ckpt_result *res)
{
	r->params = a->params;
	r->bytes_per_param = a->params ? a->bytes_per_param : 0;
	r->bytes_asked = bytes;
	r->direct = a->direct;
	r->res = res;
	r->tin.save_s = res->save.seconds;
	r->tin.restore_s = res->restore.seconds;
	r->tin.budget = a->budget;
	r->tin.interval_s = a->interval_s;
	r->tin.step_s = a->step_s;
	r->tin.demand_total = r->setup.gpu_count * r->setup.demand_per_gpu;
	r->tin.epoch_samples = a->epoch_samples;
	jdg_ckpt_judge(&r->tin, &r->t);
}
