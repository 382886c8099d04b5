/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Single-step instruction classifier: see insn.h. Opcode properties come from
 * the Intel SDM Vol. 2, Appendix A "Opcode Map" (one-byte, two-byte 0F and
 * three-byte 0F 38 / 0F 3A maps) and "Instruction Format" (prefixes, REX,
 * ModRM, SIB, displacement and immediate sizes). Freestanding: no libc.
 */
#include "insn.h"

#include <stdbool.h>

/* Opcode properties (additive immediate sizes). */
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
#define P_ESC 0x1000u /* 0F escape */

#define M_  P_M
#define MB  (P_M | P_BY)
#define IBB (P_IB | P_BY)

/* One-byte opcode map (SDM Table A-2). */
static const uint16_t map1[256] = {
    /* 00 */ MB, M_, MB, M_, IBB, P_IZ, P_I64, P_I64, MB, M_, MB, M_, IBB, P_IZ, P_I64, P_ESC,
    /* 10 */ MB, M_, MB, M_, IBB, P_IZ, P_I64, P_I64, MB, M_, MB, M_, IBB, P_IZ, P_I64, P_I64,
    /* 20 */ MB, M_, MB, M_, IBB, P_IZ, P_PF, P_I64, MB, M_, MB, M_, IBB, P_IZ, P_PF, P_I64,
    /* 30 */ MB, M_, MB, M_, IBB, P_IZ, P_PF, P_I64, MB, M_, MB, M_, IBB, P_IZ, P_PF, P_I64,
    /* 40 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* INC/DEC; REX in 64-bit mode */
    /* 50 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 60 */ P_I64, P_I64, P_M | P_I64, M_, P_PF, P_PF, P_PF, P_PF,
             P_IZ, P_M | P_IZ, P_IB, P_M | P_IB, P_BY, 0, P_BY, 0,
    /* 70 */ P_R8, P_R8, P_R8, P_R8, P_R8, P_R8, P_R8, P_R8,
             P_R8, P_R8, P_R8, P_R8, P_R8, P_R8, P_R8, P_R8,
    /* 80 */ P_M | IBB, P_M | P_IZ, P_M | IBB | P_I64, P_M | P_IB, MB, M_, MB, M_,
             MB, M_, MB, M_, M_, M_, M_, M_,
    /* 90 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, P_IZ | P_IW | P_I64, 0, 0, 0, 0, 0,
    /* A0 */ P_MO | P_BY, P_MO, P_MO | P_BY, P_MO, P_BY, 0, P_BY, 0,
             IBB, P_IZ, P_BY, 0, P_BY, 0, P_BY, 0,
    /* B0 */ IBB, IBB, IBB, IBB, IBB, IBB, IBB, IBB,
             P_IV, P_IV, P_IV, P_IV, P_IV, P_IV, P_IV, P_IV,
    /* C0 */ P_M | IBB, P_M | P_IB, P_IW, 0, P_M | P_I64, P_M | P_I64, P_M | IBB, P_M | P_IZ,
             P_IW | P_IB, 0, P_IW, 0, 0, P_IB, P_I64, 0,
    /* D0 */ MB, M_, MB, M_, P_IB | P_I64, P_IB | P_I64, P_UD, 0, M_, M_, M_, M_, M_, M_, M_, M_,
    /* E0 */ P_R8, P_R8, P_R8, P_R8, IBB, P_IB, IBB, P_IB,
             P_RZ, P_RZ, P_IZ | P_IW | P_I64, P_R8, P_BY, 0, P_BY, 0,
    /* F0 */ P_PF, 0, P_PF, P_PF, 0, 0, MB, M_, 0, 0, 0, 0, 0, 0, MB, M_,
};

/* Two-byte opcode map, 0F xx (SDM Table A-3). */
static const uint16_t map2[256] = {
    /* 00 */ M_, M_, M_, M_, P_UD, 0, 0, 0, 0, 0, P_UD, 0, P_UD, M_, 0, P_M | P_IB,
    /* 10 */ M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_,
    /* 20 */ M_, M_, M_, M_, P_UD, P_UD, P_UD, P_UD, M_, M_, M_, M_, M_, M_, M_, M_,
    /* 30 */ 0, 0, 0, 0, 0, 0, P_UD, 0, P_ESC, P_UD, P_ESC, P_UD, P_UD, P_UD, P_UD, P_UD,
    /* 40 */ M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_,
    /* 50 */ M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_,
    /* 60 */ M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_,
    /* 70 */ P_M | P_IB, P_M | P_IB, P_M | P_IB, P_M | P_IB, M_, M_, M_, 0,
             M_, M_, P_UD, P_UD, M_, M_, M_, M_,
    /* 80 */ P_RZ, P_RZ, P_RZ, P_RZ, P_RZ, P_RZ, P_RZ, P_RZ,
             P_RZ, P_RZ, P_RZ, P_RZ, P_RZ, P_RZ, P_RZ, P_RZ,
    /* 90 */ M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_,
    /* A0 */ 0, 0, 0, M_, P_M | P_IB, M_, P_UD, P_UD, 0, 0, 0, M_, P_M | P_IB, M_, M_, M_,
    /* B0 */ MB, M_, M_, M_, M_, M_, M_, M_, M_, M_, P_M | P_IB, M_, M_, M_, M_, M_,
    /* C0 */ MB, M_, P_M | P_IB, M_, P_M | P_IB, P_M | P_IB, P_M | P_IB, M_,
             0, 0, 0, 0, 0, 0, 0, 0,
    /* D0 */ M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_,
    /* E0 */ M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_,
    /* F0 */ M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_, M_,
};

/* Memory access of the ModRM r/m operand when it is in memory. */
#define A_NONE  0u /* no access (LEA, hint NOPs, prefetches) */
#define A_LOAD  1u
#define A_STORE 2u
#define A_RMW   3u
#define A_UNK   4u /* accesses memory in a way this decoder does not classify */

static unsigned access_map1(uint8_t op, unsigned reg, unsigned mode)
{
    if (op < 0x40) {
        switch (op & 7u) {
        case 0: case 1:              /* ALU r/m, r */
            return (op & 0x38u) == 0x38u ? A_LOAD : A_RMW; /* CMP only reads */
        case 2: case 3:              /* ALU r, r/m */
            return A_LOAD;
        default:
            return A_NONE;
        }
    }
    switch (op) {
    case 0x62: return A_LOAD;                          /* BOUND */
    case 0x63: return mode == STEP_MODE_64 ? A_LOAD : A_RMW; /* MOVSXD / ARPL */
    case 0x69: case 0x6B: return A_LOAD;               /* IMUL r, r/m, imm */
    case 0x80: case 0x81: case 0x82: case 0x83:
        return reg == 7 ? A_LOAD : A_RMW;              /* CMP reads only */
    case 0x84: case 0x85: return A_LOAD;               /* TEST */
    case 0x86: case 0x87: return A_RMW;                /* XCHG */
    case 0x88: case 0x89: case 0x8C: return A_STORE;   /* MOV r/m, r / Sreg */
    case 0x8A: case 0x8B: case 0x8E: return A_LOAD;    /* MOV r, r/m / Sreg, r/m */
    case 0x8D: return A_NONE;                          /* LEA */
    case 0x8F: return A_STORE;                         /* POP r/m */
    case 0xC0: case 0xC1: case 0xD0: case 0xD1: case 0xD2: case 0xD3:
        return A_RMW;                                  /* shifts/rotates */
    case 0xC4: case 0xC5: return A_LOAD;               /* LES/LDS */
    case 0xC6: case 0xC7: return reg == 0 ? A_STORE : A_UNK; /* MOV r/m, imm */
    case 0xF6: case 0xF7:
        return (reg == 2 || reg == 3) ? A_RMW : A_LOAD; /* NOT/NEG; TEST/MUL/DIV */
    case 0xFE: return reg <= 1 ? A_RMW : A_UNK;        /* INC/DEC */
    case 0xFF:
        if (reg <= 1)
            return A_RMW;                              /* INC/DEC */
        return reg == 7 ? A_UNK : A_LOAD;              /* CALL/CALLF/JMP/JMPF/PUSH */
    default:
        return A_UNK;                                  /* x87 D8-DF etc. */
    }
}

static unsigned access_map2(uint8_t op, unsigned reg)
{
    if (op >= 0x40 && op <= 0x4F)
        return A_LOAD;                                 /* CMOVcc (always reads) */
    if (op >= 0x90 && op <= 0x9F)
        return A_STORE;                                /* SETcc */
    switch (op) {
    case 0x0D: case 0x18: case 0x19: case 0x1A: case 0x1B: case 0x1C:
    case 0x1D: case 0x1E: case 0x1F:
        return A_NONE;                                 /* prefetch / hint NOP */
    case 0xA3: return A_LOAD;                          /* BT */
    case 0xAB: case 0xB3: case 0xBB: return A_RMW;     /* BTS/BTR/BTC */
    case 0xA4: case 0xA5: case 0xAC: case 0xAD: return A_RMW; /* SHLD/SHRD */
    case 0xAF: return A_LOAD;                          /* IMUL r, r/m */
    case 0xB0: case 0xB1: case 0xC0: case 0xC1: return A_RMW; /* CMPXCHG/XADD */
    case 0xB6: case 0xB7: case 0xBE: case 0xBF: return A_LOAD; /* MOVZX/MOVSX */
    case 0xB8: case 0xBC: case 0xBD: return A_LOAD;    /* POPCNT/BSF/BSR */
    case 0xBA: return reg == 4 ? A_LOAD : (reg >= 5 ? A_RMW : A_UNK); /* BT/BTS/BTR/BTC imm */
    case 0xC3: return A_STORE;                         /* MOVNTI */
    default: return A_UNK;                             /* SSE/MMX/system */
    }
}

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

static void classify(struct step_insn *o, unsigned reg, bool mem)
{
    uint8_t op = o->opcode;

    if (o->map == 1) {
        if (op >= 0x80 && op <= 0x8F)
            o->kind = STEP_BR_JCC;
        else if (op == 0x05 || op == 0x07 || op == 0x34 || op == 0x35 || op == 0xAA)
            o->kind = STEP_BR_OTHER;   /* SYSCALL SYSRET SYSENTER SYSEXIT RSM */
        return;
    }
    if (o->map != 0)
        return;
    if (op >= 0x70 && op <= 0x7F)
        o->kind = STEP_BR_JCC;
    else if (op >= 0xE0 && op <= 0xE3)
        o->kind = STEP_BR_LOOP;
    else if (op == 0xEB || op == 0xE9)
        o->kind = STEP_BR_JMP_REL;
    else if (op == 0xE8)
        o->kind = STEP_BR_CALL_REL;
    else if (op == 0xC3 || op == 0xC2)
        o->kind = STEP_BR_RET;
    else if (op == 0xCA || op == 0xCB || op == 0x9A || op == 0xEA)
        o->kind = STEP_BR_FAR;
    else if (op == 0xCC || op == 0xCD || op == 0xCE || op == 0xF1 || op == 0xCF)
        o->kind = STEP_BR_OTHER;
    else if (op == 0xFF) {
        if (reg == 2)
            o->kind = STEP_BR_CALL_IND;
        else if (reg == 4)
            o->kind = STEP_BR_JMP_IND;
        else if ((reg == 3 || reg == 5) && mem)
            o->kind = STEP_BR_FAR;
    }
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

    const bool m64 = mode == STEP_MODE_64;
    const size_t lim = avail < STEP_INSN_MAX ? avail : STEP_INSN_MAX;
    /* Bytes needed beyond lim: TRUNC if the caller gave fewer than 15, else
     * the instruction is too long. */
    const enum step_err short_err = avail < STEP_INSN_MAX ? STEP_ERR_TRUNC : STEP_ERR_TOOLONG;
    size_t i = 0;
    uint32_t fl = 0;
    uint8_t rex = 0;
    bool last_2e = false, last_3e = false;

    out->mode = (uint8_t)mode;
    out->ip = m64 ? ip : (ip & 0xFFFFFFFFu);

    /* Prefixes: legacy in any order; REX counts only directly before the opcode. */
    for (;;) {
        if (i >= lim)
            return short_err;
        uint8_t b = code[i];
        bool legacy = true;
        switch (b) {
        case 0xF0: fl |= STEP_I_LOCK; break;
        case 0xF2: fl |= STEP_I_REPNE; break;
        case 0xF3: fl |= STEP_I_REP; break;
        case 0x66: fl |= STEP_I_OPSIZE; break;
        case 0x67: fl |= STEP_I_ADDRSIZE; break;
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
            last_2e = b == 0x2E ? true : (b == 0x3E ? false : last_2e);
            last_3e = b == 0x3E ? true : (b == 0x2E ? false : last_3e);
            i++;
            continue;
        }
        if (m64 && (b & 0xF0u) == 0x40u) {
            rex = b;
            i++;
            continue;
        }
        break;
    }
    out->nprefix = (uint8_t)i;
    out->rex = rex;

    /* Operand and address sizes. */
    if (m64)
        out->opsize = (rex & 0x08u) ? 8 : ((fl & STEP_I_OPSIZE) ? 2 : 4);
    else
        out->opsize = (fl & STEP_I_OPSIZE) ? 2 : 4;
    if (m64)
        out->addrsize = (fl & STEP_I_ADDRSIZE) ? 4 : 8;
    else
        out->addrsize = (fl & STEP_I_ADDRSIZE) ? 2 : 4;

    /* Opcode and map. */
    uint8_t op = code[i++];
    uint16_t prop;
    if (op == 0x0F) {
        if (i >= lim)
            return short_err;
        op = code[i++];
        if (op == 0x38 || op == 0x3A) {
            out->map = op == 0x38 ? 2 : 3;
            if (i >= lim)
                return short_err;
            op = code[i++];
            prop = out->map == 2 ? P_M : (P_M | P_IB);
        } else {
            out->map = 1;
            prop = map2[op];
        }
    } else {
        out->map = 0;
        prop = map1[op];
        /* VEX/EVEX/XOP/REX2 escapes (SDM "VEX prefix", "EVEX"; AMD XOP). */
        bool vex = false;
        if (op == 0xC4 || op == 0xC5 || op == 0x62) {
            if (m64) {
                vex = true;
            } else {
                if (i >= lim)
                    return short_err;
                vex = (code[i] & 0xC0u) == 0xC0u; /* LES/LDS/BOUND need a memory operand */
            }
        } else if (op == 0x8F) {
            if (i >= lim)
                return short_err;
            vex = (code[i] & 0x38u) != 0; /* POP r/m is 8F /0 only */
        } else if (op == 0xD5 && m64) {
            vex = true; /* REX2 (APX); AAD is invalid in 64-bit mode */
        }
        if (vex) {
            out->opcode = op;
            out->flags = fl;
            return STEP_ERR_VEX;
        }
    }
    out->opcode = op;

    if (prop & P_UD)
        return STEP_ERR_UNDEF;
    if ((prop & P_I64) && m64)
        return STEP_ERR_UNDEF;

    /* ModRM, SIB, displacement. */
    unsigned reg = 0;
    bool mem = false;
    unsigned disp_len = 0;
    if (prop & P_M) {
        if (i >= lim)
            return short_err;
        uint8_t modrm = code[i++];
        unsigned mod = modrm >> 6, rm = modrm & 7u;
        out->modrm = modrm;
        fl |= STEP_I_MODRM;
        reg = (modrm >> 3) & 7u;
        /* MOV to/from CR/DR (0F 20-23): the mod field is ignored, always a register. */
        bool regonly = out->map == 1 && op >= 0x20 && op <= 0x23;
        if (mod != 3 && !regonly) {
            mem = true;
            if (out->addrsize == 2) {
                if (mod == 0 && rm == 6)
                    disp_len = 2;
                else if (mod == 1)
                    disp_len = 1;
                else if (mod == 2)
                    disp_len = 2;
            } else {
                if (rm == 4) {
                    if (i >= lim)
                        return short_err;
                    out->sib = code[i++];
                    fl |= STEP_I_SIB;
                    if (mod == 0 && (out->sib & 7u) == 5u)
                        disp_len = 4;
                }
                if (mod == 0 && rm == 5) {
                    disp_len = 4;
                    if (m64)
                        fl |= STEP_I_RIPREL;
                } else if (mod == 1) {
                    disp_len = 1;
                } else if (mod == 2) {
                    disp_len = 4;
                }
            }
        }
        if (disp_len) {
            if (i + disp_len > lim)
                return short_err;
            out->disp = (int64_t)sext(le(code + i, disp_len), disp_len);
            i += disp_len;
        }
    }
    if ((op == 0xFF && out->map == 0 && (reg == 3 || reg == 5) && !mem) ||
        ((prop & P_M) && !mem && out->map == 0 && (op == 0x8D || op == 0xC4 || op == 0xC5 || op == 0x62)))
        return STEP_ERR_UNDEF; /* far JMP/CALL, LEA, LES, LDS, BOUND need memory */

    /* Immediates, moffs, relative displacements. */
    unsigned imm = 0;
    if (prop & P_IB)
        imm += 1;
    if (prop & P_IW)
        imm += 2;
    if (prop & P_IZ)
        imm += out->opsize == 2 ? 2 : 4;
    if (prop & P_IV)
        imm += out->opsize;
    if (out->map == 0 && (op == 0xF6 || op == 0xF7) && reg <= 1)
        imm += op == 0xF6 ? 1 : (out->opsize == 2 ? 2 : 4); /* TEST r/m, imm */
    if (prop & P_MO) {
        imm += out->addrsize;
        mem = true;
        fl |= STEP_I_MOFFS;
    }
    unsigned rel_len = 0;
    if (prop & P_R8)
        rel_len = 1;
    if (prop & P_RZ) /* Intel: 66 is ignored by near branches in 64-bit mode */
        rel_len = (!m64 && out->opsize == 2) ? 2 : 4;
    imm += rel_len;
    if (i + imm > lim)
        return short_err;
    if (fl & STEP_I_MOFFS)
        out->disp = (int64_t)le(code + i, out->addrsize);
    out->imm_len = (uint8_t)imm;
    i += imm;
    out->len = (uint8_t)i;

    /* Kind, relative target, prefix meanings on branches. */
    classify(out, reg, mem);
    if (rel_len) {
        /* Branch operand size: 64 bits in 64-bit mode, else 16 or 32. */
        unsigned bsz = m64 ? 8u : out->opsize;
        out->rel = (int64_t)sext(le(code + i - rel_len, rel_len), rel_len);
        out->target = wrap(out->ip + out->len + (uint64_t)out->rel, bsz);
        fl |= STEP_I_REL;
    }
    if (out->kind == STEP_BR_JCC || out->kind == STEP_BR_LOOP)
        fl |= STEP_I_COND;
    if (out->kind == STEP_BR_JCC) {
        if (last_2e)
            fl |= STEP_I_HINT_NT;
        if (last_3e)
            fl |= STEP_I_HINT_T;
    }
    if ((out->kind == STEP_BR_JMP_IND || out->kind == STEP_BR_CALL_IND) && last_3e)
        fl |= STEP_I_NOTRACK;
    if ((fl & STEP_I_REPNE) && out->kind >= STEP_BR_JCC && out->kind <= STEP_BR_RET)
        fl |= STEP_I_BND;
    if (out->map == 0 && ((op >= 0xA4 && op <= 0xA7) || (op >= 0xAA && op <= 0xAF) ||
                          (op >= 0x6C && op <= 0x6F)))
        fl |= STEP_I_STRING;

    /* Memory operand: access kind and size. */
    if (mem) {
        unsigned acc;
        fl |= STEP_I_MEM;
        if (fl & STEP_I_MOFFS)
            acc = (op == 0xA0 || op == 0xA1) ? A_LOAD : A_STORE;
        else if (out->map == 0)
            acc = access_map1(op, reg, mode);
        else if (out->map == 1)
            acc = access_map2(op, reg);
        else if (out->map == 2 && (op == 0xF0 || op == 0xF1) && !(fl & STEP_I_OPSIZE) &&
                 !(fl & STEP_I_REPNE) && !(fl & STEP_I_REP))
            acc = op == 0xF0 ? A_LOAD : A_STORE;       /* MOVBE */
        else
            acc = A_UNK;
        if (acc == A_LOAD || acc == A_RMW)
            fl |= STEP_I_LOAD;
        if (acc == A_STORE || acc == A_RMW)
            fl |= STEP_I_STORE;
        if (acc != A_NONE && acc != A_UNK) {
            unsigned sz = (prop & P_BY) ? 1u : out->opsize;
            if (out->map == 1 && (op == 0xB6 || op == 0xBE))
                sz = 1;                                 /* MOVZX/MOVSX r, m8 */
            else if (out->map == 1 && (op == 0xB7 || op == 0xBF))
                sz = 2;                                 /* MOVZX/MOVSX r, m16 */
            else if (out->map == 1 && op >= 0x90 && op <= 0x9F)
                sz = 1;                                 /* SETcc */
            else if (out->map == 0 && op == 0x63 && m64)
                sz = 4;                                 /* MOVSXD r, m32 */
            else if (out->map == 0 && op == 0x63)
                sz = 2;                                 /* ARPL */
            else if (out->map == 0 && (op == 0x8C || op == 0x8E))
                sz = 2;                                 /* MOV Sreg */
            else if (out->map == 0 && (op == 0xC4 || op == 0xC5))
                sz = 2u + out->opsize;                  /* LES/LDS m16:16/32 */
            else if (out->map == 0 && op == 0x62)
                sz = 2u * out->opsize;                  /* BOUND m16&16/m32&32 */
            else if (out->map == 0 && op == 0xFF && (reg == 2 || reg == 4 || reg == 6))
                sz = m64 ? (reg == 6 && (fl & STEP_I_OPSIZE) ? 2u : 8u) : out->opsize;
            else if (out->map == 0 && op == 0xFF && (reg == 3 || reg == 5))
                sz = 2u + (out->opsize == 2 ? 2u : (out->opsize == 8 ? 8u : 4u)); /* m16:16/32/64 */
            else if (out->map == 0 && op == 0x8F)
                sz = m64 ? ((fl & STEP_I_OPSIZE) ? 2u : 8u) : out->opsize; /* POP r/m */
            out->mem_size = (uint8_t)sz;
        }
    }
    out->flags = fl;
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
