/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Single-step instruction classifier: see insn.h. Opcode properties come from
 * the Intel SDM Vol. 2, Appendix A "Opcode Map" (one-byte, two-byte 0F and
 * three-byte 0F 38 / 0F 3A maps, and the opcode extensions by ModRM.reg of
 * Table A-6) and "Instruction Format" (prefixes, REX, ModRM, SIB, displacement
 * and immediate sizes). Freestanding: no libc.
 *
 * Table-driven: each opcode of a map has one 32-bit attribute word saying
 * what follows the opcode (ModRM, immediate and relative-displacement sizes,
 * moffs), where it is invalid, its branch kind, how it accesses a ModRM
 * memory operand and the size of that access. Opcodes whose meaning depends
 * on ModRM.reg (groups 1, 3, 4, 5, 8, 11) name a group table, whose row for
 * the reg field adds the attributes of that form. step_decode() then reads
 * the bytes in order: prefixes, opcode, ModRM/SIB/displacement, immediates.
 */
#include "insn.h"

#include <stdbool.h>

/* Attribute bits 0-15: what follows the opcode and where it is valid
 * (additive immediate sizes). */
#define P_M   0x0001u /* ModRM follows */
#define P_IB  0x0002u /* imm8 */
#define P_IW  0x0004u /* imm16 */
#define P_IZ  0x0008u /* imm16/32 by operand size (imm32 with REX.W) */
#define P_IV  0x0010u /* imm16/32/64 by operand size (B8-BF) */
#define P_MO  0x0020u /* moffs: address-size offset (A0-A3) */
#define P_R8  0x0040u /* rel8 */
#define P_RZ  0x0080u /* rel16/32 */
#define P_BY  0x0100u /* byte operand */
#define P_I64 0x0200u /* invalid in 64-bit mode (#UD) */
#define P_UD  0x0400u /* undefined opcode */
#define P_PF  0x0800u /* prefix byte (handled before the table) */
#define P_ESC 0x1000u /* 0F escape (0F 38 / 0F 3A in the 0F map) */
#define P_MEM 0x2000u /* the ModRM operand must be memory (#UD with mod = 11b) */
#define P_REG 0x4000u /* the mod field is ignored: always a register (MOV CR/DR) */
#define P_STR 0x8000u /* string instruction (STEP_I_STRING) */

/* Bits 16-19: the branch kind (enum step_br_kind). */
#define K_SHIFT 16u
#define K(k) ((uint32_t)(k) << K_SHIFT)

/* Bits 20-23: memory access of the ModRM r/m operand (or moffs) when it is in memory. */
#define A_SHIFT 20u
#define A_UNK   0u /* accesses memory in a way this decoder does not classify */
#define A_NONE  1u /* no access (LEA, hint NOPs, prefetches) */
#define A_LOAD  2u
#define A_STORE 3u
#define A_RMW   4u
#define A_LD64  5u /* 63: MOVSXD (load) in 64-bit mode, ARPL (read-modify-write) otherwise */
#define A(a) ((uint32_t)(a) << A_SHIFT)

/* Bits 24-27: bytes accessed at that operand. */
#define S_SHIFT    24u
#define SZ_OP      0u /* the operand size, 1 with P_BY */
#define SZ_1       1u
#define SZ_2       2u
#define SZ_63      3u /* 63: m32 (MOVSXD) in 64-bit mode, m16 (ARPL) otherwise */
#define SZ_FARPTR  4u /* m16:16/32/64: 2 + operand size (LES, LDS, far JMP/CALL) */
#define SZ_BOUND   5u /* m16&16 / m32&32: twice the operand size */
#define SZ_STACK   6u /* PUSH/POP r/m: 8 in 64-bit mode (2 with 66), else the operand size */
#define SZ_BRANCH  7u /* near JMP/CALL r/m: 8 in 64-bit mode (66 ignored), else the operand size */
#define S(s) ((uint32_t)(s) << S_SHIFT)

/* Bits 28-30: the group table that completes the attributes by ModRM.reg. */
#define G_SHIFT 28u
#define G_NONE 0u
#define G_1    1u /* 80-83 */
#define G_3B   2u /* F6 */
#define G_3V   3u /* F7 */
#define G_4    4u /* FE */
#define G_5    5u /* FF */
#define G_8    6u /* 0F BA */
#define G_11   7u /* C6, C7 */
#define G(g) ((uint32_t)(g) << G_SHIFT)

#define M_  P_M
#define MB  (P_M | P_BY)
#define IBB (P_IB | P_BY)
#define AL  A(A_LOAD)
#define AS  A(A_STORE)
#define AR  A(A_RMW)
#define AN  A(A_NONE)
#define JCC8  (P_R8 | K(STEP_BR_JCC))
#define JCCZ  (P_RZ | K(STEP_BR_JCC))
#define LOOP8 (P_R8 | K(STEP_BR_LOOP))
#define OTHER K(STEP_BR_OTHER)
/* ALU op r/m, r; op r, r/m; op AL/rAX, imm (00-05, 08-0D, ... 38-3D; CMP only reads). */
#define ALU6 MB | AR, M_ | AR, MB | AL, M_ | AL, IBB, P_IZ
#define CMP6 MB | AL, M_ | AL, MB | AL, M_ | AL, IBB, P_IZ

/* One-byte opcode map (SDM Table A-2). */
static const uint32_t map1[256] = {
    /* 00 */ ALU6, P_I64, P_I64, ALU6, P_I64, P_ESC,
    /* 10 */ ALU6, P_I64, P_I64, ALU6, P_I64, P_I64,
    /* 20 */ ALU6, P_PF, P_I64, ALU6, P_PF, P_I64,
    /* 30 */ ALU6, P_PF, P_I64, CMP6, P_PF, P_I64,
    /* 40 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* INC/DEC; REX in 64-bit mode */
    /* 50 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 60 */ P_I64, P_I64, P_M | P_I64 | P_MEM | AL | S(SZ_BOUND), M_ | A(A_LD64) | S(SZ_63),
             P_PF, P_PF, P_PF, P_PF,
             P_IZ, P_M | P_IZ | AL, P_IB, P_M | P_IB | AL,
             P_BY | P_STR, P_STR, P_BY | P_STR, P_STR,
    /* 70 */ JCC8, JCC8, JCC8, JCC8, JCC8, JCC8, JCC8, JCC8,
             JCC8, JCC8, JCC8, JCC8, JCC8, JCC8, JCC8, JCC8,
    /* 80 */ P_M | IBB | G(G_1), P_M | P_IZ | G(G_1), P_M | IBB | P_I64 | G(G_1), P_M | P_IB | G(G_1),
             MB | AL, M_ | AL, MB | AR, M_ | AR,                 /* TEST, XCHG */
             MB | AS, M_ | AS, MB | AL, M_ | AL,                 /* MOV */
             M_ | AS | S(SZ_2), M_ | AN | P_MEM, M_ | AL | S(SZ_2), M_ | AS | S(SZ_STACK), /* MOV Sreg, LEA, POP */
    /* 90 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, P_IZ | P_IW | P_I64 | K(STEP_BR_FAR), 0, 0, 0, 0, 0,
    /* A0 */ P_MO | P_BY | AL, P_MO | AL, P_MO | P_BY | AS, P_MO | AS,
             P_BY | P_STR, P_STR, P_BY | P_STR, P_STR,
             IBB, P_IZ, P_BY | P_STR, P_STR, P_BY | P_STR, P_STR, P_BY | P_STR, P_STR,
    /* B0 */ IBB, IBB, IBB, IBB, IBB, IBB, IBB, IBB,
             P_IV, P_IV, P_IV, P_IV, P_IV, P_IV, P_IV, P_IV,
    /* C0 */ P_M | IBB | AR, P_M | P_IB | AR, P_IW | K(STEP_BR_RET), K(STEP_BR_RET),
             P_M | P_I64 | P_MEM | AL | S(SZ_FARPTR), P_M | P_I64 | P_MEM | AL | S(SZ_FARPTR), /* LES, LDS */
             P_M | IBB | G(G_11), P_M | P_IZ | G(G_11),
             P_IW | P_IB, 0, P_IW | K(STEP_BR_FAR), K(STEP_BR_FAR),
             OTHER, P_IB | OTHER, P_I64 | OTHER, OTHER,          /* INT3, INT n, INTO, IRET */
    /* D0 */ MB | AR, M_ | AR, MB | AR, M_ | AR, P_IB | P_I64, P_IB | P_I64, P_UD, 0,
             M_, M_, M_, M_, M_, M_, M_, M_,                     /* x87 */
    /* E0 */ LOOP8, LOOP8, LOOP8, LOOP8, IBB, P_IB, IBB, P_IB,
             P_RZ | K(STEP_BR_CALL_REL), P_RZ | K(STEP_BR_JMP_REL),
             P_IZ | P_IW | P_I64 | K(STEP_BR_FAR), P_R8 | K(STEP_BR_JMP_REL), P_BY, 0, P_BY, 0,
    /* F0 */ P_PF, OTHER, P_PF, P_PF, 0, 0, MB | G(G_3B), M_ | G(G_3V),
             0, 0, 0, 0, 0, 0, MB | G(G_4), M_ | G(G_5),
};

#define MN (M_ | AN)
#define SETCC (M_ | AS | S(SZ_1))

/* Two-byte opcode map, 0F xx (SDM Table A-3). */
static const uint32_t map2[256] = {
    /* 00 */ M_, M_, M_, M_, P_UD, OTHER, 0, OTHER, 0, 0, P_UD, 0, P_UD, MN, 0, P_M | P_IB, /* SYSCALL, SYSRET */
    /* 10 */ M_, M_, M_, M_, M_, M_, M_, M_, MN, MN, MN, MN, MN, MN, MN, MN,
    /* 20 */ M_ | P_REG, M_ | P_REG, M_ | P_REG, M_ | P_REG, P_UD, P_UD, P_UD, P_UD,
             M_, M_, M_, M_, M_, M_, M_, M_,
    /* 30 */ 0, 0, 0, 0, OTHER, OTHER, P_UD, 0, P_ESC, P_UD, P_ESC, P_UD, P_UD, P_UD, P_UD, P_UD,
    /* 40 */ M_ | AL, M_ | AL, M_ | AL, M_ | AL, M_ | AL, M_ | AL, M_ | AL, M_ | AL, /* CMOVcc */
             M_ | AL, M_ | AL, M_ | AL, M_ | AL, M_ | AL, M_ | AL, M_ | AL, M_ | AL,
    /* 50 */ M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_,
    /* 60 */ M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_,
    /* 70 */ P_M | P_IB, P_M | P_IB, P_M | P_IB, P_M | P_IB, M_, M_, M_, 0,
             M_, M_, P_UD, P_UD, M_, M_, M_, M_,
    /* 80 */ JCCZ, JCCZ, JCCZ, JCCZ, JCCZ, JCCZ, JCCZ, JCCZ,
             JCCZ, JCCZ, JCCZ, JCCZ, JCCZ, JCCZ, JCCZ, JCCZ,
    /* 90 */ SETCC, SETCC, SETCC, SETCC, SETCC, SETCC, SETCC, SETCC,
             SETCC, SETCC, SETCC, SETCC, SETCC, SETCC, SETCC, SETCC,
    /* A0 */ 0, 0, 0, M_ | AL, P_M | P_IB | AR, M_ | AR, P_UD, P_UD,      /* BT, SHLD */
             0, 0, OTHER, M_ | AR, P_M | P_IB | AR, M_ | AR, M_, M_ | AL, /* RSM, BTS, SHRD, IMUL */
    /* B0 */ MB | AR, M_ | AR, M_, M_ | AR, M_, M_, M_ | AL | S(SZ_1), M_ | AL | S(SZ_2), /* CMPXCHG, BTR, MOVZX */
             M_ | AL, M_, P_M | P_IB | G(G_8), M_ | AR,                  /* POPCNT, BTC */
             M_ | AL, M_ | AL, M_ | AL | S(SZ_1), M_ | AL | S(SZ_2),     /* BSF, BSR, MOVSX */
    /* C0 */ MB | AR, M_ | AR, P_M | P_IB, M_ | AS, P_M | P_IB, P_M | P_IB, P_M | P_IB, M_, /* XADD, MOVNTI */
             0, 0, 0, 0, 0, 0, 0, 0,
    /* D0 */ M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_,
    /* E0 */ M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_,
    /* F0 */ M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_,
};

/* Opcode extensions by ModRM.reg (SDM Table A-6), added to the opcode's attributes. */
static const uint32_t groups[8][8] = {
    [G_1] = {AR, AR, AR, AR, AR, AR, AR, AL},              /* ADD..XOR r/m, imm; CMP reads only */
    [G_3B] = {P_IB | AL, P_IB | AL, AR, AR, AL, AL, AL, AL}, /* TEST imm8, NOT, NEG, MUL..IDIV */
    [G_3V] = {P_IZ | AL, P_IZ | AL, AR, AR, AL, AL, AL, AL}, /* TEST imm16/32, ... */
    [G_4] = {AR, AR},                                      /* INC, DEC */
    [G_5] = {AR, AR,                                       /* INC, DEC */
             K(STEP_BR_CALL_IND) | AL | S(SZ_BRANCH),
             K(STEP_BR_FAR) | P_MEM | AL | S(SZ_FARPTR),   /* CALLF m16:16/32/64 */
             K(STEP_BR_JMP_IND) | AL | S(SZ_BRANCH),
             K(STEP_BR_FAR) | P_MEM | AL | S(SZ_FARPTR),   /* JMPF */
             AL | S(SZ_STACK)},                            /* PUSH */
    [G_8] = {0, 0, 0, 0, AL, AR, AR, AR},                  /* BT, BTS, BTR, BTC r/m, imm8 */
    [G_11] = {AS},                                         /* MOV r/m, imm (XABORT/XBEGIN: reg 7) */
};

static const char *const kind_names[STEP_BR__COUNT] = {
    "none", "jcc", "jmp_rel", "jmp_ind", "call_rel", "call_ind", "ret", "loop", "far", "other",
};

const char *step_br_kind_name(unsigned kind)
{
    return kind < STEP_BR__COUNT ? kind_names[kind] : "?";
}

static const char *const err_names[STEP_ERR__COUNT] = {
    "success",
    "a required pointer argument is NULL",
    "invalid mode or argument",
    "the instruction extends past the bytes given",
    "the instruction is longer than 15 bytes",
    "VEX/EVEX/XOP/REX2-encoded instruction (not decoded, not a branch)",
    "undefined opcode in this mode",
    "the instruction has no memory operand",
};
_Static_assert(sizeof(err_names) / sizeof(err_names[0]) == STEP_ERR__COUNT, "error table");

const char *step_strerror(unsigned err)
{
    return err < STEP_ERR__COUNT ? err_names[err] : "unknown step error";
}

static uint64_t sext(uint64_t v, unsigned bytes)
{
    unsigned sh = 64u - 8u * bytes;
    return bytes >= 8 ? v : (uint64_t)((int64_t)(v << sh) >> sh);
}

static uint64_t le(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8u * i);
    return v;
}

static uint64_t wrap(uint64_t v, unsigned bytes)
{
    return bytes >= 8 ? v : v & ((UINT64_C(1) << (8u * bytes)) - 1u);
}

static void clear(struct step_insn *o)
{
    uint8_t *p = (uint8_t *)o;
    for (size_t i = 0; i < sizeof *o; i++)
        p[i] = 0;
}

/* What step_decode has read so far; its steps below fill it in order. */
struct dec {
    const uint8_t *code;
    size_t lim;              /* bytes that may be read: min(avail, 15) */
    size_t i;                /* the next byte */
    enum step_err short_err; /* an instruction past lim: TRUNC if avail < 15, else TOOLONG */
    bool m64;
    bool last_2e, last_3e;   /* the last of the 2E/3E prefixes */
    bool mem;                /* an explicit memory operand */
    uint32_t fl;             /* STEP_I_* */
    uint32_t attr;           /* the opcode's attributes (its group's row added) */
    unsigned reg;            /* ModRM.reg, 0 without ModRM */
    unsigned rel_len;        /* bytes of rel8/rel16/rel32, 0 if none */
};

/* Legacy prefixes in any order; REX counts only directly before the opcode.
 * Then the operand and address sizes. */
static enum step_err dec_prefixes(struct dec *d, struct step_insn *out)
{
    uint8_t rex = 0;
    for (;;) {
        if (d->i >= d->lim)
            return d->short_err;
        uint8_t b = d->code[d->i];
        bool legacy = true;
        switch (b) {
        case 0xF0: d->fl |= STEP_I_LOCK; break;
        case 0xF2: d->fl |= STEP_I_REPNE; break;
        case 0xF3: d->fl |= STEP_I_REP; break;
        case 0x66: d->fl |= STEP_I_OPSIZE; break;
        case 0x67: d->fl |= STEP_I_ADDRSIZE; break;
        case 0x26: out->seg = STEP_SEG_ES; break;
        case 0x2E: out->seg = STEP_SEG_CS; break;
        case 0x36: out->seg = STEP_SEG_SS; break;
        case 0x3E: out->seg = STEP_SEG_DS; break;
        case 0x64: out->seg = STEP_SEG_FS; break;
        case 0x65: out->seg = STEP_SEG_GS; break;
        default: legacy = false; break;
        }
        if (legacy) {
            rex = 0; /* a REX before a legacy prefix is ignored */
            d->last_2e = b == 0x2E ? true : (b == 0x3E ? false : d->last_2e);
            d->last_3e = b == 0x3E ? true : (b == 0x2E ? false : d->last_3e);
            d->i++;
            continue;
        }
        if (d->m64 && (b & 0xF0u) == 0x40u) {
            rex = b;
            d->i++;
            continue;
        }
        break;
    }
    out->nprefix = (uint8_t)d->i;
    out->rex = rex;
    bool o16 = (d->fl & STEP_I_OPSIZE) != 0, a16 = (d->fl & STEP_I_ADDRSIZE) != 0;
    out->opsize = d->m64 && (rex & 0x08u) ? 8 : (o16 ? 2 : 4);
    out->addrsize = d->m64 ? (a16 ? 4 : 8) : (a16 ? 2 : 4);
    return STEP_OK;
}

/* VEX/EVEX/XOP/REX2 escapes of the one-byte map (SDM "VEX prefix", "EVEX";
 * AMD XOP): *vex set, or short_err when the byte that tells is missing. */
static enum step_err dec_vex(const struct dec *d, uint8_t op, bool *vex)
{
    *vex = false;
    if (op == 0xC4 || op == 0xC5 || op == 0x62) {
        if (d->m64) {
            *vex = true;
        } else {
            if (d->i >= d->lim)
                return d->short_err;
            *vex = (d->code[d->i] & 0xC0u) == 0xC0u; /* LES/LDS/BOUND need a memory operand */
        }
    } else if (op == 0x8F) {
        if (d->i >= d->lim)
            return d->short_err;
        *vex = (d->code[d->i] & 0x38u) != 0; /* POP r/m is 8F /0 only */
    } else if (op == 0xD5 && d->m64) {
        *vex = true; /* REX2 (APX); AAD is invalid in 64-bit mode */
    }
    return STEP_OK;
}

/* The opcode, its map and its attributes; VEX-like escapes and undefined opcodes refused. */
static enum step_err dec_opcode(struct dec *d, struct step_insn *out)
{
    uint8_t op = d->code[d->i++];
    if (op == 0x0F) {
        if (d->i >= d->lim)
            return d->short_err;
        op = d->code[d->i++];
        if (op == 0x38 || op == 0x3A) {
            out->map = op == 0x38 ? 2 : 3;
            if (d->i >= d->lim)
                return d->short_err;
            op = d->code[d->i++];
            d->attr = out->map == 2 ? P_M : (P_M | P_IB); /* every 0F 38 / 0F 3A opcode has ModRM */
        } else {
            out->map = 1;
            d->attr = map2[op];
        }
    } else {
        out->map = 0;
        d->attr = map1[op];
        bool vex;
        enum step_err e = dec_vex(d, op, &vex);
        if (e != STEP_OK)
            return e;
        if (vex) {
            out->opcode = op;
            out->flags = d->fl;
            return STEP_ERR_VEX;
        }
    }
    out->opcode = op;
    if ((d->attr & P_UD) || ((d->attr & P_I64) && d->m64))
        return STEP_ERR_UNDEF;
    return STEP_OK;
}

/* Displacement bytes of a ModRM memory operand (SIB base 101b with mod 00: disp32). */
static unsigned disp_len(unsigned addrsize, unsigned mod, unsigned rm, uint8_t sib)
{
    if (addrsize == 2) /* SDM "16-Bit Addressing Forms with the ModR/M Byte" */
        return (mod == 0 && rm == 6) || mod == 2 ? 2 : (mod == 1 ? 1 : 0);
    if (mod == 0)
        return rm == 5 || (rm == 4 && (sib & 7u) == 5u) ? 4 : 0;
    return mod == 1 ? 1 : 4;
}

/* ModRM (the group row for its reg added to the attributes), SIB, displacement. */
static enum step_err dec_modrm(struct dec *d, struct step_insn *out)
{
    if (!(d->attr & P_M))
        return STEP_OK;
    if (d->i >= d->lim)
        return d->short_err;
    uint8_t modrm = d->code[d->i++];
    unsigned mod = modrm >> 6, rm = modrm & 7u;
    out->modrm = modrm;
    d->fl |= STEP_I_MODRM;
    d->reg = (modrm >> 3) & 7u;
    d->attr |= groups[d->attr >> G_SHIFT & 7u][d->reg];
    if (mod == 3 || (d->attr & P_REG))
        return STEP_OK;
    d->mem = true;
    if (out->addrsize != 2 && rm == 4) {
        if (d->i >= d->lim)
            return d->short_err;
        out->sib = d->code[d->i++];
        d->fl |= STEP_I_SIB;
    }
    if (out->addrsize != 2 && mod == 0 && rm == 5 && d->m64)
        d->fl |= STEP_I_RIPREL;
    unsigned n = disp_len(out->addrsize, mod, rm, out->sib);
    if (n) {
        if (d->i + n > d->lim)
            return d->short_err;
        out->disp = (int64_t)sext(le(d->code + d->i, n), n);
        d->i += n;
    }
    return STEP_OK;
}

/* Immediates, moffs and relative displacements; then the length. */
static enum step_err dec_imm(struct dec *d, struct step_insn *out)
{
    unsigned imm = 0;
    if (d->attr & P_IB)
        imm += 1;
    if (d->attr & P_IW)
        imm += 2;
    if (d->attr & P_IZ)
        imm += out->opsize == 2 ? 2 : 4;
    if (d->attr & P_IV)
        imm += out->opsize;
    if (d->attr & P_MO) {
        imm += out->addrsize;
        d->mem = true;
        d->fl |= STEP_I_MOFFS;
    }
    if (d->attr & P_R8)
        d->rel_len = 1;
    if (d->attr & P_RZ) /* Intel: 66 is ignored by near branches in 64-bit mode */
        d->rel_len = (!d->m64 && out->opsize == 2) ? 2 : 4;
    imm += d->rel_len;
    if (d->i + imm > d->lim)
        return d->short_err;
    if (d->fl & STEP_I_MOFFS)
        out->disp = (int64_t)le(d->code + d->i, out->addrsize);
    out->imm_len = (uint8_t)imm;
    d->i += imm;
    out->len = (uint8_t)d->i;
    return STEP_OK;
}

/* Branch kind, relative target, and what the prefixes mean on a branch. */
static void dec_branch(struct dec *d, struct step_insn *out)
{
    out->kind = (uint8_t)(d->attr >> K_SHIFT & 15u);
    if (d->rel_len) {
        /* Branch operand size: 64 bits in 64-bit mode, else 16 or 32. */
        unsigned bsz = d->m64 ? 8u : out->opsize;
        out->rel = (int64_t)sext(le(d->code + d->i - d->rel_len, d->rel_len), d->rel_len);
        out->target = wrap(out->ip + out->len + (uint64_t)out->rel, bsz);
        d->fl |= STEP_I_REL;
    }
    if (out->kind == STEP_BR_JCC || out->kind == STEP_BR_LOOP)
        d->fl |= STEP_I_COND;
    if (out->kind == STEP_BR_JCC) {
        if (d->last_2e)
            d->fl |= STEP_I_HINT_NT;
        if (d->last_3e)
            d->fl |= STEP_I_HINT_T;
    }
    if ((out->kind == STEP_BR_JMP_IND || out->kind == STEP_BR_CALL_IND) && d->last_3e)
        d->fl |= STEP_I_NOTRACK;
    if ((d->fl & STEP_I_REPNE) && out->kind >= STEP_BR_JCC && out->kind <= STEP_BR_RET)
        d->fl |= STEP_I_BND;
    if (d->attr & P_STR)
        d->fl |= STEP_I_STRING;
}

/* The access class of the memory operand (A_UNK for the 0F 38 / 0F 3A maps but MOVBE). */
static unsigned mem_access(const struct dec *d, const struct step_insn *out)
{
    unsigned acc = d->attr >> A_SHIFT & 15u;
    if (out->map == 2 && (out->opcode == 0xF0 || out->opcode == 0xF1) &&
        !(d->fl & (STEP_I_OPSIZE | STEP_I_REPNE | STEP_I_REP)))
        return out->opcode == 0xF0 ? A_LOAD : A_STORE; /* MOVBE */
    if (acc == A_LD64)
        return d->m64 ? A_LOAD : A_RMW;
    return acc;
}

static unsigned mem_size(const struct dec *d, const struct step_insn *out)
{
    switch (d->attr >> S_SHIFT & 15u) {
    case SZ_1: return 1;
    case SZ_2: return 2;
    case SZ_63: return d->m64 ? 4u : 2u;
    case SZ_FARPTR: return 2u + out->opsize;
    case SZ_BOUND: return 2u * out->opsize;
    case SZ_STACK: return d->m64 ? ((d->fl & STEP_I_OPSIZE) ? 2u : 8u) : out->opsize;
    case SZ_BRANCH: return d->m64 ? 8u : out->opsize;
    default: return (d->attr & P_BY) ? 1u : out->opsize;
    }
}

/* The memory operand: load/store flags and the bytes accessed. */
static void dec_mem(struct dec *d, struct step_insn *out)
{
    if (!d->mem)
        return;
    d->fl |= STEP_I_MEM;
    unsigned acc = mem_access(d, out);
    if (acc == A_LOAD || acc == A_RMW)
        d->fl |= STEP_I_LOAD;
    if (acc == A_STORE || acc == A_RMW)
        d->fl |= STEP_I_STORE;
    if (acc != A_NONE && acc != A_UNK)
        out->mem_size = (uint8_t)mem_size(d, out);
}

enum step_err step_decode(const uint8_t *code, size_t avail, unsigned mode, uint64_t ip,
                          struct step_insn *out)
{
    if (out == NULL)
        return STEP_ERR_NULL;
    clear(out);
    out->seg = STEP_SEG_NONE;
    if (code == NULL)
        return STEP_ERR_NULL;
    if (mode != STEP_MODE_32 && mode != STEP_MODE_64)
        return STEP_ERR_INVAL;

    struct dec d = {
        .code = code,
        .lim = avail < STEP_INSN_MAX ? avail : STEP_INSN_MAX,
        .short_err = avail < STEP_INSN_MAX ? STEP_ERR_TRUNC : STEP_ERR_TOOLONG,
        .m64 = mode == STEP_MODE_64,
    };
    out->mode = (uint8_t)mode;
    out->ip = d.m64 ? ip : (ip & 0xFFFFFFFFu);

    enum step_err e = dec_prefixes(&d, out);
    if (e == STEP_OK)
        e = dec_opcode(&d, out);
    if (e == STEP_OK)
        e = dec_modrm(&d, out);
    if (e != STEP_OK)
        return e;
    if ((d.attr & P_MEM) && !d.mem)
        return STEP_ERR_UNDEF; /* far JMP/CALL, LEA, LES, LDS, BOUND need memory */
    e = dec_imm(&d, out);
    if (e != STEP_OK)
        return e;
    dec_branch(&d, out);
    dec_mem(&d, out);
    out->flags = d.fl;
    return STEP_OK;
}

enum step_err step_mem_addr(const struct step_insn *insn, const struct step_regs *regs,
                            uint64_t *out_linear)
{
    if (insn == NULL || regs == NULL || out_linear == NULL)
        return STEP_ERR_NULL;
    if (insn->mode != STEP_MODE_32 && insn->mode != STEP_MODE_64)
        return STEP_ERR_INVAL;
    if (!(insn->flags & STEP_I_MEM))
        return STEP_ERR_NOMEM;

    const bool m64 = insn->mode == STEP_MODE_64;
    const unsigned as = insn->addrsize;
    unsigned defseg = STEP_SEG_DS;
    uint64_t ea;

    if (insn->flags & STEP_I_MOFFS) {
        ea = (uint64_t)insn->disp;
    } else if (as == 2) {
        /* 16-bit addressing (SDM "16-Bit Addressing Forms with the ModR/M Byte"). */
        const uint64_t *g = regs->gpr;
        unsigned mod = insn->modrm >> 6, rm = insn->modrm & 7u;
        static const uint8_t base16[8] = {STEP_R_BX, STEP_R_BX, STEP_R_BP, STEP_R_BP,
                                          STEP_R_SI, STEP_R_DI, STEP_R_BP, STEP_R_BX};
        static const uint8_t idx16[8] = {STEP_R_SI, STEP_R_DI, STEP_R_SI, STEP_R_DI,
                                         0xFF, 0xFF, 0xFF, 0xFF};
        ea = (uint64_t)insn->disp;
        if (!(mod == 0 && rm == 6)) {
            ea += g[base16[rm]];
            if (idx16[rm] != 0xFF)
                ea += g[idx16[rm]];
            if (base16[rm] == STEP_R_BP)
                defseg = STEP_SEG_SS;
        }
    } else {
        unsigned mod = insn->modrm >> 6, rm = insn->modrm & 7u;
        unsigned rex_b = (insn->rex & 1u) ? 8u : 0u, rex_x = (insn->rex & 2u) ? 8u : 0u;
        ea = (uint64_t)insn->disp;
        if (insn->flags & STEP_I_RIPREL) {
            ea += insn->ip + insn->len;
        } else if (insn->flags & STEP_I_SIB) {
            unsigned scale = insn->sib >> 6;
            unsigned index = ((insn->sib >> 3) & 7u) | rex_x;
            unsigned base = insn->sib & 7u;
            if (index != STEP_R_SP) /* index 100b without REX.X: none */
                ea += regs->gpr[index] << scale;
            if (!(base == 5 && mod == 0)) {
                ea += regs->gpr[base | rex_b];
                if (base == STEP_R_SP || base == STEP_R_BP)
                    defseg = STEP_SEG_SS;
            }
        } else if (!(mod == 0 && rm == 5)) {
            ea += regs->gpr[rm | rex_b];
            if (rm == STEP_R_BP)
                defseg = STEP_SEG_SS;
        }
    }
    ea = wrap(ea, as);

    unsigned seg = insn->seg != STEP_SEG_NONE ? insn->seg : defseg;
    uint64_t base = 0;
    if (seg < 6 && (!m64 || seg == STEP_SEG_FS || seg == STEP_SEG_GS))
        base = regs->seg_base[seg];
    *out_linear = m64 ? ea + base : wrap(ea + base, 4);
    return STEP_OK;
}
