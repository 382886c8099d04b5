/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * AP startup trampoline (i386). Copied to K_AP_TRAMP_BASE (0x8000) by
 * kernel/src/smp.c; STARTUP IPI vector 0x08 starts the AP in real mode at
 * 0800:0000 (SDM Vol. 3A "MP Initialization Protocol Algorithm"). Protected
 * mode with a flat GDT, then the BSP's paging (CR4 as the BSP has it, e.g.
 * PSE; CR3; CR0.PG), then params.entry(params.arg) on params.stack.
 */
#define K_AP_TRAMP_BASE 0x8000
#define OFF(x) (K_AP_TRAMP_BASE + ((x) - k_ap_tramp_start))

    .section .rodata
    .balign 16
    .globl k_ap_tramp_start, k_ap_tramp_end, k_ap_tramp_params
k_ap_tramp_start:
    .code16
    cli
    cld
    xor %ax, %ax
    mov %ax, %ds
    lgdtl OFF(tgdt_desc)
    mov %cr0, %eax
    or $1, %eax
    mov %eax, %cr0
    ljmpl $0x08, $OFF(pm32)

    .code32
pm32:
    mov $0x10, %ax
    mov %ax, %ds
    mov %ax, %es
    mov %ax, %ss
    mov %ax, %fs
    mov %ax, %gs
    mov OFF(p_cr4), %eax
    mov %eax, %cr4
    mov OFF(p_cr3), %eax
    mov %eax, %cr3
    mov %cr0, %eax
    and $~0x6000000C, %eax          /* CD | NW | TS | EM */
    or $0x80010021, %eax            /* PG | WP | NE | PE */
    mov %eax, %cr0
    ljmp $0x08, $OFF(paged)         /* identity map: same address */
paged:
    mov OFF(p_stack), %esp
    pushl OFF(p_arg)
    xor %ebp, %ebp
    call *OFF(p_entry)              /* does not return */
1:  cli
    hlt
    jmp 1b

    .balign 8
tgdt:
    .quad 0
    .quad 0x00CF9A000000FFFF        /* 0x08: code */
    .quad 0x00CF92000000FFFF        /* 0x10: data */
tgdt_desc:
    .short tgdt_desc - tgdt - 1
    .long OFF(tgdt)
    .balign 8
k_ap_tramp_params:                  /* struct k_ap_tramp_params (k/smp.h) */
p_cr3:   .quad 0
p_cr4:   .quad 0
p_stack: .quad 0
p_entry: .quad 0
p_arg:   .quad 0
k_ap_tramp_end:
