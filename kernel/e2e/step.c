/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The model backend's engine: the workloads run under EFLAGS.TF and the #DB
 * handler feeds the model every retired instruction (step_feed +
 * step_to_dsm) with the trap frame's registers; the PMIs the model requests
 * go out through the real local APIC (deliver_pmi). The workloads
 * themselves (kernel/workloads) run natively on the hardware backend.
 * See flow.h and docs/design.md, "Test kernel end to end".
 */
#include "flow.h"

/* --- the model's PMI through the local APIC -------------------------------- */

/* Model callback, at the end of dsm_retire(): remember the request only (the
 * model may not be re-entered from an NMI that interrupts dsm_retire). */
void model_pmi(void *ctx, uint32_t reasons)
{
    (void)ctx;
    (void)reasons;
    E.raised++;
    if (!E.pmi_pending)
        E.pend_taken_at = E.taken_n;
    E.pmi_pending = true;
}

/*
 * Deliver a pending model PMI the way the CPU does through the LVT
 * performance-counter entry (SDM Vol. 3A "Local Vector Table"): if the entry
 * is masked the PMI stays pending (checked again after every step); else the
 * CPU sets the mask bit and delivers on the entry's vector (fixed) or as an
 * NMI. The fixed vector arrives after the #DB handler's IRET, before the next
 * workload instruction (IF is clear in the handler); the NMI arrives at once,
 * and we wait for it so that the next dsm_retire() cannot race it.
 */
void deliver_pmi(void)
{
    if (!E.pmi_pending)
        return;
    uint32_t lvt = k_lapic_lvt_pc_read();
    if (lvt & K_LVT_MASKED) {
        E.held++;
        return;
    }
    E.pmi_pending = false;
    E.delivered++;
    k_lapic_lvt_pc_write(lvt | K_LVT_MASKED);
    uint32_t before = E.handled;
    if ((lvt & K_LVT_DM_MASK) == K_LVT_DM_NMI) {
        k_lapic_self_nmi();
        for (unsigned i = 0; i < 10000000u && E.handled == before; i++)
            __asm__ volatile("pause" ::: "memory");
        if (E.handled == before)
            E.nmi_timeouts++;
    } else {
        k_lapic_self_ipi(lvt & K_LVT_VECTOR_MASK);
        /*
         * An IPI is asynchronous (SDM Vol. 3A "Interrupt Command Register"):
         * QEMU TCG takes it at the #DB handler's IRET, but under KVM it was
         * seen arriving several workload instructions later, after the
         * run's checks had counted it lost. Open the interrupt window here
         * (IF is clear in the #DB handler; STI's shadow covers the NOP, so
         * the interrupt is taken between NOP and CLI) until the PMI handler
         * has run, so that the PMI lands before the next workload
         * instruction on every platform. Bounded, like the NMI wait.
         */
        unsigned long fl;
        __asm__ volatile("pushf\n\tpop %0" : "=r"(fl)::"memory");
        for (unsigned i = 0; i < 10000000u && E.handled == before; i++)
            __asm__ volatile("sti\n\tnop\n\tcli\n\tpause" ::: "memory");
        if (fl & 0x200)
            __asm__ volatile("sti" ::: "memory");
        if (E.handled == before)
            E.nmi_timeouts++;
    }
}

/* --- single-step driver (model backend) ----------------------------------- */

static void frame_to_regs(const struct k_trap_frame *f, struct step_regs *r)
{
    for (unsigned i = 0; i < 16; i++)
        r->gpr[i] = 0;
    for (unsigned i = 0; i < 6; i++)
        r->seg_base[i] = 0; /* flat segments */
    r->gpr[STEP_R_AX] = f->ax;
    r->gpr[STEP_R_CX] = f->cx;
    r->gpr[STEP_R_DX] = f->dx;
    r->gpr[STEP_R_BX] = f->bx;
    r->gpr[STEP_R_BP] = f->bp;
    r->gpr[STEP_R_SI] = f->si;
    r->gpr[STEP_R_DI] = f->di;
#if defined(__x86_64__)
    r->gpr[STEP_R_SP] = f->sp;
    r->gpr[8] = f->r8;
    r->gpr[9] = f->r9;
    r->gpr[10] = f->r10;
    r->gpr[11] = f->r11;
    r->gpr[12] = f->r12;
    r->gpr[13] = f->r13;
    r->gpr[14] = f->r14;
    r->gpr[15] = f->r15;
#else
    /* Same-CPL trap: the CPU pushed no SS:ESP; ESP was just above EFLAGS. */
    r->gpr[STEP_R_SP] = (uint32_t)(uintptr_t)(&f->flags + 1);
#endif
    r->ip = f->ip;
    r->flags = f->flags;
}

void db_handler(struct k_trap_frame *f, void *ctx)
{
    (void)ctx;
    if (!E.stepping) {
        kprintf("# e2e: unexpected #DB at %p\n", (void *)(uintptr_t)f->ip);
        f->flags &= ~(unsigned long)TF_BIT;
        E.bad_steps++;
        return;
    }
    struct step_regs cur;
    frame_to_regs(f, &cur);
    if (E.have_prev) {
        struct step_event ev;
#if defined(__x86_64__)
        unsigned mode = STEP_MODE_64;
#else
        unsigned mode = STEP_MODE_32;
#endif
        enum step_err se = step_feed(&E.prev, &cur, mode, 0, (const uint8_t *)(uintptr_t)E.prev.ip,
                                     STEP_INSN_MAX, &ev);
        if (se != STEP_OK || (ev.flags & (STEP_EV_UNDECODED | STEP_EV_MISMATCH)))
            E.bad_steps++;
        if (ev.flags & STEP_EV_RETIRED) {
            E.insns++;
            if (ev.flags & STEP_EV_LOAD)
                E.loads++;
            if (ev.flags & STEP_EV_BRANCH)
                E.branches++;
            if (ev.flags & STEP_EV_TAKEN) {
                if (E.taken_n < MAX_TAKEN)
                    E.taken[E.taken_n] = (struct taken_br){ev.br_from, ev.br_to};
                E.taken_n++;
            }
            /* EFLAGS.TF is the stepping's own: the workload runs with it
             * clear on hardware, so the records must not show it. */
            ev.flags_after &= ~(uint64_t)TF_BIT;
            struct dsm_event de;
            if (step_to_dsm(&ev, STEP_DSM_LOAD_LATENCY, STEP_DSM_LOAD_DATA_SRC, k_rdtsc(), &de) &&
                dsm_retire(&E.m, &de) != DSM_OK)
                E.dsm_err++;
        }
    }
    if (cur.ip >= E.lo && cur.ip < E.hi) {
        E.prev = cur;
        E.have_prev = true;
    } else if (E.have_prev) {
        /* The workload's final RET: stop stepping. */
        f->flags &= ~(unsigned long)TF_BIT;
        E.have_prev = false;
        E.stepping = false;
    }
    if (E.hold_steps && E.pmi_pending && !--E.hold_steps)
        k_pmi_arm();
    deliver_pmi();
}

static inline void set_tf(void)
{
#if defined(__x86_64__)
    __asm__ volatile("pushfq; orq $0x100, (%%rsp); popfq" ::: "memory", "cc");
#else
    __asm__ volatile("pushfl; orl $0x100, (%%esp); popfl" ::: "memory", "cc");
#endif
}

/* --- the workloads --------------------------------------------------------- */

void wl_range(enum wl_id w, uint64_t *lo, uint64_t *hi)
{
    switch (w) {
    case WL_LOOP: *lo = (uintptr_t)wl_loop; *hi = (uintptr_t)wl_loop_end; break;
    case WL_CHASE: *lo = (uintptr_t)wl_chase; *hi = (uintptr_t)wl_chase_end; break;
    default: *lo = (uintptr_t)wl_calls; *hi = (uintptr_t)wl_calls_end; break;
    }
}

const char *wl_name(enum wl_id w)
{
    return w == WL_LOOP ? "wl_loop" : w == WL_CHASE ? "wl_chase" : "wl_calls";
}

void wl_expect_of(enum wl_id w, uint32_t n, struct wl_expect *x)
{
    if (w == WL_LOOP)
        wl_loop_expect(n, x);
    else if (w == WL_CHASE)
        wl_chase_expect(n, x);
    else
        wl_calls_expect(n, x);
}

static uint32_t call_wl(enum wl_id w, uint32_t n)
{
    if (w == WL_LOOP)
        return wl_loop(n);
    if (w == WL_CHASE)
        return wl_chase(E.chase_arr, 0, n);
    return wl_calls(n);
}

/* Run workload @w(@n): single-stepped into the model, or natively. */
uint32_t run_workload(enum wl_id w, uint32_t n)
{
    E.insns = E.loads = E.branches = E.taken_n = 0;
    if (!E.model)
        return call_wl(w, n);
    E.have_prev = false;
    E.stepping = true;
    set_tf();
    uint32_t r = call_wl(w, n);
    /* #DB cleared TF at the first step outside the workload after its RET. */
    if (E.stepping) {
        E.stepping = false;
        E.bad_steps++;
    }
    return r;
}
