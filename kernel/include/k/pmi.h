/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PMI plumbing: the LVT Performance Counter entry, delivery as a fixed
 * vector (K_VEC_PMI) or as NMI, and the registrable PMI handler.
 * SDM Vol. 3B "Generic Performance Monitoring Interrupt" ... and Vol. 3A
 * "Local Vector Table": when a counter overflow raises a PMI, the CPU sets
 * the LVT PC mask bit; the handler must clear it again. The plumbing does
 * that after every PMI, in both modes.
 *
 * Fixed mode: K_VEC_PMI handler -> registered PMI handler -> EOI ->
 *   unmask LVT PC.
 * NMI mode: the NMI handler (vector 2) calls the registered PMI handler,
 *   then any other NMI handlers (k_nmi_register) -> unmask LVT PC. No EOI
 *   (NMI delivery needs none).
 * The PMI handler returns true if it recognised the interrupt as its own.
 * In NMI mode it runs in NMI context: only NMI-safe code (libds functions
 * marked NMI-safe, kprintf, k/safe.h probes).
 */
#ifndef K_PMI_H
#define K_PMI_H

#include <stdbool.h>
#include <k/trap.h>

enum k_pmi_mode { K_PMI_FIXED = 0, K_PMI_NMI = 1 };

typedef bool (*k_pmi_fn)(struct k_trap_frame *f, bool in_nmi, void *ctx);

/* Install the vector/NMI handlers and program LVT PC (masked) for @mode.
 * Requires k_lapic_init() first. */
void k_pmi_init(enum k_pmi_mode mode);
/* Switch delivery mode; LVT PC keeps its mask bit. */
void k_pmi_set_mode(enum k_pmi_mode mode); /* per CPU: the calling CPU's mode (issue 13) */
enum k_pmi_mode k_pmi_mode(void);
const char *k_pmi_mode_name(enum k_pmi_mode mode);
/* The LVT PC value (unmasked) for the current mode. */
uint32_t k_pmi_lvt_value(void);
/* Unmask LVT PC with the current mode's value. */
void k_pmi_arm(void);
/* Mask LVT PC. */
void k_pmi_disarm(void);

/* Register the PMI handler (NULL to remove). Returns the previous one and,
 * if out_old_ctx is not NULL, its ctx (to restore it later). */
k_pmi_fn k_pmi_register(k_pmi_fn fn, void *ctx, void **out_old_ctx);

/* Counters since boot: PMIs delivered on the fixed vector, PMIs handled
 * in NMI mode, NMIs no handler claimed. */
unsigned k_pmi_fixed_count(void);
unsigned k_pmi_nmi_count(void);
unsigned k_nmi_unclaimed_count(void);

/* Additional NMI handlers (e.g. a test's NMI probe); up to 4. The function
 * returns true if it claimed the NMI. Returns 0 or -1 if full. */
typedef bool (*k_nmi_fn)(struct k_trap_frame *f, void *ctx);
int k_nmi_register(k_nmi_fn fn, void *ctx);
void k_nmi_unregister(k_nmi_fn fn);

#endif
