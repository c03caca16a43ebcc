/*
 * rpt_json.c - the report kit's JSON numbers: not finite is null.
 */
#include <math.h>

#include "rpt_json.h"

json_t *rpt_jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *rpt_jnum_if(double v, bool known)
{
	return known ? rpt_jnum(v) : json_null();
}

json_t *rpt_jnum_nonneg(double v)
{
	return rpt_jnum_if(v, v >= 0);
}

json_t *rpt_jnum_pos(double v)
{
	return rpt_jnum_if(v, v > 0);
}
