/*
 * workloads_internal.h - declarations shared between workloads/ files only.
 */
#ifndef FEEDRATE_WORKLOADS_INTERNAL_H
#define FEEDRATE_WORKLOADS_INTERNAL_H

#include "workloads.h"

/* The ImageFolder JPEG generator (gen_images.c). */
extern const struct wl_gen_ops wl_gen_imagefolder;

#endif /* FEEDRATE_WORKLOADS_INTERNAL_H */
