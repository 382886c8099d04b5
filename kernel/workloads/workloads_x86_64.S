/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test-kernel workloads, x86_64 (System V AMD64 calling convention).
 *
 * Written in assembly so that every instruction, every branch and every load
 * is fixed here and not by a compiler. kernel/workloads/workloads.h gives the
 * exact expected counts; kernel/workloads/workloads_i386.S is the same code
 * for the i386 kernel (same instructions, arguments read from the stack).
 * Any change here must be mirrored there and in workloads.h, and
 * tests/step/test_step_ptrace.c checks the counts by single-stepping.
 *
 * Each workload is one global function WL (its first instruction) followed by
 * a global label WL_end just past its last byte, so [WL, WL_end) is its whole
 * address range (helper functions of the call chain included). Every function,
 * helpers included, has its own .size (WL_SIZE), so that dsdump and perf give
 * an IP the same symbol (issue 27).
 */
#define WL_FUNC(name) .globl name; .type name, @function; name:
#define WL_SIZE(name) .size name, . - name
#define WL_END(name)  .globl name##_end; name##_end:
#define WL_LFSR_TAPS 0x80200003 /* keep equal to WL_LFSR_TAPS in workloads.h */

    .text
    .p2align 4
    .globl wl_text_start
wl_text_start:

/* uint32_t wl_loop(uint32_t n): n iterations of a counted loop; returns n. */
WL_FUNC(wl_loop)
    movl    %edi, %ecx
    xorl    %eax, %eax
    testl   %ecx, %ecx
    jz      2f                  /* Jcc rel8, forward */
1:  addl    $1, %eax
    subl    $1, %ecx
    {disp32} jnz 1b             /* Jcc rel32 (0F 85), backward */
2:  ret
WL_SIZE(wl_loop)
WL_END(wl_loop)

/*
 * uint32_t wl_chase(const uint32_t *arr, uint32_t start, uint32_t steps):
 * idx = start; repeat steps times: idx = arr[idx]; returns idx.
 * One 4-byte load per step at arr + 4 * idx (base + index * 4 SIB form).
 */
    .p2align 4
WL_FUNC(wl_chase)
    movl    %edx, %ecx
    movq    %rdi, %rdx
    movl    %esi, %eax
    testl   %ecx, %ecx
    jz      2f
1:  movl    (%rdx,%rax,4), %eax /* the chased load */
    subl    $1, %ecx
    jnz     1b
2:  ret
WL_SIZE(wl_chase)
WL_END(wl_chase)

/*
 * uint32_t wl_calls(uint32_t n): n times a call/return chain
 * wl_calls -> wl_calls_f1 -(indirect call)-> wl_calls_f2 -> wl_calls_f3
 * that also takes one direct and one indirect JMP and a RET imm16; returns 9n.
 */
    .p2align 4
WL_FUNC(wl_calls)
    pushq   %rbx
    movl    %edi, %ebx
    xorl    %eax, %eax
    testl   %ebx, %ebx
    jz      2f
1:  call    wl_calls_f1         /* CALL rel32 */
    subl    $1, %ebx
    jnz     1b
2:  popq    %rbx
    ret
WL_SIZE(wl_calls)

WL_FUNC(wl_calls_f1)
    leaq    wl_calls_f2(%rip), %rcx
    call    *%rcx               /* CALL r/m (FF /2) */
    addl    $1, %eax
    leaq    3f(%rip), %rdx
    jmp     *%rdx               /* JMP r/m (FF /4) */
    ud2
3:  ret
WL_SIZE(wl_calls_f1)

WL_FUNC(wl_calls_f2)
    pushq   $7
    call    wl_calls_f3
    addl    $1, %eax
    jmp     4f                  /* JMP rel8 */
    ud2
4:  ret
WL_SIZE(wl_calls_f2)

WL_FUNC(wl_calls_f3)
    addl    8(%rsp), %eax       /* load of the pushed 7 (SIB, base RSP, disp8) */
    ret     $8                  /* RET imm16 drops the pushed argument */
WL_SIZE(wl_calls_f3)
WL_END(wl_calls)

/*
 * uint32_t wl_lfsr(uint32_t seed, uint32_t n): n steps of a 32-bit Galois
 * LFSR (state = state >> 1, then ^= WL_LFSR_TAPS if the bit shifted out was
 * 1). The JNC depends on that bit: a data-dependent, unpredictable branch.
 * Returns the final state.
 */
    .p2align 4
WL_FUNC(wl_lfsr)
    movl    %edi, %eax
    movl    %esi, %ecx
    testl   %ecx, %ecx
    jz      2f
1:  shrl    $1, %eax
    jnc     3f                  /* taken when the shifted-out bit is 0 */
    xorl    $WL_LFSR_TAPS, %eax
3:  subl    $1, %ecx
    jnz     1b
2:  ret
WL_SIZE(wl_lfsr)
WL_END(wl_lfsr)

    .globl wl_text_end
wl_text_end:

    .section .note.GNU-stack, "", @progbits
