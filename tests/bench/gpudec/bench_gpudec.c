/*
 * bench_gpudec.c - the peers of the gpu-decode pipeline's benchmark
 * (bench_gpudec.sh): over the JPEG files under DIR, loaded into memory
 * first, on one core (pin it with taskset):
 *  - header: CPU ns per file of a header parse (aug_decoder_open, which
 *    is jpeg_read_header, then aug_decoder_close);
 *  - coefs: files per CPU second of a plain libjpeg-turbo loop: one
 *    decompressor, jpeg_mem_src, jpeg_read_header,
 *    jpeg_read_coefficients, jpeg_finish_decompress per file.
 *
 *   bench_gpudec [-r RUNS] [-n FILES] [-l LIST] DIR
 *
 * -l writes the baseline YCbCr/gray files (those the hw path stages as
 * they are: not progressive, not CMYK) to LIST, relative to DIR, as
 * `feedrate run|io --list` reads them; header_ns is then over those.
 *
 * Prints one line "header_ns=N coefs_per_s=R files=F bytes=B", medians
 * over RUNS passes over the files (CPU time: CLOCK_PROCESS_CPUTIME_ID).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jpeglib.h>

#include "augment.h"

struct file {
	unsigned char *data;
	size_t len;
	char rel[512];          /* relative to DIR */
	bool baseline;          /* takes the hw path */
};

static struct file *files;
static size_t nfiles, maxfiles = 2000;
static unsigned long long total_bytes;

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *root;

static int load(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char *p;
	ssize_t got;

	if (fd < 0 || fstat(fd, &st) || st.st_size < 3) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	p = malloc((size_t)st.st_size);
	got = p ? read(fd, p, (size_t)st.st_size) : -1;
	close(fd);
	if (got != st.st_size || p[0] != 0xff || p[1] != 0xd8) {
		free(p);
		return 0;
	}
	files[nfiles].data = p;
	files[nfiles].len = (size_t)st.st_size;
	snprintf(files[nfiles].rel, sizeof(files[nfiles].rel), "%s",
		 path + strlen(root) + 1);
	total_bytes += (unsigned long long)st.st_size;
	nfiles++;
	return 0;
}

static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && nfiles < maxfiles) {
		char path[4096];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR)
			walk(path);
		else if (e->d_type == DT_REG)
			load(path);
	}
	closedir(d);
}

struct plain_err {
	struct jpeg_error_mgr mgr;
	jmp_buf jump;
};

static void plain_exit(j_common_ptr ci)
{
	longjmp(((struct plain_err *)(void *)ci->err)->jump, 1);
}

static void plain_silent(j_common_ptr ci, int level)
{
	(void)ci;
	(void)level;
}

/* One pass of the plain coefficient loop: files decoded. */
static size_t coefs_pass(struct jpeg_decompress_struct *ci,
			 struct plain_err *pe)
{
	volatile size_t ok = 0;

	for (volatile size_t i = 0; i < nfiles; i++) {
		if (setjmp(pe->jump)) {
			jpeg_abort_decompress(ci);
			continue;
		}
		jpeg_mem_src(ci, files[i].data, (unsigned long)files[i].len);
		jpeg_read_header(ci, TRUE);
		if (jpeg_read_coefficients(ci))
			ok++;
		jpeg_finish_decompress(ci);
	}
	return ok;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct jpeg_decompress_struct ci;
	struct plain_err pe;
	struct aug_decoder *dec;
	double *hdr, *rate;
	const char *list = NULL;
	unsigned runs = 7;
	size_t nbase = 0;
	int c;

	while ((c = getopt(argc, argv, "r:n:l:")) != -1) {
		if (c == 'r')
			runs = (unsigned)atoi(optarg);
		else if (c == 'l')
			list = optarg;
		else if (c == 'n')
			maxfiles = (size_t)atol(optarg);
		else
			return 2;
	}
	if (optind >= argc || !runs || !maxfiles) {
		fprintf(stderr, "usage: bench_gpudec [-r RUNS] [-n FILES] DIR\n");
		return 2;
	}
	files = calloc(maxfiles, sizeof(*files));
	hdr = calloc(runs, sizeof(*hdr));
	rate = calloc(runs, sizeof(*rate));
	if (!files || !hdr || !rate || aug_decoder_create(NULL, &dec))
		return 1;
	root = argv[optind];
	walk(root);
	if (!nfiles) {
		fprintf(stderr, "bench_gpudec: no JPEG under %s\n", root);
		return 1;
	}
	for (size_t i = 0; i < nfiles; i++) {
		struct aug_image_info info;

		if (aug_decoder_open(dec, files[i].data, files[i].len, &info))
			continue;
		aug_decoder_close(dec);
		files[i].baseline = !info.progressive &&
			info.colorspace != AUG_CS_CMYK &&
			info.colorspace != AUG_CS_YCCK;
		nbase += files[i].baseline;
	}
	if (list) {
		FILE *f = fopen(list, "w");

		if (!f)
			return 1;
		for (size_t i = 0; i < nfiles; i++)
			if (files[i].baseline)
				fprintf(f, "%s\n", files[i].rel);
		if (fclose(f))
			return 1;
	}
	ci.err = jpeg_std_error(&pe.mgr);
	pe.mgr.error_exit = plain_exit;
	pe.mgr.emit_message = plain_silent;
	jpeg_create_decompress(&ci);
	coefs_pass(&ci, &pe);           /* warm-up: pools, caches */
	for (unsigned r = 0; r < runs; r++) {
		double t0 = cpu_s(), t1;
		size_t n;

		for (size_t i = 0; i < nfiles; i++) {
			struct aug_image_info info;

			if (list && !files[i].baseline)
				continue;
			if (!aug_decoder_open(dec, files[i].data, files[i].len,
					      &info))
				aug_decoder_close(dec);
		}
		t1 = cpu_s();
		hdr[r] = (t1 - t0) / (double)(list ? nbase : nfiles) * 1e9;
		n = coefs_pass(&ci, &pe);
		rate[r] = (double)n / (cpu_s() - t1);
	}
	qsort(hdr, runs, sizeof(*hdr), cmp_d);
	qsort(rate, runs, sizeof(*rate), cmp_d);
	printf("header_ns=%.0f coefs_per_s=%.1f files=%zu bytes=%llu\n",
	       hdr[runs / 2], rate[runs / 2], nfiles, total_bytes);
	jpeg_destroy_decompress(&ci);
	aug_decoder_destroy(dec);
	for (size_t i = 0; i < nfiles; i++)
		free(files[i].data);
	free(files);
	free(hdr);
	free(rate);
	return 0;
}
