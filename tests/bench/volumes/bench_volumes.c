/*
 * bench_volumes.c - the 3-D volume path on one thread.
 *
 *   inflate FILE.npz...  each file held in memory; member "x" inflated
 *                        again and again by libdeflate (what feedrate
 *                        uses), zlib (inflate, raw DEFLATE) and, when
 *                        libisal.so.2 can be opened, ISA-L's igzip
 *                        (isal_inflate; Debian ships no static archive of
 *                        it, so it is loaded here only); then feedrate's
 *                        whole open (zip lookup, libdeflate, CRC-32,
 *                        header). Prints decompressed MB/s per core,
 *                        medians over REPEATS rounds of every file.
 *   crop FILE...         wl_vol_open + a drawn 128^3 crop with flips +
 *                        f32, per sample: CPU ms (thread CPU clock),
 *                        split into open / crop / convert, medians.
 *   cosmo                cosmoflow's log(1 + x) on a 70x70x72x4 int16
 *                        sample: CPU ms per sample, median.
 *
 * usage: bench_volumes [-r REPEATS] inflate|crop|cosmo [FILE...]
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>
#include <zlib.h>

#include "augment.h"
#include "fmt_npy.h"

#if defined(__has_include)
#if __has_include(<isa-l/igzip_lib.h>)
#include <isa-l/igzip_lib.h>
#define HAVE_ISAL_HEADER 1
#endif
#endif

#define MAX_REPEATS 64

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat sb;
	uint8_t *p = NULL;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &sb))
		goto out;
	p = malloc((size_t)sb.st_size + 1);
	while (p && got < (size_t)sb.st_size) {
		const ssize_t k = read(fd, p + got, (size_t)sb.st_size - got);

		if (k <= 0)
			break;
		got += (size_t)k;
	}
	*len = got;
out:
	if (fd >= 0)
		close(fd);
	return p;
}

/* ---- the inflaters ---- */

struct member {
	const uint8_t *in;
	size_t in_len, out_len;
};

static int by_libdeflate(void *st, const struct member *m, uint8_t *out)
{
	return libdeflate_deflate_decompress(st, m->in, m->in_len, out,
					     m->out_len, NULL) ==
	       LIBDEFLATE_SUCCESS ? 0 : -1;
}

static int by_zlib(void *st, const struct member *m, uint8_t *out)
{
	z_stream *z = st;
	int r;

	inflateReset(z);
	z->next_in = (Bytef *)(uintptr_t)m->in;
	z->avail_in = (uInt)m->in_len;
	z->next_out = out;
	z->avail_out = (uInt)m->out_len;
	r = inflate(z, Z_FINISH);
	return r == Z_STREAM_END && z->total_out == m->out_len ? 0 : -1;
}

#ifdef HAVE_ISAL_HEADER
static void (*isal_init_fn)(struct inflate_state *);
static int (*isal_inflate_fn)(struct inflate_state *);

static int by_igzip(void *st, const struct member *m, uint8_t *out)
{
	struct inflate_state *s = st;

	isal_init_fn(s);
	s->next_in = (uint8_t *)(uintptr_t)m->in;
	s->avail_in = (uint32_t)m->in_len;
	s->next_out = out;
	s->avail_out = (uint32_t)m->out_len;
	return isal_inflate_fn(s) == ISAL_DECOMP_OK &&
	       s->block_state == ISAL_BLOCK_FINISH &&
	       s->total_out == m->out_len ? 0 : -1;
}
#endif

/* Decompressed MB/s of FN over every member, one round. */
static double round_mbps(int (*fn)(void *, const struct member *, uint8_t *),
			 void *st, const struct member *m, int n, uint8_t *out)
{
	double t0 = cpu_s(), bytes = 0;

	for (int i = 0; i < n; i++) {
		if (fn(st, &m[i], out)) {
			fprintf(stderr, "bench_volumes: member %d does not "
				"inflate\n", i);
			return 0;
		}
		bytes += (double)m[i].out_len;
	}
	return bytes / 1e6 / (cpu_s() - t0);
}

static int bench_inflate(char **files, int n, int repeats)
{
	struct member *m = calloc((size_t)n, sizeof(*m));
	uint8_t **bufs = calloc((size_t)n, sizeof(*bufs));
	size_t *lens = calloc((size_t)n, sizeof(*lens)), most = 0;
	double v[MAX_REPEATS], raw = 0, comp = 0;
	struct libdeflate_decompressor *dd = libdeflate_alloc_decompressor();
	struct wl_vol_reader *vol;
	z_stream z = { 0 };
	uint8_t *out;
	void *isal = NULL;

	if (!m || !bufs || !lens || !dd || wl_vol_reader_create(0, &vol) ||
	    inflateInit2(&z, -15) != Z_OK)
		return 1;
	for (int i = 0; i < n; i++) {
		struct wl_zip_member zm;
		struct wl_vol_err e;

		bufs[i] = slurp(files[i], &lens[i]);
		if (!bufs[i] || wl_zip_find(bufs[i], lens[i], "x", &zm, &e) ||
		    zm.method != 8) {
			fprintf(stderr, "bench_volumes: %s: no DEFLATE member "
				"x.npy\n", files[i]);
			return 1;
		}
		m[i] = (struct member){ bufs[i] + zm.data_off,
					(size_t)zm.csize, (size_t)zm.usize };
		raw += (double)zm.usize;
		comp += (double)zm.csize;
		if (zm.usize > most)
			most = (size_t)zm.usize;
	}
	out = malloc(most);
	if (!out)
		return 1;
	printf("  %d members x.npy: %.1f MB inflated from %.1f MB (ratio "
	       "%.2f)\n", n, raw / 1e6, comp / 1e6, raw / comp);

	for (int r = 0; r < repeats; r++)
		v[r] = round_mbps(by_libdeflate, dd, m, n, out);
	printf("  libdeflate %s: %.0f MB/s\n", LIBDEFLATE_VERSION_STRING,
	       median(v, repeats));
	for (int r = 0; r < repeats; r++)
		v[r] = round_mbps(by_zlib, &z, m, n, out);
	printf("  zlib %s: %.0f MB/s\n", zlibVersion(), median(v, repeats));
#ifdef HAVE_ISAL_HEADER
	isal = dlopen("libisal.so.2", RTLD_NOW);
	if (isal) {
		struct inflate_state *s = malloc(sizeof(*s));

		*(void **)&isal_init_fn = dlsym(isal, "isal_inflate_init");
		*(void **)&isal_inflate_fn = dlsym(isal, "isal_inflate");
		if (s && isal_init_fn && isal_inflate_fn) {
			for (int r = 0; r < repeats; r++)
				v[r] = round_mbps(by_igzip, s, m, n, out);
			printf("  igzip (libisal.so.2, shared only): %.0f "
			       "MB/s\n", median(v, repeats));
		}
		free(s);
		dlclose(isal);
	}
#endif
	if (!isal)
		printf("  igzip: libisal.so.2 not found (Debian libisal2)\n");
	/* feedrate's open: zip lookup + libdeflate + CRC-32 + header */
	for (int r = 0; r < repeats; r++) {
		const double t0 = cpu_s();

		for (int i = 0; i < n; i++) {
			struct wl_vol_array a;

			if (wl_vol_open(vol, bufs[i], lens[i], "x", &a, NULL))
				return 1;
		}
		v[r] = raw / 1e6 / (cpu_s() - t0);
	}
	printf("  feedrate open (libdeflate + CRC-32 + header): %.0f MB/s\n",
	       median(v, repeats));
	for (int i = 0; i < n; i++)
		free(bufs[i]);
	free(out);
	free(bufs);
	free(lens);
	free(m);
	inflateEnd(&z);
	libdeflate_free_decompressor(dd);
	wl_vol_reader_destroy(vol);
	return 0;
}

static int bench_crop(char **files, int n, int repeats)
{
	static const uint32_t size[3] = { 128, 128, 128 };
	float *out = malloc(128u * 128 * 128 * sizeof(float));
	double to[MAX_REPEATS], tc[MAX_REPEATS], tv[MAX_REPEATS];
	struct wl_vol_reader *rd;
	struct aug_vol *vol;

	if (!out || wl_vol_reader_create(0, &rd) ||
	    aug_vol_create(&vol))
		return 1;
	for (int f = 0; f < n; f++) {
		size_t len;
		uint8_t *b = slurp(files[f], &len);
		struct wl_vol_array a;

		if (!b)
			return 1;
		for (int r = 0; r < repeats; r++) {
			struct aug_vol_crop c;
			struct aug_vol_stats st;
			const double t0 = cpu_s();
			double t1;

			if (wl_vol_open(rd, b, len, NULL, &a, NULL))
				return 1;
			t1 = cpu_s();
			aug_vol_crop_draw(a.arr.dims, size, true, 1, 0,
					  (uint64_t)r, &c);
			if (aug_vol_crop_f32(vol, &a.arr, &c, out, &st))
				return 1;
			to[r] = (t1 - t0) * 1e3;
			tc[r] = (double)st.crop_ns / 1e6;
			tv[r] = (double)st.convert_ns / 1e6;
		}
		printf("  %s: shape %llux%llux%llu %s: open %.3f ms, crop+flip "
		       "%.3f ms, convert %.3f ms\n", strrchr(files[f], '/') ?
		       strrchr(files[f], '/') + 1 : files[f],
		       (unsigned long long)a.arr.dims[0],
		       (unsigned long long)a.arr.dims[1],
		       (unsigned long long)a.arr.dims[2],
		       a.inflated ? "(inflated)" : "(in place)",
		       median(to, repeats), median(tc, repeats),
		       median(tv, repeats));
		free(b);
	}
	free(out);
	aug_vol_destroy(vol);
	wl_vol_reader_destroy(rd);
	return 0;
}

static int bench_cosmo(int repeats)
{
	const size_t n = 70u * 70 * 72 * 4;
	int16_t *x = malloc(n * 2);
	float *out = malloc(n * 4);
	double v[MAX_REPEATS];

	if (!x || !out)
		return 1;
	for (size_t i = 0; i < n; i++)
		x[i] = (int16_t)((i * 2654435761u) >> 20 & 0x3fff);
	for (int r = 0; r < repeats; r++) {
		const double t0 = cpu_s();

		aug_log1p_i16(x, n, out);
		v[r] = (cpu_s() - t0) * 1e3;
	}
	printf("  log(1 + x) of 70x70x72x4 int16: %.3f ms per sample\n",
	       median(v, repeats));
	free(x);
	free(out);
	return 0;
}

int main(int argc, char **argv)
{
	int repeats = 5, c;

	while ((c = getopt(argc, argv, "r:")) != -1) {
		if (c != 'r')
			return 2;
		repeats = atoi(optarg);
	}
	if (repeats < 1 || repeats > MAX_REPEATS || optind >= argc) {
		fprintf(stderr, "usage: bench_volumes [-r REPEATS] "
			"inflate|crop|cosmo [FILE...]\n");
		return 2;
	}
	if (!strcmp(argv[optind], "inflate") && optind + 1 < argc)
		return bench_inflate(argv + optind + 1, argc - optind - 1,
				     repeats);
	if (!strcmp(argv[optind], "crop") && optind + 1 < argc)
		return bench_crop(argv + optind + 1, argc - optind - 1,
				  repeats);
	if (!strcmp(argv[optind], "cosmo"))
		return bench_cosmo(repeats);
	fprintf(stderr, "bench_volumes: unknown mode %s\n", argv[optind]);
	return 2;
}
