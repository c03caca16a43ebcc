/*
 * rpt_usage.h - the words around the option lists of each command's
 * --help (run, sweep, io, ckpt, gen, info, compare): what the command
 * does (head) and its closing words (tail: exit statuses; sweep's also
 * the cluster sweep and the budget rule; gen's the workloads). CMD
 * "feedrate": the words around `feedrate --help`'s list of commands. Any thread; they only print.
 */
#ifndef FEEDRATE_RPT_USAGE_H
#define FEEDRATE_RPT_USAGE_H

#include <stdio.h>

/* CMD's usage line and description on F; nothing for another CMD. */
void rpt_usage_head(FILE *f, const char *cmd);

/* CMD's closing words (exit statuses) on F; nothing for another CMD. */
void rpt_usage_tail(FILE *f, const char *cmd);

#endif /* FEEDRATE_RPT_USAGE_H */
