/*
 * rpt_json.h - the report kit's JSON numbers (reports/ only).
 *
 * One rule for every number a report writes: a finite value is written as
 * a JSON real; NaN, +inf and -inf are written as null. jansson's
 * json_real() returns NULL for a value that is not finite, and
 * json_object_set_new() then drops the key without a word; these helpers
 * never return NULL for that reason, so a key is never lost.
 */
#ifndef FEEDRATE_RPT_JSON_H
#define FEEDRATE_RPT_JSON_H

#include <stdbool.h>

#include <jansson.h>

/* V as a JSON real, or null when V is NaN or infinite. Returns a new
 * reference, NULL only when out of memory. */
json_t *rpt_jnum(double v);

/* rpt_jnum(V) when KNOWN, else null. */
json_t *rpt_jnum_if(double v, bool known);

/* rpt_jnum(V), or null when V < 0 (a figure the reports mark unknown with
 * a negative value). */
json_t *rpt_jnum_nonneg(double v);

/* rpt_jnum(V), or null when V <= 0 (a figure the user did not give). */
json_t *rpt_jnum_pos(double v);

#endif /* FEEDRATE_RPT_JSON_H */
