/*
 * rpt_keys.h - a table of keys (workloads/keys.h) in words: the options a
 * context takes as --help lists them, grouped, and the whole table as the
 * README's markdown list. The command line's option table is one.
 */
#ifndef FEEDRATE_RPT_KEYS_H
#define FEEDRATE_RPT_KEYS_H

#include <stdio.h>

#include "keys.h"

/* The rows, the names of their contexts (a row's uses are bits of
 * these) and the titles of the help groups (a row's group). */
struct rpt_keys {
	const struct wl_key *rows;
	size_t n;
	const char *const *ctx_names;
	unsigned nctx;
	const char *const *groups;
	int ngroups;
};

/* The rows context CTX takes on F, under their group titles: each as
 * "  -x, --name ARG  help (accepted; default D)", wrapped at 78. */
void rpt_keys_help(FILE *f, const struct rpt_keys *t, unsigned ctx);

/* Every row as a markdown table: option, contexts, what it accepts and
 * its default per context (contexts alike together), help; on F. */
void rpt_keys_markdown(FILE *f, const struct rpt_keys *t);

#endif /* FEEDRATE_RPT_KEYS_H */
