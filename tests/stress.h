/*
 * stress.h - scenarios of the plain-C stress driver (tests/stress.c), run
 * under ThreadSanitizer where Criterion cannot run. Each scenario prints one
 * line per check ("ok   ..." or "FAIL ...") and returns how many failed.
 */
#ifndef FEEDRATE_STRESS_H
#define FEEDRATE_STRESS_H

int stress_storage(void);
int stress_pipeline(void);
int stress_augment(void);
int stress_shards(void);

#endif /* FEEDRATE_STRESS_H */
