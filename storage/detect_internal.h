/*
 * detect_internal.h - helpers shared by the detection files (storage/detect.c,
 * storage/detect_fs.c, storage/sysfacts.c); not part of the storage layer's
 * public interface.
 */
#ifndef FEEDRATE_DETECT_INTERNAL_H
#define FEEDRATE_DETECT_INTERNAL_H

#include "storage.h"

/* Copy SRC into DST of CAP bytes, truncating; always NUL-terminates. */
void detect_copy(char *dst, size_t cap, const char *src);

#endif /* FEEDRATE_DETECT_INTERNAL_H */
