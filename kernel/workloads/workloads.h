/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test-kernel workloads with known behaviour (workloads_x86_64.S,
 * workloads_i386.S) and their exact expected counts.
 *
 * Every workload is a named function whose address range is [wl_X, wl_X_end)
 * (for wl_calls that range also holds its helpers wl_calls_f1..f3). All of
 * them lie in [wl_text_start, wl_text_end). They touch no memory except their
 * own stack and, for wl_chase, the caller's array; they are safe to run with
 * EFLAGS.TF set (no string instructions, no MOV SS, no interrupts, no system
 * instructions) and in any ring.
 *
 * What is counted (struct wl_expect), for one call, from the workload's first
 * instruction up to and including its final RET (the caller's CALL is not
 * counted; the final RET, a taken branch leaving the range, is):
 *  - insns: instructions retired (what single-stepping with EFLAGS.TF sees,
 *    one #DB per instruction);
 *  - jcc_taken / jcc_not_taken: conditional jumps (Jcc) by outcome;
 *  - jmp_direct / jmp_indirect / call_direct / call_indirect / ret: taken
 *    unconditional near branches by kind (RET imm16 counts as ret);
 *  - taken: every taken branch, the sum of the kinds above plus jcc_taken;
 *    this is what BTS records and what LBR holds;
 *  - loads: instructions with an explicit memory source operand (ModRM
 *    memory form: MOV r,m; ADD r,m; ...). Implicit stack reads (POP, RET)
 *    are not counted. On i386 each argument is loaded from the stack with one
 *    MOV (WL_ARG_LOADS), on x86_64 arguments arrive in registers;
 *  - mispred: branches mispredicted under the documented static rule used by
 *    kernel/step/feed.c (conditional branches are predicted taken when
 *    backward and not taken when forward; unconditional branches are always
 *    predicted correctly). This is a deterministic convention of the
 *    single-step model feed, not a statement about any real predictor.
 *
 * The counts are the same for i386 and x86_64 except loads (WL_ARG_LOADS).
 * tests/step/test_step_ptrace.c checks every x86_64 number by single-stepping
 * the workloads under ptrace; the i386 numbers follow from the i386 source
 * being the x86_64 source instruction for instruction (cannot be executed on
 * the development host, which has no 32-bit user mode; the i386 kernel under
 * QEMU runs them).
 *
 * Freestanding: only <stdint.h>. The expectation functions are static inline
 * so both kernels and host tests can use them; they have no side effects.
 */
#ifndef WL_WORKLOADS_H
#define WL_WORKLOADS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Taps of the 32-bit Galois LFSR used by wl_lfsr (x^32 + x^22 + x^2 + x + 1);
 * the same value is written in both .S files. */
#define WL_LFSR_TAPS 0x80200003u

/* Loads of the arguments from the stack (i386 only), per workload. */
#if defined(__i386__)
#define WL_ARG_LOADS(nargs) ((uint64_t)(nargs))
#else
#define WL_ARG_LOADS(nargs) ((uint64_t)0)
#endif

/* n iterations of a counted loop (back edge is Jcc rel32). Returns n. */
uint32_t wl_loop(uint32_t n);
/* idx = start; steps times idx = arr[idx] (one 4-byte load at arr + 4*idx).
 * Precondition: every index reached is < the array length (the caller's
 * array is a permutation/cycle of in-range indices). Returns the last idx. */
uint32_t wl_chase(const uint32_t *arr, uint32_t start, uint32_t steps);
/* n times the chain wl_calls -> f1 -(CALL r)-> f2 -> f3 (RET imm16), with one
 * JMP rel8 and one JMP r per iteration. Returns 9 * n (mod 2^32). */
uint32_t wl_calls(uint32_t n);
/* n steps of the Galois LFSR from seed (see wl_lfsr_next). Returns the state. */
uint32_t wl_lfsr(uint32_t seed, uint32_t n);

/* Address-range labels (not objects: take their address only). */
extern const char wl_text_start[], wl_text_end[];
extern const char wl_loop_end[], wl_chase_end[], wl_calls_end[], wl_lfsr_end[];
/* Helpers of wl_calls, named so that symbolizers show them. */
extern const char wl_calls_f1[], wl_calls_f2[], wl_calls_f3[];

struct wl_expect {
    uint64_t insns;
    uint64_t taken;
    uint64_t jcc_taken, jcc_not_taken;
    uint64_t jmp_direct, jmp_indirect;
    uint64_t call_direct, call_indirect;
    uint64_t ret;
    uint64_t loads;
    uint64_t mispred;
};

/* One LFSR step exactly as wl_lfsr does it. */
static inline uint32_t wl_lfsr_next(uint32_t s)
{
    return (s & 1u) ? (s >> 1) ^ WL_LFSR_TAPS : s >> 1;
}

/* Fills *out with all-zero counts; helper for the functions below. */
static inline void wl_expect_zero(struct wl_expect *out)
{
    out->insns = out->taken = out->jcc_taken = out->jcc_not_taken = 0;
    out->jmp_direct = out->jmp_indirect = out->call_direct = 0;
    out->call_indirect = out->ret = out->loads = out->mispred = 0;
}

/*
 * The three counted loops share one shape: a prologue of p instructions, a
 * forward "JZ done" (taken only when the count is 0), a body ending in a
 * backward JNZ taken count-1 times, and RET.
 */
static inline void wl_expect_loop_shape(struct wl_expect *out, uint32_t count)
{
    out->ret = 1;
    if (count == 0) {
        out->jcc_taken = 1;      /* JZ done (forward: mispredicted) */
        out->mispred = 1;
    } else {
        out->jcc_not_taken = 2;  /* JZ done, and the final JNZ */
        out->jcc_taken = (uint64_t)count - 1;
        out->mispred = 1;        /* the final, not-taken backward JNZ */
    }
}

/* wl_loop(n): 5 instructions around the loop, 3 per iteration. */
static inline void wl_loop_expect(uint32_t n, struct wl_expect *out)
{
    wl_expect_zero(out);
    wl_expect_loop_shape(out, n);
    out->insns = 5 + 3 * (uint64_t)n;
    out->loads = WL_ARG_LOADS(1);
    out->taken = out->jcc_taken + out->ret;
}

/* wl_chase(arr, start, steps): 6 instructions around the loop, 3 per step. */
static inline void wl_chase_expect(uint32_t steps, struct wl_expect *out)
{
    wl_expect_zero(out);
    wl_expect_loop_shape(out, steps);
    out->insns = 6 + 3 * (uint64_t)steps;
    out->loads = (uint64_t)steps + WL_ARG_LOADS(3);
    out->taken = out->jcc_taken + out->ret;
}

/*
 * wl_calls(n): 7 instructions around the loop; 16 per iteration:
 * CALL f1, SUB, JNZ | f1: LEA/MOV, CALL r, ADD, LEA/MOV, JMP r, RET |
 * f2: PUSH, CALL f3, ADD, JMP rel8, RET | f3: ADD r,[sp+d], RET imm16.
 */
static inline void wl_calls_expect(uint32_t n, struct wl_expect *out)
{
    wl_expect_zero(out);
    wl_expect_loop_shape(out, n);
    out->insns = 7 + 16 * (uint64_t)n;
    out->call_direct = 2 * (uint64_t)n;
    out->call_indirect = n;
    out->jmp_direct = n;
    out->jmp_indirect = n;
    out->ret = 1 + 3 * (uint64_t)n;
    out->loads = (uint64_t)n + WL_ARG_LOADS(1);
    out->taken = out->jcc_taken + out->call_direct + out->call_indirect +
                 out->jmp_direct + out->jmp_indirect + out->ret;
}

/* Number of 1 bits shifted out by n LFSR steps from seed (the XOR is executed
 * that many times; the JNC is taken for the others). O(n). */
static inline uint64_t wl_lfsr_ones(uint32_t seed, uint32_t n)
{
    uint64_t ones = 0;
    for (uint32_t i = 0; i < n; i++) {
        ones += seed & 1u;
        seed = wl_lfsr_next(seed);
    }
    return ones;
}

/*
 * wl_lfsr(seed, n): 5 instructions around the loop; 4 per step plus the XOR
 * when the shifted-out bit is 1. The forward JNC is taken (and, by the static
 * rule, mispredicted) when that bit is 0.
 */
static inline void wl_lfsr_expect(uint32_t seed, uint32_t n, struct wl_expect *out)
{
    uint64_t ones = wl_lfsr_ones(seed, n);
    uint64_t zeros = (uint64_t)n - ones;

    wl_expect_zero(out);
    wl_expect_loop_shape(out, n);
    out->insns = 5 + 4 * (uint64_t)n + ones;
    out->jcc_taken += zeros;
    out->jcc_not_taken += ones;
    out->mispred += zeros;
    out->loads = WL_ARG_LOADS(2);
    out->taken = out->jcc_taken + out->ret;
}

#ifdef __cplusplus
}
#endif

#endif /* WL_WORKLOADS_H */
