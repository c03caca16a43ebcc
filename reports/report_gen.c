/*
 * report_gen.c - the one-line summary of `feedrate gen`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "rpt_text.h"
#include "workloads.h"

void rpt_gen_print(FILE *f, const char *dir, const struct wl_gen_stats *st,
		   uint64_t seed, unsigned jobs)
{
	char *t = rpt_path_text(dir, strlen(dir));

	fprintf(f, "gen: wrote %llu files in %u classes under %s/train: "
		"%.1f MB, mean %.1f KB, mean %.0f px; %llu grayscale, %llu "
		"CMYK, %llu progressive, %llu 4:4:4, %llu 4:2:0; seed %llu; "
		"%u jobs; %.1f s (%.1f MB/s)\n",
		(unsigned long long)st->files, st->classes, t ? t : "?",
		st->bytes / 1e6, st->files ? st->bytes / 1e3 / st->files : 0.0,
		st->files ? (double)st->pixels / st->files : 0.0,
		(unsigned long long)st->gray, (unsigned long long)st->cmyk,
		(unsigned long long)st->progressive,
		(unsigned long long)st->sub444, (unsigned long long)st->sub420,
		(unsigned long long)seed, jobs, st->elapsed_s,
		st->elapsed_s > 0 ? st->bytes / 1e6 / st->elapsed_s : 0.0);
	free(t);
}

void rpt_gen_print_files(FILE *f, const char *dir, const char *layout,
			 const struct wl_gen_stats *st, uint64_t seed,
			 unsigned jobs)
{
	char *t = rpt_path_text(dir, strlen(dir));
	char total[32], mean[32];

	rpt_fmt_bytes(total, sizeof(total), (double)st->bytes);
	rpt_fmt_bytes(mean, sizeof(mean), st->files ? (double)st->bytes /
		      (double)st->files : 0);
	fprintf(f, "gen: wrote %llu files (%s) into %s: %s, mean %s a file; "
		"seed %llu; %u jobs; %.1f s (%.1f MB/s)\n",
		(unsigned long long)st->files, layout ? layout : "?",
		t ? t : "?", total, mean, (unsigned long long)seed, jobs,
		st->elapsed_s, st->elapsed_s > 0 ? st->bytes / 1e6 /
		st->elapsed_s : 0.0);
	free(t);
}
