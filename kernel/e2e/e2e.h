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
 * profiles; default per architecture, see e2e.c), e2e_verbose=1.
 * Registered as the ktest group "e2e" (runs by default).
 */
#ifndef K_E2E_H
#define K_E2E_H

/* Run the whole flow (the ktest group body). Not NMI-safe; call once. */
void k_e2e_run(void);

/* When non-NULL, the model profile list k_e2e_run uses instead of
 * profile= (same syntax, at most 127 characters): set by the smp_e2e group
 * for an AP given its own profiles (cpu_profile.N=, issue 13). */
extern const char *k_e2e_profile_override;

#endif
