/*
 * detect_internal.h - helpers shared by the detection files (storage/detect.c,
 * storage/detect_fs.c); not part of the storage layer's public interface.
 */
#ifndef FEEDRATE_DETECT_INTERNAL_H
#define FEEDRATE_DETECT_INTERNAL_H

#include "storage.h"

/*
 * Call FN for each line of the sysroot's /proc/self/mountinfo, in file
 * order, with its fields decoded (octal escapes such as "\040" undone).
 * Lines that do not parse are skipped. FN returns 0 to go on, anything
 * else to stop; that value is returned. Returns 0, or -errno when
 * mountinfo cannot be opened.
 */
int detect_mountinfo_each(int (*fn)(const struct stg_mount *m, void *arg),
			  void *arg);

/*
 * Parse a CPU list such as "0-3,48-51" or "0,48". Returns the number of
 * CPUs in it (and the lowest one in *FIRST), or -EINVAL.
 */
int detect_cpulist_parse(const char *s, int *first);

/* Copy SRC into DST of CAP bytes, truncating; always NUL-terminates. */
void detect_copy(char *dst, size_t cap, const char *src);

#endif /* FEEDRATE_DETECT_INTERNAL_H */
