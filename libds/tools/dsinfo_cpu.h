/* SPDX-License-Identifier: BSD-2-Clause */
/* dsinfo cpu: identification of this machine or of a CPUID dump (dsinfo_cpu.c). */
#ifndef DSINFO_CPU_H
#define DSINFO_CPU_H
#include <stdbool.h>

/* argc/argv: the words after "cpu" (none allowed; 2 = usage error). @dump:
 * --cpuid-dump FILE or NULL for the live machine. Returns the exit status. */
int dsinfo_cmd_cpu(int argc, char **argv, bool json, const char *dump);

#endif
