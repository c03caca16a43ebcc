/*
 * options.h - the one option table of every command (cli/options.c): rows
 * of the key engine that job files use too (workloads/keys.h; a row's
 * uses are the commands that take it). cli/optparse.c parses argv with
 * it; reports/rpt_keys.c writes --help and the README's list from it. A
 * command binds the options it stores (struct cli_bind: the row's name
 * and where its value goes) and hands its argv to cli_opts_parse.
 */
#ifndef FEEDRATE_OPTIONS_H
#define FEEDRATE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "keys.h"
#include "measure.h"
#include "measure_opts.h"

/* Defaults of the commands that belong to no module below cli/. */
#define CLI_SWEEP_BUDGET_S 300.0        /* sweep --budget: 5 minutes */
#define CLI_IO_MAX_SAMPLE_BYTES (1ull << 30)  /* io reads files whole */
#define CLI_STEAL_INTERVAL_S 0.2        /* info --steal-interval */

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

/* The sections of --help, in order (a row's group). */
enum cli_group {
	G_WORKLOAD, G_MEASURE, G_ENGINE, G_DATASET, G_PIPELINE, G_REPORT,
	G_MPI, G_OTHER, G_COUNT
};

/* The table, sorted by name, and its length. A row's uses are the
 * commands (C_RUN, ...) that take it; a context of the engine is an enum
 * cli_cmd. */
extern const struct wl_key cli_options[];
extern const size_t cli_noptions;

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
 * unknown option, a value missing, or a bad value ("--depth wants
 * 1..4096, not '0'", wl_key_refusal's words). U NULL: the words of
 * reports/rpt_usage.c for CMD.
 */
int cli_opts_parse(enum cli_cmd cmd, int argc, char **argv,
		   const struct cli_bind *b, size_t nb,
		   const struct cli_usage *u);

/*
 * cli_opts_parse with the defaults first: each binding of B whose row has
 * a default for CMD that is a number or a value (wl_key_default_store)
 * gets it before ARGV is read, so the default --help prints is the one
 * stored; --help's words around the options are reports/rpt_usage.c's.
 * A binding whose row's default is words only keeps what it holds.
 */
int cli_opts_read(enum cli_cmd cmd, int argc, char **argv,
		  const struct cli_bind *b, size_t nb);

/* The options of CMD on F, grouped, as --help shows them. */
void cli_opts_help(FILE *f, enum cli_cmd cmd);

/* Every option as a markdown table (the README's list), on F. */
void cli_opts_markdown(FILE *f);

/* "feedrate CMD: <message>" and a hint to run --help, on stderr.
 * Returns FR_EXIT_USAGE: `return cli_usage_error(...)`. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* FEEDRATE_OPTIONS_H */
