/*
 * fmt_tar_stub.c - weak stand-ins for the WebDataset tar functions, so the
 * format dispatch links before fmt_tar.c exists: every call answers
 * -ENOSYS. Removed when fmt_tar.c lands (its strong definitions would
 * override these anyway).
 */
#include <errno.h>
#include <string.h>

#include "fmt_internal.h"

__attribute__((weak)) void wl_tar_scan_init(struct wl_scanner *s)
{
	(void)s;
}

__attribute__((weak)) int wl_tar_scan_next(struct wl_scanner *s,
					   const uint8_t *win,
					   uint64_t win_base, size_t win_len,
					   bool eof, struct wl_record *rec)
{
	(void)s; (void)win; (void)win_base; (void)win_len; (void)eof;
	(void)rec;
	return -ENOSYS;
}

__attribute__((weak)) int wl_tar_walk_count(wl_pread_fn pread, void *arg,
					    uint64_t size, uint64_t max_record,
					    uint64_t *count, uint64_t *err_off)
{
	(void)pread; (void)arg; (void)size; (void)max_record; (void)err_off;
	*count = 0;
	return -ENOSYS;
}

__attribute__((weak)) int wl_tar_unwrap(const uint8_t *rec, size_t len,
					struct wl_sample_view *out)
{
	(void)rec; (void)len;
	memset(out, 0, sizeof(*out));
	return -ENOSYS;
}
