/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The GDT and TSS of a CPU: one layout and one owner for the boot CPU's
 * (k_trap_init) and every AP's (k/smp.h) (issue 26: trap.c and smp.c used
 * to build the same tables each). #DF runs on its own stack so that a
 * kernel stack overflow is reported instead of escalating to a triple
 * fault: x86_64 through IST1 (the IDT's #DF gate names it; trap.c reports),
 * i386 through a task gate to a #DF task with its own TSS (reported here).
 *
 * Selectors: 0x08 code32, 0x10 data; x86_64: 0x18 code64, 0x20 the TSS
 * (16 bytes); i386: 0x18 the CPU's TSS, 0x20 the #DF task's TSS.
 */
#ifndef K_GDT_H
#define K_GDT_H

#include <stdint.h>

#if defined(__x86_64__)
#define K_GDT_KERNEL_CS 0x18
/* SDM Vol. 3A "Task Management in 64-bit Mode": the 64-bit TSS. Only
 * IST1 is used. */
struct k_tss64 {
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7];
    uint64_t reserved2;
    uint16_t reserved3, iomap_base;
} __attribute__((packed));
_Static_assert(sizeof(struct k_tss64) == 104, "tss size");
struct k_cpu_tables {
    uint64_t gdt[7];
    struct k_tss64 tss;
};
#else
#define K_GDT_KERNEL_CS 0x08
#define K_GDT_DF_TASK 0x20 /* the #DF task gate's TSS selector */
/* SDM Vol. 3A "32-Bit Task-State Segment (TSS)". */
struct k_tss32 {
    uint32_t link, esp0, ss0, esp1, ss1, esp2, ss2, cr3, eip, eflags;
    uint32_t eax, ecx, edx, ebx, esp, ebp, esi, edi;
    uint32_t es, cs, ss, ds, fs, gs, ldt;
    uint16_t trap, iomap_base;
};
_Static_assert(sizeof(struct k_tss32) == 104, "tss size");
_Static_assert(__builtin_offsetof(struct k_tss32, eip) == 32, "tss eip");
_Static_assert(__builtin_offsetof(struct k_tss32, ldt) == 96, "tss ldt");
struct k_cpu_tables {
    uint64_t gdt[5];
    struct k_tss32 tss_main, tss_df;
};
#endif

/* Bytes of a CPU's #DF stack. */
#define K_DF_STACK 8192

/* Build and load (LGDT, LTR) the boot CPU's tables, with its #DF stack. */
void k_gdt_load_bsp(void);
/* Build and load @t on the calling AP, whose #DF stack ends at @df_top
 * (16-byte aligned); its #DF report names an application processor. */
void k_gdt_load_ap(struct k_cpu_tables *t, uint8_t *df_top);

#endif
