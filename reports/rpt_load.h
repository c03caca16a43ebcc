/*
 * rpt_load.h - the report kit's loader: one way to read back a JSON report
 * that feedrate wrote (compare's sweep reports, sweep --ckpt's and
 * compare's ckpt reports), with one wording for what went wrong.
 */
#ifndef FEEDRATE_RPT_LOAD_H
#define FEEDRATE_RPT_LOAD_H

#include <stddef.h>

#include <jansson.h>

/*
 * Read the JSON report PATH into *ROOT (a new reference). MAX_BYTES > 0
 * refuses, before reading, anything that is not a regular file of at most
 * MAX_BYTES (-EFBIG); 0 reads whatever PATH is. Returns 0; -errno when it
 * cannot be read (WHY: the system's words); -EINVAL when it is not JSON
 * (WHY: "not a JSON report: <the parser's words, escaped> (line N)").
 * WHY (WHY_LEN bytes) is "" on success.
 */
int rpt_report_load(const char *path, size_t max_bytes, json_t **root,
		    char *why, size_t why_len);

#endif /* FEEDRATE_RPT_LOAD_H */
