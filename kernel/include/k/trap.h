/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Traps and interrupts: the saved register frame, the vector map and
 * per-vector handler registration.
 *
 * Every vector 0..255 enters the common stub (kernel/arch/<arch>/isr.S),
 * which saves all general registers into struct k_trap_frame and calls the
 * dispatcher. The dispatcher, in order:
 *   1. exceptions (0..31): if the faulting IP is a registered fixup site
 *      (k/safe.h), resume at the fixup with the vector reported: done;
 *   2. a registered handler for the vector: call it; done;
 *   3. an unhandled exception: print vector, name, error code, IP, CR2 and
 *      all registers, then exit with a failing status (k/ktest.h);
 *   4. an unhandled interrupt: print a line, count it, EOI the local APIC.
 * Handlers run with interrupts disabled (all gates are interrupt gates) and
 * may change the frame (e.g. clear K_FLAGS_TF in flags to stop single
 * stepping, or advance ip). The kernel runs at CPL 0 only.
 */
#ifndef K_TRAP_H
#define K_TRAP_H

#include <stdint.h>
#include <stdbool.h>

#include <k/vector.h> /* the vector map (K_VEC_*) and k_trap_name */

#if defined(__x86_64__)
struct k_trap_frame {
    uint64_t ax, bx, cx, dx, si, di, bp;
    uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
    uint64_t vector, error;
    uint64_t ip, cs, flags, sp, ss;   /* pushed by the CPU */
};
_Static_assert(sizeof(struct k_trap_frame) == 176, "frame layout (isr.S)");
#else
struct k_trap_frame {
    uint32_t ax, bx, cx, dx, si, di, bp;
    uint32_t vector, error;
    uint32_t ip, cs, flags;           /* pushed by the CPU (same CPL: no SS:ESP) */
};
_Static_assert(sizeof(struct k_trap_frame) == 48, "frame layout (isr.S)");
#endif

typedef void (*k_trap_fn)(struct k_trap_frame *f, void *ctx);

/* Build and load the IDT, the kernel GDT and a TSS (k/gdt.h): #DF runs on
 * its own stack (x86_64: IST1; i386: a task gate to a separate TSS). */
void k_trap_init(void);

/*
 * Install @fn for @vector (0..255), replacing any previous handler; NULL
 * removes it. Returns 0, or -1 if @vector > 255. Vector 2 (NMI) is owned by
 * the PMI plumbing (k/pmi.h: k_nmi_register adds NMI handlers instead).
 * Not NMI-safe (call with interrupts enabled or disabled, not from an NMI).
 */
int k_trap_register(unsigned vector, k_trap_fn fn, void *ctx);

/* Mark an IDT gate present or not present. For tests that provoke a
 * double fault (a not-present #GP gate turns a #GP into #DF). */
void k_trap_set_present(unsigned vector, bool present);

/* Print a frame (vector, error, ip, flags, registers). */
void k_trap_dump(const struct k_trap_frame *f);

/* Count of interrupts that arrived with no handler (excluding spurious). */
unsigned k_trap_unexpected_count(void);
/* Count of LAPIC spurious-vector interrupts. */
unsigned k_trap_spurious_count(void);

/* Called by isr.S only. */
void k_trap_dispatch(struct k_trap_frame *f);

#endif
