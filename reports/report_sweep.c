/*
 * report_sweep.c - the text and JSON reports of `feedrate sweep`. The
 * verdict itself is verdict.c's (rpt_verdict_draw, on the points the
 * command measured); this file only formats it. Nothing here runs the
 * engine.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "report.h"
#include "rpt_json.h"
#include "report_ckpt.h"
#include "rpt_text.h"
#include "report_sweep.h"

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* The threshold the verdict used (set by rpt_sweep_verdict). */
static double thr_of(const struct rpt_sweep *s)
{
	return s->v.au_threshold > 0 ? s->v.au_threshold :
	       jdg_threshold(s->setup.au_threshold);
}

/* ---- the verdict: verdict.c draws it ---- */

void rpt_sweep_verdict(struct rpt_sweep *s)
{
	const struct rpt_verdict_in in = {
		.points = s->points,
		.npoints = s->npoints,
		.confirm = s->confirm,
		.vcpus_total = s->setup.vcpus_total,
		.gpu_type = s->setup.gpu_type,
		.gpu_count = s->setup.gpu_count,
		.demand_per_gpu = s->setup.demand_per_gpu,
		.demand_basis = s->setup.demand_basis,
		.demand_kind = s->setup.demand_kind,
		.demand_multi_measured = s->setup.demand_multi_measured,
		.au_threshold = s->setup.au_threshold,
		.dataset_bytes = s->setup.bytes,
		.ram_total = s->setup.ram_total,
		.ram_available = s->setup.ram_available,
		.cgroup_limit = s->setup.cgroup_limit,
		.vcpu_kind = s->setup.vcpu_kind ? s->setup.vcpu_kind :
			     s->setup.threads_per_core > 1 ? STG_VCPU_THREAD :
			     s->setup.threads_per_core == 1 ? STG_VCPU_CORE :
			     STG_VCPU_UNKNOWN,
		.reserve_vcpus_per_gpu = s->reserve_vcpus_per_gpu,
		.reserve_ram_per_gpu = s->reserve_ram_per_gpu,
		.shapes = s->shapes,
		.nshapes = s->nshapes,
	};

	rpt_verdict_draw(&in, &s->v);
}

/* ---- text ---- */

/* FIRST, then TEXT wrapped at 78 columns, continuation lines indented by
 * IND. */
static void print_wrapped(FILE *f, const char *first, unsigned ind,
			  const char *text)
{
	fputs(first, f);
	if (*text)
		rpt_wrap(f, text, strlen(first), 78, ind);
	else
		fputc('\n', f);
}

static const char *conf_text(int c)
{
	switch (c) {
	case RPT_CONF_CONFIRMED: return "confirmed";
	case RPT_CONF_LOWERED: return "lowered";
	case RPT_CONF_RAISED: return "raised";
	default: return "computed";
	}
}

/* A point's label: a ram point by the page cache it really had
 * (measured after the run) where known, else the size asked. */
static void point_label(char *buf, size_t len, const struct rpt_sweep *s,
			const struct rpt_point *p)
{
	char b[32];
	const uint64_t bytes = p && p->cache_seen_bytes ? p->cache_seen_bytes :
			       p && p->ram_bytes ? p->ram_bytes :
			       s->lru_ram_bytes;

	if ((p ? p->cache : STG_CACHE_RAM) == STG_CACHE_RAM && bytes) {
		rpt_fmt_bytes(b, sizeof(b), (double)bytes);
		snprintf(buf, len, "ram %s", b);
	} else {
		snprintf(buf, len, "%s", stg_cache_state_name(p ? p->cache :
			 STG_CACHE_RAM));
	}
}

/* A cache state's label: by its top point when it has one. */
static void cache_label(char *buf, size_t len, const struct rpt_sweep *s,
			enum stg_cache_state c)
{
	const int top = s->v.cache[c].top;

	if (top >= 0 && (size_t)top < s->npoints)
		point_label(buf, len, s, &s->points[top]);
	else if (c == STG_CACHE_RAM)
		point_label(buf, len, s, NULL);
	else
		snprintf(buf, len, "%s", stg_cache_state_name(c));
}

/* The check runs of cache C that ran, as "2 GPUs AU 95.1 %; ..." */
static void checks_text(char *line, size_t len, const struct rpt_sweep *s,
			int c)
{
	size_t u = (size_t)snprintf(line, len, "checked at %u vCPUs with "
				    "emulated GPUs:", s->v.cache[c].vcpus_top);

	for (int k = 0; k < RPT_CHECKS_MAX && u < len; k++) {
		const struct rpt_confirm *r = &s->confirm[c][k];

		if (r->run)
			u += (size_t)snprintf(line + u, len - u, "%s %u GPU%s "
				"AU %.1f %%", u > 40 ? ";" : "", r->gpus,
				r->gpus == 1 ? "" : "s", r->au * 100);
	}
}

/* Why no check run ran for cache C. */
static const char *checks_why(const struct rpt_sweep *s, int c)
{
	for (int k = RPT_CHECKS_MAX - 1; k >= 0; k--)
		if (s->confirm[c][k].why && *s->confirm[c][k].why)
			return s->confirm[c][k].why;
	return "no confirmation run";
}

static bool checks_ran(const struct rpt_sweep *s, int c)
{
	for (int k = 0; k < RPT_CHECKS_MAX; k++)
		if (s->confirm[c][k].run)
			return true;
	return false;
}

/* "2.3 vCPUs (thread)" or "2.3-3.0 thread-vCPUs" for a range. */
static void range_text(char *buf, size_t len, double lo, double hi)
{
	if (hi - lo < 0.05)
		snprintf(buf, len, "%.1f", hi);
	else
		snprintf(buf, len, "%.1f-%.1f", lo, hi);
}

static void print_verdict(FILE *f, const struct rpt_sweep *s)
{
	const struct rpt_sweep_verdict *v = &s->v;
	const double need = v->need_per_gpu;
	char a[32], b[48], line[640];

	rpt_fmt_count(a, sizeof(a), s->setup.demand_per_gpu);
	fprintf(f, "\nverdict by cache state (%s at %s samples/s, AU >= %.0f "
		"%%: %.0f each)\n", nz(s->setup.gpu_type), a, thr_of(s) * 100,
		need);
	fprintf(f, "  %-13s %5s %10s %5s %-9s %-8s %9s\n", "cache", "vCPUs",
		"samples/s", "GPUs", "check", "limit", "vCPU/GPU");
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		const struct rpt_cache_verdict *cv = &v->cache[c];

		if (!cv->measured && cv->not_judged) {
			cache_label(a, sizeof(a), s, (enum stg_cache_state)c);
			snprintf(b, sizeof(b), "  %-13s ", a);
			snprintf(line, sizeof(line), "not judged: %s",
				 cv->not_judged);
			print_wrapped(f, b, 16, line);
			continue;
		}
		if (!cv->measured)
			continue;
		cache_label(b, sizeof(b), s, (enum stg_cache_state)c);
		rpt_fmt_count(a, sizeof(a), cv->samples_per_s);
		fprintf(f, "  %-13s %5u %10s %5u %-9s %-8s ", b, cv->vcpus_top,
			a, cv->gpus_fed, conf_text(cv->confirmation),
			cv->limiting);
		if (cv->vcpus_per_gpu > 0)
			fprintf(f, "%9.1f\n", cv->vcpus_per_gpu);
		else
			fprintf(f, "%9s\n", "-");
	}
	snprintf(line, sizeof(line), "vCPU/GPU counts this VM's vCPUs: a "
		 "vCPU here is a %s (%s%s)", stg_vcpu_kind_name(v->vcpu_kind),
		 v->vcpu_kind_basis, v->smt_yield > 0 ? ", SMT yield measured" :
		 "");
	print_wrapped(f, "  ", 2, line);
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		const struct rpt_cache_verdict *cv = &v->cache[c];
		char r1[32], r2[32];

		if (!cv->measured)
			continue;
		if (checks_ran(s, c))
			checks_text(line, sizeof(line), s, c);
		else
			snprintf(line, sizeof(line), "not checked with emulated "
				 "GPUs (%s)", checks_why(s, c));
		snprintf(b, sizeof(b), "  %-6s ", stg_cache_state_name(
			(enum stg_cache_state)c));
		print_wrapped(f, b, 9, line);
		if (cv->check.lowered_untested) {
			snprintf(line, sizeof(line), "lowered to %u GPU%s, a "
				 "count no check run tested", cv->gpus_fed,
				 cv->gpus_fed == 1 ? "" : "s");
			print_wrapped(f, "         ", 9, line);
		}
		if (cv->storage_bound) {
			print_wrapped(f, "         ", 9, "storage-bound: more "
				      "vCPUs do not help here, so no vCPUs per "
				      "GPU (see storage below)");
		} else if (cv->vcpus_per_gpu > 0) {
			range_text(r1, sizeof(r1), cv->thread_per_gpu_lo,
				   cv->thread_per_gpu_hi);
			range_text(r2, sizeof(r2), cv->core_per_gpu_lo,
				   cv->core_per_gpu_hi);
			snprintf(line, sizeof(line), "per %s: %s vCPUs where a "
				 "vCPU is a hyperthread (AWS, GCP), %s where it "
				 "is a core (Azure ND); for %u: %u needed + %u "
				 "reserved for the training job (%.1f per GPU) "
				 "of this VM's %u: %s %d",
				 nz(s->setup.gpu_type), r1,
				 r2, s->setup.gpu_count, cv->vcpus_needed,
				 cv->vcpus_reserved, v->reserve_vcpus_per_gpu,
				 s->setup.vcpus_total, cv->vcpus_spare >= 0 ?
				 "spare" :
				 "short by", abs(cv->vcpus_spare));
			print_wrapped(f, "         ", 9, line);
		}
		if (cv->gpus_fed_reserved < cv->gpus_fed) {
			snprintf(line, sizeof(line), "with the training job's "
				 "reserve taken from the pipeline (%.1f vCPU per "
				 "GPU) it feeds %u, not %u", v->reserve_vcpus_per_gpu,
				 cv->gpus_fed_reserved, cv->gpus_fed);
			print_wrapped(f, "         ", 9, line);
		}
		if (cv->check.ignored) {
			snprintf(line, sizeof(line), "NOT USED: %s",
				 cv->check.note);
			print_wrapped(f, "         ", 9, line);
		}
		if (cv->inconsistent) {
			snprintf(line, sizeof(line), "NOT PROJECTED: the figures "
				 "at %u vCPUs are inconsistent: %.0f samples/s "
				 "per vCPU x %.2f ms CPU per sample = %.2f "
				 "CPU-seconds per vCPU-second, more than a vCPU "
				 "can give", cv->vcpus_top, cv->vcpus_top ?
				 cv->samples_per_s / cv->vcpus_top : 0,
				 cv->cpu_s_per_sample * 1e3, cv->cpu_per_vcpu);
			print_wrapped(f, "         ", 9, line);
		}
		if (cv->projected) {
			char lo[32];

			rpt_fmt_count(a, sizeof(a), cv->projected_samples_per_s);
			if (cv->projected_samples_per_s - cv->projected_lo >= 1) {
				rpt_fmt_count(lo, sizeof(lo), cv->projected_lo);
				strcat(lo, "-");
			} else {
				lo[0] = '\0';
			}
			snprintf(line, sizeof(line), "PROJECTED: %u x %s need "
				 "%u vCPUs like these (%.1f each) plus %u for the "
				 "training job; this VM has %u. With %u vCPUs the "
				 "feed would be ~%s%s samples/s: the high end "
				 "if the per-vCPU rate measured at %u vCPUs (%.0f "
				 "samples/s, %.2f ms CPU per sample) holds, the "
				 "low end if added vCPUs scale as measured from 1 "
				 "vCPU; same CPU model only, no projection across "
				 "CPU models", s->setup.gpu_count,
				 nz(s->setup.gpu_type),
				 cv->vcpus_needed, cv->vcpus_per_gpu,
				 cv->vcpus_reserved, s->setup.vcpus_total,
				 cv->vcpus_needed, lo, a, cv->vcpus_top,
				 cv->per_vcpu_rate, cv->cpu_s_per_sample * 1e3);
			print_wrapped(f, "         ", 9, line);
			if (cv->scaling >= 0 && cv->feed_vcpus &&
			    cv->feed_vcpus < cv->vcpus_top) {
				snprintf(line, sizeof(line), "measured scaling: "
					 "at %u vCPUs the feed ran on %u (the "
					 "loader's workers) at %.0f %% of the 1-vCPU "
					 "rate each", cv->vcpus_top, cv->feed_vcpus,
					 cv->scaling * 100);
				print_wrapped(f, "         ", 9, line);
			} else if (cv->scaling >= 0) {
				snprintf(line, sizeof(line), "measured scaling: "
					 "%u vCPUs give %.0f %% of %u x the 1-vCPU "
					 "rate", cv->vcpus_top, cv->scaling * 100,
					 cv->vcpus_top);
				print_wrapped(f, "         ", 9, line);
			}
		}
	}
}

static void print_storage_ram(FILE *f, const struct rpt_sweep *s)
{
	const struct rpt_sweep_verdict *v = &s->v;
	char a[32], b[32], c[32], line[768];

	fprintf(f, "\nstorage and RAM\n");
	if (v->storage_known) {
		rpt_fmt_bytes(a, sizeof(a), v->storage_bytes_per_s);
		rpt_fmt_count(b, sizeof(b), v->storage_files_per_s);
		rpt_fmt_bytes(c, sizeof(c), (double)s->setup.bytes);
		snprintf(line, sizeof(line), "cold, %s %s/s and %s files/s "
			 "(%s): this disk feeds %s%.1f x %s. %s",
			 v->storage_is_ceiling ? "the storage ceiling is" :
			 "storage gave at least", a, b,
			 v->storage_is_ceiling ? "storage-bound" :
			 "a lower bound: the CPU was the limit",
			 v->storage_is_ceiling ? "" : "at least ",
			 v->storage_gpus, nz(s->setup.gpu_type),
			 v->storage_feeds_asked ? "Storage is not "
			 "the limit for the asked GPUs." : "");
		if (v->storage_is_ceiling && !v->storage_feeds_asked) {
			size_t u = strlen(line);

			snprintf(line + u, sizeof(line) - u, "For %u x %s "
				 "more of the dataset (%s) must sit in RAM, or "
				 "the storage must serve more.",
				 s->setup.gpu_count,
				 nz(s->setup.gpu_type), c);
		}
		print_wrapped(f, "  storage  ", 11, line);
		if (v->storage_advice[0]) {
			snprintf(line, sizeof(line), "what helps: %s",
				 v->storage_advice);
			print_wrapped(f, "           ", 11, line);
		}
	} else {
		print_wrapped(f, "  storage  ", 11, "not measured cold (no "
			      "cold point): no storage ceiling");
	}
	rpt_fmt_bytes(a, sizeof(a), (double)s->setup.bytes);
	rpt_fmt_bytes(b, sizeof(b), (double)s->setup.ram_total);
	if (s->setup.cgroup_limit >= 0)
		rpt_fmt_bytes(c, sizeof(c), (double)s->setup.cgroup_limit);
	{
		char r[32], per[32];

		rpt_fmt_bytes(r, sizeof(r), (double)v->ram_reserved);
		rpt_fmt_bytes(per, sizeof(per), (double)v->reserve_ram_per_gpu);
		snprintf(line, sizeof(line), "dataset %s + %s reserved for "
			 "the training job (%s per GPU%s%s) against %.0f %% of "
			 "RAM %s%s%s%s (the same rule as for the shapes "
			 "below): %s", a, r, per, *nz(s->reserve_ram_how) ?
			 ": " : "", nz(s->reserve_ram_how), RPT_RAM_SHARE * 100,
			 b, s->setup.cgroup_limit >= 0 ? ", cgroup limit " : "",
			 s->setup.cgroup_limit >= 0 ? c : "",
			 s->setup.cgroup_limit >= 0 ? "" : " (no cgroup limit)",
			 v->ram_holds_dataset ? "it fits in the page cache, "
			 "so from the second epoch on training reads from RAM "
			 "(the warm row)" : "it does NOT fit in the page "
			 "cache: expect the cold or ram row, not warm");
	}
	print_wrapped(f, "  RAM      ", 11, line);
	if (v->cache[STG_CACHE_RAM].measured ||
	    v->cache[STG_CACHE_RAM].not_judged) {
		const struct rpt_cache_verdict *cv = &v->cache[STG_CACHE_RAM];
		const struct rpt_point *tp = cv->top >= 0 ?
					     &s->points[cv->top] : NULL;

		rpt_fmt_bytes(a, sizeof(a), tp && tp->cache_seen_bytes ?
			      (double)tp->cache_seen_bytes :
			      (double)s->lru_ram_bytes);
		rpt_fmt_bytes(b, sizeof(b), (double)s->lru_ram_bytes / 2);
		snprintf(line, sizeof(line), "with a %s page cache the hit "
			 "ratio was %.1f %%%s (shuffled epochs: an LRU cache "
			 "holding a share of the dataset hits less than that "
			 "share)", a, cv->hit_ratio >= 0 ? cv->hit_ratio * 100 :
			 -1.0, cv->hit_ratio_estimated ? ", estimated" :
			 ", measured");
		if (!cv->measured && s->lru_ram_steady >= 0)
			snprintf(line, sizeof(line), "with a %s page cache the "
				 "hit ratio was not measured (the ram row is "
				 "not judged); LRU estimate: %.1f %%", a,
				 s->lru_ram_steady * 100);
		else if (!cv->measured || cv->hit_ratio < 0)
			snprintf(line, sizeof(line), "with a %s page cache the "
				 "hit ratio is unknown", a);
		print_wrapped(f, "           ", 11, line);
		if (s->lru_half_steady >= 0) {
			snprintf(line, sizeof(line), "a VM with half that page "
				 "cache (%s) would hit about %.1f %% (LRU "
				 "estimate; %s: %.1f %%)", b,
				 s->lru_half_steady * 100, a,
				 s->lru_ram_steady * 100);
			print_wrapped(f, "           ", 11, line);
		}
	}
}

/* The RAM axis: the curve (measured points and the model), the model
 * held against the measured ram points, and the RAM verdict. */
static void print_ram_axis(FILE *f, const struct rpt_sweep *s)
{
	const struct rpt_sweep_verdict *v = &s->v;
	char a[32], b[32], line[768];
	bool sampled = false;

	if (!v->nram_curve)
		return;
	fprintf(f, "\nRAM axis (page cache against hit ratio and feed; model: "
		"LRU, shuffled epochs)\n");
	fprintf(f, "  %10s %6s %7s %7s %10s  %s\n", "page cache", "data",
		"hit %", "model %", "samples/s", "source");
	for (size_t i = 0; i < v->nram_curve; i++) {
		const struct rpt_ram_row *r = &v->ram_curve[i];
		char src[128], smp[64] = "";

		rpt_fmt_bytes(a, sizeof(a), (double)r->page_cache_bytes);
		if (r->samples_per_s >= 0)
			rpt_fmt_count(b, sizeof(b), r->samples_per_s);
		else
			snprintf(b, sizeof(b), "-");
		if (r->point >= 0 && (size_t)r->point < s->npoints &&
		    rpt_point_sampled(&s->points[r->point], s->setup.files)) {
			char k[24], n[24];

			rpt_fmt_count(k, sizeof(k), (double)
				      s->points[r->point].sample_files);
			rpt_fmt_count(n, sizeof(n), (double)s->setup.files);
			snprintf(smp, sizeof(smp), ", sampled %s/%s", k, n);
			sampled = true;
		}
		if (r->point >= 0)
			snprintf(src, sizeof(src), "%s (%s%s%s)", r->source,
				 nz(r->cache), smp, r->disagrees ?
				 ", DISAGREES" : "");
		else
			snprintf(src, sizeof(src), "%s", r->source);
		fprintf(f, "  %10s %5.0f%% ", a, r->fraction * 100);
		if (r->hit_ratio >= 0)
			fprintf(f, "%7.1f ", r->hit_ratio * 100);
		else
			fprintf(f, "%7s ", "-");
		fprintf(f, "%7.1f %10s  %s\n", r->model_hit * 100, b, src);
	}
	if (sampled)
		print_wrapped(f, "  sampled  ", 11, "K/N: the point read an "
			      "evenly spread sample of K of the dataset's N "
			      "files, its page cache scaled by the same factor, "
			      "as its epochs of the whole dataset did not fit "
			      "its share of the budget; its share cached is the "
			      "row's, and under the LRU model of shuffled "
			      "epochs the hit ratio depends on that share alone, "
			      "so it holds for the whole dataset");
	snprintf(line, sizeof(line), "model rows' samples/s: the lower of "
		 "the CPU's rate (warm, %s samples/s) and the storage's "
		 "through the misses (cold ceiling / (1 - hit)); %s",
		 v->ram_cpu_samples_per_s > 0 ? "measured" : "not measured",
		 v->ram_model_text);
	if (v->ram_cpu_samples_per_s > 0) {
		rpt_fmt_count(a, sizeof(a), v->ram_cpu_samples_per_s);
		snprintf(line, sizeof(line), "model rows' samples/s: the lower "
			 "of the CPU's rate (warm: %s samples/s) and the "
			 "storage's through the misses (cold ceiling / (1 - "
			 "hit)); %s", a, v->ram_model_text);
	}
	print_wrapped(f, "  model    ", 11, line);
	print_wrapped(f, "  RAM      ", 11, v->ram_text);
	if (v->own_bytes || v->ram_reserved) {
		rpt_fmt_bytes(a, sizeof(a), (double)v->own_bytes);
		rpt_fmt_bytes(b, sizeof(b), (double)v->ram_reserved);
		snprintf(line, sizeof(line), "RAM needed = page cache + %s "
			 "reserved for the training job + %s for the pipeline "
			 "(%s); a VM's page cache is %.0f %% of its RAM less "
			 "those two", b, a, v->own_bytes ? "the most a ram "
			 "point's cgroup held beside its page cache" :
			 "not measured: no ram point", RPT_RAM_SHARE * 100);
		print_wrapped(f, "           ", 11, line);
	}
}

static void print_demand(FILE *f, const struct rpt_sweep *s)
{
	struct rpt_demand_words d = rpt_setup_demand_words(&s->setup);
	char line[1600];

	/* a sweep's report may lack the row's figures: per GPU x count */
	d.single = s->setup.demand_single > 0 ? s->setup.demand_single :
		   s->setup.demand_per_gpu;
	d.total = s->setup.demand_total > 0 ? s->setup.demand_total :
		  s->setup.demand_per_gpu * s->setup.gpu_count;
	d.default_type = false;
	rpt_demand_text(line, sizeof(line), &d);
	print_wrapped(f, "  demand   ", 11, line);
	if (!s->pipeline_name || !strcmp(s->pipeline_name, "native"))
		snprintf(line, sizeof(line), "%s; numbers are for this "
			 "native pipeline; on real photos a PyTorch "
			 "DataLoader with PIL needed 2.85x its CPU per image "
			 "in this project's measurement (--pipeline torch "
			 "measures yours)", nz(s->setup.pipeline));
	else if (s->gd.path) {
		char modelled[512], limit[384];

		rpt_gpu_decode_limit(&s->gd, s->setup.demand_per_gpu, limit,
				     sizeof(limit));
		snprintf(line, sizeof(line), "%s; %s%s%s",
			 nz(s->setup.pipeline),
			 rpt_gpu_decode_modelled(&s->gd, modelled,
						 sizeof(modelled)),
			 limit[0] ? "; LIMIT: " : "", limit);
	} else
		snprintf(line, sizeof(line), "%s; numbers are for this "
			 "Python loader, its worker processes included",
			 nz(s->setup.pipeline));
	print_wrapped(f, "  pipeline ", 11, line);
}

const char *rpt_fit_text(enum rpt_fit fit)
{
	switch (fit) {
	case RPT_FIT_YES: return "fits";
	case RPT_FIT_MAYBE: return "maybe";
	case RPT_FIT_NO: return "lacks";
	default: return "?";
	}
}

const char *rpt_catalog_unjudged_text(const struct rpt_sweep *s, char *buf,
				      size_t len)
{
	char states[48] = "";
	bool any = false, all = true;

	for (int c = 0; c < STG_CACHE_STATES; c++) {
		const struct rpt_cache_verdict *cv = &s->v.cache[c];
		const size_t u = strlen(states);

		if (!cv->measured)
			continue;
		any = true;
		if (!cv->storage_bound) {
			all = false;
			continue;
		}
		snprintf(states + u, sizeof(states) - u, "%s%s", u ? ", " : "",
			 stg_cache_state_name((enum stg_cache_state)c));
	}
	if (any && all)
		snprintf(buf, len, "the feed here is storage-bound (%s): more "
			 "vCPUs do not help, so the catalogue is not judged "
			 "from it", states);
	else
		snprintf(buf, len, "no vCPUs-per-GPU figure to judge them by%s",
			 states[0] ? " (a storage-bound row never judges "
			 "them)" : "");
	return buf;
}

const char *rpt_catalog_basis_text(const struct rpt_sweep *s, char *buf,
				   size_t len)
{
	const int c = s->v.catalog_cache;

	snprintf(buf, len, "vCPUs per GPU from the %s row, measured on %s: a "
		 "rate per vCPU of this CPU model, so it holds for shapes of "
		 "the same CPU generation only; converted to each shape's kind "
		 "of vCPU; each shape judged by its own GPU model's demand",
		 c >= 0 ? stg_cache_state_name((enum stg_cache_state)c) : "?",
		 s->setup.cpu_model && *s->setup.cpu_model ?
		 s->setup.cpu_model :
		 "this CPU model");
	return buf;
}

/*
 * Why the SMT yield was not measured on a host with SMT siblings: the
 * points it needs (1 and 2 vCPUs: one core's two threads) were dropped
 * by the budget, failed, not planned, or not usable.
 */
static const char *smt_points_why(const struct rpt_sweep *s)
{
	bool dropped = false, failed = false, planned = false, one = false;

	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];

		if (p->ram_axis || (p->vcpus != 1 && p->vcpus != 2))
			continue;
		planned = true;
		dropped = dropped || p->status == RPT_POINT_DROPPED;
		failed = failed || p->status == RPT_POINT_FAILED;
		one = one || (p->vcpus == 2 && rpt_point_feed_vcpus(p) == 1);
	}
	if (one)
		return "the 2-vCPU point fed on one of them (the loader's one "
		       "worker)";
	if (dropped && failed)
		return "dropped by the budget or failed";
	if (dropped)
		return "dropped by the budget";
	if (failed)
		return "failed";
	if (!planned)
		return "not planned (--vcpus)";
	return "not usable (too short, storage-bound or not cold)";
}

const char *rpt_smt_yield_text(const struct rpt_sweep *s, char *buf,
			       size_t len)
{
	const struct rpt_sweep_verdict *v = &s->v;

	if (v->smt_yield > 0 && fabs(v->smt_yield - v->smt_yield_lo) < 5e-3)
		snprintf(buf, len, "%.2f, measured here (2 sibling vCPUs / 1)",
			 v->smt_yield_lo);
	else if (v->smt_yield > 0)
		snprintf(buf, len, "%.2f, measured here as %.2f and held within "
			 "1-%.0f", v->smt_yield_lo, v->smt_yield,
			 RPT_SMT_YIELD_MAX);
	else if (v->vcpu_kind == STG_VCPU_UNKNOWN)
		snprintf(buf, len, "%.2f-%.2f, assumed: the CPU topology could "
			 "not be read here", v->smt_yield_lo, v->smt_yield_hi);
	else if (v->vcpu_kind != STG_VCPU_THREAD)
		snprintf(buf, len, "%.2f-%.2f, assumed: no SMT siblings here to "
			 "measure it", v->smt_yield_lo, v->smt_yield_hi);
	else
		snprintf(buf, len, "%.2f-%.2f, assumed: the sibling points (1 "
			 "and 2 vCPUs) were not both measured: %s",
			 v->smt_yield_lo, v->smt_yield_hi, smt_points_why(s));
	return buf;
}

/* Append to LINE what shape FI's page cache does for its GPUs on the
 * storage measured here. */
static void shape_ram_words(char *line, size_t len,
			    const struct rpt_shape_fit *fi)
{
	const size_t u = strlen(line);
	char need[32];

	if (u + 1 >= len || fi->ram_fit == RPT_RAM_FIT_UNKNOWN)
		return;
	rpt_fmt_bytes(need, sizeof(need), (double)fi->ram_needed_bytes);
	if (fi->ram_fit == RPT_RAM_FIT_NONE)
		snprintf(line + u, len - u, "; page cache for its GPUs on this "
			 "storage: no size below the whole dataset suffices");
	else if (fi->ram_needed_bytes)
		snprintf(line + u, len - u, "; RAM its GPUs need on this "
			 "storage: %s, %s", need, fi->ram_fit ==
			 RPT_RAM_FIT_ENOUGH ? "enough" : "SHORT");
	else
		snprintf(line + u, len - u, "; page cache for its GPUs on this "
			 "storage: %s", fi->ram_fit == RPT_RAM_FIT_ENOUGH ?
			 "enough (it holds the whole dataset)" : "SHORT");
}

static void print_catalog(FILE *f, const struct rpt_sweep *s)
{
	const struct rpt_sweep_verdict *v = &s->v;
	char line[640], yield[160], rsv[32], head[96];

	snprintf(head, sizeof(head), "catalogued %s shapes:",
		 nz(s->setup.gpu_type));
	if (v->catalog_cache < 0) {
		fputc('\n', f);
		print_wrapped(f, head, 2, rpt_catalog_unjudged_text(s, line,
							sizeof(line)));
		return;
	}
	fprintf(f, "\ncatalogued %s shapes\n", nz(s->setup.gpu_type));
	print_wrapped(f, "  ", 2, rpt_catalog_basis_text(s, line,
						     sizeof(line)));
	if (!v->nfits) {
		fprintf(f, "  none in the catalog for this GPU type\n");
		return;
	}
	fprintf(f, "  %-24s %-6s %5s %7s %4s %9s %s\n", "shape", "vCPU",
		"vCPUs", "needed", "rsv", "spare", "fit");
	for (size_t i = 0; i < v->nfits; i++) {
		const struct rpt_shape_fit *fi = &v->fits[i];
		const struct rpt_shape *sh = fi->shape;
		char need[24], spare[24], dem[24];

		rpt_fmt_count(dem, sizeof(dem), fi->demand_total);
		if (fi->vcpus_needed < 0) {
			snprintf(need, sizeof(need), "-");
			snprintf(spare, sizeof(spare), "-");
		} else if (fi->vcpus_needed - fi->vcpus_needed_lo < 0.5) {
			snprintf(need, sizeof(need), "%.0f",
				 ceil(fi->vcpus_needed - 1e-9));
			snprintf(spare, sizeof(spare), "%+.0f",
				 floor(fi->vcpus_spare + 1e-9));
		} else {
			snprintf(need, sizeof(need), "%.0f-%.0f",
				 ceil(fi->vcpus_needed_lo - 1e-9),
				 ceil(fi->vcpus_needed - 1e-9));
			snprintf(spare, sizeof(spare), "%+.0f..%+.0f",
				 floor(fi->vcpus_spare + 1e-9),
				 floor(fi->vcpus_spare_hi + 1e-9));
		}
		fprintf(f, "  %-24s %-6s %5u %7s %4.0f %9s %s\n", sh->name,
			stg_vcpu_kind_name(sh->vcpu_kind), sh->vcpus, need,
			ceil(fi->vcpus_reserved - 1e-9), spare,
			rpt_fit_text(fi->fits));
		snprintf(line, sizeof(line), "%u x %s eat %s samples/s (%s%s%s); "
			 "%.0f GiB%s RAM: %s", sh->gpus, sh->demand_row ?
			 sh->demand_row : nz(sh->gpu), dem, sh->demand_basis ?
			 sh->demand_basis : "the asked per-GPU rate x count",
			 sh->demand_multi_measured || sh->gpus > 1 ? ", " : "",
			 sh->demand_multi_measured ?
			 rpt_demand_multi_words(sh->demand_basis) :
			 sh->gpus > 1 ? "count x 1 GPU" : "", sh->ram_gib,
			 sh->recalled ? "*" : "",
			 fi->ram_holds_dataset ? "holds the data" :
			 "too small for the data");
		shape_ram_words(line, sizeof(line), fi);
		print_wrapped(f, "     ", 5, line);
	}
	rpt_fmt_bytes(rsv, sizeof(rsv), (double)v->reserve_ram_per_gpu);
	snprintf(line, sizeof(line), "vCPU: what one of its vCPUs is. needed: "
		 "for the pipeline, a range where this VM's per-vCPU rate is "
		 "converted with an SMT yield of %s; rsv: reserved for the "
		 "training job, %.1f vCPU and %s RAM per GPU; fit: spare >= 0 "
		 "at the worst end (fits), only at the best end (maybe). "
		 "'holds data': dataset + reserved RAM <= %.0f %% of RAM. * a "
		 "figure recalled, not re-read from the provider.)",
		 rpt_smt_yield_text(s, yield, sizeof(yield)),
		 v->reserve_vcpus_per_gpu, rsv, RPT_RAM_SHARE * 100);
	print_wrapped(f, "  (", 3, line);
}

static void print_points(FILE *f, const struct rpt_sweep *s)
{
	char a[32], b[48];
	size_t dropped = 0;
	unsigned marks = 0;

	fprintf(f, "\npoints (raw feed rate: no GPU consuming; AU computed for "
		"%u x %s)\n", s->setup.gpu_count, nz(s->setup.gpu_type));
	fprintf(f, "  %5s %-13s %9s %5s %6s %8s %7s %-8s %6s\n", "vCPUs",
		"cache", "samples/s", "AU %", "hit %", "MB/s", "CPU ms",
		"limit", "window");
	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];
		char hit[16], au[16];

		if (p->status == RPT_POINT_DROPPED) {
			dropped++;
			continue;
		}
		point_label(b, sizeof(b), s, p);
		if (p->status == RPT_POINT_FAILED) {
			fprintf(f, "  %5u %-13s FAILED: %s\n", p->vcpus, b,
				nz(p->why));
			continue;
		}
		rpt_fmt_count(a, sizeof(a), p->samples_per_s);
		if (p->hit_ratio >= 0)
			snprintf(hit, sizeof(hit), "%.1f%s", p->hit_ratio * 100,
				 p->hit_ratio_estimated ? "e" : "");
		else
			snprintf(hit, sizeof(hit), "-");
		if (p->au >= 0)
			snprintf(au, sizeof(au), "%.0f", p->au * 100);
		else
			snprintf(au, sizeof(au), "-");
		fprintf(f, "  %5u %-13s %9s %5s %6s %8.1f %7.2f %-8s %5.1fs%s%s"
			"%s\n", p->vcpus, b, a, au, hit,
			p->read_bytes_per_s / 1e6,
			rpt_point_cpu_s_per_sample(p) * 1e3, nz(p->bottleneck),
			p->measured_s, p->cache == STG_CACHE_RAM &&
			p->ram_not_limited ? "w" : "",
			rpt_point_too_short(p) ? "!" :
			p->cache == STG_CACHE_COLD && !rpt_point_usable(p) ?
			"c" : "", rpt_point_sampled(p,
						    s->setup.files) ? "p" : "");
		if (rpt_point_sampled(p, s->setup.files))
			marks |= 8;
		if (p->cache == STG_CACHE_COLD && p->hit_ratio > RPT_COLD_HIT_MAX)
			marks |= 4;
		if (p->cache == STG_CACHE_RAM && p->ram_not_limited)
			marks |= 1;
		if (rpt_point_too_short(p))
			marks |= 2;
	}
	fprintf(f, "  (CPU ms: CPU time of the measuring process per sample; "
		"e: estimated)\n");
	if (marks & 1)
		fprintf(f, "  (w: the page cache was not limited, it held more "
			"than %.2f x the asked\n   size: it ran warm; not used "
			"for the ram verdict)\n", LDR_RAM_SLACK);
	if (marks & 4)
		fprintf(f, "  (c: not cold, more than %.0f %% of its reads hit "
			"the page cache; not used for the cold verdict)\n",
			RPT_COLD_HIT_MAX * 100);
	if (marks & 2)
		fprintf(f, "  (!: too short, under %.0f s or fewer than %d "
			"batches; not used for the verdict)\n",
			RPT_POINT_MIN_WINDOW_S, RPT_POINT_MIN_BATCHES);
	if (marks & 8)
		fprintf(f, "  (p: read part of the dataset, an evenly spread "
			"sample of its files, with\n   the page cache in its "
			"label scaled by the same factor: the budget was\n   "
			"short; see the notes)\n");
	if (!dropped)
		return;
	fprintf(f, "  dropped by the budget rule:");
	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];

		if (p->status == RPT_POINT_DROPPED)
			fprintf(f, " %u/%s", p->vcpus, stg_cache_state_name(p->cache));
	}
	fputc('\n', f);
}

static void print_facts(FILE *f, const struct rpt_sweep *s)
{
	char a[32], b[32], line[3072];

	fprintf(f, "\nmachine and storage\n");
	snprintf(line, sizeof(line), "%s; %u usable vCPUs; a vCPU here is a "
		 "%s (%s%s)", *nz(s->setup.cpu_model) ? s->setup.cpu_model :
		 "unknown CPU model", s->setup.vcpus_total,
		 stg_vcpu_kind_name(s->v.vcpu_kind),
		 s->setup.threads_per_core > 1 ?
		 "SMT siblings present" : s->setup.threads_per_core == 1 ?
		 "no SMT siblings" : "topology unknown",
		 strcmp(nz(s->v.vcpu_kind_basis), "measured scaling") ? "" :
		 "; but 2 vCPUs scale like one core's two threads, measured");
	print_wrapped(f, "  CPU      ", 11, line);
	rpt_fmt_bytes(a, sizeof(a), (double)s->setup.ram_total);
	rpt_fmt_bytes(b, sizeof(b), (double)s->setup.ram_available);
	fprintf(f, "  RAM      %s, %s available\n", a, b);
	if (*nz(s->setup.instance_type) || *nz(s->setup.vendor))
		fprintf(f, "  instance %s%s%s\n", nz(s->setup.instance_type),
			*nz(s->setup.vendor) ? " / " : "", nz(s->setup.vendor));
	fprintf(f, "  GPUs     %d NVIDIA GPU%s present (the GPUs above are "
		"emulated)\n", s->setup.gpus_present,
		s->setup.gpus_present == 1 ? "" :
		"s");
	rpt_fmt_bytes(a, sizeof(a), (double)s->setup.bytes);
	rpt_fmt_count(b, sizeof(b), (double)s->setup.files);
	fprintf(f, "  dataset  ");
	rpt_put_path(f, s->setup.dataset);
	fprintf(f, "%s\n           %s files, %s, workload %s\n",
		s->setup.generated ? " (generated, removed after the sweep)" :
		"",
		b, a, nz(s->setup.workload));
	fprintf(f, "  storage  %s%s%s%s%s, backend %s\n",
		*nz(s->setup.fs_type) ? s->setup.fs_type : "unknown fs",
		*nz(s->setup.fs_device) ? " on " : "", nz(s->setup.fs_device),
		s->setup.fs_network ? " (network)" : "", "", nz(s->backend));
	snprintf(line, sizeof(line), "%.0f s of %.0f s used (listing and "
		 "eviction %.1f s). %s", s->elapsed_s, s->budget_s, s->setup_s,
		 nz(s->budget_rule));
	print_wrapped(f, "  budget   ", 11, line);
	rpt_prepare_print(f, &s->prepare);
	if (*nz(s->notes))
		print_wrapped(f, "  notes    ", 11, s->notes);
}

void rpt_sweep_print(FILE *f, const struct rpt_sweep *s)
{
	fprintf(f, "feedrate sweep%s\n", s->stall ?
		" (PARTIAL: the storage STALLED)" : "");
	print_wrapped(f, "  verdict  ", 11, s->v.headline);
	if (s->stall) {
		char line[700];

		rpt_stall_text(s->stall, line, sizeof(line));
		print_wrapped(f, "  stalled  ", 11, line);
	}
	rpt_pipelines_print(f, s);
	print_demand(f, s);
	print_verdict(f, s);
	print_storage_ram(f, s);
	print_ram_axis(f, s);
	print_catalog(f, s);
	print_points(f, s);
	for (size_t i = 0; i < s->nothers; i++) {
		fprintf(f, "\npipeline %s\n", nz(s->others[i]->setup.pipeline));
		print_wrapped(f, "  verdict  ", 11, s->others[i]->v.headline);
		print_verdict(f, s->others[i]);
		print_points(f, s->others[i]);
	}
	rpt_sweep_cost_print(f, s);
	print_facts(f, s);
}

/* ---- JSON ---- */

static json_t *stages_json(const struct rpt_stages *st)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
		"decode_s", rpt_jnum(st->decode_s), "resize_s", rpt_jnum(st->resize_s),
		"other_s", rpt_jnum(st->other_s), "worker_cpu_s", rpt_jnum(st->worker_cpu_s),
		"reader_cpu_s", rpt_jnum(st->reader_cpu_s),
		"consumer_cpu_s", rpt_jnum(st->consumer_cpu_s),
		"process_cpu_s", rpt_jnum(st->process_cpu_s),
		"worker_busy_s", rpt_jnum(st->worker_busy_s),
		"worker_wait_s", rpt_jnum(st->worker_wait_s));
}

static const char *status_name(enum rpt_point_status st)
{
	return st == RPT_POINT_DROPPED ? "dropped" :
	       st == RPT_POINT_FAILED ? "failed" : "measured";
}

static json_t *point_json(const struct rpt_point *p, bool with_series)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "vcpus", json_integer(p->vcpus));
	json_object_set_new(o, "feed_vcpus", json_integer(
		rpt_point_feed_vcpus(p)));
	json_object_set_new(o, "cache", json_string(stg_cache_state_name(p->cache)));
	json_object_set_new(o, "status", json_string(status_name(p->status)));
	if (p->status != RPT_POINT_MEASURED)
		json_object_set_new(o, "why", json_string(nz(p->why)));
	json_object_set_new(o, "ram", p->cache == STG_CACHE_RAM ?
		rpt_json_ram(p->ram_bytes, p->cgroup_bytes) : json_null());
	json_object_set_new(o, "ram_bytes", p->cache == STG_CACHE_RAM ?
		json_integer((json_int_t)p->ram_bytes) : json_null());
	json_object_set_new(o, "ram_axis", json_boolean(p->ram_axis));
	json_object_set_new(o, "cgroup_bytes", p->cgroup_bytes ?
		json_integer((json_int_t)p->cgroup_bytes) : json_null());
	json_object_set_new(o, "page_cache_seen_bytes", p->cache_seen_bytes ?
		json_integer((json_int_t)p->cache_seen_bytes) : json_null());
	json_object_set_new(o, "ram_limited", p->cache == STG_CACHE_RAM &&
		p->status == RPT_POINT_MEASURED ?
		json_boolean(!p->ram_not_limited) : json_null());
	if (p->status != RPT_POINT_MEASURED) {
		json_object_set_new(o, "samples_per_s", json_null());
		json_object_set_new(o, "au", json_null());
		json_object_set_new(o, "hit_ratio", json_null());
		json_object_set_new(o, "bottleneck", json_null());
		json_object_set_new(o, "stages", json_null());
		return o;
	}
	json_object_set_new(o, "samples_per_s", rpt_jnum(p->samples_per_s));
	json_object_set_new(o, "au", rpt_jnum_if(p->au, p->au >= 0));
	json_object_set_new(o, "au_computed", json_true());
	json_object_set_new(o, "hit_ratio", rpt_jnum_if(p->hit_ratio,
							 p->hit_ratio >= 0));
	json_object_set_new(o, "hit_ratio_estimated",
			    json_boolean(p->hit_ratio_estimated));
	json_object_set_new(o, "fraction_resident", rpt_jnum_if(
		p->fraction_resident, p->fraction_resident >= 0));
	json_object_set_new(o, "bottleneck", json_string(nz(p->bottleneck)));
	json_object_set_new(o, "bottleneck_why",
			    json_string(nz(p->bottleneck_why)));
	json_object_set_new(o, "stages", stages_json(&p->stages));
	json_object_set_new(o, "cpu_s_per_sample",
			    rpt_jnum(rpt_point_cpu_s_per_sample(p)));
	json_object_set_new(o, "measured_s", rpt_jnum(p->measured_s));
	json_object_set_new(o, "warmup_s", rpt_jnum(p->warmup_s));
	json_object_set_new(o, "samples", json_integer((json_int_t)p->samples));
	json_object_set_new(o, "batches", json_integer((json_int_t)p->batches));
	json_object_set_new(o, "too_short", json_boolean(
		rpt_point_too_short(p)));
	json_object_set_new(o, "usable", json_boolean(rpt_point_usable(p)));
	json_object_set_new(o, "errors", json_integer((json_int_t)p->errors));
	json_object_set_new(o, "epochs_done",
			    json_integer((json_int_t)p->epochs_done));
	json_object_set_new(o, "sample_files",
			    json_integer((json_int_t)p->sample_files));
	json_object_set_new(o, "sample_bytes",
			    json_integer((json_int_t)p->sample_bytes));
	json_object_set_new(o, "read_bytes_per_s",
			    rpt_jnum(p->read_bytes_per_s));
	if (p->decompressed_bytes_per_s > 0)
		json_object_set_new(o, "decompressed_bytes_per_s",
				    rpt_jnum(p->decompressed_bytes_per_s));
	json_object_set_new(o, "files_per_s", rpt_jnum(p->files_per_s));
	json_object_set_new(o, "cpu_outside_mask_s", rpt_jnum_if(
		p->cpu_outside_mask_s, p->cpu_outside_mask_s >= 0));
	json_object_set_new(o, "backend", json_string(nz(p->backend)));
	json_object_set_new(o, "cache_how", json_string(nz(p->cache_how)));
	json_object_set_new(o, "odirect_refused",
			    json_boolean(p->odirect_refused));
	json_object_set_new(o, "reads_in_flight_max", p->reads_in_flight_max ?
		json_integer(p->reads_in_flight_max) : json_null());
	json_object_set_new(o, "read_latency_s", rpt_jnum_if(
		p->read_latency_s, p->read_latency_s > 0));
	if (with_series && p->series) {
		json_t *a = json_array();

		for (unsigned i = 0; a && i < p->series_len; i++) {
			const struct ldr_series_point *sp = &p->series[i];

			json_array_append_new(a, json_pack("{s:o,s:o,s:o}",
				"t_s", rpt_jnum(sp->t_s), "samples_per_s",
				rpt_jnum(sp->samples_per_s), "read_bytes_per_s",
				rpt_jnum(sp->read_bytes_per_s)));
		}
		json_object_set_new(o, "series", a);
	}
	return o;
}

static json_t *cache_verdict_json(const struct rpt_sweep *s, int c)
{
	const struct rpt_cache_verdict *cv = &s->v.cache[c];
	json_t *o = json_object(), *conf = json_array();

	if (!o || !conf) {
		json_decref(o);
		json_decref(conf);
		return NULL;
	}
	json_object_set_new(o, "cache", json_string(stg_cache_state_name(
		(enum stg_cache_state)c)));
	json_object_set_new(o, "vcpus", json_integer(cv->vcpus_top));
	json_object_set_new(o, "all_vcpus", json_boolean(cv->top_is_all));
	json_object_set_new(o, "samples_per_s", rpt_jnum(cv->samples_per_s));
	json_object_set_new(o, "hit_ratio", rpt_jnum_if(cv->hit_ratio,
							 cv->hit_ratio >= 0));
	json_object_set_new(o, "hit_ratio_estimated",
			    json_boolean(cv->hit_ratio_estimated));
	json_object_set_new(o, "gpus_fed", json_integer(cv->gpus_fed));
	json_object_set_new(o, "gpus_fed_computed",
			    json_integer(cv->gpus_fed_computed));
	json_object_set_new(o, "check", json_string(conf_text(
		cv->confirmation)));
	for (int k = 0; k < RPT_CHECKS_MAX; k++) {
		const struct rpt_confirm *r = &s->confirm[c][k];

		if (r->run)
			json_array_append_new(conf, json_pack(
				"{s:i,s:o,s:b,s:o,s:b}", "gpus", (int)r->gpus,
				"au", rpt_jnum(r->au), "fed", rpt_verdict_au_fed(r->au,
				thr_of(s)), "vcpus", r->vcpus ?
				json_integer(r->vcpus) : json_null(), "used",
				(cv->check.used_mask >> k) & 1));
	}
	json_object_set_new(o, "confirmations", conf);
	json_object_set_new(o, "lowered_untested",
			    json_boolean(cv->check.lowered_untested));
	json_object_set_new(o, "checks_ignored",
			    json_integer(cv->check.ignored));
	json_object_set_new(o, "checks_note", cv->check.ignored ?
			    json_string(cv->check.note) : json_null());
	json_object_set_new(o, "limiting", json_string(cv->limiting));
	json_object_set_new(o, "per_vcpu_samples_per_s",
			    rpt_jnum(cv->per_vcpu_rate));
	json_object_set_new(o, "scaling_from_1_vcpu", rpt_jnum_if(
		cv->scaling, cv->scaling >= 0));
	json_object_set_new(o, "cpu_s_per_sample",
			    rpt_jnum(cv->cpu_s_per_sample));
	json_object_set_new(o, "cpu_per_vcpu", rpt_jnum(cv->cpu_per_vcpu));
	json_object_set_new(o, "figures_consistent",
			    json_boolean(!cv->inconsistent));
	json_object_set_new(o, "vcpus_per_gpu", rpt_jnum_if(
		cv->vcpus_per_gpu, cv->vcpus_per_gpu > 0));
	json_object_set_new(o, "storage_bound",
			    json_boolean(cv->storage_bound));
	json_object_set_new(o, "thread_vcpus_per_gpu", cv->thread_per_gpu_hi > 0 ?
		json_pack("[o,o]", rpt_jnum(cv->thread_per_gpu_lo), rpt_jnum(cv->thread_per_gpu_hi)) :
		json_null());
	json_object_set_new(o, "core_vcpus_per_gpu", cv->core_per_gpu_hi > 0 ?
		json_pack("[o,o]", rpt_jnum(cv->core_per_gpu_lo), rpt_jnum(cv->core_per_gpu_hi)) :
		json_null());
	json_object_set_new(o, "vcpus_needed", cv->vcpus_per_gpu > 0 ?
		json_integer(cv->vcpus_needed) : json_null());
	json_object_set_new(o, "vcpus_reserved",
			    json_integer(cv->vcpus_reserved));
	json_object_set_new(o, "vcpus_spare", cv->vcpus_per_gpu > 0 ?
		json_integer(cv->vcpus_spare) : json_null());
	json_object_set_new(o, "gpus_fed_with_reserve",
			    json_integer(cv->gpus_fed_reserved));
	json_object_set_new(o, "projected", json_boolean(cv->projected));
	if (cv->projected)
		json_object_set_new(o, "projection", json_pack(
			"{s:i,s:o,s:o,s:s}", "vcpus", (int)cv->vcpus_needed,
			"samples_per_s", rpt_jnum(cv->projected_samples_per_s),
			"samples_per_s_low", rpt_jnum(cv->projected_lo),
			"assumption", "high end: the per-vCPU rate measured at "
			"the largest vCPU count holds; low end: added vCPUs "
			"scale as measured from 1 vCPU; same CPU model only"));
	return o;
}

static const char *ram_fit_text(enum rpt_ram_fit fit)
{
	switch (fit) {
	case RPT_RAM_FIT_ENOUGH: return "enough";
	case RPT_RAM_FIT_SHORT: return "short";
	case RPT_RAM_FIT_NONE: return "no size suffices";
	default: return "?";
	}
}

static json_t *bytes_or_null(uint64_t b, bool known)
{
	return known ? json_integer((json_int_t)b) : json_null();
}

/* verdict.ram_curve: the rows, sorted by page cache. */
static json_t *ram_curve_json(const struct rpt_sweep *s)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < s->v.nram_curve; i++) {
		const struct rpt_ram_row *r = &s->v.ram_curve[i];
		json_t *e = json_pack("{s:I,s:o,s:o,s:s,s:o,s:o}",
			"page_cache_bytes", (json_int_t)r->page_cache_bytes,
			"fraction", rpt_jnum(r->fraction), "hit_ratio",
			rpt_jnum_if(r->hit_ratio, r->hit_ratio >= 0),
			"hit_ratio_source", r->source, "model_hit_ratio",
			rpt_jnum(r->model_hit), "samples_per_s",
			rpt_jnum_if(r->samples_per_s, r->samples_per_s >= 0));

		if (!e)
			continue;
		json_object_set_new(e, "cache", r->cache ?
				    json_string(r->cache) : json_null());
		json_object_set_new(e, "point", r->point >= 0 ?
				    json_integer(r->point) : json_null());
		json_object_set_new(e, "disagrees", json_boolean(r->disagrees));
		json_array_append_new(a, e);
	}
	return a;
}

/* The RAM verdict's keys, added to verdict.ram (O). */
static void ram_need_json(json_t *o, const struct rpt_sweep *s)
{
	const struct rpt_sweep_verdict *v = &s->v;
	const struct rpt_ram_need *n = &v->ram_need;
	const bool some = n->known && !n->none_suffices;

	if (!o)
		return;
	json_object_set_new(o, "known", json_boolean(n->known));
	json_object_set_new(o, "upper_bound", json_boolean(n->at_most));
	json_object_set_new(o, "storage_samples_per_s", rpt_jnum_if(
		n->storage_samples_per_s, n->known));
	json_object_set_new(o, "hit_needed", rpt_jnum_if(n->hit_needed,
							  n->known));
	json_object_set_new(o, "no_cache_needed",
			    json_boolean(n->no_cache_needed));
	json_object_set_new(o, "fraction_needed", rpt_jnum_if(
		n->fraction_needed, some));
	json_object_set_new(o, "none_suffices", json_boolean(n->none_suffices));
	json_object_set_new(o, "fraction_max", rpt_jnum(RPT_RAM_FRACTION_MAX));
	json_object_set_new(o, "page_cache_needed_bytes",
			    bytes_or_null(n->page_cache_bytes, some));
	json_object_set_new(o, "vm_ram_needed_bytes",
			    bytes_or_null(n->vm_ram_bytes, some));
	json_object_set_new(o, "own_bytes", bytes_or_null(v->own_bytes,
							  v->own_bytes > 0));
	json_object_set_new(o, "page_cache_here_bytes", bytes_or_null(
		n->page_cache_here, n->known && v->ram_limit));
	json_object_set_new(o, "hit_ratio_here", rpt_jnum_if(n->hit_here,
		n->known && n->hit_here >= 0));
	json_object_set_new(o, "gpus_here", rpt_jnum_if(n->gpus_here,
		n->known && n->gpus_here >= 0));
	json_object_set_new(o, "enough_here", n->known ?
			    json_boolean(n->enough_here) : json_null());
	json_object_set_new(o, "text", json_string(v->ram_text));
	json_object_set_new(o, "model", json_pack("{s:s,s:o,s:i,s:i,s:s}",
		"formula", "f + (1 - f) ln(1 - f)", "tolerance",
		rpt_jnum(RPT_RAM_MODEL_TOL), "checked", (int)v->ram_model_checked,
		"disagree", (int)v->ram_model_disagree, "text",
		v->ram_model_text));
}

/* A catalogued shape's RAM-axis keys, added to its entry E. */
static void shape_ram_json(json_t *e, const struct rpt_shape_fit *fi)
{
	json_object_set_new(e, "ram_needed_bytes", bytes_or_null(
		fi->ram_needed_bytes, fi->ram_needed_bytes > 0));
	json_object_set_new(e, "page_cache_bytes", json_integer(
		(json_int_t)fi->page_cache_bytes));
	json_object_set_new(e, "ram_fit", json_string(ram_fit_text(
		fi->ram_fit)));
}

static json_t *verdict_json(const struct rpt_sweep *s)
{
	const struct rpt_sweep_verdict *v = &s->v;
	json_t *o = json_object(), *fed = json_object(), *vpg = json_object();
	json_t *per = json_array(), *cat = json_array();

	if (!o || !fed || !vpg || !per || !cat) {
		json_decref(o);
		json_decref(fed);
		json_decref(vpg);
		json_decref(per);
		json_decref(cat);
		return NULL;
	}
	json_object_set_new(o, "headline", json_string(v->headline));
	json_object_set_new(o, "vcpu_kind", json_string(
		stg_vcpu_kind_name(v->vcpu_kind)));
	json_object_set_new(o, "vcpu_kind_basis",
			    json_string(nz(v->vcpu_kind_basis)));
	json_object_set_new(o, "smt_yield", rpt_jnum_if(v->smt_yield,
							 v->smt_yield > 0));
	json_object_set_new(o, "smt_yield_range", json_pack("[o,o]",
		rpt_jnum(v->smt_yield_lo), rpt_jnum(v->smt_yield_hi)));
	{
		char why[200];

		json_object_set_new(o, "smt_yield_basis", json_string(
			rpt_smt_yield_text(s, why, sizeof(why))));
	}
	json_object_set_new(o, "reserve", json_pack("{s:o,s:I,s:s}",
		"vcpus_per_gpu", rpt_jnum(v->reserve_vcpus_per_gpu),
		"ram_bytes_per_gpu", (json_int_t)v->reserve_ram_per_gpu,
		"ram_how", nz(s->reserve_ram_how)));
	for (int c = 0; c < STG_CACHE_STATES; c++) {
		const struct rpt_cache_verdict *cv = &v->cache[c];

		if (!cv->measured)
			continue;
		json_object_set_new(fed, stg_cache_state_name((enum stg_cache_state)c),
				    json_integer(cv->gpus_fed));
		json_object_set_new(vpg, stg_cache_state_name((enum stg_cache_state)c),
				    rpt_jnum_if(cv->vcpus_per_gpu,
						cv->vcpus_per_gpu > 0));
		json_array_append_new(per, cache_verdict_json(s, c));
	}
	json_object_set_new(o, "gpus_fed", fed);
	json_object_set_new(o, "vcpus_per_gpu", vpg);
	json_object_set_new(o, "per_cache", per);
	{
		/* cache states whose measured points were all unusable */
		json_t *nj = json_object();

		for (int c = 0; nj && c < STG_CACHE_STATES; c++)
			if (!v->cache[c].measured && v->cache[c].not_judged)
				json_object_set_new(nj, stg_cache_state_name(
					(enum stg_cache_state)c), json_string(
					v->cache[c].not_judged));
		json_object_set_new(o, "not_judged", nj ? nj : json_null());
	}
	json_object_set_new(o, "storage", v->storage_known ? json_pack(
		"{s:o,s:o,s:b,s:o,s:o}", "bytes_per_s", rpt_jnum(v->storage_bytes_per_s),
		"files_per_s", rpt_jnum(v->storage_files_per_s), "is_ceiling",
		v->storage_is_ceiling, "gpus", rpt_jnum(v->storage_gpus), "advice",
		v->storage_advice[0] ? json_string(v->storage_advice) :
		json_null()) : json_null());
	json_object_set_new(o, "ram", json_pack("{s:b,s:I,s:I,s:o,s:o,s:o,s:o}",
		"holds_dataset", v->ram_holds_dataset,
		"ram_limit_bytes", (json_int_t)v->ram_limit,
		"reserved_bytes", (json_int_t)v->ram_reserved,
		"share", rpt_jnum(RPT_RAM_SHARE),
		"page_cache_bytes", s->lru_ram_bytes ?
		json_integer((json_int_t)s->lru_ram_bytes) : json_null(),
		"lru_steady", rpt_jnum_if(s->lru_ram_steady,
					  s->lru_ram_steady >= 0),
		"lru_half_steady", rpt_jnum_if(s->lru_half_steady,
					       s->lru_half_steady >= 0)));
	ram_need_json(json_object_get(o, "ram"), s);
	json_object_set_new(o, "ram_needed_bytes", bytes_or_null(
		v->ram_need.ram_bytes, v->ram_need.known &&
		!v->ram_need.none_suffices));
	json_object_set_new(o, "ram_curve", ram_curve_json(s));
	for (size_t i = 0; i < v->nfits; i++) {
		const struct rpt_shape_fit *fi = &v->fits[i];

		const struct rpt_shape *sh = fi->shape;
		const bool known = fi->vcpus_needed >= 0;
		json_t *e = json_pack(
			"{s:s,s:s,s:i,s:i,s:o,s:o,s:o,s:b,s:b}",
			"name", nz(sh->name), "cloud", nz(sh->cloud),
			"gpus", (int)sh->gpus, "vcpus", (int)sh->vcpus,
			"ram_gib", rpt_jnum(sh->ram_gib), "vcpus_needed",
			rpt_jnum_if(fi->vcpus_needed, known),
			"vcpus_spare", rpt_jnum_if(fi->vcpus_spare, known),
			"ram_holds_dataset", fi->ram_holds_dataset,
			"recalled", sh->recalled);

		if (!e)
			continue;
		json_object_set_new(e, "vcpu_kind", json_string(
			stg_vcpu_kind_name(sh->vcpu_kind)));
		json_object_set_new(e, "vcpu_kind_source",
				    json_string(nz(sh->vcpu_kind_source)));
		json_object_set_new(e, "demand_row", sh->demand_row ?
				    json_string(sh->demand_row) : json_null());
		json_object_set_new(e, "demand_total",
				    rpt_jnum(fi->demand_total));
		json_object_set_new(e, "demand_basis", sh->demand_basis ?
			json_string(sh->demand_basis) : json_null());
		json_object_set_new(e, "demand_source", sh->demand_source ?
			json_string(sh->demand_source) : json_null());
		json_object_set_new(e, "demand_multi_measured",
				    json_boolean(sh->demand_multi_measured));
		json_object_set_new(e, "vcpus_needed_low",
			rpt_jnum_if(fi->vcpus_needed_lo, known));
		json_object_set_new(e, "vcpus_reserved",
				    rpt_jnum(fi->vcpus_reserved));
		json_object_set_new(e, "vcpus_spare_best",
			rpt_jnum_if(fi->vcpus_spare_hi, known));
		json_object_set_new(e, "fits", json_string(
			rpt_fit_text(fi->fits)));
		json_object_set_new(e, "ram_reserved_bytes",
				    json_integer((json_int_t)fi->ram_reserved));
		shape_ram_json(e, fi);
		json_array_append_new(cat, e);
	}
	json_object_set_new(o, "catalog_cache", v->catalog_cache >= 0 ?
		json_string(stg_cache_state_name((enum stg_cache_state)v->catalog_cache)) :
		json_null());
	json_object_set_new(o, "catalog", cat);
	{
		char why[320];

		json_object_set_new(o, "catalog_not_judged",
			v->catalog_cache < 0 ? json_string(
			rpt_catalog_unjudged_text(s, why, sizeof(why))) :
			json_null());
	}
	return o;
}

/*
 * Into S's JSON report ROOT (when S has others or its own pipeline is not
 * native): verdict.by_pipeline {name: {headline, cache, vcpus, gpus_fed,
 * vcpus_per_gpu, cpu_s_per_sample}} and pipelines [{name, description,
 * workers, versions, interpreter, points, verdict}], the first being S's
 * own (whose points are the report's "points"); each other pipeline's
 * points and verdict are its own sweep's JSON (rpt_sweep_json). Returns 0
 * or -ENOMEM.
 */
static int pipelines_json(json_t *root, const struct rpt_sweep *s,
			  bool with_series)
{
	json_t *verdict = json_object_get(root, "verdict");
	json_t *by = json_object(), *arr = json_array();

	if (!by || !arr || !json_is_object(verdict)) {
		json_decref(by);
		json_decref(arr);
		return -ENOMEM;
	}
	for (size_t i = 0; i <= s->nothers; i++) {
		const struct rpt_sweep *p = i ? s->others[i - 1] : s;
		struct rpt_pipeline_verdict v;
		json_t *e, *pj, *key, *sub = NULL;

		rpt_pipeline_verdict_get(s, i, &v);
		key = rpt_json_path(v.name);    /* a FILE's name: any bytes */
		json_object_set_new(by, json_string_value(key) ?
				    json_string_value(key) : "?",
				    rpt_pipeline_by_json(s, i, &v));
		json_decref(key);
		pj = rpt_pipeline_json(v.name, p->setup.pipeline,
				       p->pipeline_workers,
				       p->py);
		if (!pj)
			continue;
		if (!p->pipeline_workers && strcmp(v.name, "native"))
			json_object_set_new(pj, "workers", json_null());
		json_object_set_new(pj, "workers_rule", json_string(
			!strcmp(v.name, "native") ? "the point's vCPUs" :
			p->pipeline_workers ? "--workers" :
			"the point's vCPUs - 1, at least 1"));
		if (i) {
			sub = rpt_sweep_json(p, with_series);
			e = json_object_get(sub, "points");
			json_object_set(pj, "points", e ? e : json_null());
			e = json_object_get(sub, "verdict");
			/* the per-pipeline lines are the report's, once */
			if (e)
				json_object_del(e, "by_pipeline");
			json_object_set(pj, "verdict", e ? e : json_null());
			json_decref(sub);
		} else {
			json_object_set_new(pj, "points",
					    json_string("see points"));
		}
		json_array_append_new(arr, pj);
	}
	json_object_set_new(verdict, "by_pipeline", by);
	json_object_set_new(root, "pipelines", arr);
	return 0;
}

json_t *rpt_sweep_json(const struct rpt_sweep *s, bool with_series)
{
	json_t *root = json_object(), *pts = json_array(), *drop = json_array();

	if (!root || !pts || !drop) {
		json_decref(root);
		json_decref(pts);
		json_decref(drop);
		return NULL;
	}
	json_object_set_new(root, "schema", json_string(RPT_SWEEP_SCHEMA_NAME));
	json_object_set_new(root, "schema_version",
			    json_integer(RPT_SWEEP_SCHEMA_VERSION));
	json_object_set_new(root, "command", json_string("sweep"));
	if (rpt_setup_json(root, &s->setup, RPT_SETUP_SWEEP)) {
		json_decref(root);
		json_decref(pts);
		json_decref(drop);
		return NULL;
	}
	json_object_set_new(json_object_get(root, "storage"), "backend",
			    json_string(nz(s->backend)));
	json_object_set_new(json_object_get(root, "gpus"), "au_threshold",
			    rpt_jnum(thr_of(s)));
	json_object_set_new(root, "budget", json_pack("{s:o,s:o,s:o,s:s}",
		"budget_s", rpt_jnum(s->budget_s), "elapsed_s", rpt_jnum(s->elapsed_s),
		"setup_s", rpt_jnum(s->setup_s), "rule", nz(s->budget_rule)));
	if (s->prepare.set)
		json_object_set_new(root, "prepare",
				    rpt_prepare_json(&s->prepare));
	json_object_set_new(root, "notes", json_string(nz(s->notes)));
	json_object_set_new(root, "stalled", rpt_stall_json(s->stall));
	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];

		if (p->status == RPT_POINT_DROPPED)
			json_array_append_new(drop, json_pack("{s:i,s:s,s:s}",
				"vcpus", (int)p->vcpus, "cache",
				stg_cache_state_name(p->cache), "why", nz(p->why)));
		json_array_append_new(pts, point_json(p, with_series));
	}
	json_object_set_new(root, "points", pts);
	json_object_set_new(root, "dropped", drop);
	json_object_set_new(root, "verdict", verdict_json(s));
	if (rpt_sweep_cost_json(root, s) ||
	    ((s->nothers || (s->pipeline_name &&
			      strcmp(s->pipeline_name, "native"))) &&
	     pipelines_json(root, s, with_series))) {
		json_decref(root);
		return NULL;
	}
	return root;
}
