/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The x86_64 workloads run for real: a child process executes each workload,
 * single-stepped with PTRACE_SINGLESTEP (EFLAGS.TF and #DB, as the test
 * kernel does); every step goes through the classifier and the feed
 * (kernel/step), and the totals must equal the expected counts of
 * kernel/workloads/workloads.h exactly: instructions, taken branches by kind,
 * Jcc outcomes, mispredictions under the feed's static rule, and every load
 * with its address. It also checks that every step lands where the decoded
 * length or branch target says (no STEP_EV_MISMATCH, nothing undecoded), that
 * every IP lies in the workload's [start, end) range and that the return
 * value is right.
 *
 * Linux/x86_64 host only. Exit 77 (ctest: skipped) when ptrace is refused,
 * with the reason printed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "feed.h"
#include "workloads.h"

/* Where a workload returns to: a breakpoint the tracer never lets run. */
extern const char step_host_trap[];
__asm__(".text\n.globl step_host_trap\nstep_host_trap:\n\tint3\n\tint3\n");

#define MAX_STEPS 2000000u

static pid_t child;

/* The chased array (same address in the child after fork). */
#define CHASE_N 64u
static uint32_t chase_arr[CHASE_N];

struct run {
    /* per kind counts */
    uint64_t insns, taken, jcc_taken, jcc_not_taken, jmp_direct, jmp_indirect;
    uint64_t call_direct, call_indirect, ret, loads, mispred;
    uint64_t bad;        /* mismatches, undecoded, out of range */
    uint64_t rax;        /* return value */
    uint64_t load_addr[4096];
    uint64_t load_val[4096];
    uint64_t load_rsp[4096];
};

static void regs_to_step(const struct user_regs_struct *u, struct step_regs *s)
{
    memset(s, 0, sizeof *s);
    s->gpr[STEP_R_AX] = u->rax; s->gpr[STEP_R_CX] = u->rcx;
    s->gpr[STEP_R_DX] = u->rdx; s->gpr[STEP_R_BX] = u->rbx;
    s->gpr[STEP_R_SP] = u->rsp; s->gpr[STEP_R_BP] = u->rbp;
    s->gpr[STEP_R_SI] = u->rsi; s->gpr[STEP_R_DI] = u->rdi;
    s->gpr[8] = u->r8;   s->gpr[9] = u->r9;   s->gpr[10] = u->r10; s->gpr[11] = u->r11;
    s->gpr[12] = u->r12; s->gpr[13] = u->r13; s->gpr[14] = u->r14; s->gpr[15] = u->r15;
    s->ip = u->rip;
    s->flags = u->eflags;
    s->seg_base[STEP_SEG_FS] = u->fs_base;
    s->seg_base[STEP_SEG_GS] = u->gs_base;
}

static int peek(uint64_t addr, uint64_t *out)
{
    errno = 0;
    long v = ptrace(PTRACE_PEEKDATA, child, (void *)addr, NULL);
    if (errno)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

/* Run fn(a0, a1, a2) in the child, single-stepping until it returns. */
static int run_workload(const void *fn, uint64_t lo, uint64_t hi, uint64_t a0, uint64_t a1,
                        uint64_t a2, struct run *r)
{
    struct user_regs_struct u;
    memset(r, 0, sizeof *r);
    if (ptrace(PTRACE_GETREGS, child, NULL, &u) != 0) {
        perror("PTRACE_GETREGS");
        return -1;
    }
    /* A fresh frame well below the child's stack pointer (red zone and
     * more), 16-byte aligned before the call pushes the return address. */
    uint64_t sp = ((u.rsp - 4096) & ~(uint64_t)15) - 8;
    if (ptrace(PTRACE_POKEDATA, child, (void *)sp, (void *)(uintptr_t)step_host_trap) != 0) {
        perror("PTRACE_POKEDATA");
        return -1;
    }
    u.rsp = sp;
    u.rip = (uint64_t)(uintptr_t)fn;
    u.rdi = a0; u.rsi = a1; u.rdx = a2;
    u.rax = 0x5a5a5a5a; u.rcx = 0xc0ffee; u.rbx = 0xb0b;
    u.eflags &= ~(uint64_t)0x400; /* DF clear, as the ABI requires */
    if (ptrace(PTRACE_SETREGS, child, NULL, &u) != 0) {
        perror("PTRACE_SETREGS");
        return -1;
    }

    struct step_regs before, after;
    regs_to_step(&u, &before);
    for (unsigned n = 0; n < MAX_STEPS; n++) {
        int st;
        if (ptrace(PTRACE_SINGLESTEP, child, NULL, NULL) != 0) {
            perror("PTRACE_SINGLESTEP");
            return -1;
        }
        if (waitpid(child, &st, 0) != child || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP) {
            fprintf(stderr, "child did not stop with SIGTRAP (status 0x%x) at step %u\n", st, n);
            return -1;
        }
        if (ptrace(PTRACE_GETREGS, child, NULL, &u) != 0) {
            perror("PTRACE_GETREGS");
            return -1;
        }
        regs_to_step(&u, &after);

        /* The code bytes as the child sees them. */
        uint64_t w[2];
        uint8_t code[16];
        if (peek(before.ip, &w[0]) || peek(before.ip + 8, &w[1])) {
            fprintf(stderr, "cannot read code at 0x%llx\n", (unsigned long long)before.ip);
            return -1;
        }
        memcpy(code, w, sizeof code);

        struct step_event ev;
        enum step_err e = step_feed(&before, &after, STEP_MODE_64, 3, code, sizeof code, &ev);
        if (e != STEP_OK || (ev.flags & (STEP_EV_UNDECODED | STEP_EV_MISMATCH)) ||
            !(ev.flags & STEP_EV_RETIRED) || before.ip < lo || before.ip >= hi) {
            fprintf(stderr, "bad step at 0x%llx -> 0x%llx: %s, flags 0x%x\n",
                    (unsigned long long)before.ip, (unsigned long long)after.ip,
                    step_strerror(e), ev.flags);
            r->bad++;
        }
        r->insns++;
        if (ev.flags & STEP_EV_TAKEN) {
            r->taken++;
            if (ev.br_from != before.ip || ev.br_to != after.ip)
                r->bad++;
            switch (ev.br_kind) {
            case STEP_BR_JCC: r->jcc_taken++; break;
            case STEP_BR_JMP_REL: r->jmp_direct++; break;
            case STEP_BR_JMP_IND: r->jmp_indirect++; break;
            case STEP_BR_CALL_REL: r->call_direct++; break;
            case STEP_BR_CALL_IND: r->call_indirect++; break;
            case STEP_BR_RET: r->ret++; break;
            default: r->bad++; break;
            }
        } else if (ev.flags & STEP_EV_BRANCH) {
            if (ev.br_kind == STEP_BR_JCC)
                r->jcc_not_taken++;
            else
                r->bad++;
        }
        if (ev.flags & STEP_EV_MISPRED)
            r->mispred++;
        if (ev.flags & STEP_EV_LOAD) {
            uint64_t v = 0;
            if (r->loads < 4096) {
                r->load_addr[r->loads] = ev.load_addr;
                r->load_rsp[r->loads] = before.gpr[STEP_R_SP];
                if (peek(ev.load_addr, &v) == 0)
                    r->load_val[r->loads] = ev.load_size == 4 ? (uint32_t)v : v;
                else
                    r->bad++;
            }
            r->loads++;
        }
        if (after.ip == (uint64_t)(uintptr_t)step_host_trap) {
            r->rax = u.rax;
            return 0;
        }
        before = after;
    }
    fprintf(stderr, "no return after %u steps\n", MAX_STEPS);
    return -1;
}

static void check_counts(const char *what, const struct run *r, const struct wl_expect *x)
{
    CHECK_EQ(r->bad, 0, "%s: every step decoded, in range, landing where expected", what);
    CHECK_EQ(r->insns, x->insns, "%s: instructions retired", what);
    CHECK_EQ(r->taken, x->taken, "%s: taken branches", what);
    CHECK_EQ(r->jcc_taken, x->jcc_taken, "%s: Jcc taken", what);
    CHECK_EQ(r->jcc_not_taken, x->jcc_not_taken, "%s: Jcc not taken", what);
    CHECK_EQ(r->jmp_direct, x->jmp_direct, "%s: JMP rel", what);
    CHECK_EQ(r->jmp_indirect, x->jmp_indirect, "%s: JMP indirect", what);
    CHECK_EQ(r->call_direct, x->call_direct, "%s: CALL rel", what);
    CHECK_EQ(r->call_indirect, x->call_indirect, "%s: CALL indirect", what);
    CHECK_EQ(r->ret, x->ret, "%s: RET", what);
    CHECK_EQ(r->loads, x->loads, "%s: loads", what);
    CHECK_EQ(r->mispred, x->mispred, "%s: mispredicted (static rule)", what);
}

static struct run R; /* large: keep it off the stack */

static void test_loop(void)
{
    static const uint32_t ns[] = {0, 1, 2, 7, 100, 1000};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        char what[64];
        struct wl_expect x;
        snprintf(what, sizeof what, "wl_loop(%u)", ns[k]);
        if (run_workload((const void *)wl_loop, (uintptr_t)wl_loop, (uintptr_t)wl_loop_end, ns[k], 0, 0, &R)) {
            CHECK(0, "%s ran", what);
            continue;
        }
        wl_loop_expect(ns[k], &x);
        check_counts(what, &R, &x);
        CHECK_EQ((uint32_t)R.rax, ns[k], "%s: result", what);
    }
}

static void test_chase(void)
{
    static const struct { uint32_t start, steps; } cs[] = {{0, 0}, {5, 1}, {0, 64}, {17, 200}};
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        char what[64];
        struct wl_expect x;
        snprintf(what, sizeof what, "wl_chase(start %u, %u steps)", cs[k].start, cs[k].steps);
        if (run_workload((const void *)wl_chase, (uintptr_t)wl_chase, (uintptr_t)wl_chase_end,
                         (uintptr_t)chase_arr, cs[k].start, cs[k].steps, &R)) {
            CHECK(0, "%s ran", what);
            continue;
        }
        wl_chase_expect(cs[k].steps, &x);
        check_counts(what, &R, &x);
        uint32_t idx = cs[k].start;
        uint64_t addr_bad = 0;
        for (uint32_t s = 0; s < cs[k].steps && s < R.loads; s++) {
            if (R.load_addr[s] != (uintptr_t)&chase_arr[idx] || R.load_val[s] != chase_arr[idx])
                addr_bad++;
            idx = chase_arr[idx];
        }
        CHECK_EQ(addr_bad, 0, "%s: every load at &arr[idx] in chase order", what);
        CHECK_EQ((uint32_t)R.rax, idx, "%s: result", what);
    }
}

static void test_calls(void)
{
    static const uint32_t ns[] = {0, 1, 5, 50};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        char what[64];
        struct wl_expect x;
        snprintf(what, sizeof what, "wl_calls(%u)", ns[k]);
        if (run_workload((const void *)wl_calls, (uintptr_t)wl_calls, (uintptr_t)wl_calls_end, ns[k], 0, 0, &R)) {
            CHECK(0, "%s ran", what);
            continue;
        }
        wl_calls_expect(ns[k], &x);
        check_counts(what, &R, &x);
        uint64_t bad = 0;
        for (uint64_t s = 0; s < R.loads && s < 4096; s++)
            if (R.load_addr[s] != R.load_rsp[s] + 8 || R.load_val[s] != 7)
                bad++;
        CHECK_EQ(bad, 0, "%s: each load reads the pushed 7 at [rsp+8]", what);
        CHECK_EQ((uint32_t)R.rax, 9u * ns[k], "%s: result", what);
    }
}

static void test_lfsr(void)
{
    static const struct { uint32_t seed, n; } cs[] = {{0xACE1u, 0}, {1, 1}, {2, 1}, {0, 10}, {0xACE1u, 300}, {0xDEADBEEFu, 1000}};
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        char what[64];
        struct wl_expect x;
        snprintf(what, sizeof what, "wl_lfsr(0x%x, %u)", cs[k].seed, cs[k].n);
        if (run_workload((const void *)wl_lfsr, (uintptr_t)wl_lfsr, (uintptr_t)wl_lfsr_end, cs[k].seed, cs[k].n, 0, &R)) {
            CHECK(0, "%s ran", what);
            continue;
        }
        wl_lfsr_expect(cs[k].seed, cs[k].n, &x);
        check_counts(what, &R, &x);
        uint32_t s = cs[k].seed;
        for (uint32_t i = 0; i < cs[k].n; i++)
            s = wl_lfsr_next(s);
        CHECK_EQ((uint32_t)R.rax, s, "%s: result", what);
    }
    /* The branch really is data-dependent: both outcomes occur. */
    struct wl_expect x;
    wl_lfsr_expect(0xACE1u, 300, &x);
    CHECK(x.jcc_taken > 100 && x.jcc_not_taken > 100, "LFSR branch goes both ways");
}

static void test_ranges(void)
{
    CHECK((uintptr_t)wl_text_start <= (uintptr_t)wl_loop && (uintptr_t)wl_loop < (uintptr_t)wl_loop_end &&
          (uintptr_t)wl_loop_end <= (uintptr_t)wl_chase && (uintptr_t)wl_chase_end <= (uintptr_t)wl_calls &&
          (uintptr_t)wl_calls < (uintptr_t)wl_calls_f1 && (uintptr_t)wl_calls_f3 < (uintptr_t)wl_calls_end &&
          (uintptr_t)wl_calls_end <= (uintptr_t)wl_lfsr && (uintptr_t)wl_lfsr_end <= (uintptr_t)wl_text_end,
          "workload ranges are ordered and disjoint");
}

int main(void)
{
    /* Before the fork, so the child has the same array: a single cycle
     * through all CHASE_N entries, idx -> (idx + 23) mod 64. */
    for (uint32_t i = 0; i < CHASE_N; i++)
        chase_arr[i] = (i + 23u) % CHASE_N;

    child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    if (child == 0) {
        if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
            _exit(77);
        raise(SIGSTOP);
        _exit(0); /* never reached while traced: the tracer kills us */
    }
    int st;
    if (waitpid(child, &st, 0) != child) {
        perror("waitpid");
        return 1;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
        printf("# SKIP ptrace(PTRACE_TRACEME) refused on this host\n");
        check_summary();
        return 77;
    }
    if (!WIFSTOPPED(st)) {
        fprintf(stderr, "child did not stop (status 0x%x)\n", st);
        return 1;
    }
    /* Kill the child if this process dies. */
    ptrace(PTRACE_SETOPTIONS, child, NULL, (void *)(uintptr_t)PTRACE_O_EXITKILL);

    test_ranges();
    test_loop();
    test_chase();
    test_calls();
    test_lfsr();

    kill(child, SIGKILL);
    waitpid(child, &st, 0);
    return check_summary();
}
