/*
 * test_wl_keys.c - the key engine (workloads/keys.h) that job files and
 * the command line share: every job-file key takes a good value and
 * refuses a bad one naming the key and what it accepts; a job-file key
 * and the option of the same meaning are checked with the same words;
 * every built-in job file parses to the values it always gave.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "jobfile.h"
#include "jobs_dump.h"
#include "keys.h"
#include "options.h"

/* The option row named N. */
#define OPT(n) wl_key_find(cli_options, cli_noptions, (n))

#define WBASE_NAME "name = x\n"
#define WBASE_STATS "stats_source = s\n"
#define WBASE_MEAN "mean_file_bytes = 100\n"
#define RBASE "samples_per_s = 9\nbasis = measured\nsource = s\n"

/* A value K takes: at the top of its range (GOOD) or past it. */
static const char *value_of(const struct wl_key *k, bool good, char *b,
			    size_t len)
{
	static const struct { const char *key, *good, *bad; } custom[] = {
		{ "name", "x", "Bad Name" }, { "gen", "imagefolder-jpeg",
		"nothing" }, { "au_threshold", "90%", "1.5" },
		{ "key", "x", "a b" }, { "range", "1 100", "9 1e13" },
		{ "multi_samples_per_s", "18", "1e13" },
	};
	const double v = good ? k->hi : k->hi * 2 + 1;

	for (size_t i = 0; i < sizeof(custom) / sizeof(custom[0]); i++)
		if (!strcmp(custom[i].key, k->name))
			return good ? custom[i].good : custom[i].bad;
	switch (k->type) {
	case WL_K_TEXT:
		return good ? "x" : "";
	case WL_K_ENUM:
		return good ? k->values[0].name : "bogus";
	case WL_K_BOOL:
		return good ? "yes" : "maybe";
	case WL_K_REALS:
	case WL_K_DIMS:
		b[0] = '\0';
		for (unsigned i = 0; i < (k->type == WL_K_REALS || k->exact ||
		     !good ? k->n : 1); i++)
			snprintf(b + strlen(b), len - strlen(b), "%s%.17g",
				 i ? (k->type == WL_K_DIMS ? "x" : " ") : "",
				 good && k->type == WL_K_DIMS ? k->lo : v);
		return b;
	default:
		snprintf(b, len, "%.17g", v);
		return b;
	}
}

/* A job file with KEY = VAL in section SEC and what that key needs. */
static void job_text(const char *sec, const struct wl_key *k,
		     const char *val, char *buf, size_t len)
{
	const bool w = !strcmp(sec, "workload"), t = !strcmp(sec, "transform");
	const bool d = !strcmp(sec, "demand");
	const bool mlperf = d && (!strcmp(k->name, "batch") ||
				  !strcmp(k->name, "compute_s"));
	const bool tokens = (t && k->uses == 1u << WL_XFORM_TOKENS) ||
			    (d && !strcmp(k->name, "tokens_per_s"));
	char line[256];
	FILE *f = fmemopen(buf, len, "w");

	cr_assert_not_null(f);
	snprintf(line, sizeof(line), "%s = %s\n", k->name, val);
	fprintf(f, "[workload]\n%s%s%s%s", w && !strcmp(k->name, "name") ?
		"" : WBASE_NAME, w && !strcmp(k->name, "stats_source") ? "" :
		WBASE_STATS, w && !strcmp(k->name, "mean_file_bytes") ? "" :
		WBASE_MEAN, w ? line : "");
	if (t || tokens) {
		unsigned kind = WL_XFORM_IMAGE_TRAIN;

		for (unsigned i = 1; k->uses && t && !(k->uses >> kind & 1) &&
		     i < WL_XFORM_COUNT; i++)
			kind = i;
		if (tokens)
			kind = WL_XFORM_TOKENS;
		fprintf(f, "[transform]\n");
		if (!t || strcmp(k->name, "kind"))
			fprintf(f, "kind = %s\n", wl_xform_name(kind));
		if (kind == WL_XFORM_TOKENS && strcmp(k->name, "seq_len"))
			fprintf(f, "seq_len = 8\n");
		if (kind == WL_XFORM_COSMOFLOW && strcmp(k->name, "shape"))
			fprintf(f, "shape = 1x1x1x1\n");
		fprintf(f, "%s", t ? line : "");
	}
	fprintf(f, "[demand train A100]\n");
	if (d && !mlperf) {
		fprintf(f, "%s%s", strcmp(k->name, "samples_per_s") &&
			strcmp(k->name, "tokens_per_s") ? "samples_per_s = 9\n"
			: "", line);
		fprintf(f, "%s%s", strcmp(k->name, "basis") ?
			"basis = measured\n" : "", strcmp(k->name, "source") ?
			"source = s\n" : "");
		if (!strcmp(k->name, "multi_gpus"))
			fprintf(f, "multi_samples_per_s = 9\n");
		if (!strcmp(k->name, "multi_samples_per_s"))
			fprintf(f, "multi_gpus = 2\n");
	} else {
		fprintf(f, RBASE);
	}
	if (mlperf)
		fprintf(f, "[demand mlperf A100]\nbasis = measured\nsource = s\n"
			"%s%s", line, strcmp(k->name, "batch") ? "batch = 1\n" :
			"compute_s = 1\n");
	cr_assert_eq(fputc('\0', f), 0);
	fclose(f);
}

FR_TEST(wl_keys, every_job_file_key_takes_a_good_value_and_names_a_bad)
{
	static const char *const secs[] = { "workload", "transform", "demand" };
	size_t tested = 0;

	for (size_t s = 0; s < 3; s++) {
		size_t n;
		const struct wl_key *t = wl_job_keys(secs[s], &n);

		cr_assert_not_null(t);
		for (size_t i = 0; i < n; i++) {
			const struct wl_key *k = &t[i];
			const struct wl_workload *w = NULL;
			char text[2048], why[768], b[128], ref[640], want[512];
			unsigned ctx = 0;
			const char *bad;
			int err;

			job_text(secs[s], k, value_of(k, true, b, sizeof(b)),
				 text, sizeof(text));
			err = wl_job_parse("t.ini", text, strlen(text), &w, why,
					   sizeof(why));
			cr_expect_eq(err, 0, "[%s] %s: %s\n%s", secs[s],
				     k->name, why, text);
			wl_job_free(w);
			bad = value_of(k, false, b, sizeof(b));
			job_text(secs[s], k, bad, text, sizeof(text));
			err = wl_job_parse("t.ini", text, strlen(text), &w, why,
					   sizeof(why));
			cr_expect_eq(err, -EINVAL, "[%s] %s = %s", secs[s],
				     k->name, bad);
			snprintf(ref, sizeof(ref), "key '%s'", k->name);
			cr_expect_not_null(strstr(why, ref), "%s", why);
			while (k->uses && !(k->uses >> ctx & 1))
				ctx++;
			if (k->type == WL_K_TEXT) {
				cr_expect_not_null(strstr(why, "has no value"),
						   "%s", why);
				tested++;
				continue;
			}
			wl_key_refusal(k, ctx, bad, ref, sizeof(ref));
			cr_expect_not_null(strstr(why, ref), "%s\nwant %s", why,
					   ref);
			wl_key_want(k, ctx, want, sizeof(want));
			for (const struct wl_key_value *v = k->values;
			     v && v->name; v++)
				cr_expect_not_null(strstr(why, v->name), "%s",
						   why);
			if (k->hi > 0 && k->type != WL_K_CUSTOM)
				cr_expect(strstr(want, "..") ||
					  strstr(want, "at most"), "%s", want);
			tested++;
		}
	}
	cr_expect_geq(tested, 40, "%zu keys", tested);
}

/* The job-file key of the same meaning as an option. */
static const struct wl_key *job_key(const char *sec, const char *name)
{
	size_t n;
	const struct wl_key *t = wl_job_keys(sec, &n);

	for (size_t i = 0; t && i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	cr_assert_fail("no job-file key %s", name);
	return NULL;
}

FR_TEST(wl_keys, a_job_file_key_and_its_option_refuse_alike)
{
	static const struct { const char *opt, *key, *bad[3]; } pairs[] = {
		{ "batch", "batch", { "0", "65537", "ten" } },
		{ "max-sample-bytes", "max_sample_bytes", { "1K", "17G", "64Q" } },
		{ "demand", "default_demand", { "peak", "Train", "" } },
		{ "format", "format", { "zip", "wds,mds", "" } },
	};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const struct wl_key *o = OPT(pairs[i].opt);
		const struct wl_key *k = job_key("workload", pairs[i].key);
		uint64_t u1, u2;

		cr_assert_not_null(o);
		cr_expect_eq(o->lo, k->lo, "%s", k->name);
		cr_expect_eq(o->hi, k->hi, "%s", k->name);
		for (size_t j = 0; j < 3 && pairs[i].bad[j][0]; j++) {
			char a[640], b[640];

			cr_expect_neq(wl_key_take(o, CLI_RUN, pairs[i].bad[j],
						  &u1, sizeof(u1)), 0);
			cr_expect_neq(wl_key_take(k, 0, pairs[i].bad[j], &u2,
						  sizeof(u2)), 0);
			cr_expect_str_eq(wl_key_refusal(o, CLI_RUN,
				pairs[i].bad[j], a, sizeof(a)),
				wl_key_refusal(k, 0, pairs[i].bad[j], b,
					       sizeof(b)));
		}
	}
}

FR_TEST(wl_keys, every_builtin_job_file_parses_to_its_values)
{
	char *got = NULL, *want = NULL;
	size_t len = 0, wlen = 0;
	FILE *f = open_memstream(&got, &len);
	FILE *e = fopen("tests/fixtures/jobs/builtin.txt", "r");

	cr_assert_not_null(f);
	cr_assert_not_null(e, "tests/fixtures/jobs/builtin.txt");
	cr_assert_geq(wl_count(), 7);
	for (size_t i = 0; i < wl_count(); i++)
		jobs_dump(f, wl_at(i));
	fclose(f);
	want = calloc(1, 1 << 20);
	cr_assert_not_null(want);
	wlen = fread(want, 1, (1 << 20) - 1, e);
	fclose(e);
	cr_expect_eq(len, wlen, "the dump differs in length");
	for (size_t i = 0, line = 1; i < len && i < wlen; i++) {
		if (got[i] != want[i]) {
			cr_expect_fail("line %zu differs: %.80s", line, got + i);
			break;
		}
		line += got[i] == '\n';
	}
	free(got);
	free(want);
}

FR_TEST(wl_keys, lists_store_sorted_counts_and_the_states_given)
{
	const struct wl_key *v = OPT("vcpus"), *c = OPT("cache");
	struct wl_key_counts n;
	bool on[STG_CACHE_STATES] = { false };
	unsigned one = 0;

	cr_assert_eq(wl_key_take(v, CLI_SWEEP, "8,2,2,1", &n, sizeof(n)), 0);
	cr_expect_eq(n.n, 3);
	cr_expect(n.v[0] == 1 && n.v[1] == 2 && n.v[2] == 8);
	cr_expect_eq(wl_key_take(v, CLI_SWEEP, "1,0", &n, sizeof(n)), -EINVAL);
	cr_assert_eq(wl_key_take(v, CLI_RUN, "4", &one, sizeof(one)), 0);
	cr_expect_eq(one, 4);
	cr_assert_eq(wl_key_take(c, CLI_SWEEP, "warm,cold", on, sizeof(on)), 0);
	cr_expect(on[STG_CACHE_COLD] && on[STG_CACHE_WARM] &&
		  !on[STG_CACHE_RAM]);
	cr_expect_eq(wl_key_take(c, CLI_SWEEP, "warm,,cold", on, sizeof(on)),
		     -EINVAL);
	cr_expect_eq(wl_key_take(c, CLI_RUN, "ram", &one, sizeof(one)),
		     -EINVAL);
}

/* The key engine's own WL_K_CUSTOM parsers, at and around their edges:
 * a percentage, a warm-up, a number or NAME=X pairs (what --ckpt-budget,
 * --warmup and --price name as their rows' parse). */
FR_TEST(wl_keys, the_custom_parsers_take_their_edges_and_refuse_past_them)
{
	const struct wl_key pct = { .name = "p", .type = WL_K_CUSTOM,
				    .gt = true, .lo = 0, .hi = 100 };
	const struct wl_key usd = { .name = "u", .type = WL_K_CUSTOM,
				    .gt = true, .lo = 0, .hi = 1e6 };
	struct wl_key_named named = { .n = 0 };
	double v = -7;

	cr_expect_eq(wl_key_percent(&pct, 0, false, "5%", &v), 0);
	cr_expect_float_eq(v, 0.05, 1e-12);
	cr_expect_eq(wl_key_percent(&pct, 0, false, "99.5", &v), 0);
	cr_expect_float_eq(v, 0.995, 1e-12);
	cr_expect_eq(wl_key_percent(&pct, 0, false, "100", &v), -EINVAL,
		     "a share below 100 %% only");
	cr_expect_eq(wl_key_percent(&pct, 0, false, "0", &v), -EINVAL,
		     "more than 0 where the row says gt");
	cr_expect_eq(wl_key_percent(&pct, 0, false, "5%%", &v), -EINVAL);
	cr_expect_eq(wl_key_warmup(&pct, 0, false, "0s", &v), 0);
	cr_expect_eq(v, -1, "a warm-up of zero is -1: none");
	cr_expect_eq(wl_key_warmup(&pct, 0, false, "2m", &v), 0);
	cr_expect_eq(v, 120);
	cr_expect_eq(wl_key_warmup(&pct, 0, false, "-1", &v), -EINVAL);

	cr_expect_eq(wl_key_named_real(&usd, 0, false, "1000000", &v), 0);
	cr_expect_eq(v, 1e6);
	cr_expect_eq(wl_key_named_real(&usd, 0, false, "1000001", &v),
		     -EINVAL);
	cr_expect_eq(wl_key_named_real(&usd, 0, false, "a=3", &v), -EINVAL,
		     "a pair only where the context takes a list");
	cr_expect_eq(wl_key_named_real(&usd, 0, true, "p4d=32.77", &named),
		     0);
	cr_expect_eq(wl_key_named_real(&usd, 0, true, "a=b=1.5", &named), 0,
		     "the last '=' splits name from number");
	cr_expect_eq(named.n, 2);
	cr_expect_str_eq(named.name[0], "p4d=32.77");
	cr_expect_eq(named.v[0], 32.77);
	cr_expect_eq(named.v[1], 1.5);
	cr_expect_eq(wl_key_named_real(&usd, 0, true, "=5", &named), -EINVAL);
	cr_expect_eq(wl_key_named_real(&usd, 0, true, "x=0", &named), -EINVAL);
	cr_expect_eq(wl_key_named_real(&usd, 0, true, "x", &named), -EINVAL);
	for (unsigned i = named.n; i < WL_KEY_NAMED_MAX; i++)
		cr_assert_eq(wl_key_named_real(&usd, 0, true, "x=1", &named),
			     0);
	cr_expect_eq(wl_key_named_real(&usd, 0, true, "x=1", &named), -EINVAL,
		     "no more than WL_KEY_NAMED_MAX pairs");
	cr_expect_eq(named.n, WL_KEY_NAMED_MAX);
}
