/*
 * rpt_load.c - the report kit's loader of JSON reports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"
#include "rpt_load.h"

int rpt_report_load(const char *path, size_t max_bytes, json_t **root,
		    char *why, size_t why_len)
{
	json_error_t jerr;
	struct stat st;
	char *t;
	FILE *in;
	int err;

	*root = NULL;
	snprintf(why, why_len, "%s", "");
	/* checked before opening: a FIFO is never opened (it would wait) */
	if (max_bytes && (stat(path, &st) || !S_ISREG(st.st_mode) ||
			  (size_t)st.st_size > max_bytes)) {
		snprintf(why, why_len, "not a regular file of at most %zu "
			 "bytes", max_bytes);
		return -EFBIG;
	}
	in = fopen(path, "r");
	if (!in) {
		err = errno;
		snprintf(why, why_len, "%s", strerror(err));
		return -err;
	}
	if (max_bytes && (fstat(fileno(in), &st) || !S_ISREG(st.st_mode) ||
			  (size_t)st.st_size > max_bytes)) {
		fclose(in);     /* it changed in between */
		snprintf(why, why_len, "not a regular file of at most %zu "
			 "bytes", max_bytes);
		return -EFBIG;
	}
	*root = json_loadf(in, 0, &jerr);
	fclose(in);
	if (*root)
		return 0;
	/* jansson's text may repeat the file's raw bytes: escaped */
	t = rpt_path_text(jerr.text, strlen(jerr.text));
	snprintf(why, why_len, "not a JSON report: %s (line %d)", t ? t : "?",
		 jerr.line);
	free(t);
	return -EINVAL;
}
