/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * i386 kernel entry. The kernel stays in 32-bit protected mode (not IA-32e)
 * so that the 32-bit DS save area layout is exercised for real; paging is
 * on with an identity map (see below why).
 *
 * Two boot headers: Multiboot2 (GRUB's path, from the ISO) and Multiboot1
 * (QEMU's `-kernel` accepts an ELF32 with a Multiboot1 header). Both enter
 * here in 32-bit protected mode, paging off, interrupts off, with the magic
 * in EAX and the physical address of the boot information in EBX.
 */
#include "../multiboot.inc"

/* CPUID.01H:EDX (SDM Vol. 2A "CPUID", Table "Feature Information Returned
 * in the EDX Register") and control register bits (SDM Vol. 3A "Control
 * Registers"). The build needs CMOV (GCC's -march=i686: CMOVcc, also in
 * libgcc) and TSC (RDTSC in the e2e group); the libgcc ENDBR32 and the
 * kernel's PAUSE are hint NOPs on every CPU that has CMOV. */
#define CPUID_TSC  (1 << 4)
#define CPUID_PSE  (1 << 3)
#define CPUID_CMOV (1 << 15)
#define REQ_EDX    (CPUID_TSC | CPUID_CMOV)
#define CR0_EM     (1 << 2)
#define CR0_TS     (1 << 3)
#define CR0_NE     (1 << 5)
#define CR0_WP     (1 << 16)
#define CR0_NW     (1 << 29)
#define CR0_CD     (1 << 30)
#define CR0_PG     (1 << 31)
#define CR4_PSE    (1 << 4)
#define CR4_PAE    (1 << 5)

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
    .balign 8                       /* framebuffer tag (type 5), optional: a preference, */
    .short 5, 1                     /* GRUB may give text mode (BIOS: gfxpayload=text), */
    .long 20                        /* any size and depth (0 = no preference) */
    .long 0, 0, 0
    .balign 8                       /* end tag: type 0, flags 0, size 8 */
    .short 0, 0
    .long 8
mb2_header_end:

    .text
    .code32
    .globl _start
_start:
    cli
    mov %eax, entry_magic           /* .data: survives the .bss clear */
    mov %ebx, entry_info
    mov $k_boot_stack_top, %esp
    /*
     * EFLAGS: the Multiboot specifications define only IF = 0 and VM = 0
     * at entry ("Machine state"); DF, AC, NT, TF, IOPL, ID are whatever the
     * loader left. 0x2 = only the always-one bit 1 (SDM Vol. 1 "EFLAGS
     * Register"). POPF clears RF too; VM, VIF, VIP are 0 in protected mode.
     */
    pushl $2
    popfl

    /* The C code is built -march=i686: check the CPU before running any. */
    call early_have_cpuid
    jz no_cpuid
    xor %eax, %eax
    cpuid
    test %eax, %eax                 /* leaf 1 must exist */
    jz no_leaf1
    mov $1, %eax
    cpuid
    mov %edx, %ebp                  /* CPUID.01H:EDX */
    and $REQ_EDX, %edx
    cmp $REQ_EDX, %edx
    jne missing_features

    /*
     * CR0: NE = 1 (native x87 error reporting, SDM Vol. 3A "Control
     * Registers"; a VMX guest without unrestricted guest must have it),
     * CD = NW = 0 (caches on; reset leaves CD = NW = 1), TS = EM = 0.
     * CR4.PAE = 0: the page directory below is the 32-bit format.
     */
    mov %cr0, %eax
    and $~(CR0_CD | CR0_NW | CR0_TS | CR0_EM), %eax
    or $CR0_NE, %eax
    mov %eax, %cr0
    mov %cr4, %eax
    and $~CR4_PAE, %eax
    mov %eax, %cr4

    /* Clear .bss (loaders do, but do not trust them). Wipes the stack. */
    mov $__bss_start, %edi
    mov $__bss_end, %ecx
    sub %edi, %ecx
    xor %eax, %eax
    rep stosb
    mov $k_boot_stack_top, %esp

    /* Our GDT (flat 32-bit code 0x08, data 0x10), before the IDT below. */
    lgdt gdt_desc
    ljmp $0x08, $1f
1:  mov $0x10, %ax
    mov %ax, %ds
    mov %ax, %es
    mov %ax, %ss
    mov %ax, %fs
    mov %ax, %gs

    /*
     * Paging: an identity map of all 4 GiB, so that linear = physical for
     * everything the kernel touches (image, boot information, VGA text, the
     * local APIC page wherever IA32_APIC_BASE puts it below 4 GiB, the DS
     * buffers). Why: a CPU in protected mode with CR0.PG = 0 is a state a
     * VMX guest can be in only with "unrestricted guest"; a nested KVM L1
     * without it emulates such a guest, and KVM's emulator does not
     * implement protected-mode IRET (the "emulation failure at the first
     * IRET after an exception" of issue 14). That this is the cause could
     * not be confirmed here (no KVM on the machine that wrote it): it makes
     * the kernel run in a state VMX can run natively either way.
     * 4 MiB pages if CPUID.01H:EDX.PSE[3] (SDM Vol. 3A "32-Bit Paging"),
     * else 1024 page tables of 4 KiB pages (4 MiB, every entry written
     * here) in free RAM of the loader's memory map, not in the image
     * (issue 24: RW memsz <= 1 MiB): k_boot_pt_alloc (kernel/src/mem.c)
     * finds them with the boot allocator before any other allocation.
     * The 4 MiB / 4 KiB page of the default local APIC base 0xFEE00000 is
     * uncached (PCD|PWT), as on the x86_64 kernel.
     */
    test $CPUID_PSE, %ebp
    jz 2f
    xor %ecx, %ecx                  /* PDE[i] = i * 4 MiB | PS | RW | P */
1:  mov %ecx, %eax
    shl $22, %eax
    or $0x83, %eax
    mov %eax, page_dir(,%ecx,4)
    inc %ecx
    cmp $1024, %ecx
    jb 1b
    orl $0x18, page_dir + (0xFEE00000 >> 22) * 4
    mov %cr4, %eax
    or $CR4_PSE, %eax
    mov %eax, %cr4
    jmp 4f
2:  pushl entry_info                /* 4 MiB of free RAM from the loader's map */
    pushl entry_magic               /* (kernel/src/mem.c; C with paging off, */
    call k_boot_pt_alloc            /* nothing in it faults) */
    add $8, %esp
    test %eax, %eax
    jz no_pt_memory
    mov %eax, %esi
    xor %ecx, %ecx                  /* PTE[i] = i * 4 KiB | RW | P */
3:  mov %ecx, %eax
    shl $12, %eax
    or $0x03, %eax
    mov %eax, (%esi,%ecx,4)
    inc %ecx
    cmp $1024 * 1024, %ecx
    jb 3b
    orl $0x18, (0xFEE00000 >> 12) * 4(%esi)
    xor %ecx, %ecx                  /* PDE[i] = page tables + i * 4 KiB */
5:  mov %ecx, %eax
    shl $12, %eax
    add %esi, %eax
    or $0x03, %eax
    mov %eax, page_dir(,%ecx,4)
    inc %ecx
    cmp $1024, %ecx
    jb 5b
4:  mov $page_dir, %eax
    mov %eax, %cr3
    /*
     * A hypervisor may refuse 32-bit paging: KVM PVM (a KVM for hosts
     * without VT-x/AMD-V) injected #GP at this MOV to CR0 on the lent Intel
     * Xeon 06_CFH VM (issue 14, trace kvm:kvm_inj_exception), and with no
     * IDT that was a silent triple fault. So an IDT whose only gate, #GP
     * (vector 13, SDM Vol. 3A "Exception and Interrupt Reference"), leads
     * to paging_refused, which says so and stops; it is dropped right after.
     * The test build LIBDS_TEST_REFUSE_PG raises a #GP at this point (a
     * null selector loaded into SS: #GP(0), SDM Vol. 2B "MOV") to test that
     * path under TCG, which never refuses paging.
     */
    mov $paging_refused, %eax
    mov %ax, early_idt + 13 * 8     /* offset 15:0 */
    movw $0x08, early_idt + 13 * 8 + 2
    movw $0x8E00, early_idt + 13 * 8 + 4 /* P, DPL 0, 32-bit interrupt gate */
    shr $16, %eax
    mov %ax, early_idt + 13 * 8 + 6 /* offset 31:16 */
    lidt early_idt_desc
#ifdef LIBDS_TEST_REFUSE_PG
    xor %eax, %eax
    mov %ax, %ss
#endif
    mov %cr0, %eax
    or $(CR0_PG | CR0_WP), %eax
    mov %eax, %cr0                  /* identity map: the next fetch is the same */
    lidt no_idt_desc                /* kmain installs the kernel's IDT */
    xor %ebp, %ebp
    pushl entry_info                /* info */
    pushl entry_magic               /* magic */
    call kmain
2:  cli
    hlt
    jmp 2b

no_cpuid:
    call early_fail_begin
    mov $msg_cpu, %esi
    call early_puts
    mov $msg_nocpuid, %esi
    call early_puts
    jmp early_fail_end
no_leaf1:
    xor %ebp, %ebp                  /* no feature flags: all missing */
missing_features:
    call early_fail_begin
    mov $msg_cpu, %esi
    call early_puts
    mov $msg_lacks, %esi
    call early_puts
    test $CPUID_TSC, %ebp
    jnz 6f
    mov $msg_tsc, %esi
    call early_puts
6:  test $CPUID_CMOV, %ebp
    jnz 7f
    mov $msg_cmov, %esi
    call early_puts
7:  mov $msg_tail, %esi
    call early_puts
    jmp early_fail_end

paging_refused:                     /* #GP at the MOV to CR0 above */
    mov $k_boot_stack_top, %esp
    call early_fail_begin
    mov $msg_cpu, %esi
    call early_puts
    mov $msg_paging, %esi
    call early_puts
    jmp early_fail_end
no_pt_memory:                       /* no PSE, and no 4 MiB of free RAM */
    call early_fail_begin
    mov $msg_cpu, %esi
    call early_puts
    mov $msg_ptmem, %esi
    call early_puts
    jmp early_fail_end

#include "../early32.inc"

    .section .rodata
msg_cpu:
    .asciz "\r\nlibds test kernel (i386): this CPU cannot run it: "
msg_nocpuid:
    .asciz "no CPUID instruction (EFLAGS.ID does not toggle: a 386 or an early 486); halted\r\n"
msg_lacks:
    .asciz "CPUID.01H:EDX lacks"
msg_tsc:
    .asciz " TSC"
msg_cmov:
    .asciz " CMOV"
msg_tail:
    .asciz " (the kernel is built -march=i686); halted\r\n"
msg_ptmem:
    .asciz "no PSE (CPUID.01H:EDX[3] = 0), and the memory map has no free 4 MiB for 4 KiB page tables; halted\r\n"
msg_paging:
    .asciz "MOV to CR0 setting PG (32-bit paging) raised #GP: a hypervisor that refuses 32-bit paging (KVM PVM, on a host without VT-x/AMD-V, does); boot the x86_64 kernel, or use TCG; halted\r\n"

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
    .balign 8
early_idt_desc:                     /* vectors 0-13; only #GP is present */
    .short 14 * 8 - 1
    .long early_idt
no_idt_desc:
    .short 0
    .long 0

    .data
    .balign 4
entry_magic: .long 0
entry_info:  .long 0

    .section .bss
    .balign 8
early_idt:                          /* gate 13 written before the CR0.PG write */
    .skip 14 * 8
    .balign 4096
page_dir:
    .skip 4096

    .section .bss
    .balign 16
    .globl k_boot_stack_top
k_boot_stack:
    .skip KERNEL_STACK_SIZE
k_boot_stack_top:
