/*
 * report_fmt.h - number formats the text reports share (reports/ only).
 */
#ifndef FEEDRATE_REPORT_FMT_H
#define FEEDRATE_REPORT_FMT_H

#include <math.h>
#include <stdio.h>
#include <string.h>

/* V rounded to a whole number with thousands commas: "1,234,567". */
static inline void rpt_fmt_count(char *buf, size_t len, double v)
{
	char tmp[32];
	size_t n, o = 0;

	snprintf(tmp, sizeof(tmp), "%.0f", fabs(v));
	n = strlen(tmp);
	if (v < 0 && o + 1 < len)
		buf[o++] = '-';
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
}

/* B bytes in decimal units: "1.50 TB", "2.00 GB", "3.5 MB", "512 B". */
static inline void rpt_fmt_bytes(char *buf, size_t len, double b)
{
	if (b >= 1e12)
		snprintf(buf, len, "%.2f TB", b / 1e12);
	else if (b >= 1e9)
		snprintf(buf, len, "%.2f GB", b / 1e9);
	else if (b >= 1e6)
		snprintf(buf, len, "%.1f MB", b / 1e6);
	else if (b >= 1e3)
		snprintf(buf, len, "%.1f KB", b / 1e3);
	else
		snprintf(buf, len, "%.0f B", b);
}

/* S seconds in words: "0.42 s", "95 s", "19 min 05 s", "2 h 03 min";
 * "-" when S < 0 (unknown). */
static inline void rpt_fmt_dur(char *buf, size_t len, double s)
{
	if (s < 0)
		snprintf(buf, len, "-");
	else if (s < 10)
		snprintf(buf, len, "%.2f s", s);
	else if (s < 100)
		snprintf(buf, len, "%.1f s", s);
	else if (s < 120)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.0f min %02.0f s", floor(s / 60),
			 fmod(floor(s), 60));
	else
		snprintf(buf, len, "%.0f h %02.0f min", floor(s / 3600),
			 floor(fmod(s, 3600) / 60));
}

#endif /* FEEDRATE_REPORT_FMT_H */
