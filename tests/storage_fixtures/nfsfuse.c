/* nfsfuse.c - a small read-only FUSE client for NFS, on libnfs.
 *
 * Test fixture, not part of feedrate. The storage tests want a shared
 * network filesystem read through the NFS protocol; where the kernel has
 * no NFS client (no nfs/nfs4 in /proc/filesystems, as on this project's
 * CI machines) the `unfs` fixture in fixtures.sh serves a folder with
 * nfs-ganesha in user space and mounts it with this program, so every
 * read still goes over NFS (here NFSv4 on loopback) and through the
 * kernel's page cache of the FUSE mount, which feedrate can evict.
 * Debian 12 packages no FUSE NFS client, hence this one.
 *
 *   nfsfuse URL MOUNTPOINT [FUSE options]
 *     URL: a libnfs URL, e.g. nfs://127.0.0.1/export?version=4&nfsport=2049
 *     NFSFUSE_CONNS: NFS connections (default 4), see below
 *
 * /proc/mounts shows the URL without its "?..." settings as the source
 * and fuse.nfsfuse as the type. Read only: getattr, readdir, open,
 * read, release, statfs. Build: cc -O2 nfsfuse.c -lnfs -lfuse
 * (FUSE 2.9; fuse3 would replace the `fuse` package s3fs uses).
 *
 * DESIGN: a libnfs context is not thread safe, and FUSE calls us from
 * several threads. We keep a few contexts, each behind its own mutex:
 * a file stays on the connection it was opened on (a libnfs file handle
 * belongs to its context), metadata calls take the next connection round
 * robin. So up to NFSFUSE_CONNS requests are in flight at once, and no
 * context is ever used by two threads at the same time.
 * libnfs 4.0's synchronous API never renews an NFSv4 lease: a connection
 * idle for longer than the server's lease (ganesha: 60 s) finds its
 * client expired (NFS4ERR_EXPIRED). A call that fails with anything but
 * a plain answer about the file (ENOENT, EACCES...) therefore gets one
 * retry on a fresh context (a new NFSv4 client); files opened on the old
 * one are opened again by path on their next read. Old contexts are kept
 * until exit (their file handles may still be closed through them).
 */
#define FUSE_USE_VERSION 26
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>
#include <nfsc/libnfs.h>

#define MAX_CONNS 32

struct conn {
	pthread_mutex_t mu;
	struct nfs_context *nfs;
	unsigned id, gen;       /* for the NFSv4 client name */
};

struct file {
	struct conn *c;
	struct nfs_context *nfs; /* the context fh belongs to */
	struct nfsfh *fh;
	char *path;
};

static struct conn conns[MAX_CONNS];
static unsigned nconns = 4;
static unsigned next_conn;
static const char *url;

/* Give C a new context connected to URL; 0, or -EIO (reason on stderr)
 * leaving the old one. Called with C->mu held (or before FUSE starts). */
static int conn_connect(struct conn *c)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *u;
	char name[64];
	int rc;

	if (!nfs)
		return fprintf(stderr, "nfsfuse: nfs_init_context failed\n"), -EIO;
	/* NFSv4: contexts that share a client name take each other's
	 * state away on the server, so each has its own */
	snprintf(name, sizeof(name), "nfsfuse-%d-%u-%u", (int)getpid(), c->id,
		 c->gen++);
	nfs4_set_client_name(nfs, name);
	u = nfs_parse_url_dir(nfs, url);
	if (!u) {
		fprintf(stderr, "nfsfuse: %s: %s\n", url, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return -EIO;
	}
	rc = nfs_mount(nfs, u->server, u->path);
	nfs_destroy_url(u);
	if (rc < 0) {
		fprintf(stderr, "nfsfuse: mount %s: %s\n", url,
			nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return -EIO;
	}
	c->nfs = nfs;   /* the old one stays: files may still refer to it */
	return 0;
}

/* Whether RC, a failed call's result, may be the connection's fault and
 * so worth one retry on a fresh one. */
static int worth_retry(int rc)
{
	return rc < 0 && rc != -ENOENT && rc != -ENOTDIR && rc != -EISDIR &&
	       rc != -EACCES && rc != -EPERM && rc != -EROFS;
}

/* CALL (which uses c->nfs) once more on a fresh context if it failed in a
 * way worth it. */
#define WITH_RETRY(c, call) ({                                             \
	int r_ = (call);                                                   \
	if (worth_retry(r_) && conn_connect(c) == 0)                       \
		r_ = (call);                                               \
	r_; })

/* The next context round robin, locked; unlock with conn_put. */
static struct conn *conn_get(void)
{
	unsigned i = __atomic_fetch_add(&next_conn, 1, __ATOMIC_RELAXED);
	struct conn *c = &conns[i % nconns];

	pthread_mutex_lock(&c->mu);
	return c;
}

static void conn_put(struct conn *c)
{
	pthread_mutex_unlock(&c->mu);
}

static void stat_from_nfs(struct stat *st, const struct nfs_stat_64 *n)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = n->nfs_ino;
	st->st_mode = n->nfs_mode;
	st->st_nlink = n->nfs_nlink;
	st->st_uid = n->nfs_uid;
	st->st_gid = n->nfs_gid;
	st->st_size = n->nfs_size;
	st->st_blksize = n->nfs_blksize ? n->nfs_blksize : 4096;
	st->st_blocks = n->nfs_blocks ? n->nfs_blocks : (n->nfs_size + 511) / 512;
	st->st_atim.tv_sec = n->nfs_atime;
	st->st_atim.tv_nsec = n->nfs_atime_nsec;
	st->st_mtim.tv_sec = n->nfs_mtime;
	st->st_mtim.tv_nsec = n->nfs_mtime_nsec;
	st->st_ctim.tv_sec = n->nfs_ctime;
	st->st_ctim.tv_nsec = n->nfs_ctime_nsec;
}

static int nf_getattr(const char *path, struct stat *st)
{
	struct nfs_stat_64 n;
	struct conn *c = conn_get();
	int rc = WITH_RETRY(c, nfs_stat64(c->nfs, path, &n));

	conn_put(c);
	if (rc < 0)
		return rc;
	stat_from_nfs(st, &n);
	return 0;
}

static int nf_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		      off_t off, struct fuse_file_info *fi)
{
	struct conn *c = conn_get();
	struct nfsdirent *e;
	struct nfsdir *dir;
	int rc;

	(void)off;
	(void)fi;
	rc = WITH_RETRY(c, nfs_opendir(c->nfs, path, &dir));
	if (rc < 0) {
		conn_put(c);
		return rc;
	}
	/* NFSv4 lists no "." and ".."; readdir(3) callers expect them */
	fill(buf, ".", NULL, 0);
	fill(buf, "..", NULL, 0);
	while ((e = nfs_readdir(c->nfs, dir))) {
		struct stat st = { .st_ino = e->inode, .st_mode = e->mode };

		if (strcmp(e->name, ".") && strcmp(e->name, "..") &&
		    fill(buf, e->name, &st, 0))
			break;
	}
	nfs_closedir(c->nfs, dir);
	conn_put(c);
	return 0;
}

static int nf_open(const char *path, struct fuse_file_info *fi)
{
	struct file *f;
	struct conn *c;
	int rc;

	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return -ENOMEM;
	}
	c = conn_get();
	rc = WITH_RETRY(c, nfs_open(c->nfs, path, O_RDONLY, &f->fh));
	f->nfs = c->nfs;
	conn_put(c);
	if (rc < 0) {
		free(f->path);
		free(f);
		return rc;
	}
	f->c = c;
	fi->fh = (uint64_t)(uintptr_t)f;
	return 0;
}

/* Open F again on its connection's current context; 0 or -errno.
 * Called with f->c->mu held. */
static int file_reopen(struct file *f)
{
	struct nfsfh *fh;
	int rc = nfs_open(f->c->nfs, f->path, O_RDONLY, &fh);

	if (rc < 0)
		return rc;
	nfs_close(f->nfs, f->fh);       /* fails on a dead client: frees it */
	f->nfs = f->c->nfs;
	f->fh = fh;
	return 0;
}

/* A short read is taken by FUSE as the end of the file: loop until SIZE
 * bytes or the real end. */
static int nf_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct file *f = (struct file *)(uintptr_t)fi->fh;
	int rc = 0, retried = 0;
	size_t got = 0;

	(void)path;
	pthread_mutex_lock(&f->c->mu);
	if (f->nfs != f->c->nfs)
		rc = file_reopen(f);
	while (rc >= 0 && got < size) {
		rc = nfs_pread(f->nfs, f->fh, (uint64_t)off + got, size - got,
			       buf + got);
		if (worth_retry(rc) && !retried++) {
			/* a fresh client unless another call made one */
			if (f->nfs == f->c->nfs && conn_connect(f->c))
				break;
			rc = file_reopen(f);
			continue;
		}
		if (rc <= 0)
			break;
		got += (size_t)rc;
	}
	pthread_mutex_unlock(&f->c->mu);
	return rc < 0 && !got ? rc : (int)got;
}

static int nf_release(const char *path, struct fuse_file_info *fi)
{
	struct file *f = (struct file *)(uintptr_t)fi->fh;

	(void)path;
	pthread_mutex_lock(&f->c->mu);
	nfs_close(f->nfs, f->fh);
	pthread_mutex_unlock(&f->c->mu);
	free(f->path);
	free(f);
	return 0;
}

static int nf_statfs(const char *path, struct statvfs *sv)
{
	struct nfs_statvfs_64 n;
	struct conn *c = conn_get();
	int rc = WITH_RETRY(c, nfs_statvfs64(c->nfs, path, &n));

	conn_put(c);
	if (rc < 0)
		return rc;
	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = n.f_bsize;
	sv->f_frsize = n.f_frsize ? n.f_frsize : n.f_bsize;
	sv->f_blocks = n.f_blocks;
	sv->f_bfree = n.f_bfree;
	sv->f_bavail = n.f_bavail;
	sv->f_files = n.f_files;
	sv->f_ffree = n.f_ffree;
	sv->f_favail = n.f_favail;
	sv->f_namemax = n.f_namemax ? n.f_namemax : 255;
	return 0;
}

static const struct fuse_operations ops = {
	.getattr = nf_getattr,
	.readdir = nf_readdir,
	.open = nf_open,
	.read = nf_read,
	.release = nf_release,
	.statfs = nf_statfs,
};

int main(int argc, char **argv)
{
	const char *env = getenv("NFSFUSE_CONNS");
	char opts[4096];
	char **fargv;
	int i, n;

	if (argc < 3) {
		fprintf(stderr, "usage: nfsfuse URL MOUNTPOINT [FUSE options]\n");
		return 2;
	}
	if (env && atoi(env) > 0)
		nconns = atoi(env) < MAX_CONNS ? (unsigned)atoi(env) : MAX_CONNS;
	url = argv[1];
	for (i = 0; i < (int)nconns; i++) {
		pthread_mutex_init(&conns[i].mu, NULL);
		conns[i].id = (unsigned)i;
		if (conn_connect(&conns[i]))
			return 1;
	}
	/* the source in /proc/mounts: the URL without its settings (a ','
	 * there would end FUSE's option) */
	n = snprintf(opts, sizeof(opts), "ro,subtype=nfsfuse,fsname=%.*s",
		     (int)strcspn(argv[1], "?,"), argv[1]);
	if (n < 0 || (size_t)n >= sizeof(opts))
		return fprintf(stderr, "nfsfuse: URL too long\n"), 2;
	fargv = calloc((size_t)argc + 2, sizeof(*fargv));
	if (!fargv)
		return 1;
	fargv[0] = argv[0];
	for (i = 2; i < argc; i++)
		fargv[i - 1] = argv[i];
	fargv[argc - 1] = "-o";
	fargv[argc] = opts;
	return fuse_main(argc + 1, fargv, &ops, NULL);
}
