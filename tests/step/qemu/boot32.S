/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Minimal multiboot1 i386 image for test_step_qemu_i386: QEMU -kernel enters
 * in 32-bit protected mode with flat segments (Multiboot spec 0.6.96,
 * "Machine state"). Sets a stack, calls step32_main(); provides the #DB
 * stub and fault stubs for the IDT and step32_run(), which turns on EFLAGS.TF
 * and calls a workload.
 */
#define MB_MAGIC 0x1BADB002
#define MB_FLAGS 0x0

    .section .multiboot, "a"
    .p2align 2
    .long MB_MAGIC, MB_FLAGS, -(MB_MAGIC + MB_FLAGS)

    .text
    .globl _start
_start:
    cli
    movl    $stack_top, %esp
    cld
    call    step32_main
1:  hlt
    jmp     1b

/* #DB: save the GPRs (PUSHAL frame) and call step32_db(frame). */
    .globl step32_db_stub
step32_db_stub:
    pushal
    pushl   %esp
    call    step32_db
    addl    $4, %esp
    popal
    iret

/* Any other exception: step32_fault(vector, frame) reports and exits. */
.macro FAULT n
    .globl step32_fault_\n
step32_fault_\n:
    pushal
    pushl   %esp
    pushl   $\n
    call    step32_fault
1:  hlt
    jmp     1b
.endm
.irp n, 0,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19
FAULT \n
.endr

/*
 * uint32_t step32_run(const void *fn, uint32_t a0, uint32_t a1, uint32_t a2):
 * calls fn(a0, a1, a2) (cdecl) with EFLAGS.TF set. The first #DB arrives
 * after the CALL (at fn's first instruction); the #DB handler clears TF in
 * the frame once execution returns to step32_ret.
 */
    .globl step32_run, step32_ret
step32_run:
    pushl   %ebp
    movl    %esp, %ebp
    pushl   %ebx
    pushl   %esi
    pushl   %edi
    pushl   20(%ebp)
    pushl   16(%ebp)
    pushl   12(%ebp)
    movl    8(%ebp), %eax
    pushfl
    orl     $0x100, (%esp)
    popfl                       /* TF: trap after the next instruction */
    call    *%eax
step32_ret:
    addl    $12, %esp
    popl    %edi
    popl    %esi
    popl    %ebx
    popl    %ebp
    ret

    .bss
    .p2align 12
    .space 16384
stack_top:

    .section .note.GNU-stack, "", @progbits
