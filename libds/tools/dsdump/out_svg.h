/* SPDX-License-Identifier: BSD-2-Clause */
/* --svg: an SVG hot-spot chart of the sample table (the top 20 symbols of each PEBS run). */
#ifndef DSDUMP_OUT_SVG_H
#define DSDUMP_OUT_SVG_H

#include "input.h"
#include "runs.h"

/* Writes the chart to path. Returns 0, or nonzero with errno set (fopen/fclose failed). */
int write_svg(const char *path, const struct input *S, const struct runs *R);

#endif /* DSDUMP_OUT_SVG_H */
