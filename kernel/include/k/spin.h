/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Spin lock for kernel state shared by CPUs running at the same time (the
 * console's line output, test counters, the verdict; issue 13). Re-entrant
 * on one CPU: k_spin_lock returns false when this CPU already holds it (an
 * NMI handler that prints while its CPU holds the console), and then
 * k_spin_unlock does nothing, so an NMI never deadlocks its own CPU.
 * A module of its own (issue 26): the console takes it without depending
 * on the SMP startup.
 */
#ifndef K_SPIN_H
#define K_SPIN_H

#include <stdbool.h>

struct k_spin {
    volatile int owner; /* CPU index + 1; 0: free */
};
bool k_spin_lock(struct k_spin *l);
void k_spin_unlock(struct k_spin *l, bool taken);

#endif
