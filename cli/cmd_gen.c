/*
 * cmd_gen.c - `feedrate gen --workload W (--size S | --files N) DIR`:
 * writes a synthetic dataset with the workload's statistics into an empty
 * (or new) folder.
 *
 * Threads: the generator's workers (--jobs); the progress callback runs in
 * whichever worker wrote a file, one call at a time. SIGINT/SIGTERM only
 * set cli_stop, which the workers poll between files; the run then stops
 * before writing another file, so an interrupted run leaves complete files
 * only.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "workloads.h"

static void gen_usage(FILE *f)
{
	fprintf(f,
		"Usage: feedrate gen [options] --size SIZE DIR\n"
		"       feedrate gen [options] --files N DIR\n\n"
		"Writes a synthetic dataset with the statistics of a workload\n"
		"into DIR, which must be empty or absent (it is then created).\n"
		"For imagenet: DIR/train/<class>/<class>_<n>.JPEG, pictures of\n"
		"ImageNet's sizes (mostly 500x375, 375x500, a tail from ~100\n"
		"to ~2000 px), ~110 KB mean, quality 85-97, 4:2:0 and 4:4:4,\n"
		"1 in 64 grayscale, 1 in 100 progressive, 1 in 500 CMYK.\n\n"
		"Options:\n"
		"  -w, --workload NAME  workload (default imagenet)\n"
		"  -s, --size SIZE      stop once the files total SIZE bytes\n"
		"                       (e.g. 200M, 1G; IEC units)\n"
		"  -n, --files N        write exactly N files instead\n"
		"  -j, --jobs N         worker threads (default: the CPUs this\n"
		"                       process may use); same output for any N\n"
		"      --seed N         seed (default 1); same seed and request\n"
		"                       give identical files\n"
		"  -q, --quiet          no progress line\n"
		"  -h, --help           this text\n");
}

struct gen_progress {
	bool tty;
	double last;
};

/* One updating line on a terminal, at most ten times a second. */
static void gen_progress_cb(void *arg, const struct wl_gen_stats *st,
			    bool done)
{
	struct gen_progress *p = arg;
	const double t = stg_now();
	double frac, eta;

	if (!p->tty)
		return;
	if (!done && t - p->last < 0.1)
		return;
	p->last = t;
	frac = st->bytes_target ? (double)st->bytes / st->bytes_target :
		st->files_target ? (double)st->files / st->files_target : 0;
	if (frac > 1)
		frac = 1;
	eta = frac > 0 ? st->elapsed_s * (1 - frac) / frac : 0;
	fprintf(stderr, "\r\033[Kgen: %llu files, %.1f MB (%3.0f %%), "
		"%.0f files/s, %.1f MB/s, ETA %.0f s",
		(unsigned long long)st->files, st->bytes / 1e6, frac * 100,
		st->elapsed_s > 0 ? st->files / st->elapsed_s : 0,
		st->elapsed_s > 0 ? st->bytes / 1e6 / st->elapsed_s : 0, eta);
	if (done)
		fputc('\n', stderr);
}

struct gen_opts {
	const char *workload, *dir;
	struct wl_gen_opts o;
	bool quiet, have_size, have_files;
};

/* One option. 0, FR_EXIT_USAGE, or -1 after --help. */
static int gen_opt(int c, const char *arg, struct gen_opts *g)
{
	unsigned long ul;

	switch (c) {
	case 'w':
		g->workload = arg;
		return 0;
	case 's':
		if (cli_parse_size(arg, &g->o.size_bytes) || !g->o.size_bytes)
			return cli_usage_error("gen", "bad --size '%s' (e.g. "
					       "200M, 1.5G)", arg);
		g->have_size = true;
		return 0;
	case 'n':
		if (cli_parse_ulong(arg, 1, 100000000, &ul))
			return cli_usage_error("gen", "bad --files '%s' (1 to "
					       "100000000)", arg);
		g->o.files = ul;
		g->have_files = true;
		return 0;
	case 'S':
		if (cli_parse_u64(arg, &g->o.seed))
			return cli_usage_error("gen", "bad --seed '%s'", arg);
		return 0;
	case 'j':
		if (cli_parse_ulong(arg, 1, WL_GEN_MAX_JOBS, &ul))
			return cli_usage_error("gen", "bad --jobs '%s' (1 to "
					       "%u)", arg, WL_GEN_MAX_JOBS);
		g->o.jobs = (unsigned)ul;
		return 0;
	case 'q':
		g->quiet = true;
		return 0;
	case 'h':
		gen_usage(stdout);
		return -1;
	default:
		return cli_usage_error("gen", "unknown option");
	}
}

static int gen_parse(int argc, char **argv, struct gen_opts *g)
{
	static const struct option lo[] = {
		{ "workload", required_argument, NULL, 'w' },
		{ "size", required_argument, NULL, 's' },
		{ "files", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	memset(g, 0, sizeof(*g));
	g->workload = "imagenet";
	g->o.seed = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "w:s:n:j:qh", lo, NULL)) != -1)
		if ((ret = gen_opt(c, optarg, g)))
			return ret;
	if (optind >= argc)
		return cli_usage_error("gen", "missing the output folder DIR");
	if (optind + 1 < argc)
		return cli_usage_error("gen", "one output folder only");
	g->dir = argv[optind];
	if (g->have_size == g->have_files)
		return cli_usage_error("gen", "give exactly one of --size and "
				       "--files");
	return 0;
}

/* A failed generation, said; its exit code. */
static int gen_failed(const struct gen_opts *g, int rc,
		      const struct wl_gen_stats *st, const char *errpath)
{
	fprintf(stderr, "feedrate gen: ");
	if (rc == -ENOTEMPTY || rc == -ENOTDIR || rc == -EEXIST) {
		cli_print_path(stderr, g->dir);
		fprintf(stderr, rc == -ENOTDIR ? ": not a folder\n" :
			": folder is not empty; gen writes only into an empty "
			"or new folder\n");
		fprintf(stderr, "Try 'feedrate gen --help'.\n");
		return FR_EXIT_USAGE;
	}
	if (rc == -EINTR) {
		fprintf(stderr, "interrupted");
	} else {
		fprintf(stderr, "%s", strerror(-rc));
		if (errpath[0]) {
			fprintf(stderr, st->files ? " writing " : ": ");
			cli_print_path(stderr, errpath);
		}
	}
	if (st->files || rc == -ENOSPC || rc == -EINTR)
		fprintf(stderr, "; stopped after %llu complete files (%.1f MB); "
			"no partial file was left",
			(unsigned long long)st->files, st->bytes / 1e6);
	fputc('\n', stderr);
	return rc == -EINTR ? cli_exit_for_signal(cli_stop) : FR_EXIT_ENV;
}

int cmd_gen(int argc, char **argv)
{
	const struct wl_workload *w;
	struct gen_progress prog = { 0 };
	struct sigaction old[2];
	struct wl_gen_stats st;
	struct gen_opts g;
	char errpath[4096] = "";
	int rc = gen_parse(argc, argv, &g);

	if (rc)
		return rc < 0 ? FR_EXIT_OK : rc;
	if ((rc = cli_workload("gen", g.workload, &w)))
		return rc;
	if (!w->gen)
		return cli_usage_error("gen", "workload '%s' has no generator",
				       g.workload);
	if (!g.o.jobs)
		g.o.jobs = stg_cpus_usable() < WL_GEN_MAX_JOBS ?
			   stg_cpus_usable() : WL_GEN_MAX_JOBS;
	prog.tty = !g.quiet && isatty(STDERR_FILENO);
	g.o.progress = gen_progress_cb;
	g.o.progress_arg = &prog;
	g.o.stop = &cli_stop;
	g.o.err_path = errpath;
	g.o.err_path_len = sizeof(errpath);
	cli_signals_catch(old);
	rc = w->gen->generate(w, g.dir, &g.o, &st);
	cli_signals_restore(old);
	if (rc)
		return gen_failed(&g, rc, &st, errpath);
	rpt_gen_print(stdout, g.dir, &st, g.o.seed, g.o.jobs);
	return FR_EXIT_OK;
}
