/*
 * keys.h - the one key engine of feedrate, in the spirit of fio's struct
 * fio_option: a key is one row (name, value type, range, accepted values,
 * defaults from the named constants, help), and one engine parses a value
 * for it, checks it, stores it and says what it accepts. The command
 * line's option table (cli/options.c) and the job files' key table
 * (workloads/jobfile.c) are both made of these rows, so an option and a
 * job-file key of the same meaning are checked the same and refused with
 * the same words ("wants 1..65536, not '0'").
 *
 * A row's USES is a bit set of the contexts that take it (the commands of
 * the command line; a job file's transform kinds); a value's USES likewise.
 * The engine is pure: any thread.
 */
#ifndef FEEDRATE_KEYS_H
#define FEEDRATE_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a key's value is, and the C type it is stored in. Numbers are
 * checked against the row's [lo, hi] (lo excluded with gt; hi 0: none). */
enum wl_key_type {
	WL_K_FLAG,      /* no value; bool, set true */
	WL_K_TEXT,      /* const char *: any non-empty text */
	WL_K_UINT,      /* uint64_t or uint32_t (by the size given); in a
	                   list context, struct wl_key_counts */
	WL_K_SIZE,      /* uint64_t or uint32_t: bytes, 4K, 1.5G (IEC), a
	                   multiple of step when step is set */
	WL_K_BYTES,     /* double: a size as WL_K_SIZE takes it, fractions
	                   kept (a mean: 114660.07) */
	WL_K_TIME,      /* double seconds: 30, 250ms, 5m, 1h; 0 ("0", "0s")
	                   only where lo is 0 and not gt */
	WL_K_REAL,      /* double: a decimal number or a fraction (3/4) */
	WL_K_COUNT,     /* double: a count with a decimal suffix (7B, 350M) */
	WL_K_ENUM,      /* int: one of values; in a list context, bool[v] */
	WL_K_BOOL,      /* bool: yes/no, true/false, on/off, 1/0 */
	WL_K_REALS,     /* double[n]: n numbers apart by blanks or a comma;
	                   ordered: each not below the one before */
	WL_K_DIMS,      /* uint64_t[n]: "224" or "224x160" (1 or n sizes;
	                   exactly n with exact) */
	WL_K_CUSTOM,    /* the row's parse */
};

/* An accepted value, and the contexts that accept it. */
struct wl_key_value {
	const char *name;
	int v;                  /* stored for WL_K_ENUM */
	unsigned uses;
};

/* A default as help says it: DEF (printed by the row's type) or TEXT
 * ("%s" in TEXT: DEF there), for the contexts USES. */
struct wl_key_default {
	unsigned uses;
	double def;
	const char *text;
};

struct wl_key;
/* A WL_K_CUSTOM row's parser: ARG into DST for context CTX, LIST when CTX
 * takes a comma-separated list. 0 or -EINVAL. */
typedef int wl_key_parse(const struct wl_key *k, unsigned ctx, bool list,
			 const char *arg, void *dst);
typedef wl_key_parse *wl_key_parse_fn;

struct wl_key {
	const char *name;
	char shortopt;          /* the command line's -x; 0: none */
	enum wl_key_type type;
	const char *arg;        /* the value's name in help: N, SIZE, WxH */
	unsigned uses;          /* the contexts that take it */
	unsigned lists;         /* ... where it takes a comma-separated list */
	double lo, hi;
	bool gt;                /* lo itself is refused */
	unsigned step;          /* WL_K_SIZE: a multiple of this */
	unsigned n;             /* WL_K_REALS, WL_K_DIMS: how many */
	bool exact;             /* WL_K_DIMS: exactly n; WL_K_REALS: in
	                           order */
	const struct wl_key_value *values;  /* NULL-named end */
	struct wl_key_default defs[3];      /* uses 0 ends */
	int group;              /* a section of help */
	const char *help;
	const char *want;       /* what it wants, where the type cannot say */
	wl_key_parse_fn parse;  /* WL_K_CUSTOM */
	size_t (*names)(char *buf, size_t len);  /* WL_K_CUSTOM: the names it
	                           takes, ", " apart (as snprintf returns) */
	size_t off;             /* a job file's: the field's offset */
};

/* WL_K_UINT in a list context: counts, sorted, no repeats. */
#define WL_KEY_COUNTS_MAX 64
struct wl_key_counts {
	unsigned v[WL_KEY_COUNTS_MAX];
	unsigned n;
};

/*
 * ARG for K in context CTX into DST (SIZE bytes: 4 or 8 for whole
 * numbers and sizes; the type's C type else). Returns 0, -EINVAL (not a
 * value of that type) or -ERANGE (outside the row's range).
 */
int wl_key_take(const struct wl_key *k, unsigned ctx, const char *arg,
		void *dst, size_t size);

/*
 * WL_K_CUSTOM parsers any table may name as a row's parse:
 * wl_key_percent: "5" or "5%" as the fraction 0.05, more than (gt) or at
 * least the row's lo and below its hi. wl_key_warmup: wl_parse_warmup's
 * duration or zero (-1). wl_key_named_real: a number in the row's range
 * into a double; where CTX takes a list, "NAME=X" into a struct
 * wl_key_named instead, once per time the option is given. 0 or -EINVAL.
 */
wl_key_parse wl_key_percent, wl_key_warmup, wl_key_named_real;

#define WL_KEY_NAMED_MAX 64
struct wl_key_named {
	const char *name[WL_KEY_NAMED_MAX];     /* "NAME=X" as given */
	double v[WL_KEY_NAMED_MAX];
	unsigned n;
};

/* What K accepts in CTX, in words ("1..4096", "auto, uring or psync")
 * into BUF (LEN bytes). Returns BUF. */
const char *wl_key_want(const struct wl_key *k, unsigned ctx, char *buf,
			size_t len);

/* The refusal of ARG for K in CTX: "wants 1..4096, not '0'" into BUF
 * (the value cut at 40 bytes). Returns BUF. */
const char *wl_key_refusal(const struct wl_key *k, unsigned ctx,
			   const char *arg, char *buf, size_t len);

/* K's default for CTX in words into BUF; false when it has none. */
bool wl_key_default_text(const struct wl_key *k, unsigned ctx, char *buf,
			 size_t len);

/*
 * K's default for CTX into DST (SIZE bytes, as wl_key_take stores): a
 * plain number of the row (a default with no text), or the value of an
 * ENUM that its text names ("auto"). Returns true when stored; a
 * default in words only ("the workload's") leaves DST as it is.
 */
bool wl_key_default_store(const struct wl_key *k, unsigned ctx, void *dst,
			  size_t size);

/* The row named NAME of table T (N rows), or NULL. */
const struct wl_key *wl_key_find(const struct wl_key *t, size_t n,
				 const char *name);

/* Is NAME a value of K in CTX? Its v into *V. */
bool wl_key_value_find(const struct wl_key *k, unsigned ctx,
		       const char *name, int *v);

/* The demand kinds (train, its older name tuned, mlperf, ceiling), for
 * every key that names one. */
extern const struct wl_key_value wl_demand_values[];

/* ---- value parsers (workloads/keyvals.c) ---- */

/* A byte size: a decimal number (fractions allowed) with an optional IEC
 * suffix K, M, G, T ("KiB", "k", "KB" alike). 0, -EINVAL or -ERANGE. */
int wl_parse_size(const char *s, uint64_t *out);

/* The same, unrounded, into a double. 0 or -EINVAL. */
int wl_parse_bytes(const char *s, double *out);

/* A duration: seconds, or with a suffix ms, s, m, min, h; more than 0.
 * 0 or -EINVAL. */
int wl_parse_duration(const char *s, double *sec);

/* An unsigned decimal integer within [lo, hi]. 0, -EINVAL or -ERANGE. */
int wl_parse_ulong(const char *s, unsigned long lo, unsigned long hi,
		   unsigned long *out);

/* A decimal count with no sign into *OUT. 0 or -EINVAL. */
int wl_parse_u64(const char *s, uint64_t *out);

/* A count with a decimal suffix K, M, B (or G), T ("7B" = 7e9), at least
 * 1 and at most 1e16. 0, -EINVAL or -ERANGE. */
int wl_parse_params(const char *s, double *out);

/* A duration as wl_parse_duration takes it, or zero spelled with any of
 * its units ("0", "0s", "0.0m": *OUT = -1). No sign. 0 or -EINVAL. */
int wl_parse_warmup(const char *s, double *out);

/* A comma-separated list of counts in [LO, HI], at most MAX, into OUT
 * sorted without repeats; *N gets how many. 0 or -EINVAL. */
int wl_parse_count_list(const char *s, unsigned long lo, unsigned long hi,
			unsigned *out, unsigned max, unsigned *n);

/* A plain decimal number (no sign, hex, inf or nan) or a fraction "A/B";
 * its end in *END. 0 or -EINVAL. */
int wl_parse_number(const char *s, double *out, const char **end);

/* N numbers apart by blanks and/or one comma. 0 or -EINVAL. */
int wl_parse_reals(const char *s, double *out, unsigned n);

/* "224", "224x160": 1 to MAX sizes joined by 'x'; *N how many. */
int wl_parse_dims(const char *s, uint64_t *out, unsigned max, unsigned *n);

/* yes/no, true/false, on/off, 1/0. 0 or -EINVAL. */
int wl_parse_bool(const char *s, bool *out);

#endif /* FEEDRATE_KEYS_H */
