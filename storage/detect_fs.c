/*
 * detect_fs.c - which filesystem and which device a dataset sits on:
 * statfs() for the filesystem family, the mount from mountinfo
 * (stg_mount_find in sysfacts.c: FUSE subtype, source), the server of a
 * network filesystem from that source (stg_fs_server), and /sys/dev/block
 * for the disk and its model.
 * /proc and /sys are read under the sysroot (storage/sysroot.c); the path
 * being examined is the real one.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "detect_internal.h"

void detect_copy(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (!cap)
		return;
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* ---- statfs magic ---- */

static const struct {
	uint64_t magic;
	const char *name;
	bool network;
} fs_magic[] = {
	{ 0xEF53, "ext2/ext3/ext4", false },
	{ 0x58465342, "xfs", false },
	{ 0x9123683E, "btrfs", false },
	{ 0x2FC12FC1, "zfs", false },
	{ 0xF2F52010, "f2fs", false },
	{ 0x73717368, "squashfs", false },
	{ 0xE0F5E1E2, "erofs", false },
	{ 0x01021994, "tmpfs", false },
	{ 0x858458F6, "ramfs", false },
	{ 0x794C7630, "overlay", false },
	{ 0x6969, "nfs", true },
	{ 0x0BD00BD0, "lustre", true },
	{ 0xFF534D42, "cifs", true },
	{ 0xFE534D42, "smb2", true },
	{ 0x00C36400, "ceph", true },
	{ 0x47504653, "gpfs", true },
	{ 0x19830326, "beegfs", true },
	{ 0x01021997, "9p", true },
	{ 0x65735546, "fuse", true },
	{ 0x4D44, "vfat", false },
	{ 0x5346544E, "ntfs", false },
};

const char *stg_fs_magic_name(uint64_t magic)
{
	for (size_t i = 0; i < sizeof(fs_magic) / sizeof(fs_magic[0]); i++)
		if (fs_magic[i].magic == magic)
			return fs_magic[i].name;
	return "unknown";
}

static bool fs_magic_network(uint64_t magic)
{
	for (size_t i = 0; i < sizeof(fs_magic) / sizeof(fs_magic[0]); i++)
		if (fs_magic[i].magic == magic)
			return fs_magic[i].network;
	return false;
}

static bool fstype_network(const char *t)
{
	static const char *const net[] = {
		"nfs", "nfs4", "lustre", "cifs", "smb3", "ceph", "9p",
		"gpfs", "beegfs", "glusterfs", "virtiofs",
	};

	if (!strncmp(t, "fuse", 4))
		return true;
	for (size_t i = 0; i < sizeof(net) / sizeof(net[0]); i++)
		if (!strcmp(t, net[i]))
			return true;
	return false;
}

/* ---- the server of a network filesystem ---- */

/* How a filesystem's mount source names its server. */
enum src_form {
	SRC_HOST_PATH,  /* "host:/path", "[v6]:/path" (nfs, glusterfs) */
	SRC_UNC,        /* "//host/share" (cifs, smb3) */
	SRC_LNET,       /* "10.0.0.1@tcp[:nid...]:/fs" (lustre) */
	SRC_MONITORS,   /* "mon:6789,mon2:6789:/path"; "user@fsid.fs=/path"
	                   (ceph's newer form names no host) */
	SRC_NAME,       /* a name, not a host: FUSE object stores */
	SRC_URL,        /* "nfs://host[:port]/path?opts" (FUSE NFS clients
	                   on libnfs, e.g. the tests' user-space fixture) */
};

static const struct {
	const char *fstype;
	enum src_form form;
} fs_source[] = {
	{ "nfs", SRC_HOST_PATH },
	{ "nfs4", SRC_HOST_PATH },
	{ "glusterfs", SRC_HOST_PATH },
	{ "fuse.glusterfs", SRC_HOST_PATH },
	{ "cifs", SRC_UNC },
	{ "smb3", SRC_UNC },
	{ "lustre", SRC_LNET },
	{ "ceph", SRC_MONITORS },
	{ "fuse.s3fs", SRC_NAME },
	{ "fuse.mountpoint-s3", SRC_NAME },
	{ "fuse.gcsfuse", SRC_NAME },
	{ "fuse.goofys", SRC_NAME },
	{ "fuse.blobfuse2", SRC_NAME },
	{ "fuse.nfsfuse", SRC_URL },
	{ "fuse.fuse-nfs", SRC_URL },
};

/* Copy the N bytes at SRC into DST of CAP bytes ("" when CAP is 0). */
static void copy_n(char *dst, size_t cap, const char *src, size_t n)
{
	if (!cap)
		return;
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The host at the start of S: "[v6]" without its brackets, else up to
 * the first byte of STOP. */
static void host_until(const char *s, const char *stop, char *host,
		       size_t cap)
{
	const char *end;

	if (s[0] == '[' && (end = strchr(s, ']'))) {
		copy_n(host, cap, s + 1, (size_t)(end - s - 1));
		return;
	}
	copy_n(host, cap, s, strcspn(s, stop));
}

int stg_fs_server(const char *fstype, const char *source, char *server,
		  size_t server_cap, char *host, size_t host_cap)
{
	size_t i, n = sizeof(fs_source) / sizeof(fs_source[0]);

	copy_n(server, server_cap, "", 0);
	copy_n(host, host_cap, "", 0);
	for (i = 0; i < n && strcmp(fs_source[i].fstype, fstype); i++)
		;
	if (i == n || !source[0])
		return -ENOENT;
	detect_copy(server, server_cap, source);
	switch (fs_source[i].form) {
	case SRC_HOST_PATH:
		/* "host:/path": a source without the colon names no host */
		if (source[0] == '[' || strchr(source, ':'))
			host_until(source, ":", host, host_cap);
		break;
	case SRC_UNC:
		source += strspn(source, "/\\");
		host_until(source, "/\\", host, host_cap);
		break;
	case SRC_LNET:
		/* NIDs are "addr@net", several split by ':' or ',' */
		host_until(source, "@:,", host, host_cap);
		break;
	case SRC_MONITORS:
		if (!strchr(source, '='))
			host_until(source, ":,/", host, host_cap);
		break;
	case SRC_NAME:
		break;
	case SRC_URL: {
		const char *p = strstr(source, "://");

		if (p)
			host_until(p + 3, ":/?", host, host_cap);
		break;
	}
	}
	return 0;
}

/* ---- block devices ---- */

/* Read sysfs file DIR/NAME (a real path already under the sysroot). */
static ssize_t read_attr(const char *dir, const char *name, char *buf,
			 size_t cap)
{
	char path[PATH_MAX];
	size_t start = 0, end;
	ssize_t n;
	FILE *f;

	buf[0] = '\0';
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = (ssize_t)fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = '\0';
	end = strcspn(buf, "\n");
	while (end > 0 && (buf[end - 1] == ' ' || buf[end - 1] == '\t'))
		end--;
	while (start < end && buf[start] == ' ')
		start++;
	memmove(buf, buf + start, end - start);
	buf[end - start] = '\0';
	return (ssize_t)(end - start);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Resolve /sys/class/block/NAME under the sysroot to its device folder. */
static int block_dir(const char *name, char *out)
{
	char rel[PATH_MAX], path[PATH_MAX];

	if (snprintf(rel, sizeof(rel), "/sys/class/block/%s", name) >=
	    (int)sizeof(rel))
		return -ENAMETOOLONG;
	if (stg_sysroot_path(rel, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	return realpath(path, out) ? 0 : -errno;
}

/* First entry (bytewise) of DIR/slaves, "" when none. */
static void first_slave(const char *dir, char *out, size_t cap)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dh;

	out[0] = '\0';
	if (snprintf(path, sizeof(path), "%s/slaves", dir) >= (int)sizeof(path))
		return;
	dh = opendir(path);
	if (!dh)
		return;
	while ((d = readdir(dh)))
		if (d->d_name[0] != '.' &&
		    (!out[0] || strcmp(d->d_name, out) < 0))
			detect_copy(out, cap, d->d_name);
	closedir(dh);
}

/* If DIR is a partition, replace it with its disk's folder. */
static void whole_disk(char *dir, char *part, size_t part_cap)
{
	char tmp[32], *slash;

	part[0] = '\0';
	if (read_attr(dir, "partition", tmp, sizeof(tmp)) < 0)
		return;
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	detect_copy(part, part_cap, slash + 1);
	*slash = '\0';
}

static void describe_disk(const char *dir, struct stg_blockdev *out)
{
	char dev[PATH_MAX], buf[64], link[PATH_MAX];
	ssize_t n;

	detect_copy(out->name, sizeof(out->name), base_name(dir));
	if (snprintf(dev, sizeof(dev), "%s/device", dir) >= (int)sizeof(dev))
		return;
	read_attr(dev, "model", out->model, sizeof(out->model));
	read_attr(dev, "vendor", out->vendor, sizeof(out->vendor));
	if (!out->model[0]) {
		/* virtio disks expose no model; their driver says what they are */
		n = -1;
		if (snprintf(link, sizeof(link), "%s/driver", dev) <
		    (int)sizeof(link))
			n = readlink(link, buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = '\0';
			if (!strcmp(base_name(buf), "virtio_blk"))
				detect_copy(out->model, sizeof(out->model),
					    "virtio block device");
		}
	}
	out->rotational = read_attr(dir, "queue/rotational", buf,
				    sizeof(buf)) > 0 ? atoi(buf) : -1;
	out->nr_requests = read_attr(dir, "queue/nr_requests", buf,
				     sizeof(buf)) > 0 ? atoi(buf) : -1;
	read_attr(dir, "loop/backing_file", out->backing_file,
		  sizeof(out->backing_file));
}

int stg_blockdev_describe(unsigned major, unsigned minor,
			  struct stg_blockdev *out)
{
	char rel[64], path[PATH_MAX], dir[PATH_MAX], slave[64];

	memset(out, 0, sizeof(*out));
	out->major = major;
	out->minor = minor;
	out->rotational = out->nr_requests = -1;
	snprintf(rel, sizeof(rel), "/sys/dev/block/%u:%u", major, minor);
	if (stg_sysroot_path(rel, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	if (!realpath(path, dir))
		return -ENOENT;
	whole_disk(dir, out->partition, sizeof(out->partition));
	/* device-mapper and md: describe the first disk underneath */
	for (int depth = 0; depth < 4; depth++) {
		char name[64];

		first_slave(dir, slave, sizeof(slave));
		if (!slave[0])
			break;
		if (!out->via[0]) {
			char dmname[48];

			detect_copy(name, sizeof(name), base_name(dir));
			if (read_attr(dir, "dm/name", dmname,
				      sizeof(dmname)) > 0)
				snprintf(out->via, sizeof(out->via), "%s (%s)",
					 name, dmname);
			else
				detect_copy(out->via, sizeof(out->via), name);
		}
		if (block_dir(slave, dir))
			return 0;
		whole_disk(dir, name, sizeof(name));
	}
	describe_disk(dir, out);
	return 0;
}

int stg_detect_fs(const char *path, struct stg_fs_info *out)
{
	char real[PATH_MAX];
	struct statfs sf;
	struct stat st;
	int err;

	memset(out, 0, sizeof(*out));
	if (!realpath(path, real))
		return -errno;
	detect_copy(out->path, sizeof(out->path), real);
	if (statfs(real, &sf) == 0) {
		out->statfs_magic = (uint64_t)(unsigned long)sf.f_type;
		out->network = fs_magic_network(out->statfs_magic);
		out->page_cache_volatile = sf.f_type == 0x01021994 ||
					   sf.f_type == 0x858458F6;
	}
	detect_copy(out->fs_family, sizeof(out->fs_family),
		    stg_fs_magic_name(out->statfs_magic));
	if (stat(real, &st) < 0)
		return -errno;
	err = stg_mount_find(real, st.st_dev, &out->mount);
	out->have_mount = err == 0;
	if (out->have_mount) {
		out->network = out->network || fstype_network(out->mount.fstype);
		stg_fs_server(out->mount.fstype, out->mount.source,
			      out->server, sizeof(out->server),
			      out->server_host, sizeof(out->server_host));
		if (!strcmp(out->mount.fstype, "tmpfs") ||
		    !strcmp(out->mount.fstype, "ramfs"))
			out->page_cache_volatile = true;
	}
	/* the block device: from the mount's major:minor, or (btrfs and
	 * others with anonymous device numbers) from the mount's source */
	if (out->have_mount && out->mount.major != 0)
		out->have_blockdev = stg_blockdev_describe(out->mount.major,
					out->mount.minor, &out->blockdev) == 0;
	else if (out->have_mount && !strncmp(out->mount.source, "/dev/", 5)) {
		struct stat bst;

		if (stat(out->mount.source, &bst) == 0 && S_ISBLK(bst.st_mode))
			out->have_blockdev = stg_blockdev_describe(
				major(bst.st_rdev), minor(bst.st_rdev),
				&out->blockdev) == 0;
	} else if (!out->have_mount && major(st.st_dev) != 0) {
		out->have_blockdev = stg_blockdev_describe(major(st.st_dev),
					minor(st.st_dev), &out->blockdev) == 0;
	}
	return 0;
}
