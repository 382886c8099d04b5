/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsmodel: architectural PEBS of Panther Lake (06_CCH) P-core (Cougar Cove)
 * and E-core (Darkmont), profiles DSM_PTL_P / DSM_PTL_E.
 *
 * Independent of libds: every constant below is this file's own, taken from
 *  [D] the real CPUID dump ../shared/cpuid/GenuineIntel00C06C3_PantherLakeL_
 *      01_CPUID.txt (logical CPU #0 = P-core, #4 = E-core), copied word by word;
 *  [L] the Linux series "arch-PEBS enabling for Intel platforms" (Dapeng Mi,
 *      Kan Liang; perf/core for 6.19): msr-index.h MSR_IA32_PEBS_BASE 0x3f4,
 *      MSR_IA32_PEBS_INDEX 0x3f5, MSR_IA32_PMC_V6_GP0_CFG_C 0x1903,
 *      MSR_IA32_PMC_V6_FX0_CFG_C 0x1983, MSR_IA32_PMC_V6_STEP 4, ARCH_PEBS_*
 *      (RELOAD 31:0, CNTR_ALLOW 35, CNTR_GP 36, CNTR_FIXED 37, CNTR_METRICS
 *      38, LBR 41:40, VECR_XMM 49, GPR 61, AUX 62, EN 63); perf_event.h
 *      union arch_pebs_index (rsvd:4 wr:23 rsvd2:4 full:1 en:1 rsvd3:3
 *      thresh:23 rsvd4:5), struct arch_pebs_header (size:16 ... mode:1 at 30,
 *      cont:1 at 31, cntr:5 at 35, lbr:2 at 40, xmm at 49, gpr 61, aux 62,
 *      basic 63; + u64 rsvd6), arch_pebs_basic (48 bytes), arch_pebs_aux (64),
 *      arch_pebs_gprs (flags, ip, ax, cx, dx, bx, sp, bp, si, di, r8-r15,
 *      ssp, rsvd: 160), arch_pebs_xer_header (16) + 16 XMM x 16 bytes,
 *      arch_pebs_lbr_header (rsvd, ctl, depth, ler_from, ler_to, ler_info:
 *      48) + lbr_entry (from, to, info: 24), arch_pebs_cntr_header (cntr,
 *      fixed, metrics, reserved: u32 each) + values;
 *      GLOBAL_STATUS_ARCH_PEBS_THRESHOLD_BIT 54; ds.c
 *      arch_pebs_record_continued (CONT, or a null header: bits 63:16 zero),
 *      init_arch_pebs_on_cpu ("Buffer Size = 4KB * 2^SIZE", phys | shift);
 *  [K] KVM vmx/pmu_intel.c reserved bits of IA32_PEBS_INDEX (3:0, 30:27,
 *      35:33, 63:59);
 *  [V] Linux "perf/x86/intel: Support arch-PEBS vector registers group
 *      capturing" (Dapeng Mi, v3 17/22, April 2025): ARCH_PEBS_VECR_YMMH
 *      bit 50 (OPMASK 53, ZMMH 54, H16ZMM 55: not enumerated on Panther
 *      Lake, so never written here); the vector group is the XER header and
 *      then XMM (16 x 2 qwords), YMMH (struct arch_pebs_ymmh, 16 x 2 qwords:
 *      bits 255:128 of YMM0-15), ... in that order.
 *
 * Model choices (the sources do not say; documented, not hardware facts):
 *  - a record is written only when all its bytes fit below the buffer end;
 *    otherwise INDEX.FULL is set and the record is dropped (ap.dropped_full);
 *  - the threshold PMI (GLOBAL_STATUS bit 54, DSM_PMI_PEBS) is requested
 *    when the write offset after a record is >= the threshold, and when a
 *    record is dropped for FULL;
 *  - with INDEX.EN = 0 no record is written (ap.dropped_off), the counter
 *    is still reloaded;
 *  - the groups of a record are the union of the CFG_C group bits of the
 *    counters taking the assist; fragments only with dsm_apebs_set_fragment;
 *  - CFG_C reload [31:0] is sign-extended to the counter width (Linux writes
 *    -period & 0xffffffff); reload 0 = the counter is not reloaded;
 *  - basic.ip = the eventing IP, GPR ip = the next IP; retire latency not
 *    modelled (valid 0); aux latency fields both = load latency; counters
 *    group: GP / fixed counters enabled in GLOBAL_CTRL whose CFG_C has
 *    CNTR_ALLOW (allowed()), then slots and IA32_PERF_METRICS with metrics;
 *  - every fragment is padded with zeros to a multiple of 16 bytes, the pad
 *    counted in its size field (INDEX counts in 16-byte units; frag_len);
 *  - counters count as the base model does (8 GP, 3 fixed per CPUID 0AH
 *    [D]); CFG_C of GP 8-9 (P) and fixed 4-6 (E) exist but never overflow.
 */
#include "dsmodel.h"

/* [L] msr-index.h */
#define AP_STEP          4u
#define AP_CFG_RELOAD    0xFFFFFFFFull
#define AP_CFG_CNTR      (0xFull << 35)   /* CNTR_ALLOW, _GP, _FIXED, _METRICS */
#define AP_CFG_ALLOW     (1ull << 35)
#define AP_CFG_CNTR_GP   (1ull << 36)
#define AP_CFG_CNTR_FX   (1ull << 37)
#define AP_CFG_CNTR_MET  (1ull << 38)
#define AP_CFG_LBR_SHIFT 40
#define AP_CFG_XMM       (1ull << 49)
#define AP_CFG_YMMH      (1ull << 50)   /* [V] ARCH_PEBS_VECR_YMMH */
#define AP_CFG_GPR       (1ull << 61)
#define AP_CFG_AUX       (1ull << 62)
#define AP_CFG_EN        (1ull << 63)
/* [L] union arch_pebs_index, [K] reserved bits */
#define AP_IDX_WR        (0x7FFFFFull << 4)
#define AP_IDX_FULL      (1ull << 31)
#define AP_IDX_EN        (1ull << 32)
#define AP_IDX_TH_SHIFT  36
#define AP_IDX_RSVD      (0xFull | (0xFull << 27) | (0x7ull << 33) | (0x1Full << 59))
/* [L] struct arch_pebs_header */
#define AP_H_MODE64      (1ull << 30)
#define AP_H_CONT        (1ull << 31)
#define AP_H_CNTR_SHIFT  35
#define AP_H_LBR_SHIFT   40
#define AP_H_XMM         (1ull << 49)
#define AP_H_YMMH        (1ull << 50)   /* [V] struct arch_pebs_header ymmh */
#define AP_H_GPR         (1ull << 61)
#define AP_H_AUX         (1ull << 62)
#define AP_H_BASIC       (1ull << 63)
#define AP_MAXPHY        46   /* [D] 80000008H EAX[7:0] = 2EH */

/* [D] CPUID words: leaf 23H sub-leaves 0-5 (EAX, EBX, ECX, EDX), 1AH, 07H.0/1, 1CH. */
static const uint32_t ap_23_p[6][4] = {
    { 0x0000003B, 0x00000003, 0, 0 }, { 0x000003FF, 0x0000000F, 0, 0 }, { 0, 0, 0, 0 },
    { 0x00001DFF, 0, 0, 0 }, { 0, 0x60060378, 0, 0 }, { 0x000003FF, 0x00000003, 0x0000000F, 0x00000001 },
};
static const uint32_t ap_23_e[6][4] = {
    { 0x0000003F, 0x00000003, 0x00000008, 0 }, { 0x000000FF, 0x00000077, 0, 0 },
    { 0x000000FC, 0x00000003, 0x000000FC, 0x00000003 }, { 0x00001F7F, 0, 0, 0 },
    { 0, 0x60060338, 0, 0 }, { 0x000000FF, 0x00000003, 0x00000077, 0x00000001 },
};

static const uint32_t (*ap_23(const struct dsm_cpu *c))[4] { return c->ap.ecore ? ap_23_e : ap_23_p; }
static uint64_t ap_wmask(unsigned w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }
static unsigned ap_pop(uint64_t v) { unsigned n = 0; for (; v; v &= v - 1) n++; return n; }

void dsm__apebs_init(struct dsm_cpu *c, bool ecore)
{
    c->ap.on = true;
    c->ap.ecore = ecore;
    /* [D] 07H.0 (EDX[19] Arch LBR), 1CH (Arch LBR depths 8/16/32) */
    c->cpuid_7[0] = 0x00000002; c->cpuid_7[1] = 0x239CA7EB; c->cpuid_7[2] = 0x994007BC; c->cpuid_7[3] = 0xFC18C430;
    /* [D] 07H.1: EAX[8] enumerates leaf 23H (Linux X86_FEATURE_ARCH_PERFMON_EXT) */
    c->cpuid_7_1[0] = 0x4CCE09D7; c->cpuid_7_1[1] = 0x1; c->cpuid_7_1[2] = 0x2; c->cpuid_7_1[3] = 0x00040430;
    c->cpuid_1c[0] = ecore ? 0xC000000Bu : 0x4000000Bu; c->cpuid_1c[1] = 0x7; c->cpuid_1c[2] = 0x000F0007;
    c->lbrsel_valid = 0;
    /* [D] 23H.1 EAX/EBX: the counters that exist, beyond leaf 0AH's 8 GP / 3 fixed
     * (P-core: 10 GP, 4 fixed). The model keeps fixed counters 0..3 (struct
     * dsm_cpu fixed[4]): the contiguous low bits of EBX (E-core 77H: 0-2). */
    unsigned gp = 0, fx = 0;
    for (uint32_t m = ap_23(c)[1][0]; m; m >>= 1)
        gp++;
    while (fx < 4 && (ap_23(c)[1][1] >> fx) & 1)
        fx++;
    c->ngp = (uint8_t)gp;
    c->nfixed = (uint8_t)fx;
}

bool dsm__apebs_cpuid(const struct dsm_cpu *c, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
    const uint32_t *src = 0;
    static const uint32_t x8[4] = { 0x0000302E, 0x00000200, 0, 0 }; /* [D] 80000008H */
    uint32_t hy[4] = { c->ap.ecore ? 0x20000004u : 0x40000004u, 0, 0, 0 }; /* [D] 1AH: Atom / Core */
    if (leaf == 0x23)
        src = sub < 6 ? ap_23(c)[sub] : 0;
    else if (leaf == 0x1A)
        src = hy;
    else if (leaf == 0x80000008u)
        src = x8;
    else
        return false;
    for (int i = 0; i < 4; i++)
        out[i] = src ? src[i] : 0;
    return true;
}

/* CFG_C bits a write may set: none on a counter 23H.5 does not name as
 * PEBS-capable ([K] arch_pebs_cfg_c_rsvd), else reload, the groups 23H.4
 * EBX enumerates, EN. */
static uint64_t cfg_valid(const struct dsm_cpu *c, bool pebs)
{
    uint64_t caps = (uint64_t)ap_23(c)[4][1] << 32; /* [L] update_pmu_cap: caps = ebx << 32 */
    return pebs ? (AP_CFG_RELOAD | caps | AP_CFG_EN) : 0;
}

static uint64_t *cfg_of(struct dsm_cpu *c, uint32_t msr, bool *pebs)
{
    const uint32_t (*w)[4] = ap_23(c);
    if (msr >= DSM_MSR_GP0_CFG_C && msr < DSM_MSR_GP0_CFG_C + AP_STEP * DSM_AP_NGP &&
        (msr - DSM_MSR_GP0_CFG_C) % AP_STEP == 0) {
        unsigned n = (msr - DSM_MSR_GP0_CFG_C) / AP_STEP;
        if (!(w[1][0] & (1u << n)))
            return 0;
        *pebs = (w[5][0] >> n) & 1;
        return &c->ap.cfg_gp[n];
    }
    if (msr >= DSM_MSR_FX0_CFG_C && msr < DSM_MSR_FX0_CFG_C + AP_STEP * DSM_AP_NFX &&
        (msr - DSM_MSR_FX0_CFG_C) % AP_STEP == 0) {
        unsigned m = (msr - DSM_MSR_FX0_CFG_C) / AP_STEP;
        if (!(w[1][1] & (1u << m)))
            return 0;
        *pebs = (w[5][2] >> m) & 1;
        return &c->ap.cfg_fx[m];
    }
    return 0;
}

bool dsm__apebs_msr(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v, int *rc)
{
    uint64_t *reg = 0, valid = 0;
    bool pebs = false;
    if (msr == DSM_MSR_PEBS_BASE) {
        reg = &c->ap.base; /* [L] 4 KiB-aligned physical address | size code */
        valid = (ap_wmask(AP_MAXPHY) & ~0xFFFull) | 0xFull;
    } else if (msr == DSM_MSR_PEBS_INDEX) {
        reg = &c->ap.index;
        valid = ~AP_IDX_RSVD;
    } else if ((reg = cfg_of(c, msr, &pebs)) != 0) {
        valid = cfg_valid(c, pebs);
    } else {
        return false;
    }
    *rc = DSM_OK;
    if (!wr)
        *v = *reg;
    else if (*v & ~valid)
        *rc = DSM_GP;
    else
        *reg = *v;
    return true;
}

/* Perfmon v6 MSR aliases ([L] msr-index.h MSR_IA32_PMC_V6_GP0_CTR 0x1900,
 * _GP0_CFG_A 0x1901, _FX0_CTR 0x1980, step 4): GP n's counter (full width,
 * as IA32_A_PMCn 4C1H + n) and event select (IA32_PERFEVTSELn 186H + n),
 * fixed m's counter (IA32_FIXED_CTRm 309H + m); only for the counters the
 * model counts (GP 0-7, fixed 0-3). Any other MSR is returned unchanged. */
uint32_t dsm__apebs_alias(const struct dsm_cpu *c, uint32_t msr)
{
    /* legacy MSRs reach counters 0-7; GP8/9 (P-core) stay with the v6 MSRs (msr_v6) */
    if (msr >= 0x1900u && msr < 0x1900u + AP_STEP * (c->ngp < 8 ? c->ngp : 8u)) {
        unsigned n = (msr - 0x1900u) / AP_STEP, k = (msr - 0x1900u) % AP_STEP;
        if (k == 0)
            return 0x4C1u + n;
        if (k == 1)
            return 0x186u + n;
    }
    if (msr >= 0x1980u && msr < 0x1980u + AP_STEP * c->nfixed && (msr - 0x1980u) % AP_STEP == 0)
        return 0x309u + (msr - 0x1980u) / AP_STEP;
    return msr;
}

static uint64_t cfg_bit(const struct dsm_cpu *c, unsigned bit)
{
    if (bit < 32)
        return bit < DSM_AP_NGP ? c->ap.cfg_gp[bit] : 0;
    return bit - 32 < DSM_AP_NFX ? c->ap.cfg_fx[bit - 32] : 0;
}

bool dsm__apebs_counter_on(const struct dsm_cpu *c, unsigned bit)
{
    return (cfg_bit(c, bit) & AP_CFG_EN) != 0;
}

bool dsm__apebs_reload(const struct dsm_cpu *c, unsigned bit, unsigned width, uint64_t *out)
{
    uint32_t r = (uint32_t)(cfg_bit(c, bit) & AP_CFG_RELOAD);
    if (!r)
        return false;
    *out = (uint64_t)(int64_t)(int32_t)r & ap_wmask(width);
    return true;
}

int dsm_apebs_set_fragment(struct dsm_cpu *c, uint32_t max)
{
    if (!c || !c->ap.on || (max && (max < 64 || (max & 7))))
        return DSM_EINVAL;
    c->ap.frag_max = max;
    return DSM_OK;
}

/* ---- record assembly --------------------------------------------------------- */

#define AP_NGROUP 6
struct ap_rec {
    uint8_t b[2048];           /* groups back to back, no headers (largest: 1736) */
    uint32_t off[AP_NGROUP], len[AP_NGROUP];
    uint64_t bits[AP_NGROUP];  /* header bits that group sets */
    unsigned n;
    uint32_t used;
};

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint8_t *grp(struct ap_rec *r, uint32_t len, uint64_t bits)
{
    uint8_t *p = r->b + r->used;
    for (uint32_t i = 0; i < len; i++)
        p[i] = 0;
    r->off[r->n] = r->used;
    r->len[r->n] = len;
    r->bits[r->n] = bits;
    r->n++;
    r->used += len;
    return p;
}

static uint64_t union_cfg(const struct dsm_cpu *c, uint64_t hit)
{
    uint64_t u = 0;
    for (unsigned bit = 0; bit < 64; bit++)
        if (hit & (1ull << bit))
            u |= cfg_bit(c, bit);
    return u;
}

static void grp_gpr(struct ap_rec *r, const struct dsm_event *ev)
{
    /* [L] arch_pebs_gprs order; DSM_R_* is the DS-PEBS order */
    static const uint8_t from[18] = { DSM_R_FLAGS, 0xFF, DSM_R_AX, DSM_R_CX, DSM_R_DX, DSM_R_BX, DSM_R_SP, DSM_R_BP,
                                      DSM_R_SI, DSM_R_DI, 10, 11, 12, 13, 14, 15, 16, 17 };
    uint8_t *p = grp(r, 160, AP_H_GPR);
    for (int i = 0; i < 18; i++)
        put64(p + 8 * i, from[i] == 0xFF ? ev->next_ip : ev->regs[from[i]]);
}

/* Vector-register group: XER header (xstate: XSAVE components 1 SSE and,
 * with YMMH, 2 AVX), XMM0-15 if XMM, then YMMH if YMMH ([V]). Model choice:
 * the event carries no YMM state, so YMMH qword i = xmm qword i XOR
 * 0x5A5A5A5A5A5A5A5A (zeros when the event has no vector state). */
static void grp_vecr(struct ap_rec *r, const struct dsm_event *ev, uint64_t cfg)
{
    bool x = (cfg & AP_CFG_XMM) != 0, y = (cfg & AP_CFG_YMMH) != 0;
    uint8_t *p = grp(r, 16 + (x ? 256u : 0u) + (y ? 256u : 0u), (x ? AP_H_XMM : 0) | (y ? AP_H_YMMH : 0));
    put64(p, (x ? 0x2u : 0u) | (y ? 0x6u : 0u));
    uint8_t *q = p + 16;
    if (x)
        for (int i = 0; i < 32; i++, q += 8)
            put64(q, ev->xmm ? ev->xmm[i] : 0);
    if (y)
        for (int i = 0; i < 32; i++, q += 8)
            put64(q, ev->xmm ? ev->xmm[i] ^ 0x5A5A5A5A5A5A5A5Aull : 0);
}

static void grp_lbr(struct ap_rec *r, const struct dsm_cpu *c, unsigned sel)
{
    uint32_t n = sel == 1 ? 8 : sel == 2 ? 16 : c->lbr_depth; /* [L] ARCH_PEBS_LBR_NUM_8/16/VAR */
    if (n > DSM_LBR_MAX)
        n = DSM_LBR_MAX;
    uint8_t *p = grp(r, 48 + 24 * n, (uint64_t)sel << AP_H_LBR_SHIFT);
    put64(p + 8, c->lbr_ctl);
    put64(p + 16, c->lbr_depth);
    put64(p + 24, c->ler_from);
    put64(p + 32, c->ler_to);
    for (uint32_t k = 0; k < n; k++) { /* Arch LBR: entry 0 is the newest */
        bool have = k < c->lbr_depth;
        put64(p + 48 + 24 * k, have ? c->lbr_from[k] : 0);
        put64(p + 56 + 24 * k, have ? c->lbr_to[k] : 0);
        put64(p + 64 + 24 * k, have ? c->lbr_info[k] : 0);
    }
}

/* Counters enabled in GLOBAL_CTRL whose own CFG_C has CNTR_ALLOW (bit 35):
 * bit n GP n, bit 32+m fixed m. [L] intel_pmu_enable_event_ext sets
 * ARCH_PEBS_CNTR_ALLOW on every member of a PEBS counter group, the counting
 * ones too (CFG_C without EN); the model records only those (strict: a
 * counter Linux would have to allow is missing from the group without it). */
static uint64_t allowed(const struct dsm_cpu *c)
{
    uint64_t a = 0;
    for (unsigned i = 0; i < DSM_AP_NGP; i++)
        a |= (c->ap.cfg_gp[i] & AP_CFG_ALLOW) ? 1ull << i : 0;
    for (unsigned i = 0; i < DSM_AP_NFX; i++)
        a |= (c->ap.cfg_fx[i] & AP_CFG_ALLOW) ? 1ull << (32 + i) : 0;
    return a & c->gctrl;
}

static void grp_cntr(struct ap_rec *r, const struct dsm_cpu *c, uint64_t cfg)
{
    uint64_t a = allowed(c);
    uint32_t gp = (cfg & AP_CFG_CNTR_GP) ? (uint32_t)(a & ap_wmask(c->ngp)) : 0;
    uint32_t fx = (cfg & AP_CFG_CNTR_FX) ? (uint32_t)((a >> 32) & ap_wmask(c->nfixed)) : 0;
    uint32_t met = (cfg & AP_CFG_CNTR_MET) ? 3u : 0u; /* [L] INTEL_CNTR_METRICS */
    uint32_t nv = ap_pop(gp) + ap_pop(fx) + (met ? 2u : 0u);
    uint8_t *p = grp(r, 16 + 8 * nv, ((cfg & AP_CFG_CNTR) >> 35) << AP_H_CNTR_SHIFT);
    put64(p, (uint64_t)gp | (uint64_t)fx << 32);
    put64(p + 8, met);
    uint8_t *q = p + 16;
    for (unsigned i = 0; i < 32; i++)
        if (gp & (1u << i)) { put64(q, c->pmc[i]); q += 8; }
    for (unsigned i = 0; i < 32; i++)
        if (fx & (1u << i)) { put64(q, c->fixed[i]); q += 8; }
    if (met) { /* [L] __setup_pebs_counter_group: slots (fixed 3), then PERF_METRICS */
        put64(q, c->fixed[3]);
        put64(q + 8, c->perf_metrics);
    }
}

static void build(struct ap_rec *r, const struct dsm_cpu *c, const struct dsm_event *ev, uint64_t hit)
{
    uint64_t cfg = union_cfg(c, hit);
    r->n = 0;
    r->used = 0;
    uint8_t *p = grp(r, 48, AP_H_BASIC);
    put64(p, ev->ip);
    put64(p + 8, hit);
    put64(p + 16, ev->tsc);
    if (cfg & AP_CFG_AUX) {
        p = grp(r, 64, AP_H_AUX);
        put64(p, (ev->flags & DSM_EV_LOAD) ? ev->load_addr : 0);
        put64(p + 40, ev->data_src);
        put64(p + 48, (uint64_t)(ev->load_latency & 0xFFFF) | (uint64_t)(ev->load_latency & 0xFFFF) << 32);
    }
    if (cfg & AP_CFG_GPR)
        grp_gpr(r, ev);
    if (cfg & (AP_CFG_XMM | AP_CFG_YMMH)) /* [L]/[V] one group: XER header + parts */
        grp_vecr(r, ev, cfg);
    unsigned sel = (unsigned)(cfg >> AP_CFG_LBR_SHIFT) & 3;
    if (sel)
        grp_lbr(r, c, sel);
    if (cfg & AP_CFG_CNTR)
        grp_cntr(r, c, cfg);
}

/* Fragments: [first, end) group ranges, each <= frag_max with its header. */
static unsigned plan(const struct dsm_cpu *c, const struct ap_rec *r, unsigned first_of[AP_NGROUP + 1])
{
    unsigned nf = 0;
    uint32_t cur = 0;
    for (unsigned g = 0; g < r->n; g++) {
        if (g == 0 || (c->ap.frag_max && cur + r->len[g] > c->ap.frag_max)) {
            first_of[nf++] = g;
            cur = 16;
        }
        cur += r->len[g];
    }
    first_of[nf] = r->n;
    return nf;
}

/* Bytes of fragment @f: header + its groups, rounded up to 16 (model
 * choice: IA32_PEBS_INDEX counts the write offset in 16-byte units, [L]
 * union arch_pebs_index wr:23 at bit 4, so every fragment must end on a
 * 16-byte boundary; a counters group with an odd number of values is
 * 8 bytes short of one. The pad is zero and counted in the size field,
 * which is all a reader walking by header size (Linux
 * intel_pmu_drain_arch_pebs) needs.) */
static uint32_t frag_len(const struct ap_rec *r, const unsigned first_of[AP_NGROUP + 1], unsigned f)
{
    uint32_t len = 16;
    for (unsigned g = first_of[f]; g < first_of[f + 1]; g++)
        len += r->len[g];
    return (len + 15u) & ~15u;
}

uint32_t dsm_apebs_record_size(const struct dsm_cpu *c, uint64_t hit)
{
    if (!c || !c->ap.on)
        return 0;
    struct ap_rec r;
    struct dsm_event ev = { 0 };
    build(&r, c, &ev, hit);
    unsigned first_of[AP_NGROUP + 1];
    unsigned nf = plan(c, &r, first_of);
    uint32_t total = 0;
    for (unsigned f = 0; f < nf; f++)
        total += frag_len(&r, first_of, f);
    return total;
}

static int ap_write(struct dsm_cpu *c, uint64_t at, const void *p, size_t n)
{
    if (!c->mem || c->mem->write(c->mem_ctx, at, p, n)) {
        c->st.mem_faults++;
        return -1;
    }
    return 0;
}

static void ap_threshold(struct dsm_cpu *c)
{
    c->gstatus |= DSM_GS_ARCH_PEBS;
    c->pmi_pending |= DSM_PMI_PEBS;
    c->ap.thresh_pmis++;
}

void dsm__apebs_assist(struct dsm_cpu *c, const struct dsm_event *ev, uint64_t hit)
{
    if (!(c->ap.index & AP_IDX_EN)) {
        c->ap.dropped_off++;
        c->st.pebs_skipped++;
        return;
    }
    struct ap_rec r;
    build(&r, c, ev, hit);
    unsigned first_of[AP_NGROUP + 1];
    unsigned nf = plan(c, &r, first_of);
    uint64_t bytes = 4096ull << (c->ap.base & 0xF);   /* [L] 4 KiB * 2^SIZE */
    uint64_t phys = c->ap.base & ~0xFFFull;
    uint64_t off = c->ap.index & AP_IDX_WR;
    uint64_t total = 0;
    for (unsigned f = 0; f < nf; f++)
        total += frag_len(&r, first_of, f);
    if ((c->ap.index & AP_IDX_FULL) || off + total > bytes) {
        c->ap.index |= AP_IDX_FULL;
        c->ap.dropped_full++;
        c->st.pebs_skipped++;
        ap_threshold(c);
        return;
    }
    uint64_t at = off;
    for (unsigned f = 0; f < nf; f++) {
        uint64_t h = c->ia32e ? AP_H_MODE64 : 0;
        uint32_t len = 16, len16 = frag_len(&r, first_of, f);
        for (unsigned g = first_of[f]; g < first_of[f + 1]; g++) {
            h |= r.bits[g];
            len += r.len[g];
        }
        h |= len16 | (f + 1 < nf ? AP_H_CONT : 0);
        uint8_t hdr[16] = { 0 };
        put64(hdr, h);
        if (ap_write(c, phys + at, hdr, 16) ||
            ap_write(c, phys + at + 16, r.b + r.off[first_of[f]], len - 16u) ||
            (len16 > len && ap_write(c, phys + at + len, hdr + 8, len16 - len))) /* zero pad */
            return;
        len = len16;
        at += len;
        c->ap.fragments++;
    }
    c->ap.index = (c->ap.index & ~AP_IDX_WR) | (at & AP_IDX_WR);
    c->ap.records++;
    c->st.pebs_written++;
    uint64_t th = ((c->ap.index >> AP_IDX_TH_SHIFT) & 0x7FFFFF) * 16;
    if (at >= th)
        ap_threshold(c);
}
