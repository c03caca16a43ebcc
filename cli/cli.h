/*
 * cli.h - the command line: the command table, exit codes and the option
 * parsers every command shares. Each command is `cmd_<name>` in
 * cli/cmd_<name>.c; argv[0] is the command's name, and `-h/--help` prints its
 * usage on stdout and returns FR_EXIT_OK.
 */
#ifndef FEEDRATE_CLI_H
#define FEEDRATE_CLI_H

#include <stdint.h>

/* Exit codes, documented in README.md ("Exit status"). */
enum fr_exit {
	FR_EXIT_OK = 0,             /* the command did what was asked */
	FR_EXIT_FAILURE = 1,        /* an error that fits nothing below */
	FR_EXIT_USAGE = 2,          /* bad options or arguments */
	FR_EXIT_SAMPLE_ERRORS = 3,  /* completed, but some samples failed */
	FR_EXIT_MAX_ERRORS = 4,     /* stopped early by --max-errors */
	FR_EXIT_ENV = 5,            /* the environment refused: no dataset, no
	                               memory, unwritable report, ... */
	FR_EXIT_SIGINT = 130,       /* interrupted by SIGINT (128 + 2) */
	FR_EXIT_SIGTERM = 143,      /* interrupted by SIGTERM (128 + 15) */
};

#define FEEDRATE_VERSION "0.1.0"

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

/* Commands (one line each; keep in step with the table in cli/main.c). */
int cmd_io(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_compare(int argc, char **argv);

#endif /* FEEDRATE_CLI_H */
