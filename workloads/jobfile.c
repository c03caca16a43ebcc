/*
 * jobfile.c - job files: INI text -> struct wl_workload (schema in
 * docs/job-files.md).
 *
 * Two passes. First libinih reads the text through our own line reader
 * and hands every `key = value` to a handler that only collects it with
 * its line. The reader is ours because inih's handler is not told the
 * line it is on, and inih would cut a line longer than its buffer in two
 * without a word: the reader counts lines, refuses over-long lines and
 * NUL bytes, and notes section headers (so an empty or unknown section is
 * seen too) and continuation lines (an indented line continues the value
 * above it). Then the entries are checked in file order against the
 * schema and the workload is built from them; collecting first lets a key
 * be judged against keys that come later (a transform parameter against
 * the transform's kind, a row's tokens/s against seq_len).
 *
 * The first error in the file is the one reported. Nothing here is
 * global: any thread may parse.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "formats.h"
#include "jobfile.h"
#include "keys.h"
#include "loader.h"

/* ---- pass 1: collecting sections and entries ---- */

/* Sections a job file may have (a workload has a few dozen): bounds the
 * per-section state of a file made of nothing but headers. */
#define MAX_SECTIONS 4096

struct sec {
	char *name;
	int line;
};

struct ent {
	int sec;        /* index into secs, -1 before any section */
	int line;       /* the key's line (continuations follow it) */
	char *key, *val;
};

struct ps {
	const char *file;       /* the name messages give */
	const char *text;
	size_t len, pos;
	int line;               /* lines handed to inih so far */
	bool cont;              /* that line continues the value above */
	bool after_key;         /* inih would take an indented line as a
	                           continuation (its prev_name is set) */
	struct sec *secs;
	size_t nsecs, secs_cap;
	struct ent *ents;
	size_t nents, ents_cap;
	int err;                /* the first error: -EINVAL, -ENOMEM */
	int err_line;           /* its line, 0 for none or ENOMEM */
	char *why;
	size_t why_len;
};

/* "FILE:LINE: ..." (LINE 0: "FILE: ...") into WHY, unless an error was
 * said already (out of memory overrides it). Returns the error kept. */
static int fail(struct ps *p, int err, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct ps *p, int err, int line, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (p->err && !(err == -ENOMEM && p->err != -ENOMEM))
		return p->err;
	p->err = err;
	p->err_line = line;
	if (!p->why || !p->why_len)
		return err;
	if (line > 0)
		n = snprintf(p->why, p->why_len, "%s:%d: ", p->file, line);
	else
		n = snprintf(p->why, p->why_len, "%s: ", p->file);
	if (n >= 0 && (size_t)n < p->why_len) {
		va_start(ap, fmt);
		vsnprintf(p->why + n, p->why_len - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return err;
}

static int oom(struct ps *p)
{
	return fail(p, -ENOMEM, 0, "out of memory");
}

static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	void *a;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	a = realloc(*arr, c * size);
	if (!a)
		return -ENOMEM;
	*arr = a;
	*cap = c;
	return 0;
}

/* inih's find_chars_or_comment: the first of CHARS, or an inline ';'
 * that follows a blank. */
static const char *ini_find(const char *s, const char *chars)
{
	bool was_space = false;

	while (*s && !strchr(chars, *s) && !(was_space && *s == ';')) {
		was_space = isspace((unsigned char)*s);
		s++;
	}
	return s;
}

/* What inih will make of the line in BUF: a header, a continuation, or
 * neither (a key line, a comment, a blank). */
static void classify(struct ps *p, const char *buf)
{
	const char *s = buf, *t, *end;

	p->cont = false;
	if (p->line == 1 && s[0] == '\xef' && s[1] == '\xbb' &&
	    s[2] == '\xbf')
		s += 3;
	for (t = s; *t && isspace((unsigned char)*t); t++)
		;
	if (!*t || *t == ';' || *t == '#')
		return;
	if (p->after_key && t > buf) {
		p->cont = true;
		return;
	}
	if (*t != '[')
		return;
	p->after_key = false;
	end = ini_find(t + 1, "]");
	if (*end != ']')
		return;         /* inih's syntax error, reported by line */
	if (p->nsecs == MAX_SECTIONS) {
		fail(p, -EINVAL, p->line, "more than %d sections",
		     MAX_SECTIONS);
		return;
	}
	if (grow((void **)&p->secs, &p->secs_cap, p->nsecs,
		 sizeof(p->secs[0]))) {
		oom(p);
		return;
	}
	p->secs[p->nsecs].name = strndup(t + 1, (size_t)(end - t - 1));
	p->secs[p->nsecs].line = p->line;
	if (!p->secs[p->nsecs].name) {
		oom(p);
		return;
	}
	p->nsecs++;
}

/* inih's ini_reader over the text: one whole line per call (so inih's
 * line count is ours), cut to fit with an error when too long. */
static char *read_line(char *str, int num, void *stream)
{
	struct ps *p = stream;
	const char *l = p->text + p->pos, *nl;
	size_t n, clen, room;

	if (p->pos >= p->len || num < 4)
		return NULL;
	nl = memchr(l, '\n', p->len - p->pos);
	n = nl ? (size_t)(nl - l) + 1 : p->len - p->pos;
	p->pos += n;
	p->line++;
	clen = n;
	while (clen && (l[clen - 1] == '\n' || l[clen - 1] == '\r'))
		clen--;
	room = (size_t)num - 3;  /* "\r\n" and the NUL, as ini.h asks */
	if (memchr(l, '\0', clen)) {
		fail(p, -EINVAL, p->line, "a NUL byte: a job file is text");
		clen = strnlen(l, clen);
	}
	if (clen > room) {
		fail(p, -EINVAL, p->line, "the line is longer than %zu "
		     "characters: continue a long text on indented lines",
		     room);
		clen = room;
	}
	memcpy(str, l, clen);
	str[clen] = '\n';
	str[clen + 1] = '\0';
	classify(p, str);
	return str;
}

static int on_key(void *user, const char *section, const char *name,
		  const char *value)
{
	struct ps *p = user;
	struct ent *e;

	(void)section;  /* ours is in secs: inih cuts names at 49 bytes */
	if (p->err == -ENOMEM)
		return 0;
	if (p->cont && p->nents) {
		/* a continuation: the value goes on after one blank */
		size_t a, b;
		char *v;

		e = &p->ents[p->nents - 1];
		a = strlen(e->val);
		b = strlen(value);
		v = realloc(e->val, a + b + 2);
		if (!v) {
			oom(p);
			return 0;
		}
		v[a] = ' ';
		memcpy(v + a + 1, value, b + 1);
		e->val = v;
		return 1;
	}
	p->after_key = true;
	if (grow((void **)&p->ents, &p->ents_cap, p->nents,
		 sizeof(p->ents[0]))) {
		oom(p);
		return 0;
	}
	e = &p->ents[p->nents];
	e->sec = (int)p->nsecs - 1;
	e->line = p->line;
	e->key = strdup(name);
	e->val = strdup(value);
	if (!e->key || !e->val) {
		free(e->key);
		free(e->val);
		oom(p);
		return 0;
	}
	p->nents++;
	return 1;
}

static void ps_release(struct ps *p)
{
	for (size_t i = 0; i < p->nsecs; i++)
		free(p->secs[i].name);
	for (size_t i = 0; i < p->nents; i++) {
		free(p->ents[i].key);
		free(p->ents[i].val);
	}
	free(p->secs);
	free(p->ents);
}

/* ---- the schema: rows of the key engine (keys.h) ---- */

/* What a [workload] name or a payload key may be. */
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyz0123456789._-"
#define WORD_MAX 63

static int parse_name(const struct wl_key *k, unsigned ctx, bool list,
		      const char *arg, void *dst)
{
	(void)k, (void)ctx, (void)list;
	if (strlen(arg) > WORD_MAX || strspn(arg, NAME_CHARS) != strlen(arg))
		return -EINVAL;
	*(const char **)dst = arg;
	return 0;
}

static int parse_word(const struct wl_key *k, unsigned ctx, bool list,
		      const char *arg, void *dst)
{
	(void)k, (void)ctx, (void)list;
	for (const char *t = arg; *t; t++)
		if ((unsigned char)*t <= ' ' || (unsigned char)*t >= 0x7f)
			return -EINVAL;
	if (strlen(arg) > WORD_MAX)
		return -EINVAL;
	*(const char **)dst = arg;
	return 0;
}

/* The AU threshold: a share (0.9) or a percentage (90%) in the row's
 * range. */
static int parse_au(const struct wl_key *k, unsigned ctx, bool list,
		    const char *arg, void *dst)
{
	const char *end;
	double d;

	(void)ctx, (void)list;
	if (wl_parse_number(arg, &d, &end))
		return -EINVAL;
	if (end[0] == '%' && !end[1] && end > arg) {
		d /= 100;
		end++;
	}
	if (*end)
		return -EINVAL;
	if (!(d > k->lo && d <= k->hi))
		return -ERANGE;
	*(double *)dst = d;
	return 0;
}

static int parse_gen(const struct wl_key *k, unsigned ctx, bool list,
		     const char *arg, void *dst)
{
	(void)k, (void)ctx, (void)list;
	if (!wl_gen_find(arg))
		return -EINVAL;
	*(const char **)dst = arg;
	return 0;
}

#define ANY (~0u)
/* enum wl_xform's order, as wl_xform_name spells them */
static const struct wl_key_value xform_values[] = {
	{ "none", WL_XFORM_NONE, ANY },
	{ "image-train", WL_XFORM_IMAGE_TRAIN, ANY },
	{ "volume-crop", WL_XFORM_VOLUME, ANY },
	{ "tokens", WL_XFORM_TOKENS, ANY },
	{ "cosmoflow", WL_XFORM_COSMOFLOW, ANY }, { 0 } };
_Static_assert(sizeof(xform_values) / sizeof(xform_values[0]) ==
	       WL_XFORM_COUNT + 1, "a transform kind without its word");
static const struct wl_key_value format_values[] = {
	{ "auto", WL_FORMAT_AUTO, ANY }, { "folder", WL_FORMAT_FOLDER, ANY },
	{ "wds", WL_FORMAT_WDS, ANY }, { "mds", WL_FORMAT_MDS, ANY },
	{ "tfrecord", WL_FORMAT_TFRECORD, ANY },
	{ "tokens", WL_FORMAT_TOKENS, ANY }, { 0 } };
static const struct wl_key_value basis_values[] = {
	{ "measured", WL_BASIS_MEASURED, ANY },
	{ "derived", WL_BASIS_DERIVED, ANY },
	{ "estimate", WL_BASIS_ESTIMATE, ANY }, { 0 } };
static const struct wl_key_value img_dtype_values[] = {
	{ "f32", AUG_DT_F32, ANY }, { "f16", AUG_DT_F16, ANY },
	{ "bf16", AUG_DT_BF16, ANY }, { "u8", AUG_DT_U8, ANY }, { 0 } };
static const struct wl_key_value img_layout_values[] = {
	{ "chw", AUG_LAYOUT_CHW, ANY }, { "hwc", AUG_LAYOUT_HWC, ANY },
	{ 0 } };
static const struct wl_key_value tok_dtype_values[] = {
	{ "int64", 0, ANY }, { "int32", 1, ANY }, { 0 } };

/* [workload] and [transform] values. */
struct wv {
	const char *name, *description, *layout, *file_ext, *au_source;
	const char *stats_source, *gen;
	int format, demand;
	uint64_t batch, dataset_files;
	uint64_t max_sample_bytes;
	double mean_file_bytes, sd_file_bytes, au, mean_width, mean_height;
	int kind;
	const char *t_desc, *key;
	uint64_t img_crop[2], vol_crop[3], shape[4], tries, seq_len;
	double scale[2], ratio[2], mean[3], std[3], img_flip;
	int img_dtype, img_layout, tok_dtype;
	bool vol_flip, roi, dct;
};

/* One [demand KIND GPU] row's values. */
struct rv {
	const char *gpu_detail, *source;
	double samples_per_s, tokens_per_s, compute_s, range[2];
	double multi_samples_per_s;
	uint64_t batch, multi_gpus;
	int basis;
};

/* A row: NAME of TYPE into the field F of struct wv (W) or rv (R); the
 * rest of the row (range, values) follows. A [transform] row's uses are
 * the transform kinds (1 << enum wl_xform) it belongs to; 0: every one. */
#define W(nm, t, f) .name = nm, .type = t, .off = offsetof(struct wv, f)
#define R(nm, t, f) .name = nm, .type = t, .off = offsetof(struct rv, f)
#define IMG (1u << WL_XFORM_IMAGE_TRAIN)
#define VOL (1u << WL_XFORM_VOLUME)
#define TOK (1u << WL_XFORM_TOKENS)
#define COS (1u << WL_XFORM_COSMOFLOW)
#define PAIR .n = 2, .exact = true, .arg = "LO HI (LO <= HI)"

static const struct wl_key wkeys[] = {
	{ W("name", WL_K_CUSTOM, name), .parse = parse_name,
	  .want = "a workload name: a-z, 0-9, '.', '_', '-', at most 63" },
	{ W("description", WL_K_TEXT, description) },
	{ W("layout", WL_K_TEXT, layout) },
	{ W("file_ext", WL_K_TEXT, file_ext) },
	{ W("format", WL_K_ENUM, format), .values = format_values },
	{ W("gen", WL_K_CUSTOM, gen), .parse = parse_gen,
	  .names = wl_gen_names },
	{ W("batch", WL_K_UINT, batch), .lo = 1, .hi = WL_BATCH_MAX },
	{ W("au_threshold", WL_K_CUSTOM, au), .hi = 1, .gt = true,
	  .parse = parse_au, .want = "a share > 0, at most 1 (0.9 or 90%)" },
	{ W("au_source", WL_K_TEXT, au_source) },
	{ W("default_demand", WL_K_ENUM, demand), .values = wl_demand_values },
	{ W("max_sample_bytes", WL_K_SIZE, max_sample_bytes),
	  .lo = WL_SAMPLE_BYTES_MIN, .hi = WL_SAMPLE_BYTES_MAX },
	{ W("dataset_files", WL_K_UINT, dataset_files), .lo = 1, .hi = 1e12 },
	{ W("mean_file_bytes", WL_K_BYTES, mean_file_bytes), .hi = 1e12,
	  .gt = true },
	{ W("sd_file_bytes", WL_K_BYTES, sd_file_bytes), .hi = 1e12 },
	{ W("mean_width", WL_K_REAL, mean_width), .hi = 1e6, .gt = true },
	{ W("mean_height", WL_K_REAL, mean_height), .hi = 1e6, .gt = true },
	{ W("stats_source", WL_K_TEXT, stats_source) },
};

static const struct wl_key tkeys[] = {
	{ W("kind", WL_K_ENUM, kind), .values = xform_values },
	{ W("description", WL_K_TEXT, t_desc) },
	{ W("crop", WL_K_DIMS, img_crop), .uses = IMG, .lo = 1, .hi = 16384,
	  .n = 2, .arg = "WxH" },
	{ W("scale", WL_K_REALS, scale), .uses = IMG, .hi = 1, .gt = true,
	  PAIR },
	{ W("ratio", WL_K_REALS, ratio), .uses = IMG, .hi = 100, .gt = true,
	  PAIR },
	{ W("tries", WL_K_UINT, tries), .uses = IMG, .lo = 1, .hi = 1000 },
	{ W("flip", WL_K_REAL, img_flip), .uses = IMG, .hi = 1 },
	{ W("mean", WL_K_REALS, mean), .uses = IMG, .hi = 1, .n = 3,
	  .arg = "R G B" },
	{ W("std", WL_K_REALS, std), .uses = IMG, .hi = 10, .gt = true,
	  .n = 3, .arg = "R G B" },
	{ W("dtype", WL_K_ENUM, img_dtype), .uses = IMG,
	  .values = img_dtype_values },
	{ W("layout", WL_K_ENUM, img_layout), .uses = IMG,
	  .values = img_layout_values },
	{ W("roi_decode", WL_K_BOOL, roi), .uses = IMG },
	{ W("dct_scale", WL_K_BOOL, dct), .uses = IMG },
	{ W("crop", WL_K_DIMS, vol_crop), .uses = VOL, .lo = 1, .hi = 4096,
	  .n = 3, .arg = "DxHxW" },
	{ W("flip", WL_K_BOOL, vol_flip), .uses = VOL },
	{ W("key", WL_K_CUSTOM, key), .uses = VOL | TOK | COS,
	  .parse = parse_word, .want = "printable ASCII without blanks, at "
	  "most 63 bytes" },
	{ W("seq_len", WL_K_UINT, seq_len), .uses = TOK, .lo = 1,
	  .hi = 1 << 22 },
	{ W("dtype", WL_K_ENUM, tok_dtype), .uses = TOK,
	  .values = tok_dtype_values },
	{ W("shape", WL_K_DIMS, shape), .uses = COS, .lo = 1, .hi = 65536,
	  .n = 4, .exact = true, .arg = "DxHxWxC" },
};

static const struct wl_key rkeys[] = {
	{ R("gpu_detail", WL_K_TEXT, gpu_detail) },
	{ R("samples_per_s", WL_K_REAL, samples_per_s), .hi = 1e9,
	  .gt = true },
	{ R("tokens_per_s", WL_K_REAL, tokens_per_s), .hi = 1e12, .gt = true },
	{ R("batch", WL_K_UINT, batch), .lo = 1, .hi = WL_BATCH_MAX },
	{ R("compute_s", WL_K_REAL, compute_s), .hi = 1e6, .gt = true },
	{ R("basis", WL_K_ENUM, basis), .values = basis_values },
	{ R("range", WL_K_REALS, range), .hi = 1e12, .gt = true, PAIR },
	{ R("multi_gpus", WL_K_UINT, multi_gpus), .lo = 2, .hi = WL_GPUS_MAX },
	{ R("multi_samples_per_s", WL_K_REAL, multi_samples_per_s),
	  .hi = 1e12, .gt = true },
	{ R("source", WL_K_TEXT, source) },
};

#define NW (sizeof(wkeys) / sizeof(wkeys[0]))
#define NT (sizeof(tkeys) / sizeof(tkeys[0]))
#define NR (sizeof(rkeys) / sizeof(rkeys[0]))
#define MAX_GPU_NAME 32

const struct wl_key *wl_job_keys(const char *name, size_t *n)
{
	static const struct { const char *name; const struct wl_key *t;
			      size_t n; } secs[] = {
		{ "workload", wkeys, NW }, { "transform", tkeys, NT },
		{ "demand", rkeys, NR },
	};

	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++)
		if (!strcmp(secs[i].name, name)) {
			*n = secs[i].n;
			return secs[i].t;
		}
	return NULL;
}

struct row {
	int sec;                        /* its section */
	enum wl_demand_kind kind;
	char gpu[MAX_GPU_NAME];
	struct rv v;
	const struct ent *given[NR];
};

struct chk {
	struct ps *p;
	int wsec, tsec;                 /* their sections, -1 none */
	struct wv v;
	const struct ent *wgiven[NW], *tgiven[NT];
	struct row *rows;
	size_t nrows;
	int *sec_row;                   /* section -> row index, -1 */
};

static int key_fail(struct chk *c, const struct ent *e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int key_fail(struct chk *c, const struct ent *e, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fail(c->p, -EINVAL, e->line, "key '%s': %s", e->key, msg);
}

static int need(struct chk *c, const char *sec, const char *key,
		const char *why)
{
	return fail(c->p, -EINVAL, 0, "[%s] needs %s%s%s", sec, key,
		    why ? " " : "", why ? why : "");
}

/* E's value as K says into the struct at BASE, for transform KIND; a
 * refusal in the engine's words, as the command line's: "key 'batch'
 * wants 1..65536, not '0'". 0 or -EINVAL. */
static int key_set(struct chk *c, const struct wl_key *k, unsigned kind,
		   const struct ent *e, void *base)
{
	char why[640];

	if (!*e->val)
		return key_fail(c, e, "has no value");
	if (!wl_key_take(k, kind, e->val, (char *)base + k->off, 8))
		return 0;
	return fail(c->p, -EINVAL, e->line, "key '%s' %s", e->key,
		    wl_key_refusal(k, kind, e->val, why, sizeof(why)));
}

static void keys_list(const struct wl_key *t, size_t n, unsigned kind,
		      char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int m;

		if (!(t[i].uses & (1u << kind)) && t[i].uses)
			continue;
		m = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
			     t[i].name);
		if (m < 0)
			break;
		used += (size_t)m;
	}
}

/* Find E's key in table T (N keys) for transform KIND (0 outside
 * [transform]) and set it; refuses unknown and repeated keys. */
static int key_take(struct chk *c, const struct wl_key *t, size_t n,
		    const struct ent **given, unsigned kind, const char *sec,
		    const struct ent *e, void *base)
{
	char list[512];
	bool other = false;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(t[i].name, e->key))
			continue;
		if (t[i].uses && !(t[i].uses & (1u << kind))) {
			other = true;
			continue;
		}
		if (given[i])
			return key_fail(c, e, "given twice (first at line %d)",
					given[i]->line);
		given[i] = e;
		return key_set(c, &t[i], kind, e, base);
	}
	keys_list(t, n, kind, list, sizeof(list));
	if (other)
		return key_fail(c, e, "not a parameter of transform %s (its "
				"parameters: %s)", xform_values[kind].name, list);
	return key_fail(c, e, "unknown key in [%s] (known: %s)", sec, list);
}

/* "demand KIND GPU" into ROW; -EINVAL when SEC is not one. */
static int demand_sec(const char *name, struct row *row, const char **why)
{
	char buf[128], *save = NULL, *w[4];
	int n = 0;

	*why = "a demand row is [demand KIND GPU], KIND train, mlperf or "
	       "ceiling";
	if (strlen(name) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, name);
	for (char *t = strtok_r(buf, " \t", &save); t;
	     t = strtok_r(NULL, " \t", &save)) {
		if (n == 4)
			return -EINVAL;
		w[n++] = t;
	}
	if (n != 3 || strcmp(w[0], "demand"))
		return -EINVAL;
	/* lower case, as every key is */
	if (wl_demand_kind_parse(w[1], &row->kind) ||
	    (strcmp(w[1], wl_demand_kind_name(row->kind)) &&
	     strcmp(w[1], "tuned")))
		return -EINVAL;
	*why = "a GPU name is 1 to 31 letters, digits, '.', '_' or '-'";
	if (strlen(w[2]) >= MAX_GPU_NAME ||
	    strspn(w[2], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		   "0123456789._-") != strlen(w[2]))
		return -EINVAL;
	strcpy(row->gpu, w[2]);
	return 0;
}

/* Section I: the [workload], the [transform] (at most one each) or a
 * demand row whose (GPU, kind) no earlier row has; anything else is
 * refused. */
static int section_take(struct chk *c, size_t i)
{
	struct ps *p = c->p;
	const struct sec *s = &p->secs[i];
	struct row *row = &c->rows[c->nrows];
	const char *why;
	int *slot = NULL;

	if (!strcmp(s->name, "workload"))
		slot = &c->wsec;
	else if (!strcmp(s->name, "transform"))
		slot = &c->tsec;
	if (slot) {
		if (*slot >= 0 && *slot != (int)i)
			return fail(p, -EINVAL, s->line, "[%s]: given twice "
				    "(first at line %d)", s->name,
				    p->secs[*slot].line);
		*slot = (int)i;
		return 0;
	}
	if (strncmp(s->name, "demand", 6) || (s->name[6] &&
	    !isspace((unsigned char)s->name[6])))
		return fail(p, -EINVAL, s->line, "[%s]: unknown section "
			    "(known: [workload], [transform], [demand KIND "
			    "GPU])", s->name);
	if (demand_sec(s->name, row, &why))
		return fail(p, -EINVAL, s->line, "[%s]: %s", s->name, why);
	for (size_t r = 0; r < c->nrows; r++)
		if (c->rows[r].kind == row->kind &&
		    !strcasecmp(c->rows[r].gpu, row->gpu))
			return fail(p, -EINVAL, s->line, "[%s]: a second %s "
				    "row for GPU %s (the first is at line %d)",
				    s->name, wl_demand_kind_name(row->kind),
				    c->rows[r].gpu,
				    p->secs[c->rows[r].sec].line);
	row->sec = (int)i;
	c->sec_row[i] = (int)c->nrows++;
	return 0;
}

/* Unset keys: aug_params_default's image recipe (torchvision's ImageNet
 * training transform), 128^3 flipped volume crops, int64 tokens. */
static void wv_defaults(struct wv *v)
{
	struct aug_params a;

	aug_params_default(&a);
	memset(v, 0, sizeof(*v));
	v->au = LDR_DEFAULT_AU_THRESHOLD;
	v->img_crop[0] = a.out_w;
	v->img_crop[1] = a.out_h;
	v->scale[0] = a.rrc.scale_min;
	v->scale[1] = a.rrc.scale_max;
	v->ratio[0] = a.rrc.ratio_min;
	v->ratio[1] = a.rrc.ratio_max;
	v->tries = a.rrc.tries;
	v->img_flip = a.flip_p;
	for (int i = 0; i < 3; i++) {
		v->mean[i] = a.mean[i];
		v->std[i] = a.std[i];
	}
	v->img_dtype = (int)a.dtype;
	v->img_layout = (int)a.layout;
	v->roi = a.roi_decode;
	v->dct = a.dct_scale;
	v->vol_crop[0] = v->vol_crop[1] = v->vol_crop[2] = 128;
	v->vol_flip = true;
}

/* The transform's kind, quietly (its errors are said at its line):
 * -1 when absent or not a kind. *KE gets its entry. */
static int kind_peek(const struct chk *c, const struct ent **ke)
{
	const struct ps *p = c->p;
	int tsec = -1;

	*ke = NULL;
	for (size_t i = 0; i < p->nsecs && tsec < 0; i++)
		if (!strcmp(p->secs[i].name, "transform"))
			tsec = (int)i;
	for (size_t i = 0; tsec >= 0 && i < p->nents; i++) {
		const struct ent *e = &p->ents[i];

		if (e->sec != tsec || strcmp(e->key, "kind"))
			continue;
		*ke = e;
		for (int k = 0; xform_values[k].name; k++)
			if (!strcmp(e->val, xform_values[k].name))
				return xform_values[k].v;
		return -1;
	}
	return -1;
}

/* Entry E into its section's values. Transform parameters are judged by
 * the transform's kind KIND (from KE) wherever it is given; without a
 * valid kind they wait for that error. */
static int entry_take(struct chk *c, const struct ent *e,
		      const struct ent *ke, int kind)
{
	struct ps *p = c->p;
	struct row *r;

	if (e->sec < 0)
		return key_fail(c, e, "outside a section (keys go under "
				"[workload], [transform] or [demand KIND "
				"GPU])");
	if (e->sec == c->wsec)
		return key_take(c, wkeys, NW, c->wgiven, 0, "workload", e,
				&c->v);
	if (e->sec == c->tsec) {
		if (e != ke && kind < 0)
			return 0;
		return key_take(c, tkeys, NT, c->tgiven, e == ke ? 0 :
				(unsigned)kind, "transform", e, &c->v);
	}
	r = &c->rows[c->sec_row[e->sec]];
	return key_take(c, rkeys, NR, r->given, 0, p->secs[e->sec].name, e,
			&r->v);
}

/* Sections and entries in file order, so the first error said is the
 * file's first. */
static int walk(struct chk *c)
{
	struct ps *p = c->p;
	const struct ent *ke;
	const int kind = kind_peek(c, &ke);
	size_t si = 0, ei = 0;
	int err = 0;

	c->wsec = c->tsec = -1;
	c->rows = calloc(p->nsecs ? p->nsecs : 1, sizeof(c->rows[0]));
	c->sec_row = calloc(p->nsecs ? p->nsecs : 1, sizeof(int));
	if (!c->rows || !c->sec_row)
		return oom(p);
	while (!err && (si < p->nsecs || ei < p->nents)) {
		if (ei == p->nents || (si < p->nsecs &&
		    p->secs[si].line < p->ents[ei].line))
			err = section_take(c, si++);
		else
			err = entry_take(c, &p->ents[ei++], ke, kind);
	}
	if (err)
		return err;
	if (c->wsec < 0)
		return fail(p, -EINVAL, 0, "no [workload] section");
	if (c->tsec >= 0 && !ke)
		return need(c, "transform", "kind", "(image-train, "
			    "volume-crop, tokens, cosmoflow or none)");
	return 0;
}

static const struct ent *rgiven(const struct row *r, const char *key)
{
	for (size_t i = 0; i < NR; i++)
		if (!strcmp(rkeys[i].name, key))
			return r->given[i];
	return NULL;
}

/* A row's rate: one of samples_per_s, tokens_per_s (/ seq_len), or an
 * MLPerf batch / compute_s; its range and multi-GPU figure agree. */
static int row_check(struct chk *c, struct row *r)
{
	const char *sec = c->p->secs[r->sec].name;
	const struct ent *sps = rgiven(r, "samples_per_s");
	const struct ent *tps = rgiven(r, "tokens_per_s");
	const struct ent *bat = rgiven(r, "batch");
	const struct ent *cs = rgiven(r, "compute_s");
	const struct ent *rng = rgiven(r, "range");
	const struct ent *mg = rgiven(r, "multi_gpus");
	const struct ent *ms = rgiven(r, "multi_samples_per_s");
	const struct ent *ways[3] = { sps, tps, bat ? bat : cs };
	const struct ent *first = NULL;

	for (int i = 0; i < 3; i++) {
		if (!ways[i])
			continue;
		if (first && first != ways[i])
			return key_fail(c, ways[i]->line > first->line ?
					ways[i] : first, "the row's rate is "
					"given twice: one of samples_per_s, "
					"tokens_per_s, or batch with "
					"compute_s");
		first = ways[i];
	}
	if (!first)
		return need(c, sec, "samples_per_s", "(or tokens_per_s, or "
			    "batch and compute_s)");
	if ((bat || cs) && r->kind != WL_DEMAND_MLPERF)
		return key_fail(c, bat ? bat : cs, "batch and compute_s are "
				"MLPerf Storage's emulated step: for [demand "
				"mlperf GPU] rows");
	if (bat && !cs)
		return need(c, sec, "compute_s", "(with batch)");
	if (cs && !bat)
		return need(c, sec, "batch", "(with compute_s)");
	if (tps && !c->v.seq_len)
		return key_fail(c, tps, "needs seq_len in [transform] "
				"(samples/s = tokens/s / seq_len)");
	if (tps)
		r->v.samples_per_s = r->v.tokens_per_s / (double)c->v.seq_len;
	if (bat)
		r->v.samples_per_s = (double)r->v.batch / r->v.compute_s;
	if (!(r->v.samples_per_s > 0) || !isfinite(r->v.samples_per_s))
		return key_fail(c, first, "gives no rate");
	if (rng && (r->v.range[0] > r->v.samples_per_s * (1 + 1e-9) ||
		    r->v.range[1] < r->v.samples_per_s * (1 - 1e-9)))
		return key_fail(c, rng, "%g-%g does not hold the row's %g "
				"samples/s", r->v.range[0], r->v.range[1],
				r->v.samples_per_s);
	if (mg && !ms)
		return need(c, sec, "multi_samples_per_s", "(with "
			    "multi_gpus)");
	if (ms && !mg)
		return need(c, sec, "multi_gpus", "(with "
			    "multi_samples_per_s)");
	/* G GPUs together never eat more than G x one GPU alone (within
	 * WL_DEMAND_ROUNDING: a source that gives its per-GPU figure as the
	 * total / G rounded down, 37,130 / 8 = 4,641, is not refused) */
	if (ms && r->v.multi_samples_per_s > (double)r->v.multi_gpus *
	    r->v.samples_per_s * (1 + WL_DEMAND_ROUNDING))
		return key_fail(c, ms, "%g samples/s for %llu GPUs is more "
				"than %llu x the row's %g for one",
				r->v.multi_samples_per_s,
				(unsigned long long)r->v.multi_gpus,
				(unsigned long long)r->v.multi_gpus,
				r->v.samples_per_s);
	if (!rgiven(r, "basis"))
		return need(c, sec, "basis", "(measured, derived or "
			    "estimate)");
	if (!rgiven(r, "source"))
		return need(c, sec, "source", "(where the figure comes from)");
	return 0;
}

static const struct ent *wgiven(const struct chk *c, const char *key)
{
	for (size_t i = 0; i < NW; i++)
		if (!strcmp(wkeys[i].name, key))
			return c->wgiven[i];
	return NULL;
}

/* The transform key KEY as given (the first of that name), or NULL. */
static const struct ent *tgiven(const struct chk *c, const char *key)
{
	for (size_t i = 0; i < NT; i++)
		if (!strcmp(tkeys[i].name, key) && c->tgiven[i])
			return c->tgiven[i];
	return NULL;
}

/* Most voxels one volume sample may have: 512 MiB of f32 in each batch
 * slot (MLPerf's 128^3 crop is 2^21). */
#define JOB_MAX_VOXELS (1ull << 27)

/* A sample that cannot fit: said at the key that sized it. */
static int size_check(struct chk *c)
{
	const char *key = c->v.kind == WL_XFORM_VOLUME ? "crop" : "shape";
	const uint64_t *d = c->v.kind == WL_XFORM_VOLUME ? c->v.vol_crop :
			    c->v.shape;
	const unsigned n = c->v.kind == WL_XFORM_VOLUME ? 3 : 4;
	double voxels = 1;
	const struct ent *e;

	if (c->v.kind != WL_XFORM_VOLUME && c->v.kind != WL_XFORM_COSMOFLOW)
		return 0;
	for (unsigned i = 0; i < n; i++)
		voxels *= (double)d[i];
	if (voxels <= (double)JOB_MAX_VOXELS)
		return 0;
	e = tgiven(c, key);
	if (!e)
		return 0;
	return key_fail(c, e, "%.0f voxels a sample: at most %llu (512 MiB "
			"of f32 in each batch slot)", voxels,
			(unsigned long long)JOB_MAX_VOXELS);
}

/* What needs another key: names, sources, a generator's statistics, a
 * demand row of the default kind. */
static int whole_check(struct chk *c)
{
	static const char *const stats[] = {
		"dataset_files", "mean_file_bytes", "sd_file_bytes",
		"mean_width", "mean_height",
	};
	const struct wl_gen_entry *ge = wl_gen_find(c->v.gen);
	bool have = false;
	int err;

	if (!c->v.name)
		return need(c, "workload", "name", NULL);
	if (c->v.kind == WL_XFORM_TOKENS && !c->v.seq_len)
		return need(c, "transform", "seq_len", "(tokens per sample "
			    "window: seq_len + 1)");
	if (c->v.kind == WL_XFORM_COSMOFLOW && !c->v.shape[0])
		return need(c, "transform", "shape", "(DxHxWxC of the volume "
			    "feature)");
	err = size_check(c);
	if (err)
		return err;
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++)
		if (wgiven(c, stats[i]) && !c->v.stats_source)
			return need(c, "workload", "stats_source", "(the "
				    "source of the dataset statistics)");
	if (ge && (ge->image_spec || ge->needs_sizes) &&
	    !(c->v.mean_file_bytes > 0))
		return need(c, "workload", "mean_file_bytes", ge->image_spec ?
			    "(the image generator sizes a set with it)" :
			    "(the generator draws file sizes around it)");
	if (ge && ge->max_side && c->v.kind == WL_XFORM_COSMOFLOW) {
		const struct ent *e = tgiven(c, "shape");

		for (unsigned i = 0; e && i < 4; i++)
			if (c->v.shape[i] > (i == 3 ? ge->max_channels :
					     ge->max_side))
				return key_fail(c, e, "gen %s writes sides "
					"up to %u and up to %u channels",
					ge->ops->layout, ge->max_side,
					ge->max_channels);
	}
	for (size_t r = 0; r < c->nrows; r++) {
		err = row_check(c, &c->rows[r]);
		if (err)
			return err;
		if ((int)c->rows[r].kind == c->v.demand)
			have = true;
	}
	if (!have) {
		char what[64];

		snprintf(what, sizeof(what), "a [demand %s GPU] row",
			 wl_demand_kind_name((enum wl_demand_kind)
					     c->v.demand));
		return need(c, "workload", what, "(its default_demand kind)");
	}
	return 0;
}

/* ---- pass 3: the workload ---- */

struct job {
	struct wl_workload w;           /* first: wl_job_free's pointer */
	struct wl_demand *rows;
	char **strs;                    /* every string the workload owns */
	size_t nstrs;
};

/* A copy of S owned by J (NULL when out of memory). */
static const char *own(struct job *j, const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		return NULL;
	j->strs[j->nstrs++] = d;
	return d;
}

void wl_job_free(const struct wl_workload *w)
{
	struct job *j = (struct job *)w;

	if (!j)
		return;
	for (size_t i = 0; i < j->nstrs; i++)
		free(j->strs[i]);
	free(j->strs);
	free(j->rows);
	free(j);
}

static void image_params(const struct wv *v, struct aug_params *a)
{
	aug_params_default(a);
	a->out_w = (uint32_t)v->img_crop[0];
	a->out_h = (uint32_t)v->img_crop[1];
	a->rrc.scale_min = v->scale[0];
	a->rrc.scale_max = v->scale[1];
	a->rrc.ratio_min = v->ratio[0];
	a->rrc.ratio_max = v->ratio[1];
	a->rrc.tries = (unsigned)v->tries;
	a->flip_p = v->img_flip;
	for (int i = 0; i < 3; i++) {
		a->mean[i] = (float)v->mean[i];
		a->std[i] = (float)v->std[i];
	}
	a->dtype = (enum aug_dtype)v->img_dtype;
	a->layout = (enum aug_layout)v->img_layout;
	a->roi_decode = v->roi;
	a->dct_scale = v->dct;
}

/* The transform's parameters and the shape handed to the GPU. The
 * out_* fields multiply to the sample's bytes / 4 (f32 elements; a
 * volume is 1 x D x (H * W), an int64 token window 2 x 1 x (seq_len +
 * 1)), which is what the sweep's pinned-memory reserve needs. */
static void xform_build(const struct wv *v, struct wl_workload *w,
			char *desc, size_t len)
{
	struct wl_xform_params *xp = &w->xp;

	memset(xp, 0, sizeof(*xp));
	w->xform = (enum wl_xform)v->kind;
	if (v->key)
		snprintf(xp->key, sizeof(xp->key), "%s", v->key);
	desc[0] = '\0';
	switch (w->xform) {
	case WL_XFORM_IMAGE_TRAIN:
		image_params(v, &xp->aug);
		w->out_channels = 3;
		w->out_height = xp->aug.out_h;
		w->out_width = xp->aug.out_w;
		snprintf(desc, len, "decode -> RandomResizedCrop %ux%u (scale "
			 "%g-%g, ratio %g-%g) -> flip p=%g -> normalize -> %s "
			 "%s", xp->aug.out_w, xp->aug.out_h,
			 xp->aug.rrc.scale_min, xp->aug.rrc.scale_max,
			 xp->aug.rrc.ratio_min, xp->aug.rrc.ratio_max,
			 xp->aug.flip_p, img_layout_values[xp->aug.layout].name,
			 img_dtype_values[xp->aug.dtype].name);
		break;
	case WL_XFORM_VOLUME:
		for (int i = 0; i < 3; i++)
			xp->vol_crop[i] = (uint32_t)v->vol_crop[i];
		xp->vol_flip = v->vol_flip;
		w->out_channels = 1;
		w->out_height = xp->vol_crop[0];
		w->out_width = xp->vol_crop[1] * xp->vol_crop[2];
		snprintf(desc, len, "read -> random %ux%ux%u crop (padded "
			 "where smaller)%s -> f32", xp->vol_crop[0],
			 xp->vol_crop[1], xp->vol_crop[2], xp->vol_flip ?
			 " -> random flips on the three axes" : "");
		break;
	case WL_XFORM_TOKENS:
		xp->seq_len = (uint32_t)v->seq_len;
		xp->token_bytes = v->tok_dtype == 1 ? 4 : 8;
		w->out_channels = xp->token_bytes / 4;
		w->out_height = 1;
		w->out_width = xp->seq_len + 1;
		snprintf(desc, len, "a window of %u + 1 tokens -> %s",
			 xp->seq_len, tok_dtype_values[v->tok_dtype].name);
		break;
	case WL_XFORM_COSMOFLOW:
		for (int i = 0; i < 4; i++)
			xp->cosmo_shape[i] = (uint32_t)v->shape[i];
		w->out_channels = xp->cosmo_shape[3];
		w->out_height = xp->cosmo_shape[0];
		w->out_width = xp->cosmo_shape[1] * xp->cosmo_shape[2];
		snprintf(desc, len, "int16 %ux%ux%ux%u -> log(1 + x) -> f32",
			 xp->cosmo_shape[0], xp->cosmo_shape[1],
			 xp->cosmo_shape[2], xp->cosmo_shape[3]);
		break;
	default:
		snprintf(desc, len, "none");
		break;
	}
}

static int build(struct chk *c, const char *name, struct wl_workload **out)
{
	const struct wv *v = &c->v;
	const size_t maxstr = 16 + 3 * c->nrows;
	struct job *j = calloc(1, sizeof(*j));
	struct wl_workload *w;
	char desc[256], descr[128];
	bool bad = false;

	if (!j)
		return -ENOMEM;
	j->strs = calloc(maxstr, sizeof(j->strs[0]));
	j->rows = calloc(c->nrows ? c->nrows : 1, sizeof(j->rows[0]));
	if (!j->strs || !j->rows) {
		wl_job_free(&j->w);
		return -ENOMEM;
	}
	w = &j->w;
	xform_build(v, w, desc, sizeof(desc));
	snprintf(descr, sizeof(descr), "workload %s of a job file", v->name);
	if (v->gen) {
		const struct wl_gen_entry *ge = wl_gen_find(v->gen);

		w->gen = ge->ops;
		w->image_spec = ge->image_spec;
	}
	w->name = own(j, v->name);
	w->description = own(j, v->description ? v->description : descr);
	w->layout = own(j, v->layout);
	w->file_ext = own(j, v->file_ext ? v->file_ext :
			  w->image_spec ? ".JPEG" : "");
	w->stats_source = own(j, v->stats_source);
	w->au_source = own(j, v->au_source ? v->au_source :
			   "feedrate's default (MLPerf Storage's 90 % for "
			   "resnet50 and unet3d)");
	w->transform = own(j, v->t_desc ? v->t_desc : desc);
	w->job_file = own(j, name);
	w->dataset_files = v->dataset_files;
	w->mean_file_bytes = v->mean_file_bytes;
	w->sd_file_bytes = v->sd_file_bytes;
	w->mean_width = v->mean_width;
	w->mean_height = v->mean_height;
	w->au_threshold = v->au;
	w->format = v->format;
	w->batch = (unsigned)v->batch;
	w->default_demand = (enum wl_demand_kind)v->demand;
	w->max_sample_bytes = (uint64_t)v->max_sample_bytes;
	bad = !w->name || !w->description || !w->layout || !w->file_ext ||
	      !w->stats_source || !w->au_source || !w->transform ||
	      !w->job_file;
	for (size_t r = 0; r < c->nrows; r++) {
		const struct row *src = &c->rows[r];
		struct wl_demand *d = &j->rows[r];

		d->gpu = own(j, src->gpu);
		d->gpu_detail = own(j, src->v.gpu_detail ? src->v.gpu_detail :
				    src->gpu);
		d->source = own(j, src->v.source);
		d->kind = src->kind;
		d->samples_per_s = src->v.samples_per_s;
		d->tokens_per_s = src->v.tokens_per_s;
		d->range_lo = src->v.range[0];
		d->range_hi = src->v.range[1];
		d->multi_gpus = (unsigned)src->v.multi_gpus;
		d->multi_samples_per_s = src->v.multi_samples_per_s;
		d->batch = (unsigned)src->v.batch;
		d->compute_s = src->v.compute_s;
		d->basis = (enum wl_demand_basis)src->v.basis;
		bad |= !d->gpu || !d->gpu_detail || !d->source;
	}
	w->demand = j->rows;
	w->ndemand = c->nrows;
	if (bad) {
		wl_job_free(w);
		return -ENOMEM;
	}
	*out = w;
	return 0;
}

/* ---- the entry points ---- */

int wl_job_parse(const char *name, const char *text, size_t len,
		 const struct wl_workload **out, char *why, size_t why_len)
{
	struct ps p = {
		.file = name ? name : "job file", .text = text, .len = len,
		.why = why, .why_len = why_len,
	};
	struct chk c = { .p = &p };
	struct wl_workload *w = NULL;
	int rc;

	if (why_len)
		why[0] = '\0';
	if (!out || (!text && len))
		return -EINVAL;
	*out = NULL;
	rc = ini_parse_stream(read_line, &p, on_key, &p);
	if (rc == -2)
		oom(&p);
	else if (rc > 0 && p.err != -ENOMEM && (!p.err || rc < p.err_line)) {
		p.err = 0;      /* inih's error comes first */
		fail(&p, -EINVAL, rc, "not a [section], a key = value line "
		     "or a comment");
	}
	if (!p.err) {
		wv_defaults(&c.v);
		if (!walk(&c) && !whole_check(&c) && build(&c, p.file, &w))
			oom(&p);
	}
	rc = p.err;
	free(c.rows);
	free(c.sec_row);
	ps_release(&p);
	if (rc) {
		wl_job_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int wl_job_load(const char *path, const struct wl_workload **out, char *why,
		size_t why_len)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd, err = 0;

	if (why_len)
		why[0] = '\0';
	if (!path || !out)
		return -EINVAL;
	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		snprintf(why, why_len, "%s: not a regular file", path);
		goto out;
	}
	if ((uint64_t)st.st_size > WL_JOB_MAX_BYTES) {
		err = -EFBIG;
		snprintf(why, why_len, "%s: larger than %u bytes: not a job "
			 "file", path, WL_JOB_MAX_BYTES);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		err = -ENOMEM;
		goto fail;
	}
	while (got < (size_t)st.st_size) {
		const ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			goto fail;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	fd = -1;
	err = wl_job_parse(path, buf, got, out, why, why_len);
	goto out;
fail:
	snprintf(why, why_len, "%s: %s", path, err == -EISDIR ?
		 "a folder, not a job file" : strerror(-err));
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return err;
}
