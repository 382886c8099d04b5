/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * i386 kernel entry. The kernel stays in 32-bit protected mode (no paging)
 * so that the 32-bit DS save area layout is exercised for real.
 *
 * Two boot headers: Multiboot2 (GRUB's path, from the ISO) and Multiboot1
 * (QEMU's `-kernel` accepts an ELF32 with a Multiboot1 header). Both enter
 * here in 32-bit protected mode, paging off, interrupts off, with the magic
 * in EAX and the physical address of the boot information in EBX.
 */
#include "../multiboot.inc"

    .section .multiboot, "a"
    .balign 4
mb1_header:                         /* Multiboot 0.6.96, "Header layout" */
    .long MB1_HEADER_MAGIC
    .long MB1_FLAG_ALIGN | MB1_FLAG_MEMINFO
    .long -(MB1_HEADER_MAGIC + (MB1_FLAG_ALIGN | MB1_FLAG_MEMINFO))

    .balign 8
mb2_header:                         /* Multiboot2 spec, "Header magic fields" */
    .long MB2_HEADER_MAGIC
    .long MB2_ARCH_I386
    .long mb2_header_end - mb2_header
    .long -(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
    .balign 8                       /* end tag: type 0, flags 0, size 8 */
    .short 0, 0
    .long 8
mb2_header_end:

    .text
    .code32
    .globl _start
_start:
    cli
    cld
    mov %eax, %esi                  /* boot magic */
    /* Clear .bss (loaders do, but do not trust them). No stack yet. */
    mov $__bss_start, %edi
    mov $__bss_end, %ecx
    sub %edi, %ecx
    xor %eax, %eax
    rep stosb
    mov %ebx, %edi                  /* boot info (physical) */
    mov $k_boot_stack_top, %esp
    lgdt gdt_desc
    ljmp $0x08, $1f
1:  mov $0x10, %ax
    mov %ax, %ds
    mov %ax, %es
    mov %ax, %ss
    mov %ax, %fs
    mov %ax, %gs
    xor %ebp, %ebp
    push %edi                       /* info */
    push %esi                       /* magic */
    call kmain
2:  cli
    hlt
    jmp 2b

    .section .rodata
    .balign 8
gdt:                                /* SDM Vol. 3A "Segment Descriptors" */
    .quad 0
    .quad 0x00CF9A000000FFFF        /* 0x08: code, base 0, 4 GiB, 32-bit */
    .quad 0x00CF92000000FFFF        /* 0x10: data, base 0, 4 GiB */
gdt_end:
gdt_desc:
    .short gdt_end - gdt - 1
    .long gdt

    .section .bss
    .balign 16
    .globl k_boot_stack_top
k_boot_stack:
    .skip KERNEL_STACK_SIZE
k_boot_stack_top:
