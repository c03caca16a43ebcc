/*
 * augment.h - public interface of feedrate's augment module: turning the
 * bytes of a sample into a training tensor (JPEG decode, crop, resize, flip,
 * normalize), and the JPEG encoder the synthetic dataset generator uses.
 * Depends on libjpeg-turbo and zstd only.
 */
#ifndef FEEDRATE_AUGMENT_H
#define FEEDRATE_AUGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ==== encoding ==== */
/* ==== end encoding ==== */

#endif /* FEEDRATE_AUGMENT_H */
