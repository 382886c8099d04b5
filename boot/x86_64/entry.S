/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * x86_64 kernel entry: a 32-bit entry that switches to long mode.
 *
 * Boot headers: Multiboot2 (GRUB, from the ISO) and a Xen PVH ELF note
 * (XEN_ELFNOTE_PHYS32_ENTRY) for QEMU's `-kernel`, which refuses an ELF64
 * with a Multiboot1 header but accepts an ELF64 with a PVH note. Both
 * protocols enter in 32-bit protected mode, flat segments, paging off:
 *   Multiboot2: EAX = 0x36D76289, EBX = multiboot2 information;
 *   PVH:        EBX = struct hvm_start_info (EAX undefined).
 *
 * Paging: identity map of the first 4 GiB with 2 MiB pages, which covers
 * the local APIC MMIO page (0xFEE00000 by default); the 2 MiB page holding
 * it is mapped PCD|PWT (uncached). SDM Vol. 3A "Initializing IA-32e Mode".
 */
#include "../multiboot.inc"

    .section .multiboot, "a"
    .balign 8
mb2_header:                         /* Multiboot2 spec, "Header magic fields" */
    .long MB2_HEADER_MAGIC
    .long MB2_ARCH_I386
    .long mb2_header_end - mb2_header
    .long -(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
    .balign 8
    .short 0, 0                     /* end tag */
    .long 8
mb2_header_end:

    .section .note.Xen, "a"         /* ELF note: namesz, descsz, type, name, desc */
    .balign 4
    .long 4
    .long 4
    .long XEN_ELFNOTE_PHYS32_ENTRY
    .asciz "Xen"
    .balign 4
    .long pvh_start

    .text
    .code32
    .globl _start
pvh_start:
    mov $PVH_START_MAGIC, %eax      /* tell kmain which protocol */
    /* fall through */
_start:
    cli
    cld
    mov %eax, %esi                  /* boot magic */
    mov %ebx, %ebp                  /* boot info (physical) */

    /* Clear .bss (holds the page tables and the stack). */
    mov $__bss_start, %edi
    mov $__bss_end, %ecx
    sub %edi, %ecx
    xor %eax, %eax
    rep stosb
    mov $k_boot_stack_top, %esp

    /* Long mode needs CPUID.80000001H:EDX.LM[29]. */
    mov $0x80000000, %eax
    cpuid
    cmp $0x80000001, %eax
    jb no_long_mode
    mov $0x80000001, %eax
    cpuid
    bt $29, %edx
    jnc no_long_mode

    /* PML4[0] -> PDPT; PDPT[0..3] -> PD0..PD3; PDn[j] = 2 MiB page. */
    mov $pdpt, %eax
    or $0x3, %eax                   /* present, writable */
    mov %eax, pml4
    xor %ecx, %ecx
1:  mov %ecx, %eax
    shl $12, %eax
    add $pd, %eax
    or $0x3, %eax
    mov %eax, pdpt(,%ecx,8)
    inc %ecx
    cmp $4, %ecx
    jb 1b
    xor %ecx, %ecx                  /* 2048 entries, 2 MiB each */
2:  mov %ecx, %eax
    shl $21, %eax
    or $0x83, %eax                  /* present, writable, PS */
    mov %eax, pd(,%ecx,8)
    mov %ecx, %eax
    shr $11, %eax                   /* bits 32+ of the physical address */
    mov %eax, pd+4(,%ecx,8)
    inc %ecx
    cmp $2048, %ecx
    jb 2b
    /* Local APIC default page: uncached (PCD|PWT). */
    orl $0x18, pd + (0xFEE00000 >> 21) * 8

    mov $pml4, %eax
    mov %eax, %cr3
    mov %cr4, %eax
    or $(1 << 5), %eax              /* CR4.PAE */
    mov %eax, %cr4
    mov $0xC0000080, %ecx           /* IA32_EFER */
    rdmsr
    or $(1 << 8), %eax              /* LME */
    wrmsr
    mov %cr0, %eax
    or $0x80010001, %eax            /* PG | WP | PE */
    mov %eax, %cr0
    lgdt gdt_desc
    ljmp $0x18, $long_entry

no_long_mode:
    /* Only COM1 is assumed here: print a line and halt. */
    mov $msg_nolm, %esi
3:  lodsb
    test %al, %al
    jz 4f
    mov $0x3F8, %dx
    out %al, %dx
    jmp 3b
4:  cli
    hlt
    jmp 4b

    .code64
long_entry:
    mov $0x10, %ax
    mov %ax, %ds
    mov %ax, %es
    mov %ax, %ss
    mov %ax, %fs
    mov %ax, %gs
    mov $k_boot_stack_top, %rsp
    mov %esi, %edi                  /* arg 1: magic (zero-extended) */
    mov %ebp, %esi                  /* arg 2: info */
    xor %ebp, %ebp
    call kmain
5:  cli
    hlt
    jmp 5b

    .section .rodata
msg_nolm:
    .asciz "libds x86_64 kernel: CPU has no long mode; boot the i386 kernel\r\n"
    .balign 8
gdt:                                /* SDM Vol. 3A "Segment Descriptors" */
    .quad 0
    .quad 0x00CF9A000000FFFF        /* 0x08: code, 32-bit */
    .quad 0x00CF92000000FFFF        /* 0x10: data */
    .quad 0x00AF9A000000FFFF        /* 0x18: code, 64-bit (L=1) */
gdt_end:
gdt_desc:
    .short gdt_end - gdt - 1
    .quad gdt

    .section .bss
    .balign 4096
pml4:   .skip 4096
pdpt:   .skip 4096
pd:     .skip 4 * 4096
    .balign 16
k_boot_stack:
    .skip KERNEL_STACK_SIZE
    .globl k_boot_stack_top
k_boot_stack_top:
