/*
 * cmd_gen.c - `feedrate gen --workload W (--size S | --files N) DIR`:
 * writes a synthetic dataset with the workload's statistics into an empty
 * (or new) folder.
 *
 * Threads: the generator's workers (--jobs); the progress callback runs in
 * whichever worker wrote a file, one call at a time. SIGINT/SIGTERM only
 * set a flag that the workers poll between files; the run then stops
 * before writing another file, so an interrupted run leaves complete files
 * only.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "workloads.h"

static volatile sig_atomic_t gen_stop;

static void gen_on_signal(int sig)
{
	gen_stop = sig;
}

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

static double gen_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One updating line on a terminal, at most ten times a second. */
static void gen_progress_cb(void *arg, const struct wl_gen_stats *st,
			    bool done)
{
	struct gen_progress *p = arg;
	const double t = gen_now();
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

static void gen_print_path(FILE *f, const char *path)
{
	char *t = rpt_path_text(path, strlen(path));

	fputs(t ? t : "?", f);
	free(t);
}

int cmd_gen(int argc, char **argv)
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
	const char *wname = "imagenet", *dir;
	const struct wl_workload *w;
	struct wl_gen_opts o = { 0 };
	struct wl_gen_stats st;
	struct gen_progress prog = { 0 };
	struct sigaction sa, old_int, old_term;
	char errpath[4096] = "";
	bool quiet = false, have_size = false, have_files = false;
	unsigned long ul;
	int c, rc;

	o.seed = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "w:s:n:j:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'w':
			wname = optarg;
			break;
		case 's':
			if (cli_parse_size(optarg, &o.size_bytes) ||
			    o.size_bytes == 0)
				return cli_usage_error("gen", "bad --size '%s' "
					"(e.g. 200M, 1.5G)", optarg);
			have_size = true;
			break;
		case 'n':
			if (cli_parse_ulong(optarg, 1, 100000000, &ul))
				return cli_usage_error("gen", "bad --files '%s' "
					"(1 to 100000000)", optarg);
			o.files = ul;
			have_files = true;
			break;
		case 'S': {
			char *end;

			errno = 0;
			o.seed = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end || optarg[0] == '-')
				return cli_usage_error("gen", "bad --seed '%s'",
						       optarg);
			break;
		}
		case 'j':
			if (cli_parse_ulong(optarg, 1, WL_GEN_MAX_JOBS, &ul))
				return cli_usage_error("gen", "bad --jobs '%s' "
					"(1 to %u)", optarg, WL_GEN_MAX_JOBS);
			o.jobs = (unsigned)ul;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			gen_usage(stdout);
			return FR_EXIT_OK;
		default:
			return cli_usage_error("gen", "unknown option");
		}
	}
	if (optind >= argc)
		return cli_usage_error("gen", "missing the output folder DIR");
	if (optind + 1 < argc)
		return cli_usage_error("gen", "one output folder only");
	dir = argv[optind];
	if (have_size == have_files)
		return cli_usage_error("gen", "give exactly one of --size and "
				       "--files");
	if (wl_find(wname, &w)) {
		char names[256];

		wl_names(names, sizeof(names));
		return cli_usage_error("gen", "unknown workload '%s' (valid: "
				       "%s)", wname, names);
	}
	if (!w->gen)
		return cli_usage_error("gen", "workload '%s' has no generator",
				       wname);

	if (!o.jobs) {
		cpu_set_t set;

		o.jobs = sched_getaffinity(0, sizeof(set), &set) == 0 ?
			(unsigned)CPU_COUNT(&set) : 1;
		if (o.jobs < 1)
			o.jobs = 1;
		if (o.jobs > WL_GEN_MAX_JOBS)
			o.jobs = WL_GEN_MAX_JOBS;
	}
	gen_stop = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = gen_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	prog.tty = !quiet && isatty(STDERR_FILENO);
	o.progress = gen_progress_cb;
	o.progress_arg = &prog;
	o.stop = &gen_stop;
	o.err_path = errpath;
	o.err_path_len = sizeof(errpath);

	rc = w->gen->generate(w, dir, &o, &st);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);

	if (rc == -ENOTEMPTY || rc == -ENOTDIR || rc == -EEXIST) {
		fprintf(stderr, "feedrate gen: ");
		gen_print_path(stderr, dir);
		fprintf(stderr, rc == -ENOTDIR ? ": not a folder\n" :
			": folder is not empty; gen writes only into an empty "
			"or new folder\n");
		fprintf(stderr, "Try 'feedrate gen --help'.\n");
		return FR_EXIT_USAGE;
	}
	if (rc) {
		fprintf(stderr, "feedrate gen: ");
		if (rc == -EINTR) {
			fprintf(stderr, "interrupted");
		} else {
			fprintf(stderr, "%s", strerror(-rc));
			if (errpath[0]) {
				fprintf(stderr, st.files ? " writing " : ": ");
				gen_print_path(stderr, errpath);
			}
		}
		if (st.files || rc == -ENOSPC || rc == -EINTR)
			fprintf(stderr, "; stopped after %llu complete files "
				"(%.1f MB); no partial file was left",
				(unsigned long long)st.files, st.bytes / 1e6);
		fputc('\n', stderr);
		if (rc == -EINTR)
			return gen_stop == SIGTERM ? FR_EXIT_SIGTERM :
				FR_EXIT_SIGINT;
		return FR_EXIT_ENV;
	}
	printf("gen: wrote %llu files in %u classes under ",
	       (unsigned long long)st.files, st.classes);
	gen_print_path(stdout, dir);
	printf("/train: %.1f MB, mean %.1f KB, mean %.0f px; "
	       "%llu grayscale, %llu CMYK, %llu progressive, "
	       "%llu 4:4:4, %llu 4:2:0; seed %llu; %u jobs; %.1f s (%.1f MB/s)\n",
	       st.bytes / 1e6, st.files ? st.bytes / 1e3 / st.files : 0.0,
	       st.files ? (double)st.pixels / st.files : 0.0,
	       (unsigned long long)st.gray, (unsigned long long)st.cmyk,
	       (unsigned long long)st.progressive,
	       (unsigned long long)st.sub444, (unsigned long long)st.sub420,
	       (unsigned long long)o.seed, o.jobs, st.elapsed_s,
	       st.elapsed_s > 0 ? st.bytes / 1e6 / st.elapsed_s : 0.0);
	return FR_EXIT_OK;
}
