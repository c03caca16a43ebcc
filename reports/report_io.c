/*
 * report_io.c - safe text for dataset names and atomic report files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
 * A path that is not a regular file (a terminal, a pipe, /dev/stdout,
 * /proc/self/fd/N) cannot be replaced by a rename: write into it directly.
 */
static int write_special(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY), ret;

	if (fd < 0)
		return -errno;
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

	if (!strcmp(path, "-"))
		return write_all(STDOUT_FILENO, data, len);
	if (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6) ||
	    (stat(path, &st) == 0 && !S_ISREG(st.st_mode)))
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
