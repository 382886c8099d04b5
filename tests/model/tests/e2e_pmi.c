/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * End to end, ds_pmi_handle() against the model with the two things a real
 * PMI handler lives with (issue 10 item 2):
 *  - the local APIC masks LVTPC when it delivers a PMI, and a PMI requested
 *    while it is masked is lost (dsm_set_lvt_model);
 *  - the handler executes instructions: every MSR access it makes retires
 *    one OS-mode branch (dsm_set_msr_hook), so a counter that counts
 *    OS-mode instructions overflows INSIDE the handler.
 * PMC1 (user instructions) raises the PMI; PMC0 (OS instructions) is set to
 * overflow on the handler's own instructions. The overflow's PMI is raised
 * under the masked LVT (st.pmi_masked), so the only chance to see it is the
 * handler re-reading GLOBAL_STATUS: after the handler nothing may be left
 * in GLOBAL_STATUS and the overflow must have reached the hook. With one
 * status read (the old handler) PMC0's bit stays set with no PMI coming.
 * Freeze modes: none (Haswell v3, Skylake v4: counters run in the handler)
 * and streamlined (Skylake: counters stopped until the ack, which is when
 * the overflow lands).
 */
#include <stdio.h>
#include "check.h"
#include "ds_model_ops.h"
#include "model_util.h"
#include <ds/cpu.h>
#include <ds/pmi.h>

#define EVT_INST 0xC0u
#define EVT_USR (1u << 16)
#define EVT_OS (1u << 17)
#define EVT_INT (1u << 20)
#define EVT_EN (1u << 22)
#define HANDLER_IP 0xFFFFFFFF81000000ull

static struct {
    struct dsm_cpu m;
    struct ds_cpu c;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    int err, calls;
    uint64_t hooked;
    unsigned handler_insns;
} T;

static void handler_insn(void *ctx, uint32_t msr, bool wr)
{
    (void)ctx;
    (void)msr;
    (void)wr;
    struct dsm_event b = ev_branch(HANDLER_IP + 0x40 * T.handler_insns, HANDLER_IP + 0x1000, false);
    b.cpl = 0;
    T.handler_insns++;
    dsm_retire(&T.m, &b);
}

static int ovf(void *a, uint64_t bits, bool no_global, uint32_t *handled)
{
    (void)a;
    (void)no_global;
    T.hooked |= bits;
    *handled = (uint32_t)__builtin_popcountll(bits);
    return DS_OK;
}

static void pmi_cb(void *ctx, uint32_t why)
{
    (void)ctx;
    (void)why;
    T.calls++;
    T.err = ds_pmi_handle(&T.pmi, &T.r);
    dsm_lvt_unmask(&T.m); /* the kernel rewrites LVTPC after the handler */
}

static void run(enum dsm_profile p, enum ds_freeze_mode fm)
{
    const char *n = dsm_profile_name(p);
    memset(&T, 0, sizeof(T));
    CHECK_EQ(dsm_init(&T.m, p, NULL, NULL), DSM_OK, "model %s", n);
    CHECK_EQ(ds_model_cpu_init(&T.c, &T.m), DS_OK, "libds %s", n);
    CHECK_EQ(ds_cpu_identify(&T.c), DS_OK, "identify %s", n);
    struct ds_pmi_config pc = { .freeze = fm, .global_ctrl = 0x3, .ovf_hook = ovf };
    CHECK_EQ(ds_pmi_init(&T.pmi, &T.c, NULL, &pc), DS_OK, "pmi init %s", n);
    if (fm != DS_FREEZE_NONE)
        CHECK_EQ(ds_pmi_set_freeze(&T.pmi), DS_OK, "freeze %s", n);
    /* PMC1: user instructions, PMI after 2; PMC0: OS instructions, overflows
     * at the handler's first instruction after the ack (streamlined: the
     * counters stand still until the ack) or at its second (no freeze: the
     * status read, then the ack). */
    dsm_wrmsr(&T.m, 0x186, EVT_INST | EVT_OS | EVT_INT | EVT_EN);
    dsm_wrmsr(&T.m, 0x187, EVT_INST | EVT_USR | EVT_INT | EVT_EN);
    dsm_wrmsr(&T.m, 0xC1, fm == DS_FREEZE_STREAMLINED ? (uint32_t)-1 : (uint32_t)-2);
    dsm_wrmsr(&T.m, 0xC2, (uint32_t)-2);
    dsm_wrmsr(&T.m, 0x38F, 0x3);
    dsm_set_lvt_model(&T.m, true);
    dsm_set_pmi(&T.m, pmi_cb, NULL);
    dsm_set_msr_hook(&T.m, handler_insn, NULL);
    for (unsigned k = 0; k < 2; k++) {
        struct dsm_event e = ev_plain(0x400000 + 4 * k);
        dsm_retire(&T.m, &e);
    }
    dsm_set_msr_hook(&T.m, NULL, NULL);
    CHECK_EQ(T.calls, 1, "one PMI delivered %s", n);
    CHECK_EQ(dsm_stats(&T.m)->pmi_masked, 1, "PMC0's PMI raised under the masked LVT %s", n);
    CHECK_EQ(T.err, DS_OK, "handle %s", n);
    CHECK_EQ(T.m.gstatus & 0x3, 0, "no overflow left in GLOBAL_STATUS without a PMI to come %s", n);
    CHECK_EQ(T.m.gstatus, 0, "GLOBAL_STATUS 0 after the handler %s", n);
    CHECK_EQ(T.hooked, 0x3, "both overflows reached the hook (PMC0's inside the handler) %s", n);
    CHECK_EQ(T.r.passes, 2, "two passes %s", n);
    CHECK_EQ(T.r.acked & 0x3, 0x3, "both acknowledged %s", n);
    CHECK(!T.m.lvt_masked, "LVTPC unmasked again %s", n);
}

int main(void)
{
    run(DSM_HASWELL, DS_FREEZE_NONE);
    run(DSM_SKYLAKE, DS_FREEZE_NONE);
    run(DSM_SKYLAKE, DS_FREEZE_STREAMLINED);
    return check_summary();
}
