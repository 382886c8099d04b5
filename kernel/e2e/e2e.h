/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The test kernel end to end (issue 6): the functional probe picks the
 * backend (hardware DS, or the reference model driven by single-stepping the
 * real workloads), then per profile PEBS, BTS (threshold interrupt and
 * circular) and LBR runs over kernel/workloads, checked in the kernel (ktest
 * lines) and printed as DSLOG records (docs/records.md). See docs/design.md,
 * "Test kernel end to end".
 *
 * Command line: backend=hw|model|auto (default auto), profile=a,b,c (model
 * profiles; default per architecture, see profile.c), e2e_verbose=1.
 * Registered as the ktest group "e2e" (runs by default).
 */
#ifndef K_E2E_H
#define K_E2E_H

#include <stdbool.h>
#include <stdint.h>
#include <k/smp.h>

/* Run the whole flow on the calling CPU (the ktest group body). Not
 * NMI-safe. */
void k_e2e_run(void);

/* Issue 13: the flow on every running CPU at once, the BSP included. Each
 * CPU has its own state (DS area, buffers, model CPU, log; kernel/e2e keeps
 * one struct per CPU, found by k_smp_self), its own ds_cpu (what it
 * identified on itself) and, where profiles[i] is not NULL, those model
 * profiles instead of profile= (same syntax, at most 127 characters;
 * cpu_profile.N=). Its checks are prefixed "cpuN "; console output goes
 * out a whole line at a time (k_console_lines). The arrays have
 * k_smp_slots() elements (issue 24: no CPU maximum); an AP runs the flows
 * where take[i] (the BSP always does). Returns how many CPUs ran; res[i] is
 * CPU i's: its logs and checks over all of them. */
struct k_e2e_cpu_result {
    bool ran;
    unsigned logs, passed, failed, skipped;
    uint64_t t0, t1; /* TSC at the start and the end of the CPU's flows */
};
unsigned k_e2e_run_all(const char *const profiles[], const bool take[], struct k_e2e_cpu_result res[]);

#endif
