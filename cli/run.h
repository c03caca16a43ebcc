/*
 * run.h - `feedrate run`'s options and state, shared by its option wiring
 * (cmd_run.c) and its steps (run_steps.c). Private to cli/.
 */
#ifndef FEEDRATE_CLI_RUN_H
#define FEEDRATE_CLI_RUN_H

#include "cli.h"
#include "measure_run.h"
#include "report_run_end.h"

struct run_opts {
	struct ms_common_opts c;       /* what sweep parses the same way */
	unsigned vcpus;                 /* 0: every usable CPU */
	enum stg_cache_state cache;
	bool cache_given, ram_given;
	uint64_t ram;
	double duration;                /* -1: not given */
	double warmup;                  /* 0 default, < 0 none */
	uint64_t epochs, samples;
	/* under mpirun */
	const char *html;               /* the cluster report as a page */
	double solo;                    /* cold: each rank's reads alone, this
	                                   long; 0 none, < 0 default */
	double mpi_timeout;             /* each cluster step; 0 default */
};

/* Everything the command owns, released in one place. */
struct run_state {
	struct run_opts o;
	const struct wl_workload *w;
	struct ms_gpus gs;
	struct ms_dataset md;           /* the listing, a generated folder */
	struct ms_run r;                /* the point, its result, its end */
	struct wl_transform_state ts;
	struct ms_machine m;            /* the machine, the storage under
	                                   the dataset */
	struct rpt_run_out out;         /* the report's texts, --json */
};

/* The report's setup and listing. */
void cli_run_fill_dataset(struct run_state *s, struct rpt_run *rr);

/* The transform, the point, the measurement. 0 or an exit code. */
int cli_run_measure(struct run_state *s, struct rpt_run *rr);

/* Under mpirun: this rank's point, then rank 0's cluster report; OPENED
 * the dataset's opening (0, or its exit code). The exit code. */
int cli_run_cluster(struct run_state *s, struct rpt_run *rr, int opened);

#endif
