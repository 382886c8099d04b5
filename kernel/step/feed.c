/* SPDX-License-Identifier: BSD-2-Clause */
/* Single-step feed: see feed.h. Freestanding: no libc. */
#include "feed.h"

#include <stdbool.h>

static uint64_t mask_mode(uint64_t v, unsigned mode)
{
    return mode == STEP_MODE_64 ? v : (v & 0xFFFFFFFFu);
}

static void clear(struct step_event *e)
{
    uint8_t *p = (uint8_t *)e;
    for (size_t i = 0; i < sizeof *e; i++)
        p[i] = 0;
}

/* Branch, taken, mispredicted, mismatch or a REP iteration: the flags f
 * (STEP_EV_RETIRED at first) updated, br_from/br_to filled for a taken branch. */
static uint32_t feed_flow(const struct step_insn *in, uint64_t fall, uint32_t f, struct step_event *out)
{
    if (in->kind != STEP_BR_NONE) {
        bool taken;
        f |= STEP_EV_BRANCH;
        if (in->flags & STEP_I_COND) {
            f |= STEP_EV_COND;
            taken = out->next_ip != fall;
            if (taken && out->next_ip != in->target)
                f |= STEP_EV_MISMATCH;
            bool predict_taken = in->target < out->ip;
            if (taken != predict_taken)
                f |= STEP_EV_MISPRED;
        } else {
            taken = true;
            if ((in->flags & STEP_I_REL) && out->next_ip != in->target)
                f |= STEP_EV_MISMATCH;
        }
        if (taken) {
            f |= STEP_EV_TAKEN;
            out->br_from = out->ip;
            out->br_to = out->next_ip;
        }
    } else if (out->next_ip != fall) {
        if ((in->flags & STEP_I_STRING) && (in->flags & (STEP_I_REP | STEP_I_REPNE)) &&
            out->next_ip == out->ip)
            f = (f & ~STEP_EV_RETIRED) | STEP_EV_REP_ITER;
        else
            f |= STEP_EV_MISMATCH;
    }
    return f;
}

/* The load and store of the step at the address its registers before give. */
static uint32_t feed_mem(const struct step_insn *in, const struct step_regs *before, uint32_t f,
                         struct step_event *out)
{
    if ((in->flags & (STEP_I_LOAD | STEP_I_STORE)) && !(f & STEP_EV_REP_ITER)) {
        uint64_t lin;
        if (step_mem_addr(in, before, &lin) == STEP_OK) {
            if (in->flags & STEP_I_LOAD) {
                f |= STEP_EV_LOAD;
                out->load_addr = lin;
                out->load_size = in->mem_size;
            }
            if (in->flags & STEP_I_STORE) {
                f |= STEP_EV_STORE;
                out->store_addr = lin;
                out->store_size = in->mem_size;
            }
        }
    }
    return f;
}

enum step_err step_feed(const struct step_regs *before, const struct step_regs *after,
                        unsigned mode, unsigned cpl, const uint8_t *code, size_t avail,
                        struct step_event *out)
{
    if (out == NULL)
        return STEP_ERR_NULL;
    clear(out);
    if (before == NULL || after == NULL || code == NULL)
        return STEP_ERR_NULL;
    if ((mode != STEP_MODE_32 && mode != STEP_MODE_64) || cpl > 3)
        return STEP_ERR_INVAL;

    out->mode = (uint8_t)mode;
    out->cpl = (uint8_t)cpl;
    out->ip = mask_mode(before->ip, mode);
    out->next_ip = mask_mode(after->ip, mode);
    for (unsigned r = 0; r < 16; r++)
        out->gpr[r] = (mode == STEP_MODE_64 || r < 8) ? mask_mode(after->gpr[r], mode) : 0;
    out->flags_after = mask_mode(after->flags, mode);

    struct step_insn in;
    enum step_err err = step_decode(code, avail, mode, out->ip, &in);
    if (err != STEP_OK) {
        /* Not decoded: a non-branch as far as we can tell. VEX encodings never
         * branch, so that case is complete apart from a possible load. */
        out->flags = STEP_EV_RETIRED | STEP_EV_UNDECODED;
        if (err == STEP_ERR_VEX) {
            out->flags |= STEP_EV_VEX;
            return STEP_OK;
        }
        return err;
    }

    const uint64_t fall = mask_mode(out->ip + in.len, mode);
    uint32_t f = STEP_EV_RETIRED;
    out->len = in.len;
    out->br_kind = in.kind;

    f = feed_flow(&in, fall, f, out);
    f = feed_mem(&in, before, f, out);
    out->flags = f;
    return STEP_OK;
}
