/*
 * sweep.h - `feedrate sweep`'s state, shared by the command (cmd_sweep.c)
 * and its wiring under mpirun (sweep_cluster.c). Private to cli/.
 */
#ifndef FEEDRATE_CLI_SWEEP_H
#define FEEDRATE_CLI_SWEEP_H

#include "cli.h"
#include "report_sweep_end.h"
#include "sweep_cmd.h"

_Static_assert(MS_PIPELINES_MAX <= RPT_SWEEP_PIPES_MAX,
	       "a sweep report holds every pipeline of --pipeline");

struct sweep_opts {
	struct ms_common_opts c;       /* what run parses the same way */
	uint64_t ram;                   /* the ram state's page cache (the
	                                   first of the axis, once planned) */
	struct ms_ram_list ram_list;    /* --ram LIST */
	struct wl_key_counts vcpus;      /* --vcpus LIST */
	bool cache[STG_CACHE_STATES];
	bool cache_given;
	double budget_s;
	const char *csv, *html;
	bool no_check;
	double reserve_vcpus;           /* per GPU */
	uint64_t reserve_ram;           /* per GPU; 0: the default */
	bool reserve_ram_given;
	const char *ckpt;               /* --ckpt: a ckpt report */
	double price;                   /* --price USD/h; 0 none */
};

/* One pipeline's sweep and its report. */
struct sweep_pipe {
	struct ms_sweep_run run;
	struct rpt_sweep_out out;
	struct wl_transform_state ts;
};

struct sweep_state {
	struct sweep_opts o;
	const struct wl_workload *w;
	struct ms_gpus gs;
	struct ms_dataset md;
	unsigned vcpus_total;
	bool vcpus_default;             /* --vcpus not given */
	struct ms_machine m;
	struct rpt_ckpt_brief ckpt;     /* --ckpt's, read before measuring */
	struct ms_python_info probe[MS_PIPELINES_MAX];
	struct rpt_sweep_ask ask;       /* what every pipeline's report takes */
	/* --pipeline LIST: the first measured in OWN, whose report holds the
	 * others' (SUBS), each measured on the same dataset */
	struct sweep_pipe own;
	unsigned pipe_own;              /* its index in --pipeline */
	struct sweep_pipe *subs[MS_PIPELINES_MAX];
	unsigned nsubs;
};

/* Under mpirun: the cluster sweep of S's options (sweep_cluster.c);
 * FAILED: this rank could not open the dataset. The exit code. */
int cli_sweep_cluster_run(struct sweep_state *s, bool failed);

/* Under mpirun, before the watchdog starts: rank 0's watchdog writes the
 * cluster sweep's report of S (sweep_cluster.c). */
void cli_sweep_cluster_watch(struct sweep_state *s);

#endif
