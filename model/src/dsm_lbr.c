/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsmodel: Last Branch Records. The LBR rows per model (reference lbr.md),
 * the LBR/LER/LBR_SELECT and Arch LBR MSRs, and the stack update on a taken
 * branch (SDM Vol. 3B "Last Branch Recording", "Architectural Last Branch
 * Records"). Includes no libds header.
 */
#include "dsmodel_int.h"

/* ---- LBR rows: reference lbr.md (SDM Table 17-4 plus Linux's list) ------ *
 * LBR format per row: the "typical format per generation" of lbr.md, itself
 * marked unconfirmed for Core 2 / Atom / Silvermont (model uses 1 = LIP: 64-bit
 * linear FROM/TO in separate MSRs; format 0 is reserved for packed rows),
 * Knights Landing (reports 1 here) and Arch LBR (0x3F here). */
#define R(f, m, d, fr, to, in, tos, fmt) { f, m, d, fr, to, in, tos, fmt, false }
static const struct dsm_lbr_row dsm_rows[] = {
    R(0x0F, 0x00, 4, 0x1DB, 0x1DB, 0, 0x1DA, 0), R(0x0F, 0x01, 4, 0x1DB, 0x1DB, 0, 0x1DA, 0),
    R(0x0F, 0x02, 4, 0x1DB, 0x1DB, 0, 0x1DA, 0),
    R(0x0F, 0x03, 16, 0x680, 0x6C0, 0, 0x1DA, 1), R(0x0F, 0x04, 16, 0x680, 0x6C0, 0, 0x1DA, 1),
    R(0x0F, 0x06, 16, 0x680, 0x6C0, 0, 0x1DA, 1),
    R(0x06, 0x0D, 8, 0x40, 0x40, 0, 0x1C9, 0), R(0x06, 0x0E, 8, 0x40, 0x40, 0, 0x1C9, 0),
    R(0x06, 0x0F, 4, 0x40, 0x60, 0, 0x1C9, 1), R(0x06, 0x16, 4, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x17, 4, 0x40, 0x60, 0, 0x1C9, 1), R(0x06, 0x1D, 4, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x1C, 8, 0x40, 0x60, 0, 0x1C9, 1), R(0x06, 0x26, 8, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x27, 8, 0x40, 0x60, 0, 0x1C9, 1), R(0x06, 0x35, 8, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x36, 8, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x37, 8, 0x40, 0x60, 0, 0x1C9, 1), R(0x06, 0x4A, 8, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x4D, 8, 0x40, 0x60, 0, 0x1C9, 1), R(0x06, 0x5A, 8, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x4C, 8, 0x40, 0x60, 0, 0x1C9, 1), R(0x06, 0x5D, 8, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x5C, 32, 0x680, 0x6C0, 0, 0x1C9, 6), R(0x06, 0x5F, 32, 0x680, 0x6C0, 0, 0x1C9, 6),
    R(0x06, 0x7A, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 7),
    R(0x06, 0x86, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0x96, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x9C, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x1A, 16, 0x680, 0x6C0, 0, 0x1C9, 3), R(0x06, 0x1E, 16, 0x680, 0x6C0, 0, 0x1C9, 3),
    R(0x06, 0x1F, 16, 0x680, 0x6C0, 0, 0x1C9, 3), R(0x06, 0x2E, 16, 0x680, 0x6C0, 0, 0x1C9, 3),
    R(0x06, 0x25, 16, 0x680, 0x6C0, 0, 0x1C9, 3), R(0x06, 0x2C, 16, 0x680, 0x6C0, 0, 0x1C9, 3),
    R(0x06, 0x2F, 16, 0x680, 0x6C0, 0, 0x1C9, 3),
    R(0x06, 0x2A, 16, 0x680, 0x6C0, 0, 0x1C9, 3), R(0x06, 0x2D, 16, 0x680, 0x6C0, 0, 0x1C9, 3),
    R(0x06, 0x3A, 16, 0x680, 0x6C0, 0, 0x1C9, 3), R(0x06, 0x3E, 16, 0x680, 0x6C0, 0, 0x1C9, 3),
    R(0x06, 0x3C, 16, 0x680, 0x6C0, 0, 0x1C9, 4), R(0x06, 0x3F, 16, 0x680, 0x6C0, 0, 0x1C9, 4),
    R(0x06, 0x45, 16, 0x680, 0x6C0, 0, 0x1C9, 4), R(0x06, 0x46, 16, 0x680, 0x6C0, 0, 0x1C9, 4),
    R(0x06, 0x3D, 16, 0x680, 0x6C0, 0, 0x1C9, 4), R(0x06, 0x47, 16, 0x680, 0x6C0, 0, 0x1C9, 4),
    R(0x06, 0x4F, 16, 0x680, 0x6C0, 0, 0x1C9, 4), R(0x06, 0x56, 16, 0x680, 0x6C0, 0, 0x1C9, 4),
    R(0x06, 0x4E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0x5E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x55, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0x66, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x8E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0x9E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0xA5, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0xA6, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x6A, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0x6C, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x7D, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0x7E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x8C, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0x8D, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0xA7, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x57, 8, 0x680, 0x6C0, 0, 0x1C9, 1), R(0x06, 0x85, 8, 0x680, 0x6C0, 0, 0x1C9, 1),
    { 0x06, 0x8F, 0, DSM_MSR_ARCH_LBR_FROM0, DSM_MSR_ARCH_LBR_TO0, DSM_MSR_ARCH_LBR_INFO0, 0, 0x3F, true },
    { 0x06, 0x97, 0, DSM_MSR_ARCH_LBR_FROM0, DSM_MSR_ARCH_LBR_TO0, DSM_MSR_ARCH_LBR_INFO0, 0, 0x3F, true },
    { 0x06, 0x9A, 0, DSM_MSR_ARCH_LBR_FROM0, DSM_MSR_ARCH_LBR_TO0, DSM_MSR_ARCH_LBR_INFO0, 0, 0x3F, true },
};
#undef R
#define DSM_NROWS (sizeof(dsm_rows) / sizeof(dsm_rows[0]))

const struct dsm_lbr_row *dsm__lbr_find_row(uint16_t fam, uint8_t model)
{
    for (size_t i = 0; i < DSM_NROWS; i++)
        if (dsm_rows[i].family == fam && dsm_rows[i].model == model)
            return &dsm_rows[i];
    return NULL;
}

static uint32_t sig_of(uint16_t fam, uint8_t model, uint32_t stepping)
{
    if (fam == 0x0F)
        return (0xFu << 8) | ((uint32_t)(model & 0xF) << 4) | ((uint32_t)(model >> 4) << 16) | stepping;
    return ((uint32_t)fam << 8) | ((uint32_t)(model & 0xF) << 4) | ((uint32_t)(model >> 4) << 16) | stepping;
}

const struct dsm_lbr_row *dsm_lbr_rows(size_t *out_n)
{
    if (out_n)
        *out_n = DSM_NROWS;
    return dsm_rows;
}

void dsm__lbr_reset(struct dsm_cpu *c)
{
    dsm_zero(c->lbr_from, sizeof(c->lbr_from));
    dsm_zero(c->lbr_to, sizeof(c->lbr_to));
    dsm_zero(c->lbr_info, sizeof(c->lbr_info));
    c->lbr_tos = 0;
    c->lbr_cycles = 0;
    c->lbr_depth = c->lbr.arch ? DSM_ARCH_LBR_MAX : c->lbr.depth;
}

enum dsm_profile dsm_profile_for_row(const struct dsm_lbr_row *r)
{
    if (!r)
        return DSM_PROFILE__COUNT;
    if (r->family == 0x0F)
        return r->depth == 4 ? DSM_NETBURST_M2 : DSM_NETBURST_M3;
    if (r->arch)
        return DSM_ICELAKE;
    if (r->from == 0x40)
        return r->depth == 4 || r->to == r->from ? DSM_CORE2 : DSM_ATOM;
    if (r->depth == 16)
        return r->fmt == 3 ? DSM_NEHALEM : DSM_HASWELL;
    if (r->depth == 8)
        return DSM_NEHALEM;  /* Knights Landing/Mill: 0x680 bases, 8 entries */
    switch (r->model) {
    case 0x6A: case 0x6C: case 0x7D: case 0x7E: case 0x8C: case 0x8D: case 0xA7:
        return DSM_ICELAKE;
    default:
        return DSM_SKYLAKE;
    }
}

int dsm_set_lbr_row(struct dsm_cpu *c, const struct dsm_lbr_row *row)
{
    if (!c || !row)
        return DSM_EINVAL;
    bool found = false;
    for (size_t i = 0; i < DSM_NROWS; i++)
        if (&dsm_rows[i] == row)
            found = true;
    if (!found)
        return DSM_EINVAL;
    if ((row->family == 0x0F) != (c->kind == K_NB) || c->kind == K_NONE)
        return DSM_EINVAL;
    if (row->arch && c->version < 5)
        return DSM_EINVAL;
    c->lbr = *row;
    c->cpuid1[0] = sig_of(row->family, row->model, c->cpuid1[0] & 0xF);
    c->perf_caps = (c->perf_caps & ~0x3Full) | row->fmt;
    if (row->arch) {
        /* Arch LBR: CPUID.(7,0):EDX[19], leaf 1CH (reference msr.md section 6) */
        if (c->cpuid0[0] < 0x1C)
            c->cpuid0[0] = 0x1C;
        c->cpuid_7[3] |= 1u << 19;
        c->cpuid_1c[0] = 0x0F;  /* depths 8, 16, 24, 32 */
        c->cpuid_1c[1] = 0x7;   /* CPL filter, branch filter, call stack */
        c->cpuid_1c[2] = 0x7;   /* mispredict, timed LBR, branch type */
        c->lbrsel_valid = 0;    /* no MSR_LBR_SELECT with Arch LBR */
    }
    dsm__lbr_reset(c);
    return DSM_OK;
}

/* The FROM, TO or INFO entry @msr names (@n entries from each base; INFO
 * only where the row has it), *idx its index; NULL if none. */
static uint64_t *lbr_array(struct dsm_cpu *c, uint32_t msr, uint32_t n, uint32_t *idx)
{
    const struct dsm_lbr_row *r = &c->lbr;
    if (msr >= r->from && msr < r->from + n) {
        *idx = msr - r->from;
        return c->lbr_from;
    }
    if (msr >= r->to && msr < r->to + n) {
        *idx = msr - r->to;
        return c->lbr_to;
    }
    if (r->info && msr >= r->info && msr < r->info + n) {
        *idx = msr - r->info;
        return c->lbr_info;
    }
    return NULL;
}

/* Arch LBR: IA32_LBR_CTL, IA32_LBR_DEPTH, and FROM/TO/INFO entries below the depth. */
static int arch_lbr_msr(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v, int *rc)
{
    if (msr == DSM_MSR_ARCH_LBR_CTL) {
        if (wr) {
            if (*v & ~0x7F000Full)
                return (*rc = DSM_GP), 1;
            c->lbr_ctl = *v;
        } else {
            *v = c->lbr_ctl;
        }
        return 1;
    }
    if (msr == DSM_MSR_ARCH_LBR_DEPTH) {
        if (wr) {
            /* CPUID.1CH:EAX[7:0] bit n: depth 8(n+1) supported; others #GP */
            if (*v == 0 || *v > DSM_ARCH_LBR_MAX || (*v % 8) || !((c->cpuid_1c[0] >> (*v / 8 - 1)) & 1))
                return (*rc = DSM_GP), 1;
            dsm__lbr_reset(c);
            c->lbr_depth = (uint32_t)*v;  /* writing the depth clears all entries */
        } else {
            *v = c->lbr_depth;
        }
        return 1;
    }
    uint32_t idx = 0;
    uint64_t *arr = lbr_array(c, msr, DSM_ARCH_LBR_MAX, &idx);
    if (!arr)
        return 0;
    if (idx >= c->lbr_depth)
        return (*rc = DSM_GP), 1;
    if (wr)
        arr[idx] = *v;
    else
        *v = arr[idx];
    return 1;
}

/* Legacy LBR: the TOS MSR and the FROM/TO(/INFO) stacks, packed where FROM = TO. */
static int legacy_lbr_msr(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v, int *rc)
{
    const struct dsm_lbr_row *r = &c->lbr;
    if (msr == r->tos) {
        if (wr) {
            if (*v >= r->depth)
                return (*rc = DSM_GP), 1;
            c->lbr_tos = (uint32_t)*v;
        } else {
            *v = c->lbr_tos;
        }
        return 1;
    }
    if (r->from == r->to) {     /* packed: FROM in 31:0, TO in 63:32 */
        if (msr >= r->from && msr < r->from + r->depth) {
            uint32_t i = msr - r->from;
            if (wr) {
                c->lbr_from[i] = *v & 0xFFFFFFFFull;
                c->lbr_to[i] = *v >> 32;
            } else {
                *v = (c->lbr_to[i] << 32) | (c->lbr_from[i] & 0xFFFFFFFFull);
            }
            return 1;
        }
        return 0;
    }
    uint32_t idx = 0;
    uint64_t *arr = lbr_array(c, msr, r->depth, &idx);
    if (!arr)
        return 0;
    if (wr)
        arr[idx] = *v;
    else
        *v = arr[idx];
    return 1;
}

/* LBR MSR access shared by both families. Returns 1 if msr is an LBR MSR. */
int dsm__lbr_msr(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v, int *rc)
{
    *rc = DSM_OK;
    if (!c->lbr.arch && c->lbr.depth == 0)
        return 0;    /* no LBR (DSM_KVM_SPR): every LBR MSR #GP */
    if (c->lbr.arch)
        return arch_lbr_msr(c, msr, wr, v, rc);
    return legacy_lbr_msr(c, msr, wr, v, rc);
}

/* MSR_LBR_SELECT (no such MSR with Arch LBR: lbrsel_valid 0). */
int dsm__msr_lbr_select(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (!c->lbrsel_valid)
        return DSM_GP;
    return dsm_rw(&c->lbr_select, wr, v, c->lbrsel_valid);
}

/* MSR_LER_FROM_LIP / MSR_LER_TO_LIP: read-only, none with Arch LBR or without LBR. */
int dsm__msr_ler(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    if (c->lbr.arch || c->lbr.depth == 0)
        return DSM_GP;
    if (wr)
        return DSM_GP;
    *v = msr == DSM_MSR_LER_FROM ? c->ler_from : c->ler_to;
    return DSM_OK;
}

/* Newest-first LBR entry k as {from, to, info} for the adaptive LBR group. */
void dsm__lbr_entry(const struct dsm_cpu *c, uint32_t k, uint64_t out[3])
{
    uint32_t i = c->lbr.arch ? k : ((c->lbr_tos - k) & (c->lbr.depth - 1));
    out[0] = c->lbr_from[i];
    out[1] = c->lbr_to[i];
    out[2] = c->lbr_info[i];
}

/* LBR update for a taken branch (SDM "Last Branch Recording"). */
void dsm__lbr_record(struct dsm_cpu *c, const struct dsm_event *ev)
{
    const struct dsm_lbr_row *r = &c->lbr;
    bool mis = (ev->flags & DSM_EV_MISPRED) != 0;
    uint64_t from = ev->ip, to = ev->br_to;
    uint64_t cyc = c->lbr_cycles > 0xFFFF ? 0xFFFF : c->lbr_cycles;
    if (r->arch) {
        uint64_t ctl = c->lbr_ctl;
        if (!(ctl & 1) || !(ctl & (ev->cpl == 0 ? 2u : 4u)))
            return;
        static const uint8_t tbit[7] = { 16, 17, 18, 19, 20, 21, 22 };
        static const uint8_t btype[7] = { 0, 2, 1, 4, 3, 5, 15 };
        unsigned k = ev->br_kind < 7 ? ev->br_kind : 6;
        if (!(ctl & (1ull << tbit[k])))
            return;
        for (uint32_t i = c->lbr_depth - 1; i > 0; i--) {
            c->lbr_from[i] = c->lbr_from[i - 1];
            c->lbr_to[i] = c->lbr_to[i - 1];
            c->lbr_info[i] = c->lbr_info[i - 1];
        }
        c->lbr_from[0] = from;
        c->lbr_to[0] = to;
        c->lbr_info[0] = ((uint64_t)mis << 63) | (1ull << 60) | ((uint64_t)btype[k] << 56) | cyc;
        c->lbr_cycles = 0;
        c->st.lbr_written++;
        return;
    }
    if (c->lbrsel_valid) {
        uint64_t s = c->lbr_select;
        if ((ev->cpl == 0 && (s & 1)) || (ev->cpl != 0 && (s & 2)))
            return;
        static const uint8_t sbit[7] = { 2, 7, 6, 3, 4, 5, 8 };
        unsigned k = ev->br_kind < 7 ? ev->br_kind : 6;
        if (s & (1ull << sbit[k]))
            return;
    }
    uint32_t t = (c->lbr_tos + 1) & (r->depth - 1);
    uint64_t f = from, o = to, info = 0;
    /* Knights Landing/Mill report format 1 (LIP) yet record MISPRED in FROM[63]
     * (Linux lbr.c intel_pmu_lbr_init_knl): modelled as format 3's FROM. */
    bool knl = r->family == 0x06 && (r->model == 0x57 || r->model == 0x85) && r->fmt == 1;
    switch (c->kind == K_NB ? 1 : knl ? 3 : r->fmt) {
    case 0: f &= 0xFFFFFFFFull; o &= 0xFFFFFFFFull; break;         /* packed 32-bit */
    case 3: f = (f & ~(1ull << 63)) | ((uint64_t)mis << 63); break; /* EIP_FLAGS */
    case 4: f = (f & ((1ull << 61) - 1)) | ((uint64_t)mis << 63); break; /* EIP_FLAGS2, no TSX */
    case 5: info = ((uint64_t)mis << 63) | cyc; break;              /* LBR_INFO */
    case 6: f = (f & ~(1ull << 63)) | ((uint64_t)mis << 63);        /* TIME */
            o = (o & 0xFFFFFFFFFFFFull) | (cyc << 48); break;
    case 7: info = ((uint64_t)mis << 63) | cyc; break;              /* INFO2 */
    default: break;                                                 /* LIP/EIP: plain */
    }
    c->lbr_from[t] = f;
    c->lbr_to[t] = o;
    c->lbr_info[t] = info;
    c->lbr_tos = t;
    c->lbr_cycles = 0;
    c->st.lbr_written++;
}
