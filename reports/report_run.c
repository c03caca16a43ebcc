/*
 * report_run.c - the text and JSON report of `feedrate run`: what was
 * measured, the verdict, how many GPUs the feed rate keeps busy, the
 * bottleneck and its evidence, the per-stage split and the errors.
 * Reads struct rpt_run and the engine's struct ldr_result; calls nothing
 * in the engine.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "loader.h"
#include "report.h"
#include "rpt_json.h"
#include "rpt_text.h"

static const char *nz(const char *s)
{
	return s ? s : "";
}

static bool have_result(const struct rpt_run *r)
{
	return r->res && (r->res->measured_s > 0 || r->res->samples);
}

/* R's verdict (verdict.h), from its numbers. */
static void judge(const struct rpt_run *r, struct rpt_run_judgement *j)
{
	const struct ldr_result *res = r->res;
	struct rpt_run_numbers n = {
		.measured = have_result(r),
		.gpu_count = r->setup.gpu_count,
		.demand_per_gpu = r->setup.demand_per_gpu,
		.au_threshold = r->setup.au_threshold,
	};

	if (res) {
		n.samples_per_s = res->samples_per_s;
		n.au = res->au;
		n.batches = res->batches;
		n.batch = res->batch;
		n.measured_s = res->measured_s;
		n.warmup_incomplete = res->warmup_incomplete;
	}
	rpt_verdict_run(&n, j);
}

/* R's demand, as the demand line (shared with sweep) takes it. */
static struct rpt_demand_words demand_words(const struct rpt_run *r)
{
	return rpt_setup_demand_words(&r->setup);
}

static double thr_of(const struct rpt_run *r)
{
	return jdg_threshold(r->setup.au_threshold);
}

bool rpt_run_too_short(const struct rpt_run *r, char *why, size_t len)
{
	struct rpt_run_judgement j;

	judge(r, &j);
	if (len)
		snprintf(why, len, "%s", j.why);
	return j.too_short;
}

unsigned rpt_run_gpus_fed(const struct rpt_run *r)
{
	struct rpt_run_judgement j;

	judge(r, &j);
	return j.gpus_fed;
}

/* True when the run had GPUs and they were fed at the threshold. */
static bool gpus_were_fed(const struct rpt_run *r)
{
	struct rpt_run_judgement j;

	judge(r, &j);
	return have_result(r) && j.asked_fed;
}

void rpt_run_verdict(const struct rpt_run *r, char *buf, size_t len)
{
	const double thr = thr_of(r) * 100;
	const char *type = nz(r->setup.gpu_type);
	/* which rows judged: train, mlperf, ceiling or gpu-rate */
	const char *kind = r->setup.demand_kind ? r->setup.demand_kind :
		"unknown";

	if (!have_result(r)) {
		snprintf(buf, len, "no verdict: the run measured nothing%s%s",
			 r->run_error_text ? " (" : "",
			 r->run_error_text ? r->run_error_text : "");
		if (r->run_error_text)
			strncat(buf, ")", len - strlen(buf) - 1);
		return;
	}
	if (r->res->window_partial) {
		snprintf(buf, len, "no verdict: %s %.1f s into the %s; the "
			 "running totals until then are given, partial",
			 r->stall ? "the storage stalled" : "the measurement "
			 "child was killed", r->res->measured_s,
			 r->res->warmup_incomplete ? "warm-up" : "window");
		return;
	}
	if (r->res->stopped_by_max_errors) {
		snprintf(buf, len, "no verdict: stopped by --max-errors after "
			 "%llu failed samples", (unsigned long long)
			 r->res->errors);
		return;
	}
	if (!r->res->batches) {
		snprintf(buf, len, "no verdict: %s before a batch was "
			 "measured", r->signal || r->res->stopped_by_signal ?
			 "interrupted" : "the run ended");
		return;
	}
	{
		char why[256];

		if (rpt_run_too_short(r, why, sizeof(why))) {
			snprintf(buf, len, "no verdict (run too short: %s); "
				 "measure longer (--duration, --epochs, "
				 "--samples)", why);
			return;
		}
	}
	if (r->setup.gpu_count == 0) {
		const unsigned g = rpt_run_gpus_fed(r);

		if (g)
			snprintf(buf, len, "this VM's feed rate keeps %ux%s at "
				 ">= %.0f %% AU (raw feed, no GPU emulated; "
				 "%s demand)", g, type, thr, kind);
		else
			snprintf(buf, len, "falls short of even 1x%s at >= %.0f "
				 "%% AU (%s demand): it needs %.0f samples/s, "
				 "the feed is %.0f (limited by %s)", type, thr,
				 kind, thr_of(r) * r->setup.demand_per_gpu,
				 r->res->samples_per_s, nz(r->bottleneck));
		return;
	}
	if (gpus_were_fed(r))
		snprintf(buf, len, "this VM feeds %ux%s at >= %.0f %% AU "
			 "(AU %.1f %%, %s demand)", r->setup.gpu_count, type,
			 thr,
			 r->res->au * 100, kind);
	else
		snprintf(buf, len, "falls short: %ux%s at AU %.0f %% (< %.0f "
			 "%%, %s demand), limited by %s", r->setup.gpu_count,
			 type,
			 r->res->au * 100, thr, kind, nz(r->bottleneck));
	if (r->ram_not_limited && strlen(buf) + 1 < len)
		snprintf(buf + strlen(buf), len - strlen(buf), "; the page "
			 "cache was NOT limited to the --ram size, so this is "
			 "a warm figure");
}

static void fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000000)
		snprintf(buf, len, "%.0f us", (double)ns / 1e3);
	else if (ns < 1000000000ull)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

/* Whether FORMAT names a row whose file is a sample (folder, npy): its
 * row in *F (WL_FORMAT_FOLDER when there is no such row). */
static bool per_file(const char *format, enum wl_format *f)
{
	if (wl_format_parse(format, f) || !wl_format_can(*f, WL_CAP_FILES)) {
		*f = WL_FORMAT_FOLDER;
		return false;
	}
	return true;
}

static void print_measured(FILE *f, const struct rpt_run *r)
{
	const struct ldr_result *res = r->res;
	enum wl_format fm = WL_FORMAT_FOLDER;
	char a[96], b[32];

	rpt_fmt_count(a, sizeof(a), (double)r->setup.files);
	rpt_fmt_bytes(b, sizeof(b), (double)r->setup.bytes);
	fprintf(f, "what was measured\n  dataset    ");
	rpt_put_path(f, r->setup.dataset ? r->setup.dataset : "?");
	if (r->setup.format && !per_file(r->setup.format, &fm)) {
		char c[32];

		rpt_fmt_count(c, sizeof(c), (double)r->setup.records);
		snprintf(a, sizeof(a), "%s records in ", c);
		rpt_fmt_count(c, sizeof(c), (double)r->setup.files);
		snprintf(a + strlen(a), sizeof(a) - strlen(a), "%s %s shards",
			 c, r->setup.format);
	} else {
		/* a folder's files, or e.g. "npy files" */
		snprintf(a + strlen(a), sizeof(a) - strlen(a), " %s%sfiles",
			 fm != WL_FORMAT_FOLDER ? r->setup.format : "",
			 fm != WL_FORMAT_FOLDER ? " " : "");
	}
	fprintf(f, "%s: %s, %s on %s%s%s%s\n",
		r->setup.generated ? (r->setup.kept ? " (generated, kept)" :
				" (generated, removed after the run)") : "",
		a, b, r->setup.fs_type && *r->setup.fs_type ? r->setup.fs_type :
		"unknown fs",
		r->setup.fs_device && *r->setup.fs_device ? " (" : "",
		nz(r->setup.fs_device),
		r->setup.fs_device && *r->setup.fs_device ? ")" : "");
	if (r->setup.list) {
		fprintf(f, "  listed by  ");
		rpt_put_path(f, r->setup.list ? r->setup.list : "?");
		fputc('\n', f);
	}
	if (r->listing_errors)
		fprintf(f, "  listing    %llu entries skipped (unreadable, "
			"dangling, not regular files)\n",
			(unsigned long long)r->listing_errors);
	for (unsigned i = 0; i < r->nlisting_kinds; i++) {
		const struct rpt_listing_kind *lk = &r->listing_kinds[i];

		fprintf(f, "    %-12s %llu", lk->kind,
			(unsigned long long)lk->count);
		if (lk->example) {
			fprintf(f, ", e.g. ");
			rpt_put_path(f, lk->example ? lk->example : "?");
		}
		fputc('\n', f);
	}
	fprintf(f, "  workload   %s\n", nz(r->setup.workload));
	fprintf(f, "  pipeline   %s\n", nz(r->setup.pipeline));
	rpt_pipeline_print(f, r->py);
	rpt_gpu_decode_print(f, &r->gd, res, r->setup.demand_per_gpu);
	if (r->py && res && res->backend[0])
		fprintf(f, "  backend    %s (%s)\n", res->backend,
			res->backend_reason);
	else if (res && res->backend[0])
		fprintf(f, "  backend    %s (%s), depth %u, %u reader%s\n",
			res->backend, res->backend_reason, r->setup.depth,
			res->readers, res->readers == 1 ? "" : "s");
	else
		fprintf(f, "  backend    %s (not started)\n",
			nz(r->setup.backend_asked));
	if (res && res->reader_notes[0])
		fprintf(f, "  notes      %s\n", res->reader_notes);
	fprintf(f, "  vCPUs      %u: %s; %u worker%s\n", r->vcpus,
		nz(r->cpus_how), res ? res->workers : 0,
		res && res->workers == 1 ? "" : "s");
	{
		char kind[96];

		rpt_vcpu_kind_text(kind, sizeof(kind), r->setup.vcpu_kind,
				   r->setup.threads_per_core);
		fprintf(f, "             vCPU kind: %s\n", kind);
	}
	if (r->cpu_outside_mask_s >= 0)
		fprintf(f, "             CPU time outside these CPUs during "
			"the run: %.2f s (other processes, kernel threads, "
			"FUSE daemons)\n", r->cpu_outside_mask_s);
	fprintf(f, "  cache      %s", nz(r->setup.cache));
	if (r->setup.ram_bytes) {
		rpt_fmt_bytes(a, sizeof(a), (double)r->setup.ram_bytes);
		fprintf(f, " %s", a);
	}
	fprintf(f, ": %s\n", nz(r->cache_how));
	if (r->ram_not_limited) {
		rpt_fmt_bytes(a, sizeof(a), (double)r->cache_seen_bytes);
		rpt_fmt_bytes(b, sizeof(b), (double)r->setup.ram_bytes);
		fprintf(f, "             NOT LIMITED: the page cache held %s, "
			"more than the %s asked: the run was warmer than asked "
			"and its hit ratio is the LRU estimate\n", a, b);
	}
	if (r->fraction_resident >= 0)
		fprintf(f, "             resident before the run (verified): "
			"%.1f %%\n", r->fraction_resident * 100);
	else
		fprintf(f, "             residency before the run: unknown\n");
	rpt_prepare_print(f, &r->prepare);
	if (r->hit_ratio >= 0)
		fprintf(f, "             page-cache hit ratio %.1f %% (%s)\n",
			r->hit_ratio * 100, nz(r->hit_ratio_source));
	else if (r->hit_ratio_source && *r->hit_ratio_source)
		fprintf(f, "             page-cache hit ratio unknown (%s)\n",
			r->hit_ratio_source);
	if (r->setup.gpu_count)
		fprintf(f, "  GPUs       %ux%s (%s) emulated, %s samples/s "
			"each, %s steps\n", r->setup.gpu_count,
			nz(r->setup.gpu_type),
			nz(r->setup.gpu_detail),
			(rpt_fmt_count(a, sizeof(a), r->setup.demand_per_gpu),
			 a),
			r->setup.gpu_sync_all ? "synchronous" : "independent");
	else
		fprintf(f, "  GPUs       none emulated (raw feed rate); judged "
			"against %s (%s), %s samples/s each\n",
			nz(r->setup.gpu_type), nz(r->setup.gpu_detail),
			(rpt_fmt_count(a, sizeof(a), r->setup.demand_per_gpu),
			 a));
	{
		const struct rpt_demand_words d = demand_words(r);
		char line[1024];

		rpt_demand_text(line, sizeof(line), &d);
		fprintf(f, "             demand: %s\n", line);
	}
	if (res)
		fprintf(f, "  window     %.1f s measured after %.1f s warm-up, "
			"batch %u, %llu epoch%s done%s\n", res->measured_s,
			res->warmup_s, res->batch,
			(unsigned long long)res->epochs_done,
			res->epochs_done == 1 ? "" : "s",
			res->warmup_incomplete ? "; ended inside the warm-up: "
			"the numbers include start-up" : "");
	if (r->notes && *r->notes)
		fprintf(f, "  notes      %s\n", r->notes);
}

static void print_stages(FILE *f, const struct ldr_result *res)
{
	const double n = (double)(res->samples + res->samples_failed);
	const double wall = res->worker_busy_s + res->worker_wait_s;
	const double steps = res->steps.decode_s + res->steps.resize_s +
			     res->steps.other_s;

	if (n > 0)
		fprintf(f, "  per sample decode %.2f ms, resize %.2f ms, other "
			"%.2f ms (%.1f / %.1f / %.1f %% of transform time); "
			"%.2f ms worker CPU\n",
			res->steps.decode_s / n * 1e3,
			res->steps.resize_s / n * 1e3,
			res->steps.other_s / n * 1e3,
			pct(res->steps.decode_s, steps),
			pct(res->steps.resize_s, steps),
			pct(res->steps.other_s, steps),
			res->worker_cpu_s / n * 1e3);
	fprintf(f, "  CPU s      workers %.2f, readers %.2f, consumers %.2f, "
		"whole process %.2f\n", res->worker_cpu_s, res->reader_cpu_s,
		res->consumer_cpu_s, res->process_cpu_s);
	fprintf(f, "  workers    busy %.0f %%, waiting for a sample %.0f %%\n",
		pct(res->worker_busy_s, wall), pct(res->worker_wait_s, wall));
	fprintf(f, "  queues     %.1f samples read and waiting, %.1f full "
		"batches waiting, %.1f reads in flight (means)\n",
		res->mean_work_queue, res->mean_ready_batches,
		res->mean_reads_in_flight);
}

static void print_errors(FILE *f, const struct rpt_run *r)
{
	const struct ldr_result *res = r->res;

	if (!res->errors) {
		fprintf(f, "  errors     none\n");
		return;
	}
	fprintf(f, "  errors     %llu sample%s failed (whole run)%s\n",
		(unsigned long long)res->errors, res->errors == 1 ? "" : "s",
		res->stopped_by_max_errors ? "; stopped by --max-errors" : "");
	for (unsigned i = 0; i < res->err_kinds && i < LDR_ERR_KINDS; i++) {
		fprintf(f, "    %-12s %llu, e.g. ", res->err[i].kind,
			(unsigned long long)res->err[i].count);
		rpt_put_path(f, res->err[i].example);
		fputc('\n', f);
	}
}

/* The running totals of a killed child: counts, rates and stage times,
 * said to be partial, never judged. */
static void print_partial(FILE *f, const struct rpt_run *r)
{
	const struct ldr_result *res = r->res;
	char a[32], b[32];

	fprintf(f, "\nresults (PARTIAL: the running totals the measurement "
		"child published before it was killed, up to %.1f s of its "
		"%s; not judged)\n", res->measured_s,
		res->warmup_incomplete ? "warm-up (no window opened)" :
		"window");
	rpt_fmt_count(a, sizeof(a), res->samples_per_s);
	rpt_fmt_count(b, sizeof(b), (double)res->samples);
	fprintf(f, "  samples/s  %s (%s samples, %llu batches in %.1f s, at "
		"the GPU side)\n", a, b, (unsigned long long)res->batches,
		res->measured_s);
	if (r->setup.gpu_count)
		fprintf(f, "  AU         %.1f %%; compute %.1f s, waiting for "
			"data %.1f s\n", res->au * 100, res->gpu_compute_s,
			res->gpu_wait_s);
	fprintf(f, "  CPU s      workers %.2f, readers %.2f, consumers %.2f, "
		"whole process %.2f; workers busy %.0f %%, waiting for a "
		"sample %.0f %%\n", res->worker_cpu_s, res->reader_cpu_s,
		res->consumer_cpu_s, res->process_cpu_s,
		pct(res->worker_busy_s, res->worker_busy_s +
		    res->worker_wait_s),
		pct(res->worker_wait_s, res->worker_busy_s +
		    res->worker_wait_s));
	rpt_fmt_bytes(a, sizeof(a), res->read_bytes_per_s);
	rpt_fmt_bytes(b, sizeof(b), (double)res->read_bytes);
	fprintf(f, "  reads      %s/s (%s)\n", a, b);
	fprintf(f, "  errors     %llu sample%s failed\n",
		(unsigned long long)res->errors, res->errors == 1 ? "" : "s");
}

void rpt_run_print(FILE *f, const struct rpt_run *r)
{
	const struct ldr_result *res = r->res;
	const double thr = thr_of(r);
	char verdict[512], why[256], a[32], b[32];

	rpt_run_verdict(r, verdict, sizeof(verdict));
	fprintf(f, "feedrate run%s\n", r->stall ?
		" (PARTIAL: the storage STALLED)" : r->signal || (res &&
		res->stopped_by_signal) ? " (PARTIAL: interrupted)" :
		res && res->stopped_by_max_errors ?
		" (PARTIAL: stopped by --max-errors)" : "");
	fprintf(f, "  verdict    %s\n\n", verdict);
	print_measured(f, r);
	if (r->stall) {
		char line[700];

		rpt_stall_text(r->stall, line, sizeof(line));
		fprintf(f, "  stalled    %s\n", line);
	} else if (r->run_error) {
		fprintf(f, "  run error  %s\n", nz(r->run_error_text));
	}
	if (!res)
		return;
	if (res->window_partial) {
		print_partial(f, r);
		return;
	}
	fprintf(f, "\nresults\n");
	rpt_fmt_count(a, sizeof(a), res->samples_per_s);
	rpt_fmt_count(b, sizeof(b), (double)res->samples);
	fprintf(f, "  samples/s  %s (%s samples in %.1f s, at the GPU "
		"side)\n", a, b, res->measured_s);
	if (r->setup.tokens_per_sample) {
		rpt_fmt_count(a, sizeof(a), res->samples_per_s *
			      r->setup.tokens_per_sample);
		fprintf(f, "  tokens/s   %s (%u tokens a sample)\n", a,
			r->setup.tokens_per_sample);
	}
	if (r->setup.gpu_count) {
		fprintf(f, "  AU         %.1f %%", res->au * 100);
		if (r->setup.gpu_count > 1) {
			double lo = 1, hi = 0;

			for (unsigned i = 0; i < r->setup.gpu_count &&
			     i < 64; i++) {
				lo = fmin(lo, res->au_per_gpu[i]);
				hi = fmax(hi, res->au_per_gpu[i]);
			}
			fprintf(f, " (per GPU %.1f-%.1f %%)", lo * 100,
				hi * 100);
		}
		fprintf(f, "; compute %.1f s, waiting for data %.1f s\n",
			res->gpu_compute_s, res->gpu_wait_s);
	}
	if (!res->batches || res->stopped_by_max_errors) {
		fprintf(f, "  capacity   not judged: too little was measured\n");
	} else if (rpt_run_too_short(r, why, sizeof(why))) {
		fprintf(f, "  capacity   not judged: run too short (%s)\n",
			why);
	} else if (gpus_were_fed(r)) {
		fprintf(f, "  capacity   at least %ux%s: the GPUs took every "
			"batch they wanted, so the feed may go higher; run with "
			"--gpus 0 for the raw feed rate\n", r->setup.gpu_count,
			nz(r->setup.gpu_type));
	} else {
		rpt_fmt_count(a, sizeof(a), thr * r->setup.demand_per_gpu);
		fprintf(f, "  capacity   %u x %s at >= %.0f %% AU: a GPU at AU "
			"a eats a x demand samples/s, so G GPUs stay at >= "
			"%.0f %% while G x %s <= the feed rate; "
			"G = floor(%.0f / %s)%s\n", rpt_run_gpus_fed(r),
			nz(r->setup.gpu_type), thr * 100, thr * 100, a,
			res->samples_per_s, a,
			r->setup.gpu_sync_all && r->setup.gpu_count ?
			". Synchronous steps make uneven "
			"arrivals cost more: confirm with --gpus NxTYPE" : "");
	}
	fprintf(f, "  bottleneck %s: %s\n", nz(r->bottleneck),
		res->bottleneck_why);
	if (r->py) {
		/* a Python loader: its CPU, not stages it does not show */
		const double n = (double)res->samples;

		fprintf(f, "  CPU s      loader workers %.2f, main process "
			"(emulated GPUs) %.2f, all %.2f; %.2f ms per sample\n",
			res->worker_cpu_s, res->consumer_cpu_s,
			res->process_cpu_s, n > 0 ? res->process_cpu_s / n *
			1e3 : 0);
		print_errors(f, r);
		return;
	}
	print_stages(f, res);
	rpt_fmt_bytes(a, sizeof(a), res->read_bytes_per_s);
	{
		char p50[32], p99[32], s50[32], s99[32];

		fmt_ns(p50, sizeof(p50), stg_histo_percentile(&res->read_lat, 50));
		fmt_ns(p99, sizeof(p99), stg_histo_percentile(&res->read_lat, 99));
		fmt_ns(s50, sizeof(s50),
		       stg_histo_percentile(&res->sample_lat, 50));
		fmt_ns(s99, sizeof(s99),
		       stg_histo_percentile(&res->sample_lat, 99));
		fprintf(f, "  reads      %s/s; read latency p50 %s, p99 %s; "
			"sample latency (read to transformed) p50 %s, p99 %s\n",
			a, p50, p99, s50, s99);
		if (res->decompressed_bytes && res->measured_s > 0) {
			rpt_fmt_bytes(a, sizeof(a),
				      (double)res->decompressed_bytes /
				      res->measured_s);
			fprintf(f, "  decompress %s/s out of the decompressor "
				"(zstd shards, DEFLATE members)\n", a);
		}
	}
	print_errors(f, r);
}

/* ---- JSON ---- */

json_t *rpt_prepare_json(const struct rpt_prepare *pr)
{
	json_t *o;

	if (!pr->set)
		return NULL;
	o = json_pack("{s:o,s:o,s:o,s:o,s:I,s:I,s:o,s:o,s:i,s:i,s:s}",
		      "list_s", rpt_jnum(pr->list_s),
		      "evict_s", rpt_jnum(pr->evict_s),
		      "warm_s", rpt_jnum(pr->warm_s),
		      "verify_s", rpt_jnum(pr->verify_s),
		      "files", (json_int_t)pr->files,
		      "verify_sample", (json_int_t)pr->verify_sample,
		      "verify_bound", rpt_jnum_nonneg(pr->verify_bound),
		      "verify_confidence", rpt_jnum(pr->confidence),
		      "listings", (int)pr->listings,
		      "reused", (int)pr->reused,
		      "method", nz(pr->method));
	return o;
}

void rpt_prepare_print(FILE *f, const struct rpt_prepare *pr)
{
	if (!pr->set)
		return;
	fprintf(f, "  prepare    list %.2f s, evict %.2f s, warm %.2f s, "
		"verify %.2f s (%llu files evicted or warmed", pr->list_s,
		pr->evict_s, pr->warm_s, pr->verify_s,
		(unsigned long long)pr->files);
	if (pr->verify_bound > 0)
		fprintf(f, "; residency checked on a random sample of %llu "
			"files: within +-%.1f %% at %.0f %% confidence",
			(unsigned long long)pr->verify_sample,
			pr->verify_bound * 100, pr->confidence * 100);
	else if (pr->verify_bound == 0)
		fprintf(f, "; residency checked on every file (%llu)",
			(unsigned long long)pr->verify_sample);
	if (pr->reused)
		fprintf(f, "; %u state%s found already made", pr->reused,
			pr->reused == 1 ? "" : "s");
	fprintf(f, ")\n");
	if (pr->method && pr->method[0])
		fprintf(f, "             by %s\n", pr->method);
}

/* "reads": what was read and decompressed in the window, and what the
 * demand needs: {bytes_per_s, bytes_per_sample, needed_bytes_per_s,
 * decompressed_bytes_per_s (only where data was decompressed)}. */
static json_t *reads_json(const struct rpt_run *r,
			  const struct ldr_result *res)
{
	const double per = rpt_bytes_per_sample(r->setup.bytes,
						r->setup.format ?
						r->setup.records :
						r->setup.files);
	const double eaten = r->setup.gpu_count ? r->setup.demand_total :
			     r->setup.demand_single;
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "bytes_per_s", rpt_jnum(res->read_bytes_per_s));
	json_object_set_new(o, "bytes_per_sample", rpt_jnum_if(per, per > 0));
	json_object_set_new(o, "needed_bytes_per_s",
			    rpt_jnum_if(per * eaten, per > 0 && eaten > 0));
	if (res->decompressed_bytes)
		json_object_set_new(o, "decompressed_bytes_per_s", rpt_jnum(
			res->measured_s > 0 ? (double)res->decompressed_bytes /
			res->measured_s : 0));
	return o;
}

static json_t *stages_json(const struct ldr_result *res)
{
	json_t *s = json_object();

	if (!s)
		return NULL;
	json_object_set_new(s, "decode_s", rpt_jnum(res->steps.decode_s));
	json_object_set_new(s, "resize_s", rpt_jnum(res->steps.resize_s));
	json_object_set_new(s, "other_s", rpt_jnum(res->steps.other_s));
	json_object_set_new(s, "worker_cpu_s", rpt_jnum(res->worker_cpu_s));
	json_object_set_new(s, "reader_cpu_s", rpt_jnum(res->reader_cpu_s));
	json_object_set_new(s, "consumer_cpu_s",
			    rpt_jnum(res->consumer_cpu_s));
	json_object_set_new(s, "process_cpu_s", rpt_jnum(res->process_cpu_s));
	json_object_set_new(s, "worker_busy_s", rpt_jnum(res->worker_busy_s));
	json_object_set_new(s, "worker_wait_s", rpt_jnum(res->worker_wait_s));
	json_object_set_new(s, "gpu_compute_s", rpt_jnum(res->gpu_compute_s));
	json_object_set_new(s, "gpu_wait_s", rpt_jnum(res->gpu_wait_s));
	return s;
}

static json_t *errors_json(const struct ldr_result *res)
{
	json_t *e = json_object(), *kinds = json_object();

	if (!e || !kinds) {
		json_decref(e);
		json_decref(kinds);
		return NULL;
	}
	for (unsigned i = 0; i < res->err_kinds && i < LDR_ERR_KINDS; i++) {
		json_t *k = json_object();

		if (!k)
			continue;
		json_object_set_new(k, "count",
				    json_integer((json_int_t)res->err[i].count));
		json_object_set_new(k, "example",
				    rpt_json_path(res->err[i].example));
		json_object_set_new(kinds, res->err[i].kind, k);
	}
	json_object_set_new(e, "total", json_integer((json_int_t)res->errors));
	json_object_set_new(e, "kinds", kinds);
	return e;
}

static json_t *latency_json(const struct stg_histo *h)
{
	json_t *l = json_object();

	if (!l)
		return NULL;
	json_object_set_new(l, "count", json_integer((json_int_t)h->count));
	json_object_set_new(l, "mean_ns", rpt_jnum(stg_histo_mean(h)));
	json_object_set_new(l, "p50_ns", json_integer((json_int_t)
		stg_histo_percentile(h, 50)));
	json_object_set_new(l, "p90_ns", json_integer((json_int_t)
		stg_histo_percentile(h, 90)));
	json_object_set_new(l, "p99_ns", json_integer((json_int_t)
		stg_histo_percentile(h, 99)));
	json_object_set_new(l, "max_ns", json_integer((json_int_t)h->max));
	return l;
}

static json_t *series_json(const struct ldr_result *res)
{
	json_t *a = json_array();

	if (!a)
		return NULL;
	for (unsigned i = 0; i < res->series_len && i < LDR_SERIES_MAX; i++) {
		const struct ldr_series_point *p = &res->series[i];

		json_array_append_new(a, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}",
			"t_s", rpt_jnum(p->t_s), "samples_per_s", rpt_jnum(p->samples_per_s),
			"read_bytes_per_s", rpt_jnum(p->read_bytes_per_s), "au", rpt_jnum(p->au),
			"work_queue", rpt_jnum(p->work_queue),
			"ready_batches", rpt_jnum(p->ready_batches)));
	}
	return a;
}

json_t *rpt_run_json(const struct rpt_run *r)
{
	const struct ldr_result *res = r->res;
	const bool got = res != NULL;
	json_t *root = json_object(), *ds;
	char verdict[512], withheld[256];

	if (!root || rpt_setup_json(root, &r->setup, RPT_SETUP_RUN)) {
		json_decref(root);
		return NULL;
	}
	ds = json_object_get(root, "dataset");
	rpt_run_verdict(r, verdict, sizeof(verdict));
	rpt_run_too_short(r, withheld, sizeof(withheld));
	json_object_set_new(root, "schema_version",
			    json_integer(RPT_RUN_SCHEMA_VERSION));
	json_object_set_new(root, "command", json_string("run"));
	json_object_set_new(root, "partial", json_boolean(r->signal ||
		r->stall || (got && (res->stopped_by_signal ||
				     res->stopped_by_max_errors))));
	json_object_set_new(root, "stalled", rpt_stall_json(r->stall));
	/* the numbers below are a killed child's running totals */
	json_object_set_new(root, "window_partial",
			    json_boolean(got && res->window_partial));
	json_object_set_new(root, "stopped_by", json_string(
		r->signal ? "signal" : r->stall ? "stalled" :
		got && res->stopped_by_max_errors ?
		"max_errors" : got && res->stopped_by_signal ? "signal" :
		r->run_error ? "error" : "limit"));
	if (r->run_error) {
		json_object_set_new(root, "run_error",
				    json_string(nz(r->run_error_text)));
	}
	json_object_set_new(root, "verdict", json_string(verdict));
	/* the reason a verdict was withheld as too short, else null */
	json_object_set_new(root, "verdict_withheld", withheld[0] ?
			    json_string(withheld) : json_null());
	json_object_set_new(root, "samples_per_s",
			    rpt_jnum(got ? res->samples_per_s : 0));
	json_object_set_new(root, "au", rpt_jnum_if(got ? res->au : 0,
						    got && r->setup.gpu_count));
	json_object_set_new(root, "bottleneck", json_string(nz(r->bottleneck)));
	json_object_set_new(root, "bottleneck_why",
			    json_string(got ? res->bottleneck_why : ""));
	json_object_set_new(root, "vcpus", json_integer(r->vcpus));
	json_object_set_new(root, "cpus", json_string(nz(r->cpus_how)));
	json_object_set_new(root, "workers", json_integer(got ? res->workers :
							  0));
	json_object_set_new(root, "cpu_outside_mask_s",
			    rpt_jnum_if(r->cpu_outside_mask_s,
					r->cpu_outside_mask_s >= 0));
	json_object_set_new(root, "cache", json_string(nz(r->setup.cache)));
	json_object_set_new(root, "cache_how", json_string(nz(r->cache_how)));
	if (r->setup.ram_bytes) {
		json_object_set_new(root, "ram_bytes",
				    json_integer((json_int_t)
						 r->setup.ram_bytes));
		json_object_set_new(root, "page_cache_seen_bytes",
				    r->cache_seen_bytes ? json_integer(
				    (json_int_t)r->cache_seen_bytes) :
				    json_null());
		json_object_set_new(root, "ram_limited",
				    json_boolean(!r->ram_not_limited));
		json_object_set_new(root, "ram", rpt_json_ram(
			r->page_cache_bytes, r->cgroup_limit_bytes));
	}
	json_object_set_new(root, "fraction_resident",
			    rpt_jnum_if(r->fraction_resident,
					r->fraction_resident >= 0));
	if (r->prepare.set)
		json_object_set_new(root, "prepare",
				    rpt_prepare_json(&r->prepare));
	json_object_set_new(root, "hit_ratio",
			    rpt_jnum_if(r->hit_ratio, r->hit_ratio >= 0));
	json_object_set_new(root, "hit_ratio_source",
			    json_string(nz(r->hit_ratio_source)));
	json_object_set_new(root, "hit_ratio_estimated",
			    json_boolean(r->hit_ratio_estimated));
	json_object_set_new(json_object_get(root, "gpus"), "fed_at_threshold",
			    rpt_run_too_short(r, NULL, 0) ? json_null() :
			    json_integer(rpt_run_gpus_fed(r)));
	json_object_set_new(root, "backend", json_string(got && res->backend[0] ?
		res->backend : nz(r->setup.backend_asked)));
	json_object_set_new(root, "backend_reason",
			    json_string(got ? res->backend_reason : ""));
	json_object_set_new(root, "pipeline", rpt_pipeline_json(
		r->pipeline_name, nz(r->setup.pipeline), got ? res->workers : 0,
		r->py));
	if (r->gd.path)
		json_object_set_new(json_object_get(root, "pipeline"),
				    "gpu_decode", rpt_gpu_decode_json(&r->gd,
				    got ? res : NULL, r->setup.demand_per_gpu));
	json_object_set_new(ds, "listing_errors",
			    json_integer((json_int_t)r->listing_errors));
	{
		/* {"dangling_link": {"count": 1, "example": "c1/x"}, ...} */
		json_t *kinds = json_object();

		for (unsigned i = 0; kinds && i < r->nlisting_kinds; i++) {
			const struct rpt_listing_kind *lk = &r->listing_kinds[i];
			json_t *k = json_object();

			json_object_set_new(k, "count",
					    json_integer((json_int_t)lk->count));
			json_object_set_new(k, "example", lk->example ?
					    rpt_json_path(lk->example) :
					    json_null());
			json_object_set_new(kinds, lk->kind, k);
		}
		json_object_set_new(ds, "listing_error_kinds", kinds);
	}
	if (!got)
		return root;
	json_object_set_new(root, "measured_s", rpt_jnum(res->measured_s));
	json_object_set_new(root, "warmup_s", rpt_jnum(res->warmup_s));
	json_object_set_new(root, "warmup_incomplete",
			    json_boolean(res->warmup_incomplete));
	json_object_set_new(root, "samples", json_integer((json_int_t)
							  res->samples));
	json_object_set_new(root, "samples_failed", json_integer((json_int_t)
		res->samples_failed));
	json_object_set_new(root, "batch", json_integer(res->batch));
	json_object_set_new(root, "batches", json_integer((json_int_t)
							  res->batches));
	json_object_set_new(root, "epochs_done", json_integer((json_int_t)
		res->epochs_done));
	json_object_set_new(root, "read_bytes", json_integer((json_int_t)
							     res->read_bytes));
	json_object_set_new(root, "read_bytes_per_s",
			    rpt_jnum(res->read_bytes_per_s));
	json_object_set_new(root, "reads", reads_json(r, res));
	if (r->setup.tokens_per_sample)
		json_object_set_new(root, "tokens_per_s", rpt_jnum(
			res->samples_per_s * r->setup.tokens_per_sample));
	json_object_set_new(root, "stages", stages_json(res));
	json_object_set_new(root, "errors", errors_json(res));
	json_object_set_new(root, "read_latency", latency_json(&res->read_lat));
	json_object_set_new(root, "sample_latency",
			    latency_json(&res->sample_lat));
	json_object_set_new(root, "queues", json_pack("{s:o,s:o,s:o}",
		"work_queue", rpt_jnum(res->mean_work_queue),
		"ready_batches", rpt_jnum(res->mean_ready_batches),
		"reads_in_flight", rpt_jnum(res->mean_reads_in_flight)));
	json_object_set_new(root, "series", series_json(res));
	return root;
}
