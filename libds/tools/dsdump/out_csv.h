/* SPDX-License-Identifier: BSD-2-Clause */
/* --csv: the sample table as CSV (log,run,symbol,samples,percent,cpu). */
#ifndef DSDUMP_OUT_CSV_H
#define DSDUMP_OUT_CSV_H

#include "input.h"
#include "runs.h"

/* On stdout. */
void print_csv(const struct input *S, const struct runs *R);

#endif /* DSDUMP_OUT_CSV_H */
