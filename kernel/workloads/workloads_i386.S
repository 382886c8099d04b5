/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test-kernel workloads, i386 (cdecl: arguments on the stack, result in EAX,
 * EBX/ESI/EDI/EBP preserved).
 *
 * Instruction for instruction the same as workloads_x86_64.S, except that each
 * argument is loaded from the stack with one MOV where the x86_64 code moves
 * it from a register: the instruction counts are identical and the i386 code
 * has one extra load per argument (workloads.h, WL_ARG_LOADS). The chain uses
 * absolute addresses (MOV $sym) where x86_64 uses RIP-relative LEA, so this
 * object is for the static, non-PIC i386 kernel. Mirror every change in
 * workloads_x86_64.S and workloads.h.
 */
#define WL_FUNC(name) .globl name; .type name, @function; name:
#define WL_SIZE(name) .size name, . - name
#define WL_END(name)  .globl name##_end; name##_end:
#define WL_LFSR_TAPS 0x80200003 /* keep equal to WL_LFSR_TAPS in workloads.h */

    .text
    .p2align 4
    .globl wl_text_start
wl_text_start:

/* uint32_t wl_loop(uint32_t n) */
WL_FUNC(wl_loop)
    movl    4(%esp), %ecx       /* argument load */
    xorl    %eax, %eax
    testl   %ecx, %ecx
    jz      2f
1:  addl    $1, %eax
    subl    $1, %ecx
    {disp32} jnz 1b             /* Jcc rel32 (0F 85), backward */
2:  ret
WL_SIZE(wl_loop)
WL_END(wl_loop)

/* uint32_t wl_chase(const uint32_t *arr, uint32_t start, uint32_t steps) */
    .p2align 4
WL_FUNC(wl_chase)
    movl    12(%esp), %ecx      /* argument loads */
    movl    4(%esp), %edx
    movl    8(%esp), %eax
    testl   %ecx, %ecx
    jz      2f
1:  movl    (%edx,%eax,4), %eax /* the chased load */
    subl    $1, %ecx
    jnz     1b
2:  ret
WL_SIZE(wl_chase)
WL_END(wl_chase)

/* uint32_t wl_calls(uint32_t n) */
    .p2align 4
WL_FUNC(wl_calls)
    pushl   %ebx
    movl    8(%esp), %ebx       /* argument load (above the pushed EBX) */
    xorl    %eax, %eax
    testl   %ebx, %ebx
    jz      2f
1:  call    wl_calls_f1
    subl    $1, %ebx
    jnz     1b
2:  popl    %ebx
    ret
WL_SIZE(wl_calls)

WL_FUNC(wl_calls_f1)
    movl    $wl_calls_f2, %ecx
    call    *%ecx
    addl    $1, %eax
    movl    $3f, %edx
    jmp     *%edx
    ud2
3:  ret
WL_SIZE(wl_calls_f1)

WL_FUNC(wl_calls_f2)
    pushl   $7
    call    wl_calls_f3
    addl    $1, %eax
    jmp     4f
    ud2
4:  ret
WL_SIZE(wl_calls_f2)

WL_FUNC(wl_calls_f3)
    addl    4(%esp), %eax       /* load of the pushed 7 */
    ret     $4
WL_SIZE(wl_calls_f3)
WL_END(wl_calls)

/* uint32_t wl_lfsr(uint32_t seed, uint32_t n) */
    .p2align 4
WL_FUNC(wl_lfsr)
    movl    4(%esp), %eax       /* argument loads */
    movl    8(%esp), %ecx
    testl   %ecx, %ecx
    jz      2f
1:  shrl    $1, %eax
    jnc     3f
    xorl    $WL_LFSR_TAPS, %eax
3:  subl    $1, %ecx
    jnz     1b
2:  ret
WL_SIZE(wl_lfsr)
WL_END(wl_lfsr)

    .globl wl_text_end
wl_text_end:

    .section .note.GNU-stack, "", @progbits
