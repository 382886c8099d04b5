/* SPDX-License-Identifier: BSD-2-Clause */
/* dsinfo events: the generic-event table for this machine or a CPUID dump (dsinfo_events.c). */
#ifndef DSINFO_EVENTS_H
#define DSINFO_EVENTS_H
#include <stdbool.h>

/* @dump: --cpuid-dump FILE or NULL for the live machine. Returns the exit
 * status: 0 (CPUs outside the table are reported with the reason), or 1
 * when the dump cannot be read or no logical CPU could be examined. */
int dsinfo_cmd_events(bool json, const char *dump);

#endif
