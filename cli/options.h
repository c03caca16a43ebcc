/*
 * options.h - the one option table of every command (cli/options.c) and
 * the engine that parses, checks and explains it (cli/optparse.c,
 * cli/opthelp.c), in the spirit of fio's struct fio_option: each option is
 * one row (name, argument type, range, defaults from the named constants,
 * help, accepted values, the commands that take it). getopt_long's arrays,
 * the messages for bad values, --help and the README's option list are all
 * made from the rows, so an option means the same and is checked the same
 * in every command that takes it.
 *
 * A command binds the options it stores (struct cli_bind: the row's name
 * and where its value goes) and hands its argv to cli_opts_parse.
 */
#ifndef FEEDRATE_OPTIONS_H
#define FEEDRATE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "measure.h"

/* Defaults of the commands that belong to no module below cli/. */
#define CLI_SWEEP_BUDGET_S 300.0        /* sweep --budget: 5 minutes */
#define CLI_RUN_SOLO_S 5.0              /* run --solo: a rank's reads
                                           alone, cold */
#define CLI_MAX_SAMPLE_BYTES (64ull << 20)  /* run, sweep: without the
                                           workload's */
#define CLI_IO_MAX_SAMPLE_BYTES (1ull << 30)  /* io reads files whole */
#define CLI_STEAL_INTERVAL_S 0.2        /* info --steal-interval */
#define CLI_GEN_FROM_JOBS 8u            /* gen --jobs with --from: readers,
                                           for storage that wants requests
                                           in flight (a network disk, an
                                           object-store mount) more than
                                           CPUs */

/* The commands, in the order `feedrate --help` lists them. */
enum cli_cmd {
	CLI_RUN, CLI_SWEEP, CLI_COMPARE, CLI_IO, CLI_INFO, CLI_GEN, CLI_CKPT,
	CLI_NCMDS
};
#define C_RUN (1u << CLI_RUN)
#define C_SWEEP (1u << CLI_SWEEP)
#define C_COMPARE (1u << CLI_COMPARE)
#define C_IO (1u << CLI_IO)
#define C_INFO (1u << CLI_INFO)
#define C_GEN (1u << CLI_GEN)
#define C_CKPT (1u << CLI_CKPT)
#define C_ALL ((1u << CLI_NCMDS) - 1)

/* The command's name ("run"). */
const char *cli_cmd_name(enum cli_cmd cmd);

/*
 * What an option's value is, and the C type its binding points to.
 * Numbers are checked against the row's [lo, hi] (lo excluded with gt).
 */
enum cli_type {
	CLI_FLAG,       /* no value; bool, set true */
	CLI_TEXT,       /* const char *: any non-empty text (a path, a name) */
	CLI_UINT,       /* unsigned (or uint64_t): a whole number */
	CLI_SIZE,       /* uint64_t or uint32_t: bytes, 4K, 1.5G (IEC), a
	                   multiple of step when step is set */
	CLI_TIME,       /* double seconds: 30, 250ms, 5m, 1h; 0 ("0", "0s")
	                   only where lo is 0 and not gt */
	CLI_REAL,       /* double: a decimal number */
	CLI_COUNT,      /* double: a count with a decimal suffix (7B, 350M) */
	CLI_ENUM,       /* int: one of values, each for its commands */
	CLI_CUSTOM,     /* the row's parse (its type named in the row) */
};

/* An accepted value of an option, and the commands that accept it. */
struct cli_value {
	const char *name;
	int v;                  /* stored for CLI_ENUM */
	unsigned cmds;
};

/* A default, as said in --help: DEF (a number printed by the row's type)
 * or TEXT, for the commands CMDS. The commands set the same named
 * constant. */
struct cli_default {
	unsigned cmds;
	double def;
	const char *text;
};

/* The sections of --help, in order. */
enum cli_group {
	G_WORKLOAD, G_MEASURE, G_ENGINE, G_DATASET, G_PIPELINE, G_REPORT,
	G_MPI, G_OTHER, G_COUNT
};

struct cli_opt;
/* A CLI_CUSTOM row's parser: ARG into DST (the binding's) for CMD, LIST
 * when CMD takes a comma-separated list. 0 or -EINVAL. */
typedef int (*cli_parse_fn)(const struct cli_opt *row, enum cli_cmd cmd,
			    bool list, const char *arg, void *dst);

struct cli_opt {
	const char *name;       /* the long option, without "--" */
	char shortopt;          /* 0: none */
	enum cli_type type;
	const char *arg;        /* the value's name in --help: N, SIZE */
	unsigned cmds;          /* the commands that take it */
	unsigned lists;         /* ... where it takes a comma-separated list */
	double lo, hi;
	bool gt;                /* lo itself is refused */
	unsigned step;          /* CLI_SIZE: a multiple of this */
	const struct cli_value *values;  /* NULL-named end; CLI_ENUM, and
	                                    what a CLI_CUSTOM row accepts */
	struct cli_default defs[3];      /* cmds 0 ends */
	enum cli_group group;
	const char *help;
	const char *want;       /* CLI_CUSTOM: what it wants, for messages */
	cli_parse_fn parse;     /* CLI_CUSTOM */
};

/* The table, sorted by name, and its length. */
extern const struct cli_opt cli_options[];
extern const size_t cli_noptions;

/* The row named NAME, or NULL. */
const struct cli_opt *cli_opt_find(const char *name);

/* Does ROW's value NAME exist for CMD? Its v into *V. */
bool cli_value_find(const struct cli_opt *row, enum cli_cmd cmd,
		    const char *name, int *v);

/* Where a command stores an option: the row's name, the field, its size;
 * GIVEN (may be NULL) is set true when the option is given. */
struct cli_bind {
	const char *name;
	void *dst;
	size_t size;
	bool *given;
};
#define CLI_BIND(n, field) { n, &(field), sizeof(field), NULL }
#define CLI_BIND_G(n, field, g) { n, &(field), sizeof(field), &(g) }

/* The prose of a command's --help around the generated options. */
struct cli_usage {
	void (*head)(FILE *f);  /* usage line and what it does */
	void (*tail)(FILE *f);  /* after the options: exit status, ... */
};

/*
 * Parse ARGV (ARGV[0] the command's name) for CMD: every option of the
 * table CMD takes, checked as its row says and stored through B (NB
 * bindings; an option without a binding is a bug, asserted). Leaves
 * optind at the first operand. Returns 0, -1 after --help (printed on
 * stdout with U), or FR_EXIT_USAGE after printing the message: an
 * unknown option, a value missing, or a bad value (naming what the option
 * accepts, as --help does).
 */
int cli_opts_parse(enum cli_cmd cmd, int argc, char **argv,
		   const struct cli_bind *b, size_t nb,
		   const struct cli_usage *u);

/* What ROW accepts in CMD, in words ("1..4096", "auto, uring or psync")
 * into BUF (LEN bytes). Returns BUF. */
const char *cli_opt_want(const struct cli_opt *row, enum cli_cmd cmd,
			 char *buf, size_t len);

/* The options of CMD on F, grouped, as --help shows them. */
void cli_opts_help(FILE *f, enum cli_cmd cmd);

/* Every option as a markdown table (the README's list), on F. */
void cli_opts_markdown(FILE *f);

/* ---- the lists some rows store (CLI_CUSTOM destinations) ---- */

/* --vcpus in sweep: counts, sorted, no repeats. */
struct cli_counts {
	unsigned v[MS_SWEEP_MAX_VCPUS];
	unsigned n;
};

/* --ram in sweep: page-cache sizes or shares of the dataset. */
struct cli_ram_list {
	struct ms_ram_size v[MS_RAM_SIZES_MAX];
	unsigned n;
};

/* --price in compare: NAME=USD_PER_HOUR, repeated. */
#define CLI_PRICES_MAX 64
struct cli_prices {
	const char *name[CLI_PRICES_MAX];   /* "NAME=USD" as given */
	double usd[CLI_PRICES_MAX];
	unsigned n;
};

/* The CLI_CUSTOM parsers (cli/optvals.c). */
int cli_val_vcpus(const struct cli_opt *row, enum cli_cmd cmd, bool list,
		  const char *arg, void *dst);
int cli_val_cache(const struct cli_opt *row, enum cli_cmd cmd, bool list,
		  const char *arg, void *dst);
int cli_val_ram(const struct cli_opt *row, enum cli_cmd cmd, bool list,
		const char *arg, void *dst);
int cli_val_pipeline(const struct cli_opt *row, enum cli_cmd cmd,
		     bool list, const char *arg, void *dst);
int cli_val_price(const struct cli_opt *row, enum cli_cmd cmd, bool list,
		  const char *arg, void *dst);
int cli_val_percent(const struct cli_opt *row, enum cli_cmd cmd, bool list,
		    const char *arg, void *dst);
int cli_val_warmup(const struct cli_opt *row, enum cli_cmd cmd, bool list,
		   const char *arg, void *dst);

/* ---- value parsers (cli/opts.c) ---- */

/*
 * Parse a byte size: a decimal number (fractions allowed) with an optional
 * IEC suffix K, M, G, T (powers of 1024; "KiB", "k", "KB" are the same).
 * Returns 0 and stores the size, or -EINVAL (malformed) / -ERANGE (too big).
 */
int cli_parse_size(const char *s, uint64_t *out);

/*
 * Parse a duration: seconds by default, or with a suffix ms, s, m, h.
 * Returns 0 and stores seconds (> 0 required), or -EINVAL.
 */
int cli_parse_duration(const char *s, double *sec);

/*
 * Parse an unsigned decimal integer within [lo, hi].
 * Returns 0, -EINVAL (malformed) or -ERANGE (outside the bounds).
 */
int cli_parse_ulong(const char *s, unsigned long lo, unsigned long hi,
		    unsigned long *out);

/*
 * Print "feedrate CMD: <message>" and a hint to run --help on stderr.
 * Returns FR_EXIT_USAGE so callers can `return cli_usage_error(...)`.
 */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A count of parameters or samples: a decimal number with an optional
 * decimal suffix K, M, B (or G), T ("7B" = 7e9, "1.5B", "350M"), at least
 * 1. Returns 0, -EINVAL (malformed) or -ERANGE.
 */
int cli_parse_params(const char *s, double *out);

/*
 * A comma-separated list of counts within [LO, HI] ("1,2,8"), at most MAX
 * of them, into OUT sorted and without repeats; *N gets how many.
 * Returns 0 or -EINVAL.
 */
int cli_parse_count_list(const char *s, unsigned long lo, unsigned long hi,
			 unsigned *out, unsigned max, unsigned *n);

/* A decimal count with no sign into *OUT. Returns 0 or -EINVAL. */
int cli_parse_u64(const char *s, uint64_t *out);

/*
 * --warmup: a duration as cli_parse_duration takes it, or zero spelled
 * with any of its units ("0", "0s", "0.0m", "0h": no warm-up, *OUT = -1).
 * Signs are refused ("-0", "+1"). Returns 0 or -EINVAL.
 */
int cli_parse_warmup(const char *s, double *out);

#endif /* FEEDRATE_OPTIONS_H */
