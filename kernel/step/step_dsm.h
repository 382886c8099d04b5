/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Adapter from the single-step feed (feed.h) to the reference model's event
 * (model/include/dsmodel.h, struct dsm_event, fed with dsm_retire()).
 * Header-only so that it needs no build change beyond the model's include
 * directory. Freestanding; NMI-safe; no state.
 *
 * What the single step cannot know is passed in: load latency, data source
 * and TSC (the kernel picks documented constants or reads the TSC).
 */
#ifndef STEP_DSM_H
#define STEP_DSM_H

#include <stdbool.h>
#include <stdint.h>

#include "dsmodel.h"
#include "feed.h"

/* What the single step cannot know, fed to the model for every load by the
 * flows of the test kernel (kernel/e2e) and of libds.ko (linux/): a
 * documented constant. Data source 3 = "L2 hit" in the PEBS data-source
 * encoding (pebs-records.md), so the load missed L1: NetBurst replay tagging
 * (1stL_cache_load_miss_retired) tags it. Latency in core cycles: the
 * records' latency field. */
#define STEP_DSM_LOAD_DATA_SRC 0x3u
#define STEP_DSM_LOAD_LATENCY 12u

/* Branch kind of the feed -> branch kind of the model. The LOOP family is
 * conditional and relative: the model's JCC. INT/IRET/SYSCALL-style
 * transfers (STEP_BR_OTHER) are far transfers for BTS/LBR purposes. */
static inline uint8_t step_dsm_br_kind(unsigned kind)
{
    switch (kind) {
    case STEP_BR_JCC:
    case STEP_BR_LOOP: return DSM_BR_JCC;
    case STEP_BR_JMP_REL: return DSM_BR_NEAR_REL_JMP;
    case STEP_BR_JMP_IND: return DSM_BR_NEAR_IND_JMP;
    case STEP_BR_CALL_REL: return DSM_BR_NEAR_REL_CALL;
    case STEP_BR_CALL_IND: return DSM_BR_NEAR_IND_CALL;
    case STEP_BR_RET: return DSM_BR_NEAR_RET;
    default: return DSM_BR_FAR;
    }
}

/*
 * Fill *out from *ev. Returns false (and leaves *out zeroed) when the step
 * retired nothing (a REP iteration, STEP_EV_RETIRED clear): do not call
 * dsm_retire() then. Otherwise true: pass *out to dsm_retire().
 * ev, out: non-NULL (not checked: inline glue for the #DB handler).
 */
static inline bool step_to_dsm(const struct step_event *ev, uint32_t load_latency,
                               uint32_t data_src, uint64_t tsc, struct dsm_event *out)
{
    uint8_t *p = (uint8_t *)out;
    for (unsigned i = 0; i < sizeof *out; i++)
        p[i] = 0;
    if (!(ev->flags & STEP_EV_RETIRED))
        return false;
    out->ip = ev->ip;
    out->next_ip = ev->next_ip;
    out->regs[DSM_R_FLAGS] = ev->flags_after;
    out->regs[DSM_R_IP] = ev->next_ip;
    out->regs[DSM_R_AX] = ev->gpr[STEP_R_AX];
    out->regs[DSM_R_BX] = ev->gpr[STEP_R_BX];
    out->regs[DSM_R_CX] = ev->gpr[STEP_R_CX];
    out->regs[DSM_R_DX] = ev->gpr[STEP_R_DX];
    out->regs[DSM_R_SI] = ev->gpr[STEP_R_SI];
    out->regs[DSM_R_DI] = ev->gpr[STEP_R_DI];
    out->regs[DSM_R_BP] = ev->gpr[STEP_R_BP];
    out->regs[DSM_R_SP] = ev->gpr[STEP_R_SP];
    for (unsigned i = 0; i < 8; i++)
        out->regs[DSM_R_R8 + i] = ev->gpr[8 + i];
    out->cpl = ev->cpl;
    if (ev->flags & STEP_EV_BRANCH) {
        out->flags |= DSM_EV_BRANCH;
        out->br_kind = step_dsm_br_kind(ev->br_kind);
        if (ev->flags & STEP_EV_TAKEN) {
            out->flags |= DSM_EV_TAKEN;
            out->br_to = ev->br_to;
        }
        if (ev->flags & STEP_EV_MISPRED)
            out->flags |= DSM_EV_MISPRED;
    }
    if (ev->flags & STEP_EV_LOAD) {
        out->flags |= DSM_EV_LOAD;
        out->load_addr = ev->load_addr;
        out->load_latency = load_latency;
        out->data_src = data_src;
    }
    if (ev->flags & STEP_EV_STORE)
        out->flags |= DSM_EV_STORE;
    out->tsc = tsc;
    out->xmm = 0;
    return true;
}

#endif /* STEP_DSM_H */
