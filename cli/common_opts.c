/*
 * common_opts.c - what run, sweep and ckpt store the same way (workload
 * and GPUs, the engine's knobs, the dataset, the pipelines;
 * measure/measure_opts.h): their bindings to the option table and checks.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "rpt_steps.h"

int cli_pipelines_check(const char *cmd, const struct ms_common_opts *o,
			struct ms_python_info *info)
{
	return rpt_pipelines_check(cmd, o->pipes, o->npipes, o->python,
				   o->runner_timeout, info);
}

int cli_parse_dataset(const char *cmd, int argc, char **argv,
		      struct ms_common_opts *o)
{
	if (optind + 1 < argc)
		return cli_usage_error(cmd, "one DATASET only");
	o->dataset = optind < argc ? argv[optind] : NULL;
	if (o->list && !o->dataset)
		return cli_usage_error(cmd, "--list needs the DATASET folder "
				       "its relative paths start from");
	if (o->list && o->format != WL_FORMAT_AUTO &&
	    o->format != WL_FORMAT_FOLDER)
		return cli_usage_error(cmd, "--list names image files: it "
				       "goes with --format folder only");
	return 0;
}

size_t cli_common_binds(struct ms_common_opts *o, struct cli_bind *b)
{
	const struct cli_bind t[] = {
		CLI_BIND("workload", o->workload), CLI_BIND("gpus", o->gpus),
		CLI_BIND("gpu-rate", o->gpu_rate),
		CLI_BIND_G("demand", o->demand, o->demand_given),
		CLI_BIND("gpu-sync", o->sync), CLI_BIND("batch", o->batch),
		CLI_BIND("readers", o->readers), CLI_BIND("seed", o->seed),
		CLI_BIND("max-errors", o->max_errors),
		CLI_BIND("backend", o->backend), CLI_BIND("depth", o->depth),
		CLI_BIND_G("max-sample-bytes", o->max_sample_bytes,
			   o->max_sample_bytes_given),
		CLI_BIND("list", o->list), CLI_BIND("json", o->json),
		CLI_BIND("keep-dataset", o->keep),
		CLI_BIND("tmpdir", o->tmpdir),
		CLI_BIND("gen-size", o->gen_size),
		{ "pipeline", o, sizeof(*o), NULL },
		CLI_BIND("python", o->python), CLI_BIND("workers", o->workers),
		CLI_BIND("runner-timeout", o->runner_timeout),
		CLI_BIND("format", o->format),
		CLI_BIND("shuffle-buffer", o->shuffle_buffer),
		CLI_BIND("read-size", o->read_size),
		CLI_BIND("stall-timeout", cli_stall_timeout),
	};
	_Static_assert(sizeof(t) / sizeof(t[0]) == CLI_COMMON_BINDS,
		       "CLI_COMMON_BINDS counts the shared options");

	memcpy(b, t, sizeof(t));
	return CLI_COMMON_BINDS;
}
