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
 * a file stays on the context it was opened on (a libnfs file handle
 * belongs to its context), metadata calls take the next context round
 * robin. So up to NFSFUSE_CONNS requests are in flight at once, and no
 * context is ever used by two threads at the same time.
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
};

struct file {
	struct conn *c;
	struct nfsfh *fh;
};

static struct conn conns[MAX_CONNS];
static unsigned nconns = 4;
static unsigned next_conn;

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
	int rc = nfs_stat64(c->nfs, path, &n);

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
	rc = nfs_opendir(c->nfs, path, &dir);
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
	if (!f)
		return -ENOMEM;
	c = conn_get();
	rc = nfs_open(c->nfs, path, O_RDONLY, &f->fh);
	conn_put(c);
	if (rc < 0) {
		free(f);
		return rc;
	}
	f->c = c;
	fi->fh = (uint64_t)(uintptr_t)f;
	return 0;
}

/* A short read is taken by FUSE as the end of the file: loop until SIZE
 * bytes or the real end. */
static int nf_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct file *f = (struct file *)(uintptr_t)fi->fh;
	size_t got = 0;
	int rc = 0;

	(void)path;
	pthread_mutex_lock(&f->c->mu);
	while (got < size) {
		rc = nfs_pread(f->c->nfs, f->fh, (uint64_t)off + got,
			       size - got, buf + got);
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
	nfs_close(f->c->nfs, f->fh);
	pthread_mutex_unlock(&f->c->mu);
	free(f);
	return 0;
}

static int nf_statfs(const char *path, struct statvfs *sv)
{
	struct nfs_statvfs_64 n;
	struct conn *c = conn_get();
	int rc = nfs_statvfs64(c->nfs, path, &n);

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

/* Connect context I to URL; 0 or -1 with the reason on stderr. */
static int conn_open(unsigned i, const char *url)
{
	struct nfs_url *u;
	char name[64];
	int rc;

	pthread_mutex_init(&conns[i].mu, NULL);
	conns[i].nfs = nfs_init_context();
	if (!conns[i].nfs)
		return fprintf(stderr, "nfsfuse: nfs_init_context failed\n"), -1;
	/* NFSv4: contexts that share a client name take each other's
	 * state away on the server (an open then fails), so one each */
	snprintf(name, sizeof(name), "nfsfuse-%d-%u", (int)getpid(), i);
	nfs4_set_client_name(conns[i].nfs, name);
	u = nfs_parse_url_dir(conns[i].nfs, url);
	if (!u) {
		fprintf(stderr, "nfsfuse: %s: %s\n", url,
			nfs_get_error(conns[i].nfs));
		return -1;
	}
	rc = nfs_mount(conns[i].nfs, u->server, u->path);
	if (rc < 0)
		fprintf(stderr, "nfsfuse: mount %s: %s\n", url,
			nfs_get_error(conns[i].nfs));
	nfs_destroy_url(u);
	return rc < 0 ? -1 : 0;
}

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
	for (i = 0; i < (int)nconns; i++)
		if (conn_open((unsigned)i, argv[1]))
			return 1;
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
