/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * x86_64 interrupt entry stubs: one 16-byte stub per vector, all jumping to
 * a common path that saves every general register into struct k_trap_frame
 * (k/trap.h) and calls k_trap_dispatch(frame). The dispatcher may change
 * the frame (fixups set RIP and RDI; #DB handlers clear RFLAGS.TF); the
 * common path restores the frame and IRETs.
 * SDM Vol. 3A "Exception and Interrupt Handling in 64-bit Mode".
 */
    .text
    .code64
    .balign 16
    .globl k_isr_stubs
k_isr_stubs:
    .set vec, 0
    .rept 256
    .balign 16
    .if (vec == 8) || (vec >= 10 && vec <= 14) || (vec == 17) || (vec == 21) || (vec == 29) || (vec == 30)
    .else
    pushq $0                        /* no error code: keep the frame uniform */
    .endif
    pushq $vec
    jmp k_isr_common
    .set vec, vec + 1
    .endr

k_isr_common:
    pushq %r15
    pushq %r14
    pushq %r13
    pushq %r12
    pushq %r11
    pushq %r10
    pushq %r9
    pushq %r8
    pushq %rbp
    pushq %rdi
    pushq %rsi
    pushq %rdx
    pushq %rcx
    pushq %rbx
    pushq %rax
    cld
    mov %rsp, %rdi                  /* 176-byte frame: RSP stays 16-aligned */
    call k_trap_dispatch
    popq %rax
    popq %rbx
    popq %rcx
    popq %rdx
    popq %rsi
    popq %rdi
    popq %rbp
    popq %r8
    popq %r9
    popq %r10
    popq %r11
    popq %r12
    popq %r13
    popq %r14
    popq %r15
    add $16, %rsp                   /* vector, error code */
    iretq
