/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per-CPU state (issue 24) and the calling CPU's index (issue 13), below
 * the SMP startup (k/smp.h) so that the console, the spin lock and the PMI
 * plumbing can use them without depending on it (issue 26: no circle).
 *
 * A file declares K_PERCPU(type, name); k_smp_setup() (k/smp.h) sizes the
 * CPU slots and k_percpu_alloc() points every `name` at a zeroed array of
 * k_smp_slots() elements from free RAM: name[k_smp_self()] is the caller's.
 * NULL before k_smp_setup. The descriptors are collected in section
 * .kpercpu (linker/<arch>.ld), 32 bytes apart on both arches (the type's
 * alignment: GCC aligns a 24-byte static object to 16 on x86_64).
 */
#ifndef K_PERCPU_H
#define K_PERCPU_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

struct k_percpu {
    void *var;          /* address of the `type *` variable */
    uint32_t size, align;
    const char *name;
} __attribute__((aligned(32)));
#define K_PERCPU(type, name)                                                                        \
    static type *name;                                                                              \
    static const struct k_percpu name##_percpu __attribute__((section(".kpercpu"), used)) = {       \
        &name, sizeof(type), _Alignof(type), #name }

/* Bytes of every K_PERCPU array with @n elements each (alignment included). */
size_t k_percpu_bytes(unsigned n);
/* One block from free RAM (k/mem.h) for every K_PERCPU array with @n
 * elements each; on success k_smp_slots() is @n. False: nothing changed. */
bool k_percpu_alloc(unsigned n);
/* The APs' areas (their stacks and #DF stacks, k/smp.h): @n areas of
 * @stride bytes from @base, area i being CPU i's. k_smp_self finds the
 * caller from its stack pointer in them. */
void k_percpu_set_areas(const void *base, size_t stride);

/* CPU slots with per-CPU state (K_PERCPU arrays have this many elements):
 * 1 + the highest logical number that may run; at least 1 after
 * k_smp_setup. Every CPU that runs has i < k_smp_slots(). */
unsigned k_smp_slots(void);

/* The caller's CPU index (0 = BSP), from its stack pointer: an AP runs on
 * its own stack and #DF stack (both in that AP's area); anything else is the
 * BSP. Every trap but #DF runs on the interrupted stack, so it holds in the
 * PMI, #DB and NMI handlers too. Cheap (no APIC read): per-CPU state is
 * looked up with it on every single step of the e2e flows. */
unsigned k_smp_self(void);

#endif
