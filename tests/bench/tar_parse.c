/*
 * tar_parse.c - CPU per sample to take a WebDataset shard in memory apart
 * (sample boundaries, the image's bytes, the label): libarchive against
 * formats/fmt_tar.c's scanner and unwrap. It decided whether feedrate
 * reads tar with libarchive or with its own parser; it links libarchive,
 * which feedrate does not, so `make bench` does not build it. By hand
 * (Debian: libarchive-dev):
 *
 *   cc -O2 -DNDEBUG -std=gnu17 -D_GNU_SOURCE -Iformats \
 *      tests/bench/tar_parse.c formats/fmt_tar.c -larchive -o tar_parse
 *   ./tar_parse [SHARD.tar]
 *
 * Without SHARD it builds a ~100 MB shard in memory laid out as
 * webdataset's TarWriter writes one: per sample a .cls and a .jpg member
 * (70-150 KB, mean 110 KB, near the ImageNet workload's 114.7 KB), each
 * after a PAX header carrying a fractional mtime. Each way runs 5 times;
 * the median thread CPU time is printed in ns per sample. The ways:
 *   archive_copy   next_header, archive_read_data into a reused buffer
 *   archive_block  next_header, archive_read_data_block (no copy)
 *   archive_skip   next_header only, data skipped (a lower bound: the
 *                  image is never located)
 *   feedrate       wl_tar_scan_next over 1 MiB appends, wl_tar_unwrap
 *
 * On the project's shared 2-vCPU test VM (libarchive 3.6.2, gcc 12 -O2),
 * six runs, three on the built shard and three on one Python's tarfile
 * wrote: feedrate 1.9-2.3 us per sample; archive_block 4.0-5.1 us
 * (1.7-2.3x), archive_skip 3.3-4.7 us (1.5-2.1x), archive_copy 18-23 us
 * (8-10x).
 */
#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fmt_internal.h"

#define RUNS 5

struct result {
	uint64_t samples, image_bytes;
	int64_t label_sum;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ---- a shard as TarWriter lays it out ---- */

static uint8_t *shard;
static size_t shard_len, shard_cap;

static void put(const void *p, size_t n)
{
	if (shard_len + n > shard_cap) {
		shard_cap = (shard_len + n) * 2;
		shard = realloc(shard, shard_cap);
		if (!shard)
			abort();
	}
	if (p)
		memcpy(shard + shard_len, p, n);
	else
		memset(shard + shard_len, 0, n);
	shard_len += n;
}

static void pad(void)
{
	put(NULL, (512 - shard_len % 512) % 512);
}

static void header(const char *name, char type, size_t size)
{
	uint8_t h[512] = { 0 };
	unsigned sum = 0;

	snprintf((char *)h, 100, "%s", name);
	memcpy(h + 100, "0000644", 7);
	memcpy(h + 108, "0001750", 7);
	memcpy(h + 116, "0001750", 7);
	snprintf((char *)h + 124, 12, "%011lo",
		 (unsigned long)size & 077777777777ul);
	memcpy(h + 136, "14540000000", 11);
	h[156] = (uint8_t)type;
	memcpy(h + 257, "ustar\0" "00", 8);
	memcpy(h + 265, "bigdata", 7);
	memcpy(h + 297, "bigdata", 7);
	memset(h + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum & 0777777);
	put(h, 512);
}

static void member(const char *name, const void *data, size_t n,
		   double mtime)
{
	char rec[64];
	int len = snprintf(rec, sizeof(rec), "xx mtime=%.6f\n", mtime);

	rec[0] = (char)('0' + len / 10);
	rec[1] = (char)('0' + len % 10);
	header("././@PaxHeader", 'x', (size_t)len);
	put(rec, (size_t)len);
	pad();
	header(name, '0', n);
	put(data, n);
	pad();
}

static void shard_build(void)
{
	static uint8_t img[200000];
	uint64_t x = 88172645463325252ull;

	for (size_t i = 0; i < sizeof(img); i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		img[i] = (uint8_t)x;
	}
	for (unsigned i = 0; shard_len < 100u << 20; i++) {
		char name[64], cls[16];
		size_t n;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		n = 70000 + (size_t)(x % 80000);        /* mean 110,000 */
		snprintf(cls, sizeof(cls), "%u", i % 1000);
		snprintf(name, sizeof(name), "n%08u.cls", i);
		member(name, cls, strlen(cls), 1.7e9 + i * 0.125);
		snprintf(name, sizeof(name), "n%08u.jpg", i);
		member(name, img + i % 1000, n, 1.7e9 + i * 0.125);
	}
	put(NULL, 1024);
}

/* ---- libarchive ---- */

enum how { COPY, BLOCK, SKIP };

static int64_t label_of(const char *p, size_t n)
{
	char tmp[32];

	if (n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	memcpy(tmp, p, n);
	tmp[n] = 0;
	return strtoll(tmp, NULL, 10);
}

static struct result with_libarchive(enum how how)
{
	static char data[1 << 20];
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	struct result r = { 0 };
	char key[4096] = "";

	archive_read_support_format_tar(a);
	if (archive_read_open_memory(a, shard, shard_len) != ARCHIVE_OK)
		abort();
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		const char *path = archive_entry_pathname(e);
		const char *slash, *dot;
		size_t klen;

		if (archive_entry_filetype(e) != AE_IFREG || !path)
			continue;
		slash = strrchr(path, '/');
		dot = strchr(slash ? slash + 1 : path, '.');
		if (!dot)
			continue;
		klen = (size_t)(dot - path);
		if (klen >= sizeof(key))
			abort();
		if (strncmp(key, path, klen) || key[klen]) {
			memcpy(key, path, klen);
			key[klen] = 0;
			r.samples++;
		}
		if (!strcasecmp(dot + 1, "cls")) {
			const la_ssize_t n = archive_read_data(a, data, 31);

			if (n < 0)
				abort();
			r.label_sum += label_of(data, (size_t)n);
		} else if (!strcasecmp(dot + 1, "jpg") && how == COPY) {
			la_ssize_t n;

			while ((n = archive_read_data(a, data, sizeof(data))) > 0)
				r.image_bytes += (uint64_t)n;
			if (n < 0)
				abort();
		} else if (!strcasecmp(dot + 1, "jpg") && how == BLOCK) {
			const void *blk;
			size_t n;
			la_int64_t off;

			while (archive_read_data_block(a, &blk, &n, &off) ==
			       ARCHIVE_OK)
				r.image_bytes += n;
		} else if (!strcasecmp(dot + 1, "jpg")) {
			r.image_bytes += (uint64_t)archive_entry_size(e);
		}
	}
	archive_read_free(a);
	return r;
}

/* ---- feedrate's scanner and unwrap ---- */

static struct result with_scanner(void)
{
	struct wl_scanner s = { .fmt = WL_FORMAT_WDS,
				.max_record = 64u << 20 };
	struct result r = { 0 };
	size_t fed = 0;

	wl_tar_scan_init(&s);
	for (;;) {
		struct wl_record rec;
		struct wl_sample_view v;
		const int rc = wl_tar_scan_next(&s, shard + s.keep_from,
						s.keep_from,
						fed - (size_t)s.keep_from,
						fed == shard_len, &rec);

		if (rc == 1) {
			if (wl_tar_unwrap(shard + rec.off, rec.len, &v))
				abort();
			r.samples++;
			r.image_bytes += v.image_len;
			r.label_sum += v.label;
			continue;
		}
		if (rc < 0)
			abort();
		if (fed == shard_len)
			break;
		fed += 1u << 20;        /* the reader's appends */
		if (fed > shard_len)
			fed = shard_len;
	}
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "archive_copy", "archive_block",
					     "archive_skip", "feedrate" };
	double med[4];
	struct result want = { 0 };

	if (argc > 1) {
		FILE *f = fopen(argv[1], "rb");

		if (!f || fseek(f, 0, SEEK_END))
			return perror(argv[1]), 1;
		shard_len = (size_t)ftell(f);
		shard = malloc(shard_len);
		rewind(f);
		if (!shard || fread(shard, 1, shard_len, f) != shard_len)
			return perror(argv[1]), 1;
		fclose(f);
	} else {
		shard_build();
	}
	for (int w = 0; w < 4; w++) {
		double t[RUNS];

		for (int k = 0; k < RUNS; k++) {
			const double t0 = now_ns();
			const struct result r = w < 3 ?
				with_libarchive((enum how)w) : with_scanner();

			t[k] = now_ns() - t0;
			if (!want.samples)
				want = r;
			if (r.samples != want.samples ||
			    r.image_bytes != want.image_bytes ||
			    r.label_sum != want.label_sum) {
				fprintf(stderr, "%s disagrees: %lu samples\n",
					names[w], (unsigned long)r.samples);
				return 1;
			}
			t[k] /= (double)r.samples;
		}
		qsort(t, RUNS, sizeof(t[0]), cmp_double);
		med[w] = t[RUNS / 2];
	}
	printf("shard %.1f MB, %lu samples, %.0f bytes per image\n",
	       shard_len / 1e6, (unsigned long)want.samples,
	       (double)want.image_bytes / (double)want.samples);
	for (int w = 0; w < 4; w++)
		printf("%-14s %8.0f ns/sample  (%.1fx feedrate)\n", names[w],
		       med[w], med[w] / med[3]);
	return 0;
}
