/*
 * report_compare.c - candidate VMs side by side, read back from their
 * sweep reports (JSON, docs/report-schema.md): machine, storage, feed
 * rate per cache state, GPUs fed, limiting resource; and with prices
 * (--price) the cost per million samples and per epoch, with a ckpt
 * report's save and restore times beside it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "rpt_html.h"
#include "report_ckpt.h"
#include "judge.h"
#include "rpt_text.h"
#include "report_sweep.h"

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

static const char *str_at(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : "";
}

static double num_at(const json_t *o, const char *key, double dflt)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

/* What one vCPU is on the machine of report ROOT: the verdict's kind
 * (as it used it), else the machine's, else from threads_per_core. */
static enum stg_vcpu_kind kind_of(const json_t *machine, const json_t *verdict)
{
	const char *k = str_at(verdict, "vcpu_kind");
	const double tpc = num_at(machine, "threads_per_core", 0);

	if (!strcmp(k, "") || !strcmp(k, "unknown"))
		k = str_at(machine, "vcpu_kind");
	if (!strcmp(k, "thread"))
		return STG_VCPU_THREAD;
	if (!strcmp(k, "core"))
		return STG_VCPU_CORE;
	return tpc > 1 ? STG_VCPU_THREAD : tpc == 1 ? STG_VCPU_CORE :
	       STG_VCPU_UNKNOWN;
}

/* " thread" or " core" (what a vCPU is), "" unknown. */
static const char *kind_word(enum stg_vcpu_kind k)
{
	return k == STG_VCPU_THREAD ? " thread" : k == STG_VCPU_CORE ?
	       " core" : "";
}

/* The most check runs of one cache state read back. */
#define CMP_CHECKS_MAX 8

/*
 * GPUs fed for cache state C of candidate OUT, drawn by the verdict from
 * the report's numbers: its samples/s at the top point, the demand and
 * threshold, and the check runs in CV's confirmations[].
 */
static void refed(struct rpt_candidate *out, enum stg_cache_state c,
		  const json_t *cv)
{
	struct rpt_confirm runs[CMP_CHECKS_MAX];
	const json_t *conf = json_object_get(cv, "confirmations"), *r;
	struct rpt_check check;
	size_t i, n = 0;

	json_array_foreach(conf, i, r) {
		if (n == CMP_CHECKS_MAX)
			break;
		runs[n] = (struct rpt_confirm){
			.run = true,
			.gpus = (unsigned)num_at(r, "gpus", 0),
			.au = num_at(r, "au", 0),
			.vcpus = (unsigned)num_at(r, "vcpus", 0),
		};
		n++;
	}
	rpt_verdict_confirm(jdg_gpus_fed(out->samples_per_s[c],
					 out->demand_per_gpu,
					 out->au_threshold),
			    runs, n, out->vcpus_at[c], out->au_threshold,
			    &check);
	out->gpus_fed[c] = (int)check.gpus_fed;
	out->checks_ignored[c] = check.ignored;
}

void rpt_candidate_free(struct rpt_candidate *c)
{
	if (!c)
		return;
	free(c->label);
	free(c->file);
	free(c->cpu_model);
	free(c->storage);
	free(c->gpu);
	free(c->headline);
	free(c->pipelines);
	for (int k = 0; k < STG_CACHE_STATES; k++)
		free(c->limiting[k]);
	memset(c, 0, sizeof(*c));
}

int rpt_candidate_from_json(const json_t *root, const char *file,
			    struct rpt_candidate *out, char *why,
			    size_t why_len)
{
	const json_t *ver, *machine, *storage, *gpus, *verdict, *per;
	char *name = rpt_path_text(file ? file : "", file ? strlen(file) : 0);
	char stor[512];
	size_t i;
	const json_t *cv;

	memset(out, 0, sizeof(*out));
	if (!name)
		return -ENOMEM;
	if (!json_is_object(root)) {
		snprintf(why, why_len, "%s: not a feedrate report (not a JSON "
			 "object)", name);
		free(name);
		return -EINVAL;
	}
	ver = json_object_get(root, "schema_version");
	if (!strcmp(str_at(root, "command"), "run")) {
		snprintf(why, why_len, "%s: a 'feedrate run' report; compare "
			 "reads sweep reports (feedrate sweep --json FILE)",
			 name);
		free(name);
		return -EINVAL;
	}
	if (strcmp(str_at(root, "schema"), RPT_SWEEP_SCHEMA_NAME)) {
		snprintf(why, why_len, "%s: not a feedrate sweep report (no "
			 "\"schema\": \"%s\")", name, RPT_SWEEP_SCHEMA_NAME);
		free(name);
		return -EINVAL;
	}
	if (!json_is_integer(ver) ||
	    json_integer_value(ver) != RPT_SWEEP_SCHEMA_VERSION) {
		if (json_is_integer(ver))
			snprintf(why, why_len, "%s: schema_version %lld, but "
				 "this feedrate reads version %d only; compare "
				 "it with the feedrate that wrote it, or run the "
				 "sweep again", name,
				 (long long)json_integer_value(ver),
				 RPT_SWEEP_SCHEMA_VERSION);
		else
			snprintf(why, why_len, "%s: no usable schema_version "
				 "(this feedrate reads version %d)", name,
				 RPT_SWEEP_SCHEMA_VERSION);
		free(name);
		return -EPROTO;
	}
	machine = json_object_get(root, "machine");
	storage = json_object_get(root, "storage");
	gpus = json_object_get(root, "gpus");
	verdict = json_object_get(root, "verdict");
	out->file = name;
	{
		/* the instance type, else the file's base name */
		const char *base = strrchr(name, '/');

		out->label = dup_or_empty(*str_at(machine, "instance_type") ?
					  str_at(machine, "instance_type") :
					  base ? base + 1 : name);
	}
	out->cpu_model = dup_or_empty(str_at(machine, "cpu_model"));
	out->vcpus = (unsigned)num_at(machine, "vcpus", 0);
	out->vcpu_kind = kind_of(machine, verdict);
	out->ram_gib = num_at(machine, "ram_bytes", 0) / 1073741824.0;
	snprintf(stor, sizeof(stor), "%s%s%s", str_at(storage, "fs_type"),
		 *str_at(storage, "device") ? " on " : "",
		 str_at(storage, "device"));
	out->storage = dup_or_empty(stor);
	out->gpu = dup_or_empty(str_at(gpus, "type"));
	out->gpu_count = (unsigned)num_at(gpus, "count", 0);
	out->demand_per_gpu = num_at(gpus, "demand_per_gpu", 0);
	out->au_threshold = jdg_threshold(num_at(gpus, "au_threshold",
							 0));
	out->headline = dup_or_empty(str_at(verdict, "headline"));
	out->pipelines = rpt_pipelines_line_json(root);
	for (int k = 0; k < STG_CACHE_STATES; k++) {
		out->gpus_fed[k] = -1;
		out->gpus_fed_stored[k] = -1;
		out->vcpus_per_gpu[k] = -1;
	}
	per = json_object_get(verdict, "per_cache");
	json_array_foreach(per, i, cv) {
		enum stg_cache_state c;

		if (stg_cache_state_parse(str_at(cv, "cache"), &c))
			continue;
		out->have[c] = true;
		out->samples_per_s[c] = num_at(cv, "samples_per_s", 0);
		out->vcpus_at[c] = (unsigned)num_at(cv, "vcpus", 0);
		out->gpus_fed_stored[c] = (int)num_at(cv, "gpus_fed", -1);
		refed(out, c, cv);
		out->vcpus_per_gpu[c] = num_at(cv, "vcpus_per_gpu", -1);
		free(out->limiting[c]);
		out->limiting[c] = dup_or_empty(str_at(cv, "limiting"));
	}
	for (int k = 0; k < STG_CACHE_STATES; k++)
		if (!out->limiting[k])
			out->limiting[k] = dup_or_empty("");
	if (!out->label || !out->cpu_model || !out->storage || !out->gpu ||
	    !out->headline || !out->limiting[0] || !out->limiting[1] ||
	    !out->limiting[2]) {
		rpt_candidate_free(out);
		return -ENOMEM;
	}
	return 0;
}

bool rpt_candidate_note(const struct rpt_candidate *c,
			enum stg_cache_state k, char *buf, size_t len)
{
	const bool differs = c->have[k] && c->gpus_fed_stored[k] >= 0 &&
			     c->gpus_fed_stored[k] != c->gpus_fed[k];
	const bool ignored = c->have[k] && c->checks_ignored[k];
	size_t used;

	if (len)
		buf[0] = '\0';
	if (!differs && !ignored)
		return false;
	snprintf(buf, len, "%s, %s:", c->label, stg_cache_state_name(k));
	used = strlen(buf);
	if (differs && used < len)
		snprintf(buf + used, len - used, " the report says %d GPUs fed, "
			 "its numbers give %d (shown);", c->gpus_fed_stored[k],
			 c->gpus_fed[k]);
	used = strlen(buf);
	if (ignored && used < len)
		snprintf(buf + used, len - used, " %u check run%s not used "
			 "by the check rule (see its checks_note);",
			 c->checks_ignored[k],
			 c->checks_ignored[k] == 1 ? "" : "s");
	used = strlen(buf);
	if (used && buf[used - 1] == ';')
		buf[used - 1] = '\0';
	return true;
}

#define CMP_COLS 3      /* candidates per block: 16 + 3 x 21 = 79 columns */
#define CMP_W 20

/* Print TEXT cut to CMP_W columns (UTF-8 aware enough: cuts on bytes
 * that do not continue a sequence). */
static void cell(FILE *f, const char *text)
{
	size_t n = strlen(text), cut = n;

	if (n > CMP_W) {
		cut = CMP_W - 1;
		while (cut && ((unsigned char)text[cut] & 0xc0) == 0x80)
			cut--;
	}
	fprintf(f, " %.*s%s", (int)cut, text, n > CMP_W ? "~" : "");
	/* pad by characters, not bytes */
	{
		size_t chars = 0;

		for (size_t i = 0; i < cut; i++)
			chars += ((unsigned char)text[i] & 0xc0) != 0x80;
		chars += n > CMP_W;
		for (; chars < CMP_W; chars++)
			fputc(' ', f);
	}
}

static void row(FILE *f, const char *label, const struct rpt_candidate *c,
		size_t from, size_t to, int what, int cache)
{
	char buf[128];

	fprintf(f, "%-15s", label);
	for (size_t i = from; i < to; i++) {
		const struct rpt_candidate *x = &c[i];

		switch (what) {
		case 0: snprintf(buf, sizeof(buf), "%s", x->label); break;
		case 1: snprintf(buf, sizeof(buf), "%s", x->cpu_model); break;
		case 2: snprintf(buf, sizeof(buf), "%u%s vCPUs", x->vcpus,
				 kind_word(x->vcpu_kind)); break;
		case 7: snprintf(buf, sizeof(buf), "%.0f GiB", x->ram_gib);
			break;
		case 3: snprintf(buf, sizeof(buf), "%s", x->storage); break;
		case 4:
			if (x->have[cache])
				snprintf(buf, sizeof(buf), "%.0f @%u vCPU",
					 x->samples_per_s[cache],
					 x->vcpus_at[cache]);
			else
				snprintf(buf, sizeof(buf), "-");
			break;
		case 5:
			if (x->have[cache] && x->gpus_fed[cache] >= 0)
				snprintf(buf, sizeof(buf), "%d x %s, %s",
					 x->gpus_fed[cache], x->gpu,
					 x->limiting[cache]);
			else
				snprintf(buf, sizeof(buf), "-");
			break;
		case 6:
			if (x->have[cache] && x->vcpus_per_gpu[cache] > 0)
				snprintf(buf, sizeof(buf), "%.1f%s vCPUs",
					 x->vcpus_per_gpu[cache],
					 kind_word(x->vcpu_kind));
			else
				snprintf(buf, sizeof(buf), "-");
			break;
		default: buf[0] = '\0';
		}
		cell(f, buf);
	}
	fputc('\n', f);
}

void rpt_compare_print(FILE *f, const struct rpt_candidate *c, size_t n)
{
	fprintf(f, "feedrate compare: %zu candidate%s\n", n, n == 1 ? "" : "s");
	for (size_t from = 0; from < n; from += CMP_COLS) {
		const size_t to = from + CMP_COLS < n ? from + CMP_COLS : n;

		fputc('\n', f);
		row(f, "candidate", c, from, to, 0, 0);
		row(f, "CPU", c, from, to, 1, 0);
		row(f, "size", c, from, to, 2, 0);
		row(f, "RAM", c, from, to, 7, 0);
		row(f, "storage", c, from, to, 3, 0);
		for (int k = 0; k < STG_CACHE_STATES; k++) {
			char label[32];

			snprintf(label, sizeof(label), "%s samples/s",
				 stg_cache_state_name((enum stg_cache_state)k));
			row(f, label, c, from, to, 4, k);
			snprintf(label, sizeof(label), "  GPUs fed");
			row(f, label, c, from, to, 5, k);
			snprintf(label, sizeof(label), "  vCPUs/GPU");
			row(f, label, c, from, to, 6, k);
		}
	}
	fprintf(f, "\nverdicts\n");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "  %s: %s\n", c[i].label, c[i].headline);
		if (c[i].pipelines)
			fprintf(f, "    by pipeline: %s\n", c[i].pipelines);
	}
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < STG_CACHE_STATES; k++) {
			char note[256];

			if (rpt_candidate_note(&c[i], (enum stg_cache_state)k,
					       note, sizeof(note)))
				fprintf(f, "  note: %s\n", note);
		}
}

/* ---- cost (--price) and checkpoints beside it ---- */

double rpt_cost_per_msample(double usd_per_hour, double samples_per_s)
{
	return jdg_cost_per_msample(usd_per_hour, samples_per_s);
}

double rpt_cost_per_epoch(double usd_per_hour, double samples_per_s,
			  double epoch_samples)
{
	return jdg_cost_per_epoch(usd_per_hour, samples_per_s, epoch_samples);
}

void rpt_cost_fill(const struct rpt_candidate *c, double usd_per_hour,
		   int cache, double epoch_samples, struct rpt_cost *out)
{
	const int k = jdg_cost_state(cache, c->have, c->samples_per_s,
				     STG_CACHE_STATES);

	memset(out, 0, sizeof(*out));
	out->usd_per_hour = usd_per_hour;
	out->priced = usd_per_hour >= 0;
	out->epoch_samples = epoch_samples;
	out->epoch_s = out->usd_per_msample = out->usd_per_epoch = -1;
	if (k < 0) {
		out->cache = cache >= 0 && cache < STG_CACHE_STATES ?
			     (enum stg_cache_state)cache : STG_CACHE_COLD;
		return;
	}
	out->cache = (enum stg_cache_state)k;
	out->have_rate = true;
	out->measured_per_s = c->samples_per_s[k];
	out->feed_per_s = jdg_cost_feed(out->measured_per_s,
		(double)c->gpu_count * c->demand_per_gpu, &out->gpu_bound);
	out->feeds = jdg_asked_fed(c->gpus_fed[k], c->gpu_count);
	if (epoch_samples > 0 && out->feed_per_s > 0)
		out->epoch_s = epoch_samples / out->feed_per_s;
	if (!out->priced)
		return;
	out->usd_per_msample = jdg_cost_per_msample(usd_per_hour,
						    out->feed_per_s);
	out->usd_per_epoch = jdg_cost_per_epoch(usd_per_hour, out->feed_per_s,
						epoch_samples);
}

int rpt_cost_cheapest(const struct rpt_cost *costs, size_t n)
{
	int best = -1;

	for (size_t i = 0; i < n; i++) {
		const struct rpt_cost *x = &costs[i];

		if (jdg_cost_cheaper(x->priced, x->feeds, x->usd_per_msample,
				     best < 0 ? -1 :
				     costs[best].usd_per_msample))
			best = (int)i;
	}
	return best;
}

/* Cell WHAT of candidate X's cost into BUF. */
static void cost_cell(const struct rpt_candidate *c, const struct rpt_cost *x,
		      int what, char *buf, size_t len)
{
	char a[32], b[32];

	switch (what) {
	case 0:
		if (x->priced)
			snprintf(buf, len, "$%g/h", x->usd_per_hour);
		else
			snprintf(buf, len, "-");
		break;
	case 1:
		if (x->have_rate)
			snprintf(buf, len, "%.0f/s %s%s", x->feed_per_s,
				 stg_cache_state_name(x->cache),
				 x->gpu_bound ? " (GPUs)" : "");
		else
			snprintf(buf, len, "-");
		break;
	case 2:
		if (x->usd_per_msample >= 0)
			snprintf(buf, len, "$%.4g", x->usd_per_msample);
		else
			snprintf(buf, len, "-");
		break;
	case 3:
		rpt_fmt_dur(a, sizeof(a), x->epoch_s);
		if (x->usd_per_epoch >= 0)
			snprintf(buf, len, "$%.4g, %s", x->usd_per_epoch, a);
		else
			snprintf(buf, len, "%s", a);
		break;
	case 4:
		if (x->have_ckpt)
			rpt_fmt_bytes(buf, len, (double)x->ckpt.bytes);
		else
			snprintf(buf, len, "-");
		break;
	case 5:
		if (x->have_ckpt) {
			rpt_fmt_dur(a, sizeof(a), x->ckpt.save_s);
			rpt_fmt_dur(b, sizeof(b), x->ckpt.restore_s);
			snprintf(buf, len, "%s / %s", a, b);
		} else {
			snprintf(buf, len, "-");
		}
		break;
	case 6:
		snprintf(buf, len, "%s %u x %s", x->feeds ? "yes" : "no",
			 c->gpu_count, c->gpu);
		break;
	default:
		buf[0] = '\0';
	}
}

void rpt_cost_print(FILE *f, const struct rpt_candidate *c,
		    const struct rpt_cost *costs, size_t n)
{
	static const char *const label[] = {
		"price", "feed priced", "USD/M samples", "USD/epoch",
		"ckpt size", "ckpt save/rest", "feeds asked",
	};
	const int best = rpt_cost_cheapest(costs, n);
	bool any_ckpt = false, any_epoch = false;

	for (size_t i = 0; i < n; i++) {
		any_ckpt |= costs[i].have_ckpt;
		any_epoch |= costs[i].epoch_s >= 0;
	}
	fprintf(f, "\ncost (the price given with --price, at the feed a "
		"training job gets: the\nmeasured samples/s of the state "
		"shown, at most the asked GPUs' demand)\n");
	for (size_t from = 0; from < n; from += CMP_COLS) {
		const size_t to = from + CMP_COLS < n ? from + CMP_COLS : n;

		fputc('\n', f);
		row(f, "candidate", c, from, to, 0, 0);
		for (int w = 0; w < 7; w++) {
			if (((w == 4 || w == 5) && !any_ckpt) ||
			    (w == 3 && !any_epoch))
				continue;
			fprintf(f, "%-15s", label[w]);
			for (size_t i = from; i < to; i++) {
				char buf[128];

				cost_cell(&c[i], &costs[i], w, buf,
					  sizeof(buf));
				cell(f, buf);
			}
			fputc('\n', f);
		}
	}
	for (size_t i = 0; any_epoch && i < n; i++) {
		bool same = true;

		for (size_t j = 0; j < n; j++)
			same &= costs[j].epoch_samples == costs[0].epoch_samples;
		if (same) {
			fprintf(f, "  an epoch is %.0f samples\n",
				costs[0].epoch_samples);
			break;
		}
		if (costs[i].epoch_samples > 0)
			fprintf(f, "  %s: an epoch is %.0f samples (its "
				"report's dataset; --epoch-samples sets one "
				"for all)\n", c[i].label,
				costs[i].epoch_samples);
	}
	for (size_t i = 0; i < n; i++)
		if (costs[i].have_ckpt)
			fprintf(f, "  %s: checkpoint from %s\n", c[i].label,
				costs[i].ckpt_file);
	if (best >= 0)
		fprintf(f, "cheapest that feeds the asked GPUs: %s, $%.4g per "
			"million samples\n", c[best].label,
			costs[best].usd_per_msample);
	else
		fprintf(f, "cheapest that feeds the asked GPUs: none of the "
			"priced candidates feeds them\n");
}

/* ---- the page ---- */

/* A table of class CLS whose header row names the N candidates C, after
 * an empty corner. */
static void candidates_table(struct rpt_buf *b, const char *cls,
			     const struct rpt_candidate *c, size_t n)
{
	const char **heads = calloc(n + 1, sizeof(*heads));

	if (!heads) {
		b->ok = false;
		return;
	}
	heads[0] = "";
	for (size_t i = 0; i < n; i++)
		heads[i + 1] = c[i].label;
	rpt_html_table(b, cls, heads, n + 1);
	free(heads);
}

void rpt_compare_html_body(struct rpt_buf *b, const struct rpt_candidate *c,
			   size_t n)
{
	double ymax = 0;
	const double bw = 22, gap = 30, h = 240;
	double w;

	rpt_buf_printf(b, "<h1>feedrate compare: %zu candidate%s</h1>\n", n,
		       n == 1 ? "" : "s");
	candidates_table(b, "compare", c, n);
	rpt_buf_printf(b, "<tr><td>verdict</td>");
	for (size_t i = 0; i < n; i++) {
		rpt_buf_printf(b, "<td>");
		rpt_buf_html(b, c[i].headline);
		if (c[i].pipelines) {
			rpt_buf_printf(b, "<br>by pipeline: ");
			rpt_buf_html(b, c[i].pipelines);
		}
		rpt_buf_printf(b, "</td>");
	}
	rpt_buf_printf(b, "</tr>\n<tr><td>CPU</td>");
	for (size_t i = 0; i < n; i++) {
		rpt_buf_printf(b, "<td>");
		rpt_buf_html(b, c[i].cpu_model);
		rpt_buf_printf(b, ", %u%s vCPUs, %.0f GiB</td>", c[i].vcpus,
			       c[i].vcpu_kind == STG_VCPU_THREAD ? " thread" :
			       c[i].vcpu_kind == STG_VCPU_CORE ? " core" : "",
			       c[i].ram_gib);
	}
	rpt_buf_printf(b, "</tr>\n<tr><td>storage</td>");
	for (size_t i = 0; i < n; i++) {
		rpt_buf_printf(b, "<td>");
		rpt_buf_html(b, c[i].storage);
		rpt_buf_printf(b, "</td>");
	}
	rpt_buf_printf(b, "</tr>\n");
	for (int k = 0; k < STG_CACHE_STATES; k++) {
		rpt_buf_printf(b, "<tr><td>%s</td>", stg_cache_state_name(
			(enum stg_cache_state)k));
		for (size_t i = 0; i < n; i++) {
			if (!c[i].have[k]) {
				rpt_buf_printf(b, "<td>-</td>");
				continue;
			}
			rpt_buf_printf(b, "<td>%.0f samples/s at %u vCPUs; "
				       "%d x ", c[i].samples_per_s[k],
				       c[i].vcpus_at[k], c[i].gpus_fed[k]);
			rpt_buf_html(b, c[i].gpu);
			rpt_buf_printf(b, " fed; limit ");
			rpt_buf_html(b, c[i].limiting[k]);
			rpt_buf_printf(b, "</td>");
			ymax = fmax(ymax, c[i].samples_per_s[k]);
		}
		rpt_buf_printf(b, "</tr>\n");
	}
	rpt_html_table_end(b);
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < STG_CACHE_STATES; k++) {
			char note[256];

			if (!rpt_candidate_note(&c[i], (enum stg_cache_state)k,
						note, sizeof(note)))
				continue;
			rpt_buf_printf(b, "<p class=\"note\">");
			rpt_buf_html(b, note);
			rpt_buf_printf(b, "</p>\n");
		}
	/* a grouped bar chart: samples/s per cache state per candidate */
	ymax = rpt_svg_nice_max(ymax * 1.05);
	w = RPT_SVG_MARGIN_LEFT + n * (STG_CACHE_STATES * bw + gap) + 20;
	rpt_buf_printf(b, "<h2>samples/s</h2>\n");
	rpt_svg_open(b, "bars", w, h + 60, NULL);
	rpt_buf_printf(b, "\n");
	rpt_svg_axes(b, RPT_SVG_MARGIN_LEFT - 2, 10, w - RPT_SVG_MARGIN_LEFT,
		     h);
	for (size_t i = 0; i < n; i++) {
		const double x0 = RPT_SVG_MARGIN_LEFT + i * (STG_CACHE_STATES * bw + gap);

		for (int k = 0; k < STG_CACHE_STATES; k++) {
			double bh;

			if (!c[i].have[k])
				continue;
			bh = h * c[i].samples_per_s[k] / ymax;
			rpt_buf_printf(b, "<rect class=\"bar\" data-cache=\"%s\" "
				       "x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				       "height=\"%.1f\" fill=\"%s\"><title>%.0f "
				       "samples/s, %s</title></rect>\n",
				       stg_cache_state_name((enum stg_cache_state)k),
				       x0 + k * bw, 10 + h - bh, bw - 2, bh,
				       rpt_html_cache_colour[k], c[i].samples_per_s[k],
				       stg_cache_state_name((enum stg_cache_state)k));
		}
		rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\">", x0,
			       h + 28);
		rpt_buf_html(b, c[i].label);
		rpt_buf_printf(b, "</text>\n");
	}
	rpt_buf_printf(b, "<text x=\"%.1f\" y=\"20\" text-anchor=\"end\">%.0f"
		       "</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">0"
		       "</text>\n", RPT_SVG_MARGIN_LEFT - 6, ymax, RPT_SVG_MARGIN_LEFT - 6, h + 10);
	for (int k = 0; k < STG_CACHE_STATES; k++)
		rpt_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s"
			       "</text>\n", RPT_SVG_MARGIN_LEFT + 60.0 * k, h + 50, rpt_html_cache_colour[k],
			       stg_cache_state_name((enum stg_cache_state)k));
	rpt_svg_close(b);
}

char *rpt_compare_html(const struct rpt_candidate *c, size_t n)
{
	struct rpt_buf b;

	rpt_buf_init(&b);
	rpt_html_head(&b, "feedrate compare");
	rpt_compare_html_body(&b, c, n);
	rpt_html_end(&b);
	return rpt_buf_take(&b);
}

/* The cost section of compare's page. */
static void cost_html(struct rpt_buf *b, const struct rpt_candidate *c,
		      const struct rpt_cost *costs, size_t n)
{
	static const char *const label[] = {
		"price", "feed priced (samples/s, state)",
		"USD per million samples", "USD per epoch, epoch time",
		"checkpoint size", "checkpoint save / restore",
		"feeds the asked GPUs",
	};
	const int best = rpt_cost_cheapest(costs, n);

	rpt_buf_printf(b, "<h2>cost and checkpoints</h2>\n");
	candidates_table(b, "compare cost", c, n);
	for (int w = 0; w < 7; w++) {
		rpt_buf_printf(b, "<tr><td>%s</td>", label[w]);
		for (size_t i = 0; i < n; i++) {
			char buf[128];

			cost_cell(&c[i], &costs[i], w, buf, sizeof(buf));
			rpt_buf_printf(b, "<td data-cost=\"%d\"%s>", w,
				       (int)i == best ? " class=\"best\"" :
				       "");
			rpt_buf_html(b, buf);
			rpt_buf_printf(b, "</td>");
		}
		rpt_buf_printf(b, "</tr>\n");
	}
	rpt_html_table_end(b);
	rpt_buf_printf(b, "<p class=\"note\">");
	if (best >= 0) {
		rpt_buf_printf(b, "cheapest that feeds the asked GPUs: <b>");
		rpt_buf_html(b, c[best].label);
		rpt_buf_printf(b, "</b>");
	} else {
		rpt_buf_printf(b, "none of the priced candidates feeds the "
			       "asked GPUs");
	}
	rpt_buf_printf(b, ". Prices are as given with --price; the feed is "
		       "the measured samples/s of the state shown, at most "
		       "the asked GPUs' demand.</p>\n");
}

char *rpt_compare_page(const struct rpt_candidate *c,
		       const struct rpt_cost *costs, size_t n)
{
	struct rpt_buf b;

	rpt_buf_init(&b);
	rpt_html_head(&b, "feedrate compare");
	rpt_compare_html_body(&b, c, n);
	if (costs)
		cost_html(&b, c, costs, n);
	rpt_html_end(&b);
	return rpt_buf_take(&b);
}
