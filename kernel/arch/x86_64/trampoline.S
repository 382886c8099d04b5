/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * AP startup trampoline (x86_64). kernel/src/smp.c copies the bytes between
 * k_ap_tramp_start and k_ap_tramp_end to K_AP_TRAMP_BASE (0x8000, below
 * 1 MiB, 4 KiB aligned) and sends STARTUP IPIs with vector 0x08: the AP
 * starts in real mode at CS:IP = 0800:0000 (SDM Vol. 3A "MP Initialization
 * Protocol Algorithm for MP Systems", "Startup IPI"). It then follows the
 * BSP's own path (boot/x86_64/entry.S, SDM "Initializing IA-32e Mode"):
 * protected mode with a flat GDT, CR4.PAE, CR3 = the BSP's page tables,
 * EFER.LME, CR0.PG, a far jump into 64-bit code, and calls
 * params.entry(params.arg) on params.stack. The BSP fills the parameter
 * block (k_ap_tramp_params) before each SIPI and starts one AP at a time.
 * Position: everything is addressed as K_AP_TRAMP_BASE + offset.
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
    or $1, %eax                     /* PE */
    mov %eax, %cr0
    ljmpl $0x08, $OFF(pm32)

    .code32
pm32:
    mov $0x10, %ax
    mov %ax, %ds
    mov %ax, %es
    mov %ax, %ss
    mov OFF(p_cr4), %eax            /* the BSP's CR4 (PAE and whatever else it set) */
    mov %eax, %cr4
    mov OFF(p_cr3), %eax
    mov %eax, %cr3
    mov $0xC0000080, %ecx           /* IA32_EFER.LME */
    rdmsr
    or $(1 << 8), %eax
    wrmsr
    mov %cr0, %eax
    and $~0x6000000C, %eax          /* CD | NW | TS | EM */
    or $0x80010021, %eax            /* PG | WP | NE | PE */
    mov %eax, %cr0
    ljmp $0x18, $OFF(lm64)

    .code64
lm64:
    mov $0x10, %ax
    mov %ax, %ds
    mov %ax, %es
    mov %ax, %ss
    mov %ax, %fs
    mov %ax, %gs
    movq OFF(p_stack), %rsp
    movq OFF(p_arg), %rdi
    movq OFF(p_entry), %rax
    xor %ebp, %ebp
    call *%rax                      /* does not return */
1:  cli
    hlt
    jmp 1b

    .balign 8
tgdt:
    .quad 0
    .quad 0x00CF9A000000FFFF        /* 0x08: code, 32-bit */
    .quad 0x00CF92000000FFFF        /* 0x10: data */
    .quad 0x00AF9A000000FFFF        /* 0x18: code, 64-bit */
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
