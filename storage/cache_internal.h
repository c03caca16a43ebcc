/*
 * cache_internal.h - what the page-cache files of storage/ share
 * (pagecache.c, cacheprep.c); not part of the public API.
 */
#ifndef FEEDRATE_CACHE_INTERNAL_H
#define FEEDRATE_CACHE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Read FD from OFF to its end into BUF (CAP bytes at a time), discarding
 * what it reads; adds the bytes read to *BYTES when BYTES is not NULL.
 * Returns 0 or -errno. Any thread.
 */
int stg_fd_read_rest(int fd, char *buf, size_t cap, off_t off,
		     uint64_t *bytes);

#endif
