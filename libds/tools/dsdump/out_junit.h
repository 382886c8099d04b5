/* SPDX-License-Identifier: BSD-2-Clause */
/* --junit: the kernel's TAP checks as JUnit XML (issue 27 item 9). */
#ifndef DSDUMP_OUT_JUNIT_H
#define DSDUMP_OUT_JUNIT_H

#include <stdio.h>

/* Writes the TAP lines in tap (rewound here) as one JUnit testsuite to path,
 * plus a testcase "dsdump: log" failed when the log had nerr errors.
 * Returns 0, or -1 (errno) when path cannot be written. */
int write_junit(const char *path, FILE *tap, const char *name, size_t nerr);

#endif
