/*
 * report.h - writing what feedrate measured: safe text for names that come
 * from users' datasets, and atomic report files.
 */
#ifndef FEEDRATE_REPORT_H
#define FEEDRATE_REPORT_H

#include <stddef.h>

#include <jansson.h>

/*
 * Turn LEN bytes of a file name into printable UTF-8: valid UTF-8 sequences
 * (other than control characters) are kept; any other byte, and control
 * characters and backslash, are written as "\xNN" ("\\" for a backslash) so
 * that different names never print the same. Returns a malloc'd,
 * NUL-terminated string the caller frees, or NULL when out of memory.
 */
char *rpt_path_text(const char *bytes, size_t len);

/*
 * A JSON string holding rpt_path_text(path, strlen(path)). Returns a new
 * reference, or NULL when out of memory.
 */
json_t *rpt_json_path(const char *path);

/*
 * Write ROOT as indented JSON to PATH. "-" writes to stdout. Any other path
 * is written atomically: to a temporary file in the same folder, flushed
 * with fsync, then renamed over PATH, so a reader never sees half a report
 * and a failure (full disk, unwritable folder) leaves PATH untouched.
 * Returns 0 or -errno. Does not take ownership of ROOT.
 */
int rpt_json_write(json_t *root, const char *path);

/*
 * Write LEN bytes of DATA to PATH atomically, as rpt_json_write does ("-"
 * is stdout). Returns 0 or -errno.
 */
int rpt_file_write(const char *path, const void *data, size_t len);

#endif /* FEEDRATE_REPORT_H */
