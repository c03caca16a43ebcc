/*
 * sweep.h - `feedrate sweep`'s state, shared by its option wiring
 * (cmd_sweep.c) and its steps (sweep_steps.c). Private to cli/.
 */
#ifndef FEEDRATE_CLI_SWEEP_H
#define FEEDRATE_CLI_SWEEP_H

#include "cli.h"
#include "report_ckpt.h"
#include "report_sweep.h"

_Static_assert(MS_CHECKS_MAX == RPT_CHECKS_MAX,
	       "the sweep runs as many check runs as the report holds");

struct sweep_opts {
	struct cli_common_opts c;       /* what run parses the same way */
	uint64_t ram;                   /* the ram state's page cache (the
	                                   first of the axis, once planned) */
	struct cli_ram_list ram_list;   /* --ram LIST */
	struct wl_key_counts vcpus;      /* --vcpus LIST */
	bool cache[STG_CACHE_STATES];
	bool cache_given;
	double budget_s;
	const char *csv, *html;
	bool no_check;
	double reserve_vcpus;           /* per GPU; < 0: the default */
	uint64_t reserve_ram;           /* per GPU; 0: the default */
	bool reserve_ram_given;
	const char *ckpt;               /* --ckpt: a ckpt report */
	double price;                   /* --price USD/h; 0 none */
};

struct sweep_state {
	struct sweep_opts o;
	const struct wl_workload *w;
	struct ms_gpus gs;
	struct ms_dataset md;
	struct wl_transform_state ts;
	struct ms_sweep sw;
	struct rpt_sweep rs;
	struct rpt_point *rpts;
	char (*how)[RPT_HOW_LEN];
	unsigned vcpus_total;
	bool vcpus_default;             /* --vcpus not given */
	char pipeline[320];
	char rule[2048];
	char notes[6144];
	char reserve_how[160];
	struct ms_check checks[STG_CACHE_STATES][RPT_CHECKS_MAX];
	struct rpt_shape shapes[RPT_SHAPES_MAX];
	struct ms_machine m;
	struct rpt_ckpt_brief ckpt;     /* --ckpt's, read before measuring */
	/* --pipeline LIST: this state's pipeline; the other pipelines each
	 * run in a state of their own (subs), on the same dataset */
	struct ms_pipeline_spec pipe;
	struct ms_python_info probe[CLI_PIPELINES_MAX];
	struct ms_python_info probe_first; /* probe[0] before S's own took it */
	unsigned pipe_own;              /* the pipeline S measures itself */
	char pipe_name[600];
	char pipe_text[1024];
	struct sweep_state *subs[CLI_PIPELINES_MAX];
	const struct rpt_sweep *others[CLI_PIPELINES_MAX];
	unsigned nsubs;
};

/* Each pipeline of --pipeline in turn, sharing the budget equally, each
 * planned, measured, checked and judged (sweep_steps.c). 0 or an exit
 * code (printed). */
int cli_sweep_run(struct sweep_state *s);

/* The verdict, the text report and the files. The exit code. */
int cli_sweep_report(struct sweep_state *s);

/* Under mpirun: the cluster sweep of S's options (sweep_cluster.c);
 * FAILED: this rank could not open the dataset. The exit code. */
int cli_sweep_cluster_run(struct sweep_state *s, bool failed);

#endif
