/*
 * report_ckpt_find.c - the ckpt report that goes with a candidate of
 * `feedrate compare`: found beside its sweep report.
 */
#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "report.h"
#include "report_ckpt.h"
#include "rpt_load.h"

/* The folder of report FILE into BUF. */
static void folder_of(const char *file, char *buf, size_t len)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", file);
	snprintf(buf, len, "%s", dirname(tmp));
}

/*
 * A ckpt report beside candidate I's sweep report (FILES[I]) into *X:
 * the only one in that folder when no other candidate's report shares
 * the folder, else the only one whose instance type is the candidate's
 * label. Nothing found is no error.
 */
void rpt_cost_find_ckpt(const char *const *files, size_t n, size_t i,
			const char *label, struct rpt_cost *x)
{
	char dir[PATH_MAX], other[PATH_MAX], path[2 * PATH_MAX];
	struct rpt_ckpt_brief b, found = { 0 }, match = { 0 };
	char found_path[2 * PATH_MAX] = "", match_path[2 * PATH_MAX] = "";
	unsigned nfound = 0, nmatch = 0;
	bool shared = false;
	struct dirent *e;
	DIR *d;

	folder_of(files[i], dir, sizeof(dir));
	for (size_t j = 0; j < n; j++) {
		folder_of(files[j], other, sizeof(other));
		shared |= j != i && !strcmp(dir, other);
	}
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		const size_t len = strlen(e->d_name);
		char why[256];
		json_t *root;

		if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		/* reports are small: skip anything large */
		if (rpt_report_load(path, 4 << 20, &root, why, sizeof(why)))
			continue;
		if (!rpt_ckpt_brief_from_json(root, &b)) {
			nfound++;
			found = b;
			snprintf(found_path, sizeof(found_path), "%s", path);
			if (*b.instance_type &&
			    !strcmp(b.instance_type, label)) {
				nmatch++;
				match = b;
				snprintf(match_path, sizeof(match_path), "%s",
					 path);
			}
		}
		json_decref(root);
	}
	closedir(d);
	if (nmatch == 1) {
		found = match;
		snprintf(found_path, sizeof(found_path), "%s", match_path);
	} else if (nfound != 1 || shared) {
		return;
	}
	x->have_ckpt = true;
	x->ckpt = found;
	{
		char *t = rpt_path_text(found_path, strlen(found_path));

		snprintf(x->ckpt_file, sizeof(x->ckpt_file), "%s",
			 t ? t : "?");
		free(t);
	}
}

int rpt_ckpt_brief_load(const char *path, struct rpt_ckpt_brief *out,
			char *why, size_t why_len)
{
	json_t *root;
	int err = rpt_report_load(path, 0, &root, why, why_len);

	if (err)
		return err;
	err = rpt_ckpt_brief_from_json(root, out);
	json_decref(root);
	if (err)
		snprintf(why, why_len, "not a report of 'feedrate ckpt --json' "
			 "(schema %s version %d with save and restore)",
			 RPT_CKPT_SCHEMA_NAME, RPT_CKPT_SCHEMA_VERSION);
	return err;
}
