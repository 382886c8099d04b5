/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * i386 interrupt entry stubs: one 16-byte stub per vector, all jumping to
 * a common path that saves every general register into struct k_trap_frame
 * (k/trap.h) and calls k_trap_dispatch(frame). The kernel runs at CPL 0
 * only, so the CPU pushes no ESP/SS. SDM Vol. 3A "Exception- or
 * Interrupt-Handler Procedures".
 */
    .text
    .code32
    .balign 16
    .globl k_isr_stubs
k_isr_stubs:
    .set vec, 0
    .rept 256
    .balign 16
    .if (vec == 8) || (vec >= 10 && vec <= 14) || (vec == 17) || (vec == 21) || (vec == 29) || (vec == 30)
    .else
    pushl $0                        /* no error code: keep the frame uniform */
    .endif
    pushl $vec
    jmp k_isr_common
    .set vec, vec + 1
    .endr

k_isr_common:
    pushl %ebp
    pushl %edi
    pushl %esi
    pushl %edx
    pushl %ecx
    pushl %ebx
    pushl %eax
    cld
    mov %esp, %eax
    pushl %eax                      /* arg: frame */
    call k_trap_dispatch
    add $4, %esp
    popl %eax
    popl %ebx
    popl %ecx
    popl %edx
    popl %esi
    popl %edi
    popl %ebp
    add $8, %esp                    /* vector, error code */
    iret
