/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one-screen verdict printed at the end of every run (issue 14): the CPU,
 * the e2e backend and why, passed/failed/skipped per test group, the records
 * of each run, the final line. On the serial and VGA consoles it is a block of
 * "# verdict |" lines; on a framebuffer it replaces the screen, large, on a
 * green or red background, so that one photo of the screen is the report.
 * Static storage only (bounded tables; what does not fit is counted).
 */
#ifndef K_VERDICT_H
#define K_VERDICT_H

#include <stdbool.h>

void k_verdict_cpu(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void k_verdict_backend(const char *backend, const char *why);
/* A line under the CPU's (e.g. "e2e flows on 16 of 64 CPUs"); the last one set. */
void k_verdict_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One RUN line of the record log: the profile (or "hw") and run name. */
void k_verdict_run(const char *profile, const char *run, unsigned records);
/* One check of group: 0 passed, 1 failed, 2 skipped. */
void k_verdict_count(const char *group, int kind);
/* Print the verdict on every console. */
void k_verdict_show(unsigned passed, unsigned failed, unsigned skipped);

#endif
