// SPDX-License-Identifier: BSD-2-Clause
/*
 * The model backend's feed inside Linux: the workload runs single-stepped
 * (EFLAGS.TF) on this CPU with interrupts off; each #DB reaches the module
 * through Linux's die chain (exc_debug_kernel -> notify_debug ->
 * notify_die(DIE_DEBUG), the path KGDB uses), is classified by
 * kernel/step (step_feed) and retired into the reference model
 * (step_to_dsm, dsm_retire). A PMI the model raises is handled right there,
 * before the next workload instruction, by ds_session_pmi: the model's
 * PMI never touches the local APIC (Linux owns LVT PC).
 *
 * TF is set by POPF just before the workload's CALL and cleared in the #DB
 * frame at the first step back outside the workload (after its final
 * RET), as the test kernel does (kernel/e2e). Steps outside the workload
 * (the CALL's argument set-up) are not fed.
 */
#include <linux/kernel.h>
#include <linux/kdebug.h>
#include <linux/notifier.h>
#include <linux/irqflags.h>
#include <asm/debugreg.h>
#include <asm/ptrace.h>
#include <asm/msr.h>
#include "ldk.h"
#include "step_dsm.h"

#define LDK_TF 0x100ul

static void regs_of(const struct pt_regs *f, struct step_regs *r)
{
    memset(r, 0, sizeof(*r));
    r->gpr[STEP_R_AX] = f->ax;
    r->gpr[STEP_R_CX] = f->cx;
    r->gpr[STEP_R_DX] = f->dx;
    r->gpr[STEP_R_BX] = f->bx;
    r->gpr[STEP_R_SP] = f->sp;
    r->gpr[STEP_R_BP] = f->bp;
    r->gpr[STEP_R_SI] = f->si;
    r->gpr[STEP_R_DI] = f->di;
    r->gpr[8] = f->r8;
    r->gpr[9] = f->r9;
    r->gpr[10] = f->r10;
    r->gpr[11] = f->r11;
    r->gpr[12] = f->r12;
    r->gpr[13] = f->r13;
    r->gpr[14] = f->r14;
    r->gpr[15] = f->r15;
    r->ip = f->ip;
    r->flags = f->flags;
}

/* One retired instruction of the workload into the model; a PMI it raised
 * is handled before returning (the interrupted IP is the next one). */
static void feed(struct ldk_cpu *c, const struct step_regs *cur)
{
    struct step_event ev;
    struct dsm_event de;
    enum step_err se = step_feed(&c->prev, cur, STEP_MODE_64, 0, (const uint8_t *)(uintptr_t)c->prev.ip,
                                 STEP_INSN_MAX, &ev);
    if (se != STEP_OK || (ev.flags & (STEP_EV_UNDECODED | STEP_EV_MISMATCH)))
        c->bad_steps++;
    if (!(ev.flags & STEP_EV_RETIRED))
        return;
    c->insns++;
    if (ev.flags & STEP_EV_LOAD)
        c->loads++;
    if (ev.flags & STEP_EV_BRANCH)
        c->branches++;
    if (ev.flags & STEP_EV_TAKEN) {
        if (c->taken < LDK_MAX_BTS) {
            c->tk_from[c->taken] = ev.br_from;
            c->tk_to[c->taken] = ev.br_to;
        }
        c->taken++;
    }
    ev.flags_after &= ~(uint64_t)LDK_TF; /* the stepping's own bit: not the workload's */
    c->pmi_pending = false;
    if (step_to_dsm(&ev, STEP_DSM_LOAD_LATENCY, STEP_DSM_LOAD_DATA_SRC, rdtsc(), &de) && dsm_retire(c->m, &de) != DSM_OK)
        c->dsm_err++;
    if (c->pmi_pending) {
        struct ds_pmi_result res;
        int e = ds_session_pmi(&c->ses, cur->ip, &res);
        c->pmis++;
        if (e == DS_ERR_SESSION_SPURIOUS)
            c->spurious++;
        else if (e != DS_OK)
            c->pmi_err++;
    }
}

static int ldk_die(struct notifier_block *nb, unsigned long val, void *data)
{
    struct die_args *a = data;
    unsigned long *dr6;
    struct ldk_cpu *c;
    struct step_regs cur;
    (void)nb;
    if (val != DIE_DEBUG)
        return NOTIFY_DONE;
    dr6 = (unsigned long *)a->err;     /* notify_debug passes &dr6 (as kgdb reads it) */
    c = ldk_this();
    if (!c || !c->stepping || !(*dr6 & DR_STEP))
        return NOTIFY_DONE;
    *dr6 &= ~DR_STEP;                  /* consumed (the notifier convention of traps.c) */
    regs_of(a->regs, &cur);
    if (c->have_prev)
        feed(c, &cur);
    if (cur.ip >= c->lo && cur.ip < c->hi) {
        c->prev = cur;
        c->have_prev = true;
    } else if (c->have_prev) {
        a->regs->flags &= ~LDK_TF; /* back at the caller after the final RET */
        c->have_prev = false;
        c->stepping = false;
    }
    return NOTIFY_STOP;
}

static struct notifier_block ldk_die_nb = {.notifier_call = ldk_die};

int ldk_step_register(void) { return register_die_notifier(&ldk_die_nb); }
void ldk_step_unregister(void) { unregister_die_notifier(&ldk_die_nb); }

/* Run @fn(@c, @n) single-stepped, feeding the steps inside [@lo, @hi) to
 * the model. Interrupts are off for the whole run (the caller's already). */
u32 ldk_step_run(struct ldk_cpu *c, u32 (*fn)(struct ldk_cpu *c, u32 n), u32 n, u64 lo, u64 hi)
{
    unsigned long fl;
    u32 r;
    c->lo = lo;
    c->hi = hi;
    c->have_prev = false;
    local_irq_save(fl);
    c->stepping = true;
    asm volatile("pushfq; orq $0x100, (%%rsp); popfq" ::: "memory", "cc");
    r = fn(c, n);
    if (c->stepping) {          /* #DB never saw the workload end */
        asm volatile("pushfq; andq $~0x100, (%%rsp); popfq" ::: "memory", "cc");
        c->stepping = false;
        c->bad_steps++;
    }
    local_irq_restore(fl);
    return r;
}
