/* SPDX-License-Identifier: BSD-2-Clause */
/* --json: runs, every record, CPUs and errors as one JSON document (RFC 8259). */
#ifndef DSDUMP_OUT_JSON_H
#define DSDUMP_OUT_JSON_H

#include "cpugroups.h"
#include "input.h"
#include "runs.h"

/* On stdout. */
void print_json(const struct input *S, const struct runs *R, const struct cpugroups *G);

#endif /* DSDUMP_OUT_JSON_H */
