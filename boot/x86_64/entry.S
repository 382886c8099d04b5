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
    .balign 8                       /* framebuffer tag (type 5), optional: a preference, */
    .short 5, 1                     /* GRUB may give text mode (BIOS: gfxpayload=text), */
    .long 20                        /* any size and depth (0 = no preference) */
    .long 0, 0, 0
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
    mov %eax, %esi                  /* boot magic */
    mov %ebx, %ebp                  /* boot info (physical) */
    mov $k_boot_stack_top, %esp
    /*
     * EFLAGS: Multiboot2 and PVH define only IF = 0 (and VM = 0) at entry;
     * DF, AC, NT, TF, IOPL, ID are whatever the loader left. 0x2 = only the
     * always-one bit 1 (SDM Vol. 1 "EFLAGS Register"); POPF clears RF too.
     */
    pushl $2
    popfl
    /* A CPU without CPUID has no long mode (and CPUID would be #UD). */
    call early_have_cpuid
    jz no_long_mode

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
    /*
     * CR0 (SDM Vol. 3A "Control Registers"): PG | WP | PE, NE (native x87
     * error reporting; a VMX guest without unrestricted guest must have
     * it, see issue 14), CD = NW = 0 (caches on; reset leaves them set),
     * TS = EM = 0.
     */
    mov %cr0, %eax
    and $~0x6000000C, %eax          /* CD | NW | TS | EM */
    or $0x80010021, %eax            /* PG | WP | NE | PE */
    mov %eax, %cr0
    lgdt gdt_desc
    ljmp $0x18, $long_entry

no_long_mode:
    call early_fail_begin
    mov $msg_nolm, %esi
    call early_puts
    jmp early_fail_end

#include "../early32.inc"

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
    .asciz "\r\nlibds test kernel (x86_64): this CPU cannot run it: no long mode (CPUID.80000001H:EDX.LM); boot the i386 kernel; halted\r\n"
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
