/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Single-step feed: turns one single-step (the registers before and after one
 * instruction, as two consecutive #DB trap frames deliver them) into the event
 * descriptor the reference model consumes: a retired instruction with the
 * register state, the taken branch it made (from, to, kind, ring, predicted
 * or not) and the explicit memory load (address, size).
 *
 * Independent of the IDT and of the model's API: the integrator maps
 * struct step_event onto the model's event calls (model/include/
 * dsmodel.h, being written in parallel). Freestanding, stateless, NMI-safe.
 *
 * Rules (see docs/design.md, "Single-step feed"):
 *  - taken = an unconditional branch (JMP, CALL, RET, far, other), or a
 *    conditional one (Jcc, LOOP family) whose next IP is not ip + length;
 *    br_from = the branch's own IP, br_to = the observed next IP (what BTS
 *    and LBR record);
 *  - mispredicted (a deterministic convention, not a claim about hardware):
 *    a conditional branch is predicted taken when its target is below its IP
 *    (backward) and not taken otherwise; unconditional branches are always
 *    predicted; STEP_EV_MISPRED marks the conditional branches that went the
 *    other way;
 *  - a REP string iteration that traps with IP unchanged did not retire the
 *    instruction (STEP_EV_RETIRED clear); the last iteration does;
 *  - loads are instructions with an explicit memory operand that they read
 *    (struct step_insn STEP_I_LOAD); implicit stack reads (POP, RET) and
 *    string instructions are not reported.
 */
#ifndef STEP_FEED_H
#define STEP_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "insn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* struct step_event.flags */
#define STEP_EV_RETIRED   (1u << 0) /* the instruction at ip retired */
#define STEP_EV_BRANCH    (1u << 1) /* it is a branch (br_kind != NONE), taken or not */
#define STEP_EV_TAKEN     (1u << 2) /* ... and it was taken: br_from/br_to valid */
#define STEP_EV_COND      (1u << 3) /* ... conditional (Jcc, LOOP family) */
#define STEP_EV_MISPRED   (1u << 4) /* ... mispredicted under the static rule above */
#define STEP_EV_LOAD      (1u << 5) /* load_addr/load_size valid */
#define STEP_EV_STORE     (1u << 6) /* store_addr/store_size valid */
#define STEP_EV_UNDECODED (1u << 7) /* the classifier could not decode it (VEX,
                                       undefined, truncated): treated as a non-branch */
#define STEP_EV_VEX       (1u << 8) /* ... because it is VEX/EVEX/XOP/REX2-encoded */
#define STEP_EV_MISMATCH  (1u << 9) /* next IP is neither ip + len nor the decoded
                                       target: an interrupt or fault intervened, or
                                       the bytes are not what executed */
#define STEP_EV_REP_ITER  (1u << 10) /* REP string iteration, IP unchanged */

struct step_event {
    uint64_t ip;          /* linear IP of the instruction (before the step) */
    uint64_t next_ip;     /* linear IP after the step */
    uint64_t br_from;     /* STEP_EV_TAKEN: = ip */
    uint64_t br_to;       /* STEP_EV_TAKEN: = next_ip */
    uint64_t load_addr;   /* STEP_EV_LOAD: linear address read */
    uint64_t store_addr;  /* STEP_EV_STORE: linear address written */
    uint64_t gpr[16];     /* registers after the instruction, by encoding number
                             (RAX RCX RDX RBX RSP RBP RSI RDI R8..R15): what a
                             PEBS record reports for it */
    uint64_t flags_after; /* EFLAGS/RFLAGS after the instruction */
    uint32_t flags;       /* STEP_EV_* */
    uint32_t load_size;   /* bytes; 0 if the size is not known */
    uint32_t store_size;
    uint8_t br_kind;      /* enum step_br_kind (STEP_BR_NONE if not a branch) */
    uint8_t len;          /* instruction length, 0 if undecoded */
    uint8_t cpl;          /* ring the instruction ran in (BTS_OFF_OS/USR, LBR filters) */
    uint8_t mode;         /* STEP_MODE_32 or STEP_MODE_64 */
};

/*
 * Describe one single step.
 *   before: registers before the instruction (before->ip is its address);
 *   after:  registers after it (after->ip is the next IP);
 *   mode:   STEP_MODE_32 or STEP_MODE_64; cpl: 0..3;
 *   code:   bytes at before->ip, avail of them readable (15 is enough);
 *   out:    filled completely on every return except STEP_ERR_NULL/INVAL.
 * IPs and registers are truncated to 32 bits in STEP_MODE_32.
 * Returns STEP_OK (also for VEX-encoded instructions, reported as undecoded
 * non-branches with STEP_EV_VEX), or STEP_ERR_NULL, STEP_ERR_INVAL,
 * STEP_ERR_TRUNC, STEP_ERR_TOOLONG, STEP_ERR_UNDEF with *out describing the
 * step as an undecoded non-branch (STEP_EV_UNDECODED): the caller decides
 * whether to feed it. Touches no MSRs; reads only code[0..avail); NMI-safe.
 */
enum step_err step_feed(const struct step_regs *before, const struct step_regs *after,
                        unsigned mode, unsigned cpl, const uint8_t *code, size_t avail,
                        struct step_event *out);

#ifdef __cplusplus
}
#endif

#endif /* STEP_FEED_H */
