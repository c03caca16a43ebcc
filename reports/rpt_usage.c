/*
 * rpt_usage.c - the words of each command's --help around their
 * option lists (rpt_usage.h): what each command does, and its exit
 * statuses. The option lists themselves come from the option table.
 */
#include <stdio.h>
#include <string.h>

#include "formats.h"
#include "measure.h"
#include "report_sweep.h"
#include "rpt_cmd.h"
#include "rpt_text.h"
#include "rpt_usage.h"

static void run_head(FILE *f)
{
	fprintf(f,
"Usage: feedrate run [options] [DATASET]\n"
"\n"
"Measure how fast this VM feeds a training input pipeline from DATASET (a\n"
"folder of JPEGs in ImageFolder layout, or WebDataset, MDS or TFRecord\n"
"shards: see --format) and say how many GPUs of a type it\n"
"keeps at >= %.0f %% utilisation (AU), and what limits it. Without DATASET a\n"
"small synthetic dataset (%lluM) is generated in a temporary folder on a\n"
"disk-backed filesystem and removed afterwards. Under mpirun (a build with\n"
"`make MPI=1`) every rank runs the same point on its share of DATASET and\n"
"rank 0 reports the cluster.\n"
"\n", LDR_DEFAULT_AU_THRESHOLD * 100,
		(unsigned long long)(MS_DEFAULT_GEN >> 20));
}

static void run_tail(FILE *f)
{
	rpt_workloads_usage(f);
	fprintf(f,
"Exit status: 0 ok, 2 usage error, 3 completed but some samples failed,\n"
"4 stopped by --max-errors, 5 environment failure (no dataset, no disk\n"
"space, backend refused; under mpirun: a rank lost or failed), 6 the\n"
"storage stalled (--stall-timeout; the report says where), 130/143\n"
"interrupted (a partial report is printed).\n");
}

static void sweep_head(FILE *f)
{
	fprintf(f,
"Usage: feedrate sweep [options] [DATASET]\n"
"\n"
"Measure the raw feed rate of a training input pipeline from DATASET over\n"
"vCPU counts and cache states, each point in its own pinned child after its\n"
"own warm-up; check the GPU count with emulated GPUs; then say how many GPUs\n"
"of a type this VM keeps at >= %.0f %% AU per cache state, what limits it,\n"
"how many vCPUs each GPU needs, and which catalogued cloud shapes fit.\n"
"Without DATASET a %lluM synthetic dataset is generated on a disk-backed\n"
"filesystem and removed afterwards. Reports are checked before the sweep\n"
"starts.\n"
"\n", LDR_DEFAULT_AU_THRESHOLD * 100,
		(unsigned long long)(MS_DEFAULT_GEN >> 20));
}

static void sweep_tail(FILE *f)
{
	char rule[2048];

	rpt_workloads_usage(f);
	fprintf(f,
"Under mpirun (a build with `make MPI=1`, a DATASET every node sees): the\n"
"points are 1, 2, 4 ... R ranks (one rank per node: as many nodes) x the\n"
"cache states (cold, warm) x --vcpus per rank, each one window on every\n"
"rank taking part; cold adds each rank's reads alone; the budget is shared\n"
"by the points; rank 0 reports how the total scales with nodes.\n"
"\n");
	ms_budget_rule_text(NULL, rule, sizeof(rule));
	rpt_wrap(f, rule, 0, 78, 0);
	fprintf(f,
"\n"
"Exit status: 0 ok, 2 usage error, 3 completed but some samples failed,\n"
"5 environment failure, 6 the storage stalled (--stall-timeout), 130/143\n"
"interrupted (a partial report is printed).\n");
}

static void io_head(FILE *f)
{
	fprintf(f,
"Usage: feedrate io [options] DATASET\n"
"\n"
"Read every file of DATASET (a folder, or the root of --list) whole, with no\n"
"decoding, and report bandwidth, files/s and completion latency percentiles,\n"
"comparable with fio. Under mpirun (a build with `make MPI=1`): rank r reads\n"
"files r, r + R, ...; first each rank alone while the others idle, then all\n"
"together from one start; rank 0 reports the total against the sum of the\n"
"ranks alone.\n"
"\n");
}

static void io_tail(FILE *f)
{
	fprintf(f,
"Exit status: 0 ok, 2 usage error, 3 some files could not be read,\n"
"5 dataset or backend unusable, 6 storage stalled (--stall-timeout),\n"
"130/143 interrupted.\n");
}

static void ckpt_head(FILE *f)
{
	fprintf(f,
"Usage: feedrate ckpt [options] DIR\n"
"\n"
"Save a model's checkpoint into the empty folder DIR the way sharded\n"
"checkpointing does (one file per GPU rank, every rank writing at once, large\n"
"sequential writes, each file fsync'ed, then the folder), then read it back\n"
"cold as a restore. Reports save and restore GB/s and times, the spread over\n"
"shards, the filesystem and device, and what the times mean for training.\n"
"DIR must be empty (or not exist yet) and have room; only the files ckpt\n"
"writes are removed, and they are unless --keep. The size is --params x\n"
"--bytes-per-param, or --size.\n"
"\n");
}

static void ckpt_tail(FILE *f)
{
	fprintf(f,
"Exit status: 0 ok, 2 usage error or a refused DIR (not empty, too little\n"
"free space), 5 environment failure (the disk filled up, a write failed),\n"
"6 storage stalled (--stall-timeout), 130/143 interrupted (what was\n"
"written is removed).\n");
}

static void gen_head(FILE *f)
{
	fprintf(f,
		"Usage: feedrate gen [options] --size SIZE DIR\n"
		"       feedrate gen [options] --files N DIR\n"
		"       feedrate gen --from SRC --format wds|mds|tfrecord DIR\n\n"
		"Writes a synthetic dataset with the statistics of a workload\n"
		"into DIR, which must be empty or absent (it is then created),\n"
		"in the workload's layout (its job file's gen and format).\n"
		"For imagenet: DIR/train/<class>/<class>_<n>.JPEG, pictures of\n"
		"ImageNet's sizes (mostly 500x375, 375x500, a tail from ~100\n"
		"to ~2000 px), ~110 KB mean, quality 85-97, 4:2:0 and 4:4:4,\n"
		"1 in 64 grayscale, 1 in 100 progressive, 1 in 500 CMYK.\n\n"
		"Formats (--format, for image workloads):\n");
	for (int i = 0; i < WL_FORMAT_COUNT; i++)
		if (wl_format_row(i)->layout)
			fprintf(f, "  %-9s %s\n", wl_format_row(i)->name,
				wl_format_row(i)->layout);
	fprintf(f,
		"Each shard is written under a hidden temporary name and renamed\n"
		"once complete: a failure or an interruption leaves complete\n"
		"shards only (mds: with an index.json listing them).\n\n");
}

static void info_head(FILE *f)
{
	fprintf(f,
		"Usage: feedrate info [options] [PATH]\n\n"
		"Print what feedrate detects: usable vCPUs (affinity mask and "
		"cgroup quota),\nCPU model, SMT, NUMA nodes, steal time, RAM "
		"and cgroup memory limit, NVIDIA\nGPUs, the DMI product name, "
		"io_uring availability; and with PATH the\nfilesystem, mount "
		"and block device (with its model) that PATH is on, and the "
		"dataset format\nit holds (shards: how many, and their records)."
		"\n\n");
}

static void info_tail(FILE *f)
{
	fprintf(f, "/proc and /sys are read under $FEEDRATE_SYSROOT when it "
		"is set.\n");
}

static void compare_head(FILE *f)
{
	fprintf(f,
"Usage: feedrate compare [options] REPORT.json REPORT.json ...\n"
"\n"
"Put candidate VMs side by side from the JSON reports of 'feedrate sweep'\n"
"(--json FILE) run on each: machine, storage, samples/s and GPUs fed per\n"
"cache state, vCPUs per GPU, what limits each. GPUs fed are drawn again\n"
"from each report's numbers by this feedrate's verdict; where a report\n"
"says otherwise, a note says so. Reports of another schema version than\n"
"this feedrate's (%d) are refused. With --price, a 'feedrate ckpt' JSON\n"
"report in the same folder as a sweep report adds its checkpoint save and\n"
"restore times.\n"
"\n", RPT_SWEEP_SCHEMA_VERSION);
}

static void compare_tail(FILE *f)
{
	fprintf(f,
"Exit status: 0 ok, 2 usage error or a report of the wrong kind or\n"
"version, 5 a report that cannot be read or parsed, or an unwritable FILE.\n");
}

static void feedrate_head(FILE *f)
{
	fprintf(f,
		"feedrate %s - can this VM keep its GPUs fed?\n\n"
		"Usage: feedrate COMMAND [options] [ARGS]\n\n"
		"Commands:\n", FEEDRATE_VERSION);
}

static void feedrate_tail(FILE *f)
{
	fprintf(f,
		"\nRun 'feedrate COMMAND --help' for a command's options.\n"
		"Exit status: 0 ok, 1 failure, 2 usage error, 3 completed with "
		"sample errors,\n4 stopped by --max-errors, 5 environment "
		"failure, 6 storage stalled, 130/143 interrupted.\n");
}

static const struct {
	const char *cmd;
	void (*head)(FILE *f), (*tail)(FILE *f);
} usage[] = {
	{ "run", run_head, run_tail },
	{ "sweep", sweep_head, sweep_tail },
	{ "io", io_head, io_tail },
	{ "ckpt", ckpt_head, ckpt_tail },
	{ "gen", gen_head, rpt_workloads_usage },
	{ "info", info_head, info_tail },
	{ "compare", compare_head, compare_tail },
	{ "feedrate", feedrate_head, feedrate_tail },   /* feedrate --help */
};

void rpt_usage_head(FILE *f, const char *cmd)
{
	for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); i++)
		if (!strcmp(usage[i].cmd, cmd))
			usage[i].head(f);
}

void rpt_usage_tail(FILE *f, const char *cmd)
{
	for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); i++)
		if (!strcmp(usage[i].cmd, cmd))
			usage[i].tail(f);
}
