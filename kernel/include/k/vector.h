/* SPDX-License-Identifier: BSD-2-Clause */
/* The vector map and the exception names, for the dispatcher (trap.c), the
 * local APIC's LVT entries and fault messages (lapic.c) and the tests: a
 * module of its own so that programming or naming a vector needs no trap
 * dispatch (issue 26: lapic and trap no longer depend on each other both
 * ways). */
#ifndef K_VECTOR_H
#define K_VECTOR_H

/* Exception vectors (SDM Vol. 3A "Exception and Interrupt Reference") */
#define K_VEC_DE   0
#define K_VEC_DB   1
#define K_VEC_NMI  2
#define K_VEC_BP   3
#define K_VEC_UD   6
#define K_VEC_DF   8
#define K_VEC_GP  13
#define K_VEC_PF  14

/* Interrupt vectors used by the kernel (fixed here, free ones for tests). */
#define K_VEC_PIC_BASE   0x20   /* 8259 PICs remapped here, all masked */
#define K_VEC_TEST_FIRST 0x40   /* 0x40..0xDF: free for test groups */
#define K_VEC_TEST_LAST  0xDF
#define K_VEC_TIMER      0xEF   /* LAPIC timer (kept masked) */
#define K_VEC_PMI        0xF0   /* LVT Performance Counter, fixed delivery */
#define K_VEC_LVT_ERROR  0xFE   /* LAPIC error */
#define K_VEC_SPURIOUS   0xFF   /* LAPIC spurious vector (no EOI) */

/* Exception mnemonic ("#GP general protection") for vector < 32, else "IRQ". */
const char *k_trap_name(unsigned vector);

#endif
