/*
 * report_sweep.c - the verdict of `feedrate sweep` and its text and JSON
 * reports. The verdict is arithmetic on the points the command measured
 * (struct rpt_sweep): nothing here runs the engine.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loader.h"
#include "report.h"
#include "report_fmt.h"
#include "report_sweep.h"

static const char *const cache_names[RPT_CACHES] = { "cold", "ram", "warm" };

const char *rpt_cache_name(enum rpt_cache c)
{
	return (unsigned)c < RPT_CACHES ? cache_names[c] : "?";
}

int rpt_cache_parse(const char *s, enum rpt_cache *out)
{
	for (int c = 0; c < RPT_CACHES; c++)
		if (s && !strcmp(s, cache_names[c])) {
			*out = (enum rpt_cache)c;
			return 0;
		}
	return -EINVAL;
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

static double thr_of(const struct rpt_sweep *s)
{
	return s->au_threshold > 0 ? s->au_threshold : 0.90;
}

double rpt_point_cpu_s_per_sample(const struct rpt_point *p)
{
	return p->samples ? p->stages.process_cpu_s / (double)p->samples : 0;
}

bool rpt_point_too_short(const struct rpt_point *p)
{
	return p->status == RPT_POINT_MEASURED &&
	       (p->measured_s < RPT_POINT_MIN_WINDOW_S ||
		p->batches < RPT_POINT_MIN_BATCHES);
}

bool rpt_point_usable(const struct rpt_point *p)
{
	return p->status == RPT_POINT_MEASURED && !rpt_point_too_short(p) &&
	       !(p->cache == RPT_CACHE_RAM && p->ram_not_limited);
}

/* Why measured point P is not usable, in words; NULL when it is. */
static const char *unusable_why(const struct rpt_point *p)
{
	if (p->status != RPT_POINT_MEASURED)
		return NULL;
	if (p->cache == RPT_CACHE_RAM && p->ram_not_limited)
		return "its page cache was not limited (it held more than "
		       "1.25 x the asked size), so it ran warm";
	if (rpt_point_too_short(p))
		return "too short (a window under 1 s or fewer than 4 "
		       "batches): start-up dominates its figures";
	return NULL;
}

/* ---- the verdict ---- */

/*
 * The usable point of cache C with the most vCPUs, and the 1-vCPU one;
 * *UNUSABLE gets why the measured point with the most vCPUs that is not
 * usable was left out (NULL when none was).
 */
static const struct rpt_point *top_point(const struct rpt_sweep *s,
					 enum rpt_cache c,
					 const struct rpt_point **one,
					 const char **unusable)
{
	const struct rpt_point *top = NULL;
	unsigned unusable_vcpus = 0;

	*one = NULL;
	*unusable = NULL;
	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];
		const char *why;

		if (p->cache != c || p->status != RPT_POINT_MEASURED)
			continue;
		why = unusable_why(p);
		if (why) {
			if (!*unusable || p->vcpus > unusable_vcpus) {
				*unusable = why;
				unusable_vcpus = p->vcpus;
			}
			continue;
		}
		if (!top || p->vcpus > top->vcpus)
			top = p;
		if (p->vcpus == 1)
			*one = p;
	}
	return top;
}

static bool conf_fed(const struct rpt_sweep *s, const struct rpt_confirm *c)
{
	return c->run && c->au + 1e-12 >= thr_of(s);
}

/*
 * The confirmation rule: conf[0] ran with G GPUs (none when G = 0),
 * conf[1] with G + 1. G not fed: G - 1. G + 1 fed too: G + 1. Both as
 * expected: confirmed.
 */
static void confirm_apply(const struct rpt_sweep *s, enum rpt_cache c,
			  struct rpt_cache_verdict *cv)
{
	const struct rpt_confirm *c0 = &s->confirm[c][0];
	const struct rpt_confirm *c1 = &s->confirm[c][1];
	const unsigned g = cv->gpus_fed_computed;

	cv->gpus_fed = g;
	cv->confirmation = RPT_CONF_NONE;
	if (g >= 1 && c0->run && c0->gpus == g && !conf_fed(s, c0)) {
		cv->gpus_fed = g - 1;
		cv->confirmation = RPT_CONF_LOWERED;
	} else if (c1->run && c1->gpus == g + 1 && conf_fed(s, c1)) {
		cv->gpus_fed = g + 1;
		cv->confirmation = RPT_CONF_RAISED;
	} else if (c1->run && c1->gpus == g + 1 &&
		   (g == 0 || (c0->run && c0->gpus == g))) {
		cv->confirmation = RPT_CONF_CONFIRMED;
	}
}

/* "A100-40GB" -> "A100" (the part before '-'), into BUF. */
static void gpu_family(const char *type, char *buf, size_t len)
{
	size_t n = strcspn(nz(type), "-");

	if (n >= len)
		n = len - 1;
	memcpy(buf, nz(type), n);
	buf[n] = '\0';
}

static void catalog_check(struct rpt_sweep *s)
{
	struct rpt_sweep_verdict *v = &s->v;
	static const enum rpt_cache pref[] = {
		RPT_CACHE_WARM, RPT_CACHE_RAM, RPT_CACHE_COLD
	};
	char fam[32];
	double vpg = -1;

	v->catalog_cache = -1;
	for (size_t i = 0; i < 3; i++)
		if (v->cache[pref[i]].measured &&
		    !v->cache[pref[i]].inconsistent &&
		    v->cache[pref[i]].vcpus_per_gpu > 0) {
			v->catalog_cache = (int)pref[i];
			vpg = v->cache[pref[i]].vcpus_per_gpu;
			break;
		}
	gpu_family(s->gpu_type, fam, sizeof(fam));
	for (size_t i = 0; i < s->nshapes && v->nfits < RPT_SHAPES_MAX; i++) {
		const struct rpt_shape *sh = &s->shapes[i];
		struct rpt_shape_fit *f;

		if (!fam[0] || strcasecmp(nz(sh->gpu), fam))
			continue;
		f = &v->fits[v->nfits++];
		f->shape = sh;
		f->vcpus_needed = vpg > 0 ? vpg * sh->gpus : -1;
		f->vcpus_spare = vpg > 0 ? sh->vcpus - f->vcpus_needed : 0;
		f->ram_holds_dataset = (double)s->bytes <=
			0.8 * sh->ram_gib * 1073741824.0;
	}
}

static void headline(struct rpt_sweep *s)
{
	struct rpt_sweep_verdict *v = &s->v;
	const struct rpt_cache_verdict *best = NULL;
	char *h = v->headline;
	const size_t len = sizeof(v->headline);
	size_t used = 0;
	int k;

	for (int c = 0; c < RPT_CACHES; c++) {
		const struct rpt_cache_verdict *cv = &v->cache[c];

		if (!cv->measured)
			continue;
		k = snprintf(h + used, len - used, "%s%s %u", used ? ", " :
			     "feeds ", rpt_cache_name((enum rpt_cache)c),
			     cv->gpus_fed);
		if (k > 0 && (size_t)k < len - used)
			used += (size_t)k;
		if (!best || cv->gpus_fed > best->gpus_fed)
			best = cv;
	}
	if (!best) {
		bool any = false;

		for (int c = 0; c < RPT_CACHES; c++)
			any = any || v->cache[c].not_judged;
		snprintf(h, len, "no verdict: %s", any ? "every measured point "
			 "was too short or (ram) not limited; see below" :
			 "no point was measured");
		return;
	}
	k = snprintf(h + used, len - used, " x %s at >= %.0f %% AU (%u "
		     "asked)", nz(s->gpu_type), thr_of(s) * 100, s->gpu_count);
	if (k > 0 && (size_t)k < len - used)
		used += (size_t)k;
	for (int c = RPT_CACHES - 1; c >= 0; c--) {
		const struct rpt_cache_verdict *cv = &v->cache[c];

		if (!cv->measured)
			continue;
		if (!strcmp(cv->limiting, "gpu"))
			snprintf(h + used, len - used, "; the asked GPUs are fed "
				 "%s", rpt_cache_name((enum rpt_cache)c));
		else if (cv->vcpus_per_gpu > 0 && !strcmp(cv->limiting, "cpu"))
			snprintf(h + used, len - used, "; limited by cpu: %.1f "
				 "vCPUs per %s, %u needed for %u, this VM has %u",
				 cv->vcpus_per_gpu, nz(s->gpu_type),
				 cv->vcpus_needed, s->gpu_count, s->vcpus_total);
		else
			snprintf(h + used, len - used, "; limited by %s",
				 cv->limiting);
		break;
	}
	for (int c = 0; c < RPT_CACHES; c++) {
		used = strlen(h);
		if (v->cache[c].not_judged && used + 1 < len)
			snprintf(h + used, len - used, "; %s not judged",
				 rpt_cache_name((enum rpt_cache)c));
	}
}

void rpt_sweep_verdict(struct rpt_sweep *s)
{
	struct rpt_sweep_verdict *v = &s->v;
	const double need = thr_of(s) * s->demand_per_gpu;

	memset(v, 0, sizeof(*v));
	for (int c = 0; c < RPT_CACHES; c++) {
		struct rpt_cache_verdict *cv = &v->cache[c];
		const struct rpt_point *one, *top;
		const char *unusable;
		double g;

		cv->limiting = "unknown";
		cv->vcpus_per_gpu = -1;
		cv->scaling = -1;
		cv->hit_ratio = -1;
		top = top_point(s, (enum rpt_cache)c, &one, &unusable);
		if (!top) {
			cv->not_judged = unusable;
			continue;
		}
		cv->measured = true;
		cv->vcpus_top = top->vcpus;
		cv->top_is_all = top->vcpus == s->vcpus_total;
		cv->samples_per_s = top->samples_per_s;
		cv->hit_ratio = top->hit_ratio;
		cv->hit_ratio_estimated = top->hit_ratio_estimated;
		g = need > 0 ? floor(top->samples_per_s / need + 1e-9) : 0;
		cv->gpus_fed_computed = g > 1e6 ? 1000000u : (unsigned)g;
		confirm_apply(s, (enum rpt_cache)c, cv);
		cv->cpu_s_per_sample = rpt_point_cpu_s_per_sample(top);
		cv->per_vcpu_rate = top->vcpus ? top->samples_per_s /
			top->vcpus : 0;
		/* samples/s per vCPU x CPU-s per sample = CPU-s per vCPU-s:
		 * more than the vCPUs can give means a figure is wrong */
		cv->cpu_per_vcpu = cv->per_vcpu_rate * cv->cpu_s_per_sample;
		cv->inconsistent = cv->cpu_per_vcpu > RPT_CPU_PER_VCPU_MAX;
		if (one && one->samples_per_s > 0 && top->vcpus > 1)
			cv->scaling = top->samples_per_s /
				(top->vcpus * one->samples_per_s);
		if (cv->per_vcpu_rate > 0 && need > 0) {
			cv->vcpus_per_gpu = need / cv->per_vcpu_rate;
			cv->vcpus_needed = (unsigned)ceil(s->gpu_count *
				cv->vcpus_per_gpu - 1e-9);
		}
		if (s->gpu_count && cv->gpus_fed >= s->gpu_count)
			cv->limiting = "gpu";
		else if (top->bottleneck && *top->bottleneck)
			cv->limiting = top->bottleneck;
		if (!strcmp(cv->limiting, "cpu") && cv->vcpus_per_gpu > 0 &&
		    cv->vcpus_needed > top->vcpus && !cv->inconsistent) {
			cv->projected = true;
			cv->projected_samples_per_s = cv->vcpus_needed *
				cv->per_vcpu_rate;
		}
	}
	/* storage, seen cold: the best cold read rate */
	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];

		if (p->cache != RPT_CACHE_COLD || !rpt_point_usable(p))
			continue;
		v->storage_known = true;
		if (p->read_bytes_per_s > v->storage_bytes_per_s)
			v->storage_bytes_per_s = p->read_bytes_per_s;
		if (p->files_per_s > v->storage_files_per_s)
			v->storage_files_per_s = p->files_per_s;
		if (p->bottleneck && !strcmp(p->bottleneck, "storage"))
			v->storage_is_ceiling = true;
	}
	if (v->storage_known && need > 0)
		v->storage_gpus = v->storage_files_per_s / need;
	v->ram_holds_dataset = s->ram_available > 0 &&
		s->bytes <= s->ram_available &&
		(s->cgroup_limit < 0 || s->bytes <= (uint64_t)s->cgroup_limit);
	catalog_check(s);
	headline(s);
}

/* ---- text ---- */

static void print_path(FILE *f, const char *path)
{
	char *t = rpt_path_text(nz(path), strlen(nz(path)));

	fputs(t ? t : "?", f);
	free(t);
}

/* Words wrapped at 78 columns, continuation lines indented by IND. */
static void print_wrapped(FILE *f, const char *first, unsigned ind,
			  const char *text)
{
	size_t col = strlen(first);
	const char *p = text;

	fputs(first, f);
	while (*p) {
		size_t w = strcspn(p, " ");

		if (col > ind && col + 1 + w > 78) {
			fprintf(f, "\n%*s", (int)ind, "");
			col = ind;
		} else if (col > ind || (col == ind && p != text &&
					 col != strlen(first))) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, w, f);
		col += w;
		p += w;
		while (*p == ' ')
			p++;
	}
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

static void cache_label(char *buf, size_t len, const struct rpt_sweep *s,
			enum rpt_cache c)
{
	char b[32];

	if (c == RPT_CACHE_RAM && s->lru_ram_bytes) {
		rpt_fmt_bytes(b, sizeof(b), (double)s->lru_ram_bytes);
		snprintf(buf, len, "ram %s", b);
	} else {
		snprintf(buf, len, "%s", rpt_cache_name(c));
	}
}

static void print_verdict(FILE *f, const struct rpt_sweep *s)
{
	const struct rpt_sweep_verdict *v = &s->v;
	const double need = thr_of(s) * s->demand_per_gpu;
	char a[32], b[48], line[640];

	rpt_fmt_count(a, sizeof(a), s->demand_per_gpu);
	fprintf(f, "\nverdict by cache state (%s at %s samples/s, AU >= %.0f "
		"%%: %.0f each)\n", nz(s->gpu_type), a, thr_of(s) * 100, need);
	fprintf(f, "  %-13s %5s %10s %5s %-9s %-8s %9s\n", "cache", "vCPUs",
		"samples/s", "GPUs", "check", "limit", "vCPU/GPU");
	for (int c = 0; c < RPT_CACHES; c++) {
		const struct rpt_cache_verdict *cv = &v->cache[c];

		if (!cv->measured && cv->not_judged) {
			cache_label(a, sizeof(a), s, (enum rpt_cache)c);
			snprintf(b, sizeof(b), "  %-13s ", a);
			snprintf(line, sizeof(line), "not judged: %s",
				 cv->not_judged);
			print_wrapped(f, b, 16, line);
			continue;
		}
		if (!cv->measured)
			continue;
		cache_label(b, sizeof(b), s, (enum rpt_cache)c);
		rpt_fmt_count(a, sizeof(a), cv->samples_per_s);
		fprintf(f, "  %-13s %5u %10s %5u %-9s %-8s ", b, cv->vcpus_top,
			a, cv->gpus_fed, conf_text(cv->confirmation),
			cv->limiting);
		if (cv->vcpus_per_gpu > 0)
			fprintf(f, "%9.1f\n", cv->vcpus_per_gpu);
		else
			fprintf(f, "%9s\n", "-");
	}
	for (int c = 0; c < RPT_CACHES; c++) {
		const struct rpt_cache_verdict *cv = &v->cache[c];
		const struct rpt_confirm *c0 = &s->confirm[c][0];
		const struct rpt_confirm *c1 = &s->confirm[c][1];

		if (!cv->measured)
			continue;
		if (c0->run || c1->run) {
			size_t u = (size_t)snprintf(line, sizeof(line),
				"checked at %u vCPUs with emulated GPUs:",
				cv->vcpus_top);

			if (c0->run && u < sizeof(line))
				u += (size_t)snprintf(line + u, sizeof(line) - u,
					" %u GPU%s AU %.1f %%;", c0->gpus,
					c0->gpus == 1 ? "" : "s", c0->au * 100);
			if (c1->run && u < sizeof(line))
				snprintf(line + u, sizeof(line) - u, " %u GPU%s "
					 "AU %.1f %%", c1->gpus,
					 c1->gpus == 1 ? "" : "s", c1->au * 100);
		} else {
			snprintf(line, sizeof(line), "not checked with emulated "
				 "GPUs (%s)", c1->why ? c1->why : c0->why ?
				 c0->why : "no confirmation run");
		}
		snprintf(b, sizeof(b), "  %-6s ", rpt_cache_name(
			(enum rpt_cache)c));
		print_wrapped(f, b, 9, line);
		if (cv->inconsistent) {
			snprintf(line, sizeof(line), "NOT PROJECTED: the figures "
				 "at %u vCPUs are inconsistent: %.0f samples/s "
				 "per vCPU x %.2f ms CPU per sample = %.2f "
				 "CPU-seconds per vCPU-second, more than a vCPU "
				 "can give", cv->vcpus_top, cv->per_vcpu_rate,
				 cv->cpu_s_per_sample * 1e3, cv->cpu_per_vcpu);
			print_wrapped(f, "         ", 9, line);
		}
		if (cv->projected) {
			rpt_fmt_count(a, sizeof(a), cv->projected_samples_per_s);
			snprintf(line, sizeof(line), "PROJECTED: %u x %s need "
				 "%u vCPUs (%.1f each); this VM has %u. With %u "
				 "vCPUs the feed would be ~%s samples/s, assuming "
				 "the per-vCPU rate measured at %u vCPUs (%.0f "
				 "samples/s, %.2f ms CPU per sample%s) holds: "
				 "same CPU model only, no projection across CPU "
				 "models", s->gpu_count, nz(s->gpu_type),
				 cv->vcpus_needed, cv->vcpus_per_gpu,
				 s->vcpus_total, cv->vcpus_needed, a,
				 cv->vcpus_top, cv->per_vcpu_rate,
				 cv->cpu_s_per_sample * 1e3,
				 cv->scaling >= 0 ? ", scaling from 1 vCPU "
				 "measured" : "");
			print_wrapped(f, "         ", 9, line);
			if (cv->scaling >= 0) {
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
		rpt_fmt_bytes(c, sizeof(c), (double)s->bytes);
		snprintf(line, sizeof(line), "cold, %s %s/s and %s files/s "
			 "(%s): this disk feeds %s%.1f x %s. %s",
			 v->storage_is_ceiling ? "the storage ceiling is" :
			 "storage gave at least", a, b,
			 v->storage_is_ceiling ? "storage-bound" :
			 "a lower bound: the CPU was the limit",
			 v->storage_is_ceiling ? "" : "at least ",
			 v->storage_gpus, nz(s->gpu_type),
			 v->storage_gpus >= s->gpu_count ? "Storage is not "
			 "the limit for the asked GPUs." : "");
		if (v->storage_is_ceiling && v->storage_gpus < s->gpu_count) {
			size_t u = strlen(line);

			snprintf(line + u, sizeof(line) - u, "For %u x %s the "
				 "dataset (%s) must fit in RAM or move to faster "
				 "storage (local NVMe).", s->gpu_count,
				 nz(s->gpu_type), c);
		}
		print_wrapped(f, "  storage  ", 11, line);
	} else {
		print_wrapped(f, "  storage  ", 11, "not measured cold (no "
			      "cold point): no storage ceiling");
	}
	rpt_fmt_bytes(a, sizeof(a), (double)s->bytes);
	rpt_fmt_bytes(b, sizeof(b), (double)s->ram_total);
	if (s->cgroup_limit >= 0)
		rpt_fmt_bytes(c, sizeof(c), (double)s->cgroup_limit);
	snprintf(line, sizeof(line), "dataset %s, RAM %s%s%s%s: %s", a, b,
		 s->cgroup_limit >= 0 ? ", cgroup limit " : "",
		 s->cgroup_limit >= 0 ? c : "",
		 s->cgroup_limit >= 0 ? "" : " (no cgroup limit)",
		 v->ram_holds_dataset ? "it fits in the page cache, so from "
		 "the second epoch on training reads from RAM (the warm row)" :
		 "it does NOT fit in the page cache: expect the cold or ram "
		 "row, not warm");
	print_wrapped(f, "  RAM      ", 11, line);
	if (v->cache[RPT_CACHE_RAM].measured ||
	    v->cache[RPT_CACHE_RAM].not_judged) {
		const struct rpt_cache_verdict *cv = &v->cache[RPT_CACHE_RAM];

		rpt_fmt_bytes(a, sizeof(a), (double)s->lru_ram_bytes);
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

static void print_demand(FILE *f, const struct rpt_sweep *s)
{
	char a[32], line[768];

	rpt_fmt_count(a, sizeof(a), s->demand_per_gpu);
	snprintf(line, sizeof(line), "%s (%s): %s samples/s per GPU, %s row%s; "
		 "source: %s", nz(s->gpu_type), nz(s->gpu_detail), a,
		 nz(s->demand_kind), s->demand_est ? " (an ESTIMATE)" : "",
		 nz(s->demand_source));
	print_wrapped(f, "  demand   ", 11, line);
	snprintf(line, sizeof(line), "%s; numbers are for this native "
		 "pipeline, a PyTorch DataLoader with PIL needs roughly "
		 "2.5-4x the CPU per sample", nz(s->pipeline));
	print_wrapped(f, "  pipeline ", 11, line);
}

static void print_catalog(FILE *f, const struct rpt_sweep *s)
{
	const struct rpt_sweep_verdict *v = &s->v;

	fprintf(f, "\ncatalogued %s shapes", nz(s->gpu_type));
	if (v->catalog_cache < 0) {
		fprintf(f, ": no vCPUs-per-GPU figure to judge them by\n");
		return;
	}
	fprintf(f, " (vCPUs per GPU from the %s row: %.1f)\n",
		rpt_cache_name((enum rpt_cache)v->catalog_cache),
		v->cache[v->catalog_cache].vcpus_per_gpu);
	if (!v->nfits) {
		fprintf(f, "  none in the catalog for this GPU type\n");
		return;
	}
	fprintf(f, "  %-25s %4s %5s %7s %7s %-8s\n", "shape", "GPUs", "vCPUs",
		"needed", "spare", "RAM");
	for (size_t i = 0; i < v->nfits; i++) {
		const struct rpt_shape_fit *fi = &v->fits[i];
		char ram[32];

		snprintf(ram, sizeof(ram), "%.0fG%s", fi->shape->ram_gib,
			 fi->shape->recalled ? "*" : "");
		fprintf(f, "  %-25s %4u %5u %7.0f %+7.0f %-6s %s\n",
			fi->shape->name, fi->shape->gpus, fi->shape->vcpus,
			ceil(fi->vcpus_needed - 1e-9),
			floor(fi->vcpus_spare + 1e-9), ram,
			fi->ram_holds_dataset ? "holds data" : "too small");
	}
	fprintf(f, "  (* a figure recalled, not re-read from the provider; "
		"'holds data': dataset <= 80 %% of RAM)\n");
}

static void print_points(FILE *f, const struct rpt_sweep *s)
{
	char a[32], b[48];
	size_t dropped = 0;
	unsigned marks = 0;

	fprintf(f, "\npoints (raw feed rate: no GPU consuming; AU computed for "
		"%u x %s)\n", s->gpu_count, nz(s->gpu_type));
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
		cache_label(b, sizeof(b), s, p->cache);
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
		fprintf(f, "  %5u %-13s %9s %5s %6s %8.1f %7.2f %-8s %5.1fs%s%s\n",
			p->vcpus, b, a, au, hit, p->read_bytes_per_s / 1e6,
			rpt_point_cpu_s_per_sample(p) * 1e3, nz(p->bottleneck),
			p->measured_s, p->cache == RPT_CACHE_RAM &&
			p->ram_not_limited ? "w" : "",
			rpt_point_too_short(p) ? "!" : "");
		if (p->cache == RPT_CACHE_RAM && p->ram_not_limited)
			marks |= 1;
		if (rpt_point_too_short(p))
			marks |= 2;
	}
	fprintf(f, "  (CPU ms: CPU time of the measuring process per sample; "
		"e: estimated)\n");
	if (marks & 1)
		fprintf(f, "  (w: the page cache was not limited: it ran warm; "
			"not used for the ram verdict)\n");
	if (marks & 2)
		fprintf(f, "  (!: too short, under %.0f s or fewer than %d "
			"batches; not used for the verdict)\n",
			RPT_POINT_MIN_WINDOW_S, RPT_POINT_MIN_BATCHES);
	if (!dropped)
		return;
	fprintf(f, "  dropped by the budget rule:");
	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];

		if (p->status == RPT_POINT_DROPPED)
			fprintf(f, " %u/%s", p->vcpus, rpt_cache_name(p->cache));
	}
	fputc('\n', f);
}

static void print_facts(FILE *f, const struct rpt_sweep *s)
{
	char a[32], b[32], line[1024];

	fprintf(f, "\nmachine and storage\n");
	snprintf(line, sizeof(line), "%s; %u usable vCPUs%s", *nz(s->cpu_model)
		 ? s->cpu_model : "unknown CPU model", s->vcpus_total,
		 s->threads_per_core > 1 ? " (SMT)" : " (no SMT siblings)");
	print_wrapped(f, "  CPU      ", 11, line);
	rpt_fmt_bytes(a, sizeof(a), (double)s->ram_total);
	rpt_fmt_bytes(b, sizeof(b), (double)s->ram_available);
	fprintf(f, "  RAM      %s, %s available\n", a, b);
	if (*nz(s->instance_type) || *nz(s->vendor))
		fprintf(f, "  instance %s%s%s\n", nz(s->instance_type),
			*nz(s->vendor) ? " / " : "", nz(s->vendor));
	fprintf(f, "  GPUs     %d NVIDIA GPU%s present (the GPUs above are "
		"emulated)\n", s->gpus_present, s->gpus_present == 1 ? "" :
		"s");
	rpt_fmt_bytes(a, sizeof(a), (double)s->bytes);
	rpt_fmt_count(b, sizeof(b), (double)s->files);
	fprintf(f, "  dataset  ");
	print_path(f, s->dataset);
	fprintf(f, "%s\n           %s files, %s, workload %s\n",
		s->generated ? " (generated, removed after the sweep)" : "",
		b, a, nz(s->workload));
	fprintf(f, "  storage  %s%s%s%s%s, backend %s\n",
		*nz(s->fs_type) ? s->fs_type : "unknown fs",
		*nz(s->fs_device) ? " on " : "", nz(s->fs_device),
		s->fs_network ? " (network)" : "", "", nz(s->backend));
	snprintf(line, sizeof(line), "%.0f s of %.0f s used (listing and "
		 "eviction %.1f s). %s", s->elapsed_s, s->budget_s, s->setup_s,
		 nz(s->budget_rule));
	print_wrapped(f, "  budget   ", 11, line);
	if (*nz(s->notes))
		print_wrapped(f, "  notes    ", 11, s->notes);
}

void rpt_sweep_print(FILE *f, const struct rpt_sweep *s)
{
	fprintf(f, "feedrate sweep\n");
	print_wrapped(f, "  verdict  ", 11, s->v.headline);
	print_demand(f, s);
	print_verdict(f, s);
	print_storage_ram(f, s);
	print_catalog(f, s);
	print_points(f, s);
	print_facts(f, s);
}

/* ---- JSON ---- */

static json_t *num_or_null(double v, bool known)
{
	return known && isfinite(v) ? json_real(v) : json_null();
}

static json_t *stages_json(const struct rpt_stages *st)
{
	return json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}",
		"decode_s", st->decode_s, "resize_s", st->resize_s,
		"other_s", st->other_s, "worker_cpu_s", st->worker_cpu_s,
		"reader_cpu_s", st->reader_cpu_s,
		"consumer_cpu_s", st->consumer_cpu_s,
		"process_cpu_s", st->process_cpu_s,
		"worker_busy_s", st->worker_busy_s,
		"worker_wait_s", st->worker_wait_s);
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
	json_object_set_new(o, "cache", json_string(rpt_cache_name(p->cache)));
	json_object_set_new(o, "status", json_string(status_name(p->status)));
	if (p->status != RPT_POINT_MEASURED)
		json_object_set_new(o, "why", json_string(nz(p->why)));
	json_object_set_new(o, "ram_bytes", p->cache == RPT_CACHE_RAM ?
		json_integer((json_int_t)p->ram_bytes) : json_null());
	json_object_set_new(o, "cgroup_bytes", p->cgroup_bytes ?
		json_integer((json_int_t)p->cgroup_bytes) : json_null());
	json_object_set_new(o, "page_cache_seen_bytes", p->cache_seen_bytes ?
		json_integer((json_int_t)p->cache_seen_bytes) : json_null());
	json_object_set_new(o, "ram_limited", p->cache == RPT_CACHE_RAM &&
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
	json_object_set_new(o, "samples_per_s", json_real(p->samples_per_s));
	json_object_set_new(o, "au", num_or_null(p->au, p->au >= 0));
	json_object_set_new(o, "au_computed", json_true());
	json_object_set_new(o, "hit_ratio", num_or_null(p->hit_ratio,
							 p->hit_ratio >= 0));
	json_object_set_new(o, "hit_ratio_estimated",
			    json_boolean(p->hit_ratio_estimated));
	json_object_set_new(o, "fraction_resident", num_or_null(
		p->fraction_resident, p->fraction_resident >= 0));
	json_object_set_new(o, "bottleneck", json_string(nz(p->bottleneck)));
	json_object_set_new(o, "bottleneck_why",
			    json_string(nz(p->bottleneck_why)));
	json_object_set_new(o, "stages", stages_json(&p->stages));
	json_object_set_new(o, "cpu_s_per_sample",
			    json_real(rpt_point_cpu_s_per_sample(p)));
	json_object_set_new(o, "measured_s", json_real(p->measured_s));
	json_object_set_new(o, "warmup_s", json_real(p->warmup_s));
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
			    json_real(p->read_bytes_per_s));
	json_object_set_new(o, "files_per_s", json_real(p->files_per_s));
	json_object_set_new(o, "cpu_outside_mask_s", num_or_null(
		p->cpu_outside_mask_s, p->cpu_outside_mask_s >= 0));
	json_object_set_new(o, "backend", json_string(nz(p->backend)));
	json_object_set_new(o, "cache_how", json_string(nz(p->cache_how)));
	if (with_series && p->series) {
		json_t *a = json_array();

		for (unsigned i = 0; a && i < p->series_len; i++) {
			const struct ldr_series_point *sp = &p->series[i];

			json_array_append_new(a, json_pack("{s:f,s:f,s:f}",
				"t_s", sp->t_s, "samples_per_s",
				sp->samples_per_s, "read_bytes_per_s",
				sp->read_bytes_per_s));
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
	json_object_set_new(o, "cache", json_string(rpt_cache_name(
		(enum rpt_cache)c)));
	json_object_set_new(o, "vcpus", json_integer(cv->vcpus_top));
	json_object_set_new(o, "all_vcpus", json_boolean(cv->top_is_all));
	json_object_set_new(o, "samples_per_s", json_real(cv->samples_per_s));
	json_object_set_new(o, "hit_ratio", num_or_null(cv->hit_ratio,
							 cv->hit_ratio >= 0));
	json_object_set_new(o, "hit_ratio_estimated",
			    json_boolean(cv->hit_ratio_estimated));
	json_object_set_new(o, "gpus_fed", json_integer(cv->gpus_fed));
	json_object_set_new(o, "gpus_fed_computed",
			    json_integer(cv->gpus_fed_computed));
	json_object_set_new(o, "check", json_string(conf_text(
		cv->confirmation)));
	for (int k = 0; k < 2; k++) {
		const struct rpt_confirm *r = &s->confirm[c][k];

		if (r->run)
			json_array_append_new(conf, json_pack("{s:i,s:f,s:b}",
				"gpus", (int)r->gpus, "au", r->au, "fed",
				conf_fed(s, r)));
	}
	json_object_set_new(o, "confirmations", conf);
	json_object_set_new(o, "limiting", json_string(cv->limiting));
	json_object_set_new(o, "per_vcpu_samples_per_s",
			    json_real(cv->per_vcpu_rate));
	json_object_set_new(o, "scaling_from_1_vcpu", num_or_null(
		cv->scaling, cv->scaling >= 0));
	json_object_set_new(o, "cpu_s_per_sample",
			    json_real(cv->cpu_s_per_sample));
	json_object_set_new(o, "cpu_per_vcpu", json_real(cv->cpu_per_vcpu));
	json_object_set_new(o, "figures_consistent",
			    json_boolean(!cv->inconsistent));
	json_object_set_new(o, "vcpus_per_gpu", num_or_null(
		cv->vcpus_per_gpu, cv->vcpus_per_gpu > 0));
	json_object_set_new(o, "vcpus_needed", cv->vcpus_per_gpu > 0 ?
		json_integer(cv->vcpus_needed) : json_null());
	json_object_set_new(o, "projected", json_boolean(cv->projected));
	if (cv->projected)
		json_object_set_new(o, "projection", json_pack(
			"{s:i,s:f,s:s}", "vcpus", (int)cv->vcpus_needed,
			"samples_per_s", cv->projected_samples_per_s,
			"assumption", "the per-vCPU rate measured at the "
			"largest vCPU count holds; same CPU model only"));
	return o;
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
	for (int c = 0; c < RPT_CACHES; c++) {
		const struct rpt_cache_verdict *cv = &v->cache[c];

		if (!cv->measured)
			continue;
		json_object_set_new(fed, rpt_cache_name((enum rpt_cache)c),
				    json_integer(cv->gpus_fed));
		json_object_set_new(vpg, rpt_cache_name((enum rpt_cache)c),
				    num_or_null(cv->vcpus_per_gpu,
						cv->vcpus_per_gpu > 0));
		json_array_append_new(per, cache_verdict_json(s, c));
	}
	json_object_set_new(o, "gpus_fed", fed);
	json_object_set_new(o, "vcpus_per_gpu", vpg);
	json_object_set_new(o, "per_cache", per);
	{
		/* cache states whose measured points were all unusable */
		json_t *nj = json_object();

		for (int c = 0; nj && c < RPT_CACHES; c++)
			if (!v->cache[c].measured && v->cache[c].not_judged)
				json_object_set_new(nj, rpt_cache_name(
					(enum rpt_cache)c), json_string(
					v->cache[c].not_judged));
		json_object_set_new(o, "not_judged", nj ? nj : json_null());
	}
	json_object_set_new(o, "storage", v->storage_known ? json_pack(
		"{s:f,s:f,s:b,s:f}", "bytes_per_s", v->storage_bytes_per_s,
		"files_per_s", v->storage_files_per_s, "is_ceiling",
		v->storage_is_ceiling, "gpus", v->storage_gpus) : json_null());
	json_object_set_new(o, "ram", json_pack("{s:b,s:o,s:o,s:o}",
		"holds_dataset", v->ram_holds_dataset,
		"page_cache_bytes", s->lru_ram_bytes ?
		json_integer((json_int_t)s->lru_ram_bytes) : json_null(),
		"lru_steady", num_or_null(s->lru_ram_steady,
					  s->lru_ram_steady >= 0),
		"lru_half_steady", num_or_null(s->lru_half_steady,
					       s->lru_half_steady >= 0)));
	for (size_t i = 0; i < v->nfits; i++) {
		const struct rpt_shape_fit *fi = &v->fits[i];

		json_array_append_new(cat, json_pack(
			"{s:s,s:s,s:i,s:i,s:f,s:o,s:o,s:b,s:b}",
			"name", nz(fi->shape->name), "cloud",
			nz(fi->shape->cloud), "gpus", (int)fi->shape->gpus,
			"vcpus", (int)fi->shape->vcpus, "ram_gib",
			fi->shape->ram_gib, "vcpus_needed",
			num_or_null(fi->vcpus_needed, fi->vcpus_needed >= 0),
			"vcpus_spare", num_or_null(fi->vcpus_spare,
						   fi->vcpus_needed >= 0),
			"ram_holds_dataset", fi->ram_holds_dataset,
			"recalled", fi->shape->recalled));
	}
	json_object_set_new(o, "catalog_cache", v->catalog_cache >= 0 ?
		json_string(rpt_cache_name((enum rpt_cache)v->catalog_cache)) :
		json_null());
	json_object_set_new(o, "catalog", cat);
	return o;
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
	json_object_set_new(root, "feedrate_version", json_string(
		nz(s->version)));
	json_object_set_new(root, "workload", json_string(nz(s->workload)));
	json_object_set_new(root, "pipeline", json_string(nz(s->pipeline)));
	json_object_set_new(root, "machine", json_pack(
		"{s:s,s:i,s:i,s:I,s:I,s:o,s:s,s:s,s:i}",
		"cpu_model", nz(s->cpu_model), "vcpus", (int)s->vcpus_total,
		"threads_per_core", (int)s->threads_per_core,
		"ram_bytes", (json_int_t)s->ram_total,
		"ram_available_bytes", (json_int_t)s->ram_available,
		"cgroup_limit_bytes", s->cgroup_limit >= 0 ?
		json_integer(s->cgroup_limit) : json_null(),
		"instance_type", nz(s->instance_type),
		"vendor", nz(s->vendor), "gpus_present", s->gpus_present));
	json_object_set_new(root, "storage", json_pack("{s:s,s:s,s:b,s:s}",
		"fs_type", nz(s->fs_type), "device", nz(s->fs_device),
		"network", s->fs_network, "backend", nz(s->backend)));
	json_object_set_new(root, "dataset", json_pack("{s:o,s:b,s:I,s:I}",
		"path", rpt_json_path(nz(s->dataset)),
		"generated", s->generated, "files", (json_int_t)s->files,
		"bytes", (json_int_t)s->bytes));
	json_object_set_new(root, "gpus", json_pack(
		"{s:s,s:s,s:i,s:f,s:s,s:s,s:b,s:f}",
		"type", nz(s->gpu_type), "detail", nz(s->gpu_detail),
		"count", (int)s->gpu_count, "demand_per_gpu", s->demand_per_gpu,
		"demand_kind", nz(s->demand_kind),
		"demand_source", nz(s->demand_source),
		"demand_estimated", s->demand_est,
		"au_threshold", thr_of(s)));
	json_object_set_new(root, "budget", json_pack("{s:f,s:f,s:f,s:s}",
		"budget_s", s->budget_s, "elapsed_s", s->elapsed_s,
		"setup_s", s->setup_s, "rule", nz(s->budget_rule)));
	json_object_set_new(root, "notes", json_string(nz(s->notes)));
	for (size_t i = 0; i < s->npoints; i++) {
		const struct rpt_point *p = &s->points[i];

		if (p->status == RPT_POINT_DROPPED)
			json_array_append_new(drop, json_pack("{s:i,s:s,s:s}",
				"vcpus", (int)p->vcpus, "cache",
				rpt_cache_name(p->cache), "why", nz(p->why)));
		json_array_append_new(pts, point_json(p, with_series));
	}
	json_object_set_new(root, "points", pts);
	json_object_set_new(root, "dropped", drop);
	json_object_set_new(root, "verdict", verdict_json(s));
	return root;
}
