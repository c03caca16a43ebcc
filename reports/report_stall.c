/*
 * report_stall.c - the words and the JSON object for storage that
 * stalled (storage/watch.c decides; this only words it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

void rpt_stall_text(const struct stg_stall *s, char *buf, size_t len)
{
	char *name = s->oldest[0] ? rpt_path_text(s->oldest,
						  strlen(s->oldest)) : NULL;

	snprintf(buf, len, "STALLED: the storage stopped answering: no read "
		 "completed for %.1f s (--stall-timeout %g s) while %u "
		 "read%s %s in flight, during the %s; the oldest waited "
		 "%.1f s%s%s", s->idle_s, s->timeout_s, s->inflight,
		 s->inflight == 1 ? "" : "s", s->inflight == 1 ? "was" :
		 "were", stg_phase_name(s->phase), s->oldest_age_s,
		 name ? ", on " : "", name ? name : "");
	free(name);
}

json_t *rpt_stall_json(const struct stg_stall *s)
{
	if (!s || !s->stalled)
		return json_null();
	return json_pack("{s:s,s:I,s:f,s:o,s:f,s:f}",
		"phase", stg_phase_name(s->phase),
		"reads_in_flight", (json_int_t)s->inflight,
		"oldest_age_s", s->oldest_age_s,
		"oldest_file", s->oldest[0] ? rpt_json_path(s->oldest) :
				json_null(),
		"no_completion_s", s->idle_s,
		"stall_timeout_s", s->timeout_s);
}

json_t *rpt_stall_partial_json(const char *command, const char *schema,
			       int schema_version,
			       const struct stg_stall *stall, int sig,
			       const char *note)
{
	json_t *root = json_object();

	if (!root)
		return NULL;
	if (schema)
		json_object_set_new(root, "schema", json_string(schema));
	json_object_set_new(root, "schema_version",
			    json_integer(schema_version));
	json_object_set_new(root, "command", json_string(command));
	json_object_set_new(root, "partial", json_true());
	json_object_set_new(root, "stopped_by", json_string(
		stall && stall->stalled ? "stalled" : sig ? "signal" :
		"error"));
	json_object_set_new(root, "signal", sig ? json_integer(sig) :
			    json_null());
	json_object_set_new(root, "stalled", rpt_stall_json(stall));
	json_object_set_new(root, "note", json_string(note ? note : ""));
	return root;
}
