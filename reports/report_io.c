/*
 * report_io.c - safe text for dataset names, atomic report files, and the
 * check that a report path destroys nothing.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "report.h"

/* Length of the valid UTF-8 sequence at S (at most LEN bytes), or 0. */
static size_t utf8_seq_len(const unsigned char *s, size_t len)
{
	uint32_t cp;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and values past U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

char *rpt_path_text(const char *bytes, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)bytes;
	char *out = malloc(len * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq_len(s + i, len - i);

		if (n == 1 && s[i] == '\\') {
			*o++ = '\\';
			*o++ = '\\';
		} else if (n > 1 || (n == 1 && s[i] >= 0x20 && s[i] != 0x7f)) {
			memcpy(o, s + i, n);
			o += n;
		} else {
			n = 1;
			*o++ = '\\';
			*o++ = 'x';
			*o++ = hex[s[i] >> 4];
			*o++ = hex[s[i] & 15];
		}
		i += n;
	}
	*o = '\0';
	return out;
}

json_t *rpt_json_path(const char *path)
{
	char *text = rpt_path_text(path, strlen(path));
	json_t *j;

	if (!text)
		return NULL;
	j = json_string(text);
	free(text);
	return j;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The character devices a report may go to: /dev/null, /dev/zero and
 * /dev/full (1:3, 1:5, 1:7) and terminals (majors 4 and 5, Unix98 ptys
 * 136-143), numbered as in the kernel's
 * Documentation/admin-guide/devices.txt. Other character devices can hold
 * data or reach hardware (/dev/mtd0 flash, /dev/st0 tape, /dev/port).
 */
static bool chr_allowed(dev_t rdev)
{
	unsigned int ma = major(rdev), mi = minor(rdev);

	if (ma == 1)
		return mi == 3 || mi == 5 || mi == 7;
	return ma == 4 || ma == 5 || (ma >= 136 && ma <= 143);
}

/*
 * Whether a report may be written into what ST describes: a regular file,
 * a FIFO, /dev/null or a terminal. A block device is refused (a report
 * written there overwrites a disk's first sectors: a file system, someone's
 * data), so are a folder, a socket and other character devices. 0, or
 * -EISDIR (a folder) or -EINVAL.
 */
static int target_kind_check(const struct stat *st)
{
	if (S_ISREG(st->st_mode) || S_ISFIFO(st->st_mode))
		return 0;
	if (S_ISCHR(st->st_mode) && chr_allowed(st->st_rdev))
		return 0;
	return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
}

/* Words for a kind target_kind_check refuses: "a block device". */
static const char *target_kind_name(const struct stat *st)
{
	if (S_ISBLK(st->st_mode))
		return "a block device: a report written there would overwrite "
		       "the data on it";
	if (S_ISDIR(st->st_mode))
		return "a folder";
	if (S_ISCHR(st->st_mode))
		return "a character device other than /dev/null or a "
		       "terminal";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	return "not a file";
}

/*
 * A path that is not a regular file (a terminal, a pipe, /dev/stdout,
 * /proc/self/fd/N) cannot be replaced by a rename: write into it directly.
 * What was opened is judged again by fstat before a byte is written, since
 * the path may have been swapped for a device between the caller's stat
 * and this open.
 */
static int write_special(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY), ret;
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		ret = -errno;
	else
		ret = target_kind_check(&st);
	if (!ret)
		ret = write_all(fd, data, len);
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

int rpt_file_write(const char *path, const void *data, size_t len)
{
	char *tmp, *real = NULL;
	struct stat st;
	int fd, ret;
	bool exists;

	if (!strcmp(path, "-"))
		return write_all(STDOUT_FILENO, data, len);
	exists = stat(path, &st) == 0;
	/* refused before it is even opened: closing a disk opened for
	 * writing makes udev probe it again */
	if (exists && (ret = target_kind_check(&st)))
		return ret;
	/* /dev/stdout and /proc/self/fd/N name an open file, maybe a regular
	 * one (`> out.json`): write through it, never rename over it */
	if (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6) ||
	    (exists && !S_ISREG(st.st_mode)))
		return write_special(path, data, len);
	/* a link to a report file: replace the file, keep the link */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		real = realpath(path, NULL);
		if (!real)
			return -errno;
		path = real;
	}
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
		free(real);
		return -ENOMEM;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		goto out_free;
	}
	ret = write_all(fd, data, len);
	if (!ret && fchmod(fd, 0644) < 0)
		ret = -errno;
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
out_free:
	free(tmp);
	free(real);
	return ret;
}

int rpt_json_write(json_t *root, const char *path)
{
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	size_t len;
	int ret;

	if (!text)
		return -ENOMEM;
	len = strlen(text);
	text[len] = '\n';	/* json_dumps leaves room for the NUL only */
	ret = rpt_file_write(path, text, len + 1);
	free(text);
	return ret;
}

/* ---- the report path check ---- */

__attribute__((format(printf, 3, 4)))
static void say(char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !why_len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, why_len, fmt, ap);
	va_end(ap);
}

/* The folder PATH names its last component in (".", "/"); malloc'd. */
static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/*
 * Is the folder DIR (resolved, absolute) or one of its ancestors the
 * folder ROOT? Compared by device and inode, so a bind mount or a second
 * link to the dataset is caught as well as its own path.
 */
static bool dir_is_under(const char *dir, const struct stat *root)
{
	char *d = strdup(dir);
	bool under = false;
	struct stat st;

	while (d && !under) {
		char *up;

		if (stat(d, &st) == 0 && st.st_dev == root->st_dev &&
		    st.st_ino == root->st_ino)
			under = true;
		if (!strcmp(d, "/"))
			break;
		up = parent_of(d);
		free(d);
		d = up;
	}
	free(d);
	return under;
}

/*
 * Judge a report going into folder DIR (resolved; NULL unknown) as the
 * regular file TARGET (NULL: a new file) against the files and folders
 * the run reads.
 * 0 or -EINVAL with WHY written; NAME is the path as the user gave it,
 * already printable.
 */
static int roots_check(const char *name, const char *dir,
		       const struct stat *target,
		       const char *const *read_roots, size_t n_roots,
		       char *why, size_t why_len)
{
	for (size_t i = 0; i < n_roots; i++) {
		struct stat root;
		char *rname;
		bool same, under;

		if (!read_roots[i] || !*read_roots[i] ||
		    stat(read_roots[i], &root) < 0)
			continue;       /* nothing there to overwrite */
		same = target && target->st_dev == root.st_dev &&
		       target->st_ino == root.st_ino;
		under = dir && S_ISDIR(root.st_mode) &&
			dir_is_under(dir, &root);
		if (!same && !under)
			continue;
		rname = rpt_path_text(read_roots[i], strlen(read_roots[i]));
		if (!rname)
			return -ENOMEM;
		if (same)
			say(why, why_len, "%s is %s, a file this run reads; "
			    "write the report elsewhere", name, rname);
		else
			say(why, why_len, "%s is inside %s, which this run "
			    "reads; write the report outside it", name, rname);
		free(rname);
		return -EINVAL;
	}
	return 0;
}

/* The writer writes through these paths in place (see rpt_file_write). */
static bool writes_through(const char *path)
{
	return !strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6);
}

int rpt_out_path_check(const char *path, const char *const *read_roots,
		       size_t n_roots, char *why, size_t why_len)
{
	char *name = NULL, *real = NULL, *dir = NULL, *pname;
	struct stat lst, st;
	bool exists;
	int ret = 0, real_err = 0;

	say(why, why_len, "%s", "");
	if (!path || !*path) {
		say(why, why_len, "no report file name given");
		return -EINVAL;
	}
	if (!strcmp(path, "-"))
		return 0;
	name = rpt_path_text(path, strlen(path));
	if (!name)
		return -ENOMEM;
	exists = lstat(path, &lst) == 0;
	if (!exists && errno != ENOENT) {
		ret = -errno;
		say(why, why_len, "cannot write %s: %s", name, strerror(-ret));
		goto out;
	}
	if (exists) {
		/* a link is judged by what it points to */
		if (stat(path, &st) < 0) {
			ret = -errno;
			say(why, why_len, "%s is a link to %s", name,
			    ret == -ENOENT ? "nothing" : strerror(-ret));
			goto out;
		}
		real = realpath(path, NULL);
		real_err = real ? 0 : -errno;
		ret = target_kind_check(&st);
		if (ret) {
			pname = real ? rpt_path_text(real, strlen(real)) : NULL;
			if (S_ISLNK(lst.st_mode) && pname)
				say(why, why_len, "%s is a link to %s, %s; give "
				    "a file name", name, pname,
				    target_kind_name(&st));
			else
				say(why, why_len, "%s is %s; give a file name",
				    name, target_kind_name(&st));
			free(pname);
			goto out;
		}
		if (!S_ISREG(st.st_mode))
			goto out;       /* a FIFO, /dev/null, a terminal */
		if (!real && !writes_through(path)) {
			ret = real_err;
			say(why, why_len, "cannot write %s: %s", name,
			    strerror(-ret));
			goto out;
		}
		/* /dev/stdout redirected to a file: that file's folder */
		if (real && !(dir = parent_of(real))) {
			ret = -ENOMEM;
			goto out;
		}
	} else {
		char *parent;

		/* the writer opens these without creating them: a typo for
		 * a device must not become a file in /dev */
		if (writes_through(path)) {
			ret = -ENOENT;
			say(why, why_len, "%s does not exist (under /dev and "
			    "/proc a report goes only into what is there)",
			    name);
			goto out;
		}
		if (path[strlen(path) - 1] == '/') {
			ret = -EISDIR;
			say(why, why_len, "%s names a folder; give a file name",
			    name);
			goto out;
		}
		parent = parent_of(path);
		if (!parent) {
			ret = -ENOMEM;
			goto out;
		}
		dir = realpath(parent, NULL);
		if (!dir) {
			ret = -errno;
			pname = rpt_path_text(parent, strlen(parent));
			if (ret == -ENOENT)
				say(why, why_len, "cannot write %s: the folder "
				    "%s does not exist", name,
				    pname ? pname : "");
			else
				say(why, why_len, "cannot write %s: folder %s: "
				    "%s", name, pname ? pname : "",
				    strerror(-ret));
			free(pname);
			free(parent);
			goto out;
		}
		free(parent);
	}
	/* the writer makes a temporary file in that folder, then renames
	 * it over the report; judged with the effective IDs and
	 * capabilities, as that open will be */
	if (dir && !writes_through(path) &&
	    faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) < 0) {
		ret = -errno;
		pname = rpt_path_text(dir, strlen(dir));
		say(why, why_len, "cannot write %s: folder %s: %s", name,
		    pname ? pname : "", strerror(-ret));
		free(pname);
		goto out;
	}
	ret = roots_check(name, dir, exists ? &st : NULL, read_roots, n_roots,
			  why, why_len);
out:
	free(dir);
	free(real);
	free(name);
	return ret;
}

/* PATH with its folder resolved (links, "..") into BUF, else as given. */
static void resolved(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	char *parent = strcmp(path, "-") ? parent_of(path) : NULL;
	char *dir = parent ? realpath(parent, NULL) : NULL;

	if (dir)
		snprintf(buf, len, "%s/%s", dir, slash ? slash + 1 : path);
	else
		snprintf(buf, len, "%s", path);
	free(dir);
	free(parent);
}

bool rpt_out_path_same(const char *a, const char *b)
{
	char ra[PATH_MAX + 256], rb[PATH_MAX + 256];

	resolved(a, ra, sizeof(ra));
	resolved(b, rb, sizeof(rb));
	return !strcmp(ra, rb);
}
