/*
 * bench_prep_tree.c - write an ImageFolder tree of N distinct small JPEGs
 * (every file its own inode, a few KB each) in C class folders, for the
 * preparation benchmark (bench_prep.sh). Each file is one of 16 small
 * encoded images with its own index in a comment segment, so no two files
 * have the same bytes; writing is spread over two threads.
 *
 *   bench_prep_tree DIR FILES CLASSES
 *
 * DESIGN
 * Threads: T writers, each takes every T-th class folder; the encoded
 * bodies are made before they start and only read after. Nothing shared
 * is written.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "augment.h"

#define BODIES 16
#define THREADS 2

static struct aug_membuf body[BODIES];
static const char *root;
static size_t nfiles, nclasses;

struct job {
	unsigned k;
	int err;
};

/* Files of class C: an even split, the first ones take the remainder. */
static size_t class_files(size_t c)
{
	return nfiles / nclasses + (c < nfiles % nclasses);
}

static int write_one(int dirfd, size_t c, size_t i, size_t idx)
{
	const struct aug_membuf *b = &body[idx % BODIES];
	unsigned char com[24];
	char name[64];
	int fd, n;
	size_t w;

	snprintf(name, sizeof(name), "n%08zu_%zu.JPEG", c, i);
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/* SOI, then a COM segment with the file's index, then the rest */
	com[0] = 0xFF;
	com[1] = 0xFE;
	com[2] = 0;
	com[3] = 20;
	n = snprintf((char *)com + 4, sizeof(com) - 4, "%018zu", idx);
	(void)n;
	w = (size_t)write(fd, b->data, 2);
	w += (size_t)write(fd, com, 22);
	w += (size_t)write(fd, b->data + 2, b->len - 2);
	close(fd);
	return w == b->len + 22 ? 0 : -EIO;
}

static void *writer(void *arg)
{
	struct job *j = arg;
	size_t base = 0;

	for (size_t c = 0; c < nclasses; c++) {
		char dir[4096];
		int dirfd;

		if (c % THREADS != j->k) {
			base += class_files(c);
			continue;
		}
		snprintf(dir, sizeof(dir), "%s/n%08zu", root, c);
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			j->err = -errno;
			return NULL;
		}
		dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dirfd < 0) {
			j->err = -errno;
			return NULL;
		}
		for (size_t i = 0; i < class_files(c) && !j->err; i++)
			j->err = write_one(dirfd, c, i, base + i);
		close(dirfd);
		base += class_files(c);
		if (j->err)
			return NULL;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const struct aug_enc_params par = { .quality = 85,
					    .subsamp = AUG_ENC_420 };
	pthread_t t[THREADS];
	struct job jobs[THREADS];
	int err = 0;

	if (argc != 4 || !(nfiles = strtoull(argv[2], NULL, 10)) ||
	    !(nclasses = strtoull(argv[3], NULL, 10))) {
		fprintf(stderr, "usage: bench_prep_tree DIR FILES CLASSES\n");
		return 2;
	}
	root = argv[1];
	if (mkdir(root, 0755) < 0 && errno != EEXIST) {
		perror(root);
		return 1;
	}
	/* 16 bodies of 64 x 48 pixels of a seeded pattern: ~2-4 KB each */
	for (unsigned k = 0; k < BODIES; k++) {
		static uint8_t px[64 * 48 * 3];
		uint32_t s = 2463534242u + k;

		for (size_t i = 0; i < sizeof(px); i++) {
			s ^= s << 13;
			s ^= s >> 17;
			s ^= s << 5;
			px[i] = (uint8_t)((i / 3 % 64) * 3 + (s & 31));
		}
		err = aug_jpeg_encode(px, 64, 48, 64 * 3, AUG_ENC_RGB, &par,
				      &body[k]);
		if (err) {
			fprintf(stderr, "encode: %s\n", strerror(-err));
			return 1;
		}
	}
	for (unsigned k = 0; k < THREADS; k++) {
		jobs[k] = (struct job){ .k = k };
		pthread_create(&t[k], NULL, writer, &jobs[k]);
	}
	for (unsigned k = 0; k < THREADS; k++) {
		pthread_join(t[k], NULL);
		if (jobs[k].err && !err)
			err = jobs[k].err;
	}
	for (unsigned k = 0; k < BODIES; k++)
		aug_membuf_free(&body[k]);
	if (err) {
		fprintf(stderr, "bench_prep_tree: %s\n", strerror(-err));
		return 1;
	}
	printf("%zu files in %zu folders under %s\n", nfiles, nclasses, root);
	return 0;
}
