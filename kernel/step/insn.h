/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Single-step instruction classifier (test kernel, freestanding).
 *
 * Given the bytes at an instruction pointer and the execution mode (32-bit
 * protected/compatibility mode or 64-bit mode), step_decode() tells whether
 * the instruction is a branch and of which kind, its length, the target of a
 * relative branch, and the shape of its ModRM/SIB/displacement memory operand;
 * step_mem_addr() turns that operand into a linear address from the registers
 * as they were before the instruction executed. The single-step feed
 * (feed.h) uses both to describe each retired instruction to the reference
 * model: taken branches for BTS/LBR, load addresses for PEBS.
 *
 * Scope (Intel SDM Vol. 2, "Instruction Format" and the opcode maps of
 * Appendix A):
 *  - legacy prefixes F0 F2 F3 2E 36 3E 26 64 65 66 67 in any order, REX in
 *    64-bit mode (only when it immediately precedes the opcode, otherwise it
 *    is ignored, as the SDM says);
 *  - the one-byte map, the 0F map and the 0F 38 / 0F 3A maps: lengths of all
 *    legacy-encoded instructions, so non-branch instructions get a length too;
 *  - VEX (C4/C5), EVEX (62), XOP (8F) and REX2 (D5 in 64-bit mode) encodings
 *    are recognised and rejected with STEP_ERR_VEX. None of them encodes a
 *    branch, so the caller may treat such an instruction as a non-branch of
 *    unknown length;
 *  - 16-bit addressing (67 in 32-bit mode) is decoded; 16-bit code segments
 *    (real mode, CS.D = 0) are not supported;
 *  - classified as non-branches: XBEGIN/XABORT (they only transfer control on
 *    an abort), VMX/SVM/SGX/FRED instructions of 0F 01 (VMCALL, VMLAUNCH,
 *    VMRUN, ENCLU, ERETU, ...), UD0/UD1/UD2 and other faulting opcodes (a
 *    fault is not a retired branch); FWAIT (9B) is an instruction of its own;
 *  - Intel semantics where vendors differ: in 64-bit mode a 66 prefix on a
 *    near relative branch is ignored (rel32 stays rel32, the target is not
 *    truncated to 16 bits); AMD CPUs honour it. The host test runs only
 *    prefix-free branches, so it holds on either vendor.
 *
 * Nothing here touches memory other than the bytes and structures passed in,
 * keeps no state, and is safe in any context, NMI handlers included.
 */
#ifndef STEP_INSN_H
#define STEP_INSN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Execution modes (the default operand/address size of the code segment). */
#define STEP_MODE_32 32u /* protected mode or compatibility mode, CS.D = 1 */
#define STEP_MODE_64 64u /* 64-bit mode, CS.L = 1 */

/* Architectural maximum length of one instruction (longer: #GP). */
#define STEP_INSN_MAX 15u

enum step_err {
    STEP_OK = 0,
    STEP_ERR_NULL = 1,    /* a required pointer argument is NULL */
    STEP_ERR_INVAL = 2,   /* mode is not STEP_MODE_32/64, or cpl > 3 */
    STEP_ERR_TRUNC = 3,   /* the instruction needs more bytes than were given */
    STEP_ERR_TOOLONG = 4, /* longer than 15 bytes: #GP on hardware */
    STEP_ERR_VEX = 5,     /* VEX/EVEX/XOP/REX2 encoding: not decoded, never a branch */
    STEP_ERR_UNDEF = 6,   /* opcode undefined (or invalid in this mode): #UD */
    STEP_ERR_NOMEM = 7,   /* step_mem_addr: the instruction has no memory operand */
    STEP_ERR__COUNT
};

/* Branch kinds. Near branches are split the way BTS/LBR consumers want them
 * (cf. the Arch LBR branch types of SDM "Last Branch Records"). */
enum step_br_kind {
    STEP_BR_NONE = 0,     /* not a branch */
    STEP_BR_JCC = 1,      /* Jcc rel8 (70-7F), Jcc rel16/32 (0F 80-8F) */
    STEP_BR_JMP_REL = 2,  /* JMP rel8 (EB), JMP rel16/32 (E9) */
    STEP_BR_JMP_IND = 3,  /* JMP r/m (FF /4) */
    STEP_BR_CALL_REL = 4, /* CALL rel16/32 (E8) */
    STEP_BR_CALL_IND = 5, /* CALL r/m (FF /2) */
    STEP_BR_RET = 6,      /* near RET (C3), RET imm16 (C2) */
    STEP_BR_LOOP = 7,     /* LOOPNE/LOOPE/LOOP/JrCXZ (E0-E3), conditional */
    STEP_BR_FAR = 8,      /* far JMP/CALL/RET: EA, 9A, FF /3, FF /5, CA, CB */
    STEP_BR_OTHER = 9,    /* INT3, INT n, INTO, INT1, IRET, SYSCALL, SYSRET,
                             SYSENTER, SYSEXIT, RSM: control leaves the flow */
    STEP_BR__COUNT
};

/* struct step_insn.flags */
#define STEP_I_MODRM    (1u << 0)  /* a ModRM byte is present (.modrm) */
#define STEP_I_SIB      (1u << 1)  /* a SIB byte is present (.sib) */
#define STEP_I_MEM      (1u << 2)  /* explicit memory operand (ModRM memory form
                                      or moffs); its address: step_mem_addr() */
#define STEP_I_LOAD     (1u << 3)  /* ... which the instruction reads */
#define STEP_I_STORE    (1u << 4)  /* ... which the instruction writes */
#define STEP_I_RIPREL   (1u << 5)  /* ... RIP-relative (64-bit mode, mod 00 rm 101) */
#define STEP_I_MOFFS    (1u << 6)  /* ... a moffs absolute offset (A0-A3) */
#define STEP_I_REL      (1u << 7)  /* relative branch: .rel and .target valid */
#define STEP_I_COND     (1u << 8)  /* conditional branch (JCC, LOOP kinds) */
#define STEP_I_LOCK     (1u << 9)  /* F0 */
#define STEP_I_REPNE    (1u << 10) /* F2 (REPNE; BND on a branch) */
#define STEP_I_REP      (1u << 11) /* F3 (REP/REPE) */
#define STEP_I_OPSIZE   (1u << 12) /* 66 */
#define STEP_I_ADDRSIZE (1u << 13) /* 67 */
#define STEP_I_HINT_NT  (1u << 14) /* 2E on a Jcc: "branch not taken" hint */
#define STEP_I_HINT_T   (1u << 15) /* 3E on a Jcc: "branch taken" hint */
#define STEP_I_NOTRACK  (1u << 16) /* 3E on an indirect JMP/CALL (CET) */
#define STEP_I_BND      (1u << 17) /* F2 on a near branch (MPX BND) */
#define STEP_I_STRING   (1u << 18) /* string instruction (A4-A7, AA-AF, 6C-6F):
                                      with REP it is single-stepped per iteration */

/* Segment registers, in their encoding order (struct step_regs.seg_base). */
#define STEP_SEG_ES 0u
#define STEP_SEG_CS 1u
#define STEP_SEG_SS 2u
#define STEP_SEG_DS 3u
#define STEP_SEG_FS 4u
#define STEP_SEG_GS 5u
#define STEP_SEG_NONE 0xFFu

/* General registers by their encoding number (ModRM/SIB with REX bits). */
#define STEP_R_AX 0u
#define STEP_R_CX 1u
#define STEP_R_DX 2u
#define STEP_R_BX 3u
#define STEP_R_SP 4u
#define STEP_R_BP 5u
#define STEP_R_SI 6u
#define STEP_R_DI 7u
/* R8..R15 are 8..15 */

/* The register state of the stepped code (a trap frame, converted). */
struct step_regs {
    uint64_t gpr[16];     /* by encoding number; 32-bit mode uses bits 31:0 of 0..7 */
    uint64_t ip;          /* EIP/RIP (linear: flat CS assumed, CS base 0) */
    uint64_t flags;       /* EFLAGS/RFLAGS */
    uint64_t seg_base[6]; /* segment bases by STEP_SEG_*; 64-bit mode uses
                             only FS and GS (others are 0 architecturally) */
};

/* One decoded instruction. Fields not described by a flag are 0. */
struct step_insn {
    uint64_t ip;        /* address it was decoded at (as passed in) */
    uint64_t target;    /* STEP_I_REL: ip + len + rel, in the operand size */
    int64_t rel;        /* STEP_I_REL: sign-extended relative displacement */
    int64_t disp;       /* STEP_I_MEM: sign-extended displacement; moffs value
                           (zero-extended) with STEP_I_MOFFS */
    uint32_t flags;     /* STEP_I_* */
    uint8_t len;        /* total length in bytes, prefixes included */
    uint8_t mode;       /* STEP_MODE_32 or STEP_MODE_64 */
    uint8_t kind;       /* enum step_br_kind */
    uint8_t map;        /* opcode map: 0 one-byte, 1 0F, 2 0F 38, 3 0F 3A */
    uint8_t opcode;     /* the opcode byte within its map */
    uint8_t modrm;      /* STEP_I_MODRM */
    uint8_t sib;        /* STEP_I_SIB */
    uint8_t rex;        /* the REX byte in effect (64-bit mode), else 0 */
    uint8_t seg;        /* last segment-override prefix (STEP_SEG_*), or STEP_SEG_NONE */
    uint8_t nprefix;    /* number of prefix bytes (legacy + REX) */
    uint8_t opsize;     /* operand size in bytes: 2, 4 or 8 */
    uint8_t addrsize;   /* address size in bytes: 2, 4 or 8 */
    uint8_t mem_size;   /* bytes read/written at the memory operand, 0 if not known */
    uint8_t imm_len;    /* bytes of immediate (or moffs / rel) after the displacement */
};

/*
 * Decode the instruction at code[0..avail) that sits at address ip.
 *   code, out: non-NULL. avail: bytes readable at code (need not cover 15;
 *   the decoder never reads past code[avail-1]). mode: STEP_MODE_32/64.
 *   ip: the instruction's address (only used for rel targets and RIP-relative
 *   operands; truncated to 32 bits in STEP_MODE_32).
 * Returns STEP_OK with *out filled; otherwise *out still holds what was
 * decoded (kind, prefixes) with len = 0:
 *   STEP_ERR_NULL, STEP_ERR_INVAL (bad mode), STEP_ERR_TRUNC (avail too
 *   short), STEP_ERR_TOOLONG, STEP_ERR_VEX (kind = STEP_BR_NONE),
 *   STEP_ERR_UNDEF (undefined here, e.g. 0F 04, or PUSH ES in 64-bit mode).
 * Touches no MSRs; stateless; NMI-safe.
 */
enum step_err step_decode(const uint8_t *code, size_t avail, unsigned mode, uint64_t ip,
                          struct step_insn *out);

/*
 * Linear address of the explicit memory operand of a decoded instruction:
 * segment base (FS/GS only in 64-bit mode) + base + index * scale + disp,
 * wrapped to the address size (16/32/64 bits) and, in 32-bit mode, to 32 bits.
 * RIP-relative operands are relative to ip + len. regs must be the state
 * before the instruction executed (as a single-step trap frame delivers it).
 *   insn: from a successful step_decode(); regs, out_linear: non-NULL.
 * Returns STEP_OK, STEP_ERR_NULL, STEP_ERR_INVAL (insn->mode not 32/64) or
 * STEP_ERR_NOMEM (no STEP_I_MEM: nothing written to *out_linear). LEA has a
 * memory-form operand (STEP_I_MEM without LOAD/STORE): its address is what
 * it computes. Reads no memory; NMI-safe.
 */
enum step_err step_mem_addr(const struct step_insn *insn, const struct step_regs *regs,
                            uint64_t *out_linear);

/* A fixed English name for a kind ("jcc", "call_ind", ...), "?" if unknown.
 * Any value accepted; no MSRs; NMI-safe. */
const char *step_br_kind_name(unsigned kind);
/* A fixed English sentence for an error code, never NULL ("unknown step
 * error" for values it does not know). No MSRs; NMI-safe. */
const char *step_strerror(unsigned err);

#ifdef __cplusplus
}
#endif

#endif /* STEP_INSN_H */
