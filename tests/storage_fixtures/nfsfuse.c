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
 * several threads. We keep a few connections, each behind its own mutex;
 * everything below a connection (its contexts, their open files) is
 * touched only with that mutex held. A file stays on the connection it
 * was opened on (a libnfs file handle belongs to its context), metadata
 * calls take the next connection round robin. So up to NFSFUSE_CONNS
 * requests are in flight at once, and no context is ever used by two
 * threads at the same time.
 *
 * NFSv4 open state belongs to an (open-owner, file) pair, and libnfs 4.0
 * has one open-owner per context: two OPENs of a file on one context
 * share a stateid, the second bumps its seqid (the first handle's READs
 * then get NFS4ERR_OLD_STATEID) and the first CLOSE ends it for both
 * (NFS4ERR_BAD_STATEID), after which the owner's OPENs fail with
 * NFS4ERR_BAD_SEQID. Several processes reading the same files do exactly
 * that, so a context opens each path once: FUSE opens of a path share
 * one NFSv4 open, counted, closed when the last is released.
 *
 * Reconnecting: libnfs 4.0's synchronous API never renews an NFSv4
 * lease, so a connection idle for longer than the server's lease
 * (ganesha: 60 s) finds its client expired (NFS4ERR_EXPIRED), and a TCP
 * connection can drop. Only those get a new context (a new TCP
 * connection and NFSv4 client), see conn_lost(); a plain answer (ENOENT,
 * EIO from the server's disk...) is passed on. A connection makes at most
 * one new context per RECONNECT_S seconds, so a failing server costs a
 * few connections, not one per call. A context is counted: one
 * reference while it is its connection's current one, one per open file;
 * the last drop destroys it (closing its TCP connection). Files opened on
 * an old context move to the current one on their next read. A context
 * whose socket failed under a synchronous call is not destroyed, only
 * its socket shut down: libnfs 4.0 leaves that call's request queued
 * with a pointer into the caller's stack, and destroying the context
 * calls it back (a crash).
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
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <nfsc/libnfs.h>

#define MAX_CONNS 32
#define RECONNECT_S 2

/* One NFSv4 open of PATH on a context, shared by the FUSE opens of PATH
 * there. */
struct nopen {
	struct nopen *next;
	struct nfsfh *fh;
	unsigned refs;
	char path[];
};

struct ctx {
	struct nfs_context *nfs;
	unsigned refs;
	struct nopen *opens;
};

struct conn {
	pthread_mutex_t mu;
	struct ctx *cur;
	unsigned id, gen;       /* for the NFSv4 client name */
	struct timespec last;   /* the last try to replace cur */
};

/* A FUSE open file: a reference on X and on its open O. */
struct file {
	struct conn *c;
	struct ctx *x;
	struct nopen *o;
};

static struct conn conns[MAX_CONNS];
static unsigned nconns = 4;
static unsigned next_conn;
static const char *url;

/* Whether a synchronous call on X gave up waiting (the socket failed):
 * its request stays queued, and destroying or using X would call it
 * back into the stack frame it was made from. */
static int ctx_abandoned(struct ctx *x)
{
	return nfs_queue_length(x->nfs) > 0;
}

/* Drop a reference on X; the last one destroys it, or where a call was
 * abandoned on it only shuts its socket down, keeping the rest (a few KB
 * and a file descriptor, at most one per connection per RECONNECT_S). */
static void ctx_put(struct ctx *x)
{
	if (--x->refs)
		return;
	if (ctx_abandoned(x)) {
		shutdown(nfs_get_fd(x->nfs), SHUT_RDWR);
		return;
	}
	nfs_destroy_context(x->nfs);
	free(x);
}

/* Give C a new current context connected to URL; 0, or -EIO (reason on
 * stderr) leaving the old one. Called with C->mu held (or before FUSE
 * starts). */
static int conn_connect(struct conn *c)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *u;
	struct ctx *x;
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
	if (rc < 0 || !(x = calloc(1, sizeof(*x)))) {
		fprintf(stderr, "nfsfuse: mount %s: %s\n", url,
			rc < 0 ? nfs_get_error(nfs) : "out of memory");
		nfs_destroy_context(nfs);
		return -EIO;
	}
	x->nfs = nfs;
	x->refs = 1;
	if (c->cur)
		ctx_put(c->cur);        /* gone now unless files use it */
	c->cur = x;
	return 0;
}

/* Whether RC, a failed call's result on NFS, says that the connection or
 * the NFSv4 client is gone. libnfs 4.0 turns an NFSv4-only status into
 * an errno through its NFSv3 table, so NFS4ERR_EXPIRED, _STALE_CLIENTID,
 * _BAD_SEQID, _BAD_STATEID, _OLD_STATEID and _ADMIN_REVOKED all arrive
 * as -ERANGE (and only NFS4ERR_DQUOT, impossible on a read-only mount,
 * shares it); a dropped connection as -EFAULT (RPC error), -EINTR
 * (cancelled, timed out) or -EIO with "nfs_service failed" (the socket,
 * where the server's own NFS4ERR_IO is a plain -EIO). */
static int conn_lost(int rc, struct nfs_context *nfs)
{
	const char *e;

	if (rc == -ERANGE || rc == -EFAULT || rc == -EINTR)
		return 1;
	if (rc != -EIO)
		return 0;
	e = nfs_get_error(nfs);
	return e && (strstr(e, "nfs_service failed") || strstr(e, "Poll failed"));
}

/* After a call on X failed with RC: a new context for C if RC says the
 * old one is lost and X is still current (no other thread replaced it)
 * and C made none in the last RECONNECT_S seconds. 1 when C's current
 * context is not X (worth one more try), else 0. Called with C->mu held. */
static int conn_recover(struct conn *c, struct ctx *x, int rc)
{
	struct timespec now;

	if (!conn_lost(rc, x->nfs))
		return 0;
	if (c->cur != x)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (c->last.tv_sec && now.tv_sec - c->last.tv_sec < RECONNECT_S)
		return 0;
	c->last = now;
	fprintf(stderr, "nfsfuse: connection %u: %s; reconnecting\n", c->id,
		nfs_get_error(x->nfs));
	return conn_connect(c) == 0;
}

/* CALL (which uses c->cur->nfs) once more on a fresh context if it failed
 * in a way worth it. */
#define WITH_RETRY(c, call) ({                                             \
	struct ctx *x_ = (c)->cur;                                         \
	int r_ = (call);                                                   \
	if (r_ < 0 && conn_recover(c, x_, r_))                             \
		r_ = (call);                                               \
	r_; })

/* The next connection round robin, locked; unlock with conn_put. */
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

/* PATH's open on X, shared: a new reference (and one on X) in *O; 0 or
 * -errno. Called with the connection's mutex held. */
static int ctx_open(struct ctx *x, const char *path, struct nopen **o)
{
	struct nopen *n;
	int rc;

	for (n = x->opens; n; n = n->next)
		if (!strcmp(n->path, path))
			break;
	if (!n) {
		if (!(n = calloc(1, sizeof(*n) + strlen(path) + 1)))
			return -ENOMEM;
		strcpy(n->path, path);
		rc = nfs_open(x->nfs, path, O_RDONLY, &n->fh);
		if (rc < 0) {
			free(n);
			return rc;
		}
		n->next = x->opens;
		x->opens = n;
	}
	n->refs++;
	x->refs++;
	*o = n;
	return 0;
}

/* Drop a reference taken by ctx_open: the last one closes the open, and
 * may destroy X. Called with the connection's mutex held. */
static void ctx_close(struct ctx *x, struct nopen *o)
{
	struct nopen **p;

	if (--o->refs == 0) {
		for (p = &x->opens; *p != o; p = &(*p)->next)
			;
		*p = o->next;
		if (!ctx_abandoned(x))  /* else the socket is gone */
			nfs_close(x->nfs, o->fh);  /* frees fh, even failing */
		free(o);
	}
	ctx_put(x);
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
	int rc = WITH_RETRY(c, nfs_stat64(c->cur->nfs, path, &n));

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
	rc = WITH_RETRY(c, nfs_opendir(c->cur->nfs, path, &dir));
	if (rc < 0) {
		conn_put(c);
		return rc;
	}
	/* NFSv4 lists no "." and ".."; readdir(3) callers expect them */
	fill(buf, ".", NULL, 0);
	fill(buf, "..", NULL, 0);
	while ((e = nfs_readdir(c->cur->nfs, dir))) {
		struct stat st = { .st_ino = e->inode, .st_mode = e->mode };

		if (strcmp(e->name, ".") && strcmp(e->name, "..") &&
		    fill(buf, e->name, &st, 0))
			break;
	}
	nfs_closedir(c->cur->nfs, dir);
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
	if (!(f = calloc(1, sizeof(*f))))
		return -ENOMEM;
	c = conn_get();
	rc = WITH_RETRY(c, ctx_open(c->cur, path, &f->o));
	f->c = c;
	f->x = c->cur;
	conn_put(c);
	if (rc < 0) {
		free(f);
		return rc;
	}
	fi->fh = (uint64_t)(uintptr_t)f;
	return 0;
}

/* Move F to its connection's current context; 0 or -errno (F as it
 * was). Called with f->c->mu held. */
static int file_move(struct file *f)
{
	struct nopen *o;
	int rc = ctx_open(f->c->cur, f->o->path, &o);

	if (rc < 0)
		return rc;
	ctx_close(f->x, f->o);
	f->x = f->c->cur;
	f->o = o;
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
	if (f->x != f->c->cur)
		rc = file_move(f);
	while (rc >= 0 && got < size) {
		rc = nfs_pread(f->x->nfs, f->o->fh, (uint64_t)off + got,
			       size - got, buf + got);
		if (rc < 0 && !retried++ && conn_recover(f->c, f->x, rc)) {
			rc = file_move(f);
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
	ctx_close(f->x, f->o);
	pthread_mutex_unlock(&f->c->mu);
	free(f);
	return 0;
}

static int nf_statfs(const char *path, struct statvfs *sv)
{
	struct nfs_statvfs_64 n;
	struct conn *c = conn_get();
	int rc = WITH_RETRY(c, nfs_statvfs64(c->cur->nfs, path, &n));

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
