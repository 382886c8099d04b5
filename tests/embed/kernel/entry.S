/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Entry of the embed test kernel: Xen PVH (QEMU -kernel, 32-bit protected
 * mode, paging off, EBX = physical address of struct hvm_start_info), long
 * mode with a higher-half mapping, then the identity map is removed so that
 * nothing after kmain can depend on low addresses. Also the exception stubs.
 */
#define KVMA 0xffffffff80000000
#define PHYS(x) ((x) - KVMA)

/* Xen ELF note: XEN_ELFNOTE_PHYS32_ENTRY (18), 32-bit physical entry. */
    .section .note.Xen, "a", @note
    .balign 4
    .long 4, 4, 18
    .asciz "Xen"
    .long pvh_entry

    .section .boot, "awx", @progbits
    .code32
    .globl pvh_entry
pvh_entry:
    cli
    cld
    mov %ebx, boot_info_phys
    /* page tables (in .boot, zero-initialised in the file) */
    movl $(pdpt_lo + 3), pml4
    movl $(pdpt_hi + 3), pml4 + 511 * 8
    movl $(pd + 3), pdpt_lo
    movl $(pd + 3), pdpt_hi + 510 * 8      /* KVMA = PML4 511, PDPT 510 */
    xor %ecx, %ecx
1:  mov %ecx, %eax
    shl $21, %eax
    or $0x83, %eax                         /* present, writable, 2 MiB page */
    mov %eax, pd(, %ecx, 8)
    inc %ecx
    cmp $512, %ecx                         /* first 1 GiB */
    jne 1b

    mov %cr4, %eax
    or $0x20, %eax                         /* CR4.PAE */
    mov %eax, %cr4
    mov $pml4, %eax
    mov %eax, %cr3
    mov $0xC0000080, %ecx                  /* IA32_EFER.LME */
    rdmsr
    or $0x100, %eax
    wrmsr
    mov %cr0, %eax
    or $0x80000001, %eax                   /* CR0.PG | CR0.PE */
    mov %eax, %cr0
    lgdt gdt_ptr_lo
    ljmp $0x08, $long_entry

    .code64
long_entry:
    mov $0x10, %eax
    mov %eax, %ds
    mov %eax, %es
    mov %eax, %ss
    mov %eax, %fs
    mov %eax, %gs
    movabs $high_entry, %rax
    jmp *%rax

    .balign 8
gdt:
    .quad 0
    .quad 0x00af9a000000ffff               /* 0x08: 64-bit code, DPL 0 */
    .quad 0x00cf92000000ffff               /* 0x10: data */
gdt_end:
gdt_ptr_lo:
    .word gdt_end - gdt - 1
    .long gdt
    .balign 8
gdt_ptr_hi:
    .word gdt_end - gdt - 1
    .quad gdt + KVMA
    .globl boot_info_phys
boot_info_phys:
    .long 0
    .balign 4096
pml4:    .fill 512, 8, 0
pdpt_lo: .fill 512, 8, 0
pdpt_hi: .fill 512, 8, 0
pd:      .fill 512, 8, 0

    .text
high_entry:
    lgdt gdt_ptr_hi + KVMA                 /* GDT through its high alias */
    movq $0, pml4 + KVMA                   /* drop the identity map */
    mov %cr3, %rax
    mov %rax, %cr3
    movabs $__bss_start, %rdi              /* zero .bss (the stack is after it) */
    movabs $__bss_end, %rcx
    sub %rdi, %rcx
    xor %eax, %eax
    rep stosb
    movabs $boot_stack_top, %rsp
    xor %ebp, %ebp
    movl boot_info_phys + KVMA, %edi
    call kmain
2:  cli
    hlt
    jmp 2b

/* Exception stubs 0..31: push a dummy error code where the CPU pushes none. */
.macro STUB n
isr_\n:
    .if (\n == 8 || (\n >= 10 && \n <= 14) || \n == 17 || \n == 21 || \n == 29 || \n == 30)
    .else
    pushq $0
    .endif
    pushq $\n
    jmp isr_common
.endm
.altmacro
.set i, 0
.rept 32
    STUB %i
    .set i, i + 1
.endr

isr_common:
    push %rax
    push %rbx
    push %rcx
    push %rdx
    push %rsi
    push %rdi
    push %rbp
    push %r8
    push %r9
    push %r10
    push %r11
    push %r12
    push %r13
    push %r14
    push %r15
    mov %rsp, %rdi
    call trap
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %r11
    pop %r10
    pop %r9
    pop %r8
    pop %rbp
    pop %rdi
    pop %rsi
    pop %rdx
    pop %rcx
    pop %rbx
    pop %rax
    add $16, %rsp
    iretq

.macro STUBADDR n
    .quad isr_\n
.endm
    .section .rodata
    .balign 8
    .globl isr_stubs
isr_stubs:
.set i, 0
.rept 32
    STUBADDR %i
    .set i, i + 1
.endr

    .section .stack, "aw", @nobits
    .balign 16
    .space 16384
boot_stack_top:

    .section .note.GNU-stack, "", @progbits
