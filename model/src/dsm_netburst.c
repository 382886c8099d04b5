/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsmodel: NetBurst (family 0FH) performance monitoring. The ESCR table
 * (reference netburst.md "ESCR MSRs"), CCCR/ESCR/counter MSRs, front-end and
 * replay tagging, counting per ESCR event, and NetBurst PEBS (IQ_COUNTER4).
 * Includes no libds header.
 */
#include "dsmodel_int.h"

/* ---- NetBurst ESCRs: reference netburst.md "ESCR MSRs" ------------------ *
 * MSR_SSU_ESCR1 (0x3BF) is unconfirmed (Linux: "guess: not in manual"): the
 * model does not implement it, so accessing it faults. */
struct dsm_escr { uint16_t msr; uint8_t sel; uint8_t m12_only; uint32_t ctrs; };
#define C2(a, b) ((1u << (a)) | (1u << (b)))
#define C3(a, b, c) ((1u << (a)) | (1u << (b)) | (1u << (c)))
static const struct dsm_escr dsm_escrs[] = {
    { 0x3A0, 7, 0, C2(0, 1) },  { 0x3A1, 7, 0, C2(2, 3) },   /* BSU */
    { 0x3A2, 6, 0, C2(0, 1) },  { 0x3A3, 6, 0, C2(2, 3) },   /* FSB */
    { 0x3A4, 1, 0, C2(8, 9) },  { 0x3A5, 1, 0, C2(10, 11) }, /* FIRM */
    { 0x3A6, 0, 0, C2(8, 9) },  { 0x3A7, 0, 0, C2(10, 11) }, /* FLAME */
    { 0x3A8, 5, 0, C2(8, 9) },  { 0x3A9, 5, 0, C2(10, 11) }, /* DAC */
    { 0x3AA, 2, 0, C2(0, 1) },  { 0x3AB, 2, 0, C2(2, 3) },   /* MOB */
    { 0x3AC, 4, 0, C2(0, 1) },  { 0x3AD, 4, 0, C2(2, 3) },   /* PMH */
    { 0x3AE, 2, 0, C2(8, 9) },  { 0x3AF, 2, 0, C2(10, 11) }, /* SAAT */
    { 0x3B0, 3, 0, C2(8, 9) },  { 0x3B1, 3, 0, C2(10, 11) }, /* U2L */
    { 0x3B2, 0, 0, C2(0, 1) },  { 0x3B3, 0, 0, C2(2, 3) },   /* BPU */
    { 0x3B4, 1, 0, C2(0, 1) },  { 0x3B5, 1, 0, C2(2, 3) },   /* IS */
    { 0x3B6, 3, 0, C2(0, 1) },  { 0x3B7, 3, 0, C2(2, 3) },   /* ITLB */
    { 0x3B8, 4, 0, C3(12, 13, 16) }, { 0x3B9, 4, 0, C3(14, 15, 17) }, /* CRU0/1 */
    { 0x3BA, 0, 1, C3(12, 13, 16) }, { 0x3BB, 0, 1, C3(14, 15, 17) }, /* IQ (models 1-2) */
    { 0x3BC, 2, 0, C3(12, 13, 16) }, { 0x3BD, 2, 0, C3(14, 15, 17) }, /* RAT */
    { 0x3BE, 3, 0, C3(12, 13, 16) },                                   /* SSU0 */
    { 0x3C0, 0, 0, C2(4, 5) },  { 0x3C1, 0, 0, C2(6, 7) },   /* MS */
    { 0x3C2, 2, 0, C2(4, 5) },  { 0x3C3, 2, 0, C2(6, 7) },   /* TBPU */
    { 0x3C4, 1, 0, C2(4, 5) },  { 0x3C5, 1, 0, C2(6, 7) },   /* TC */
    { 0x3C8, 5, 0, C2(0, 1) },  { 0x3C9, 5, 0, C2(2, 3) },   /* IX */
    { 0x3CA, 1, 0, C3(12, 13, 16) }, { 0x3CB, 1, 0, C3(14, 15, 17) }, /* ALF */
    { 0x3CC, 5, 0, C3(12, 13, 16) }, { 0x3CD, 5, 0, C3(14, 15, 17) }, /* CRU2/3 */
    { 0x3E0, 6, 0, C3(12, 13, 16) }, { 0x3E1, 6, 0, C3(14, 15, 17) }, /* CRU4/5 */
};
#undef C2
#undef C3
#define DSM_NESCR (sizeof(dsm_escrs) / sizeof(dsm_escrs[0]))

/* Resolve the ESCR a NetBurst CCCR selects for counter i (-1: no pairing). */
static int nb_resolve(const struct dsm_cpu *c, unsigned i, uint64_t cccr)
{
    unsigned sel = (unsigned)(cccr >> DSM_CCCR_SEL_SHIFT) & 7;
    bool m12 = ((c->cpuid1[0] >> 4) & 0xF) <= 2;
    for (size_t k = 0; k < DSM_NESCR; k++) {
        const struct dsm_escr *e = &dsm_escrs[k];
        if (e->sel == sel && (e->ctrs & (1u << i)) && (!e->m12_only || m12))
            return (int)(e->msr - DSM_MSR_NB_ESCR_FIRST);
    }
    return -1;
}

static int nb_escr_index(const struct dsm_cpu *c, uint32_t msr)
{
    bool m12 = ((c->cpuid1[0] >> 4) & 0xF) <= 2;
    for (size_t k = 0; k < DSM_NESCR; k++)
        if (dsm_escrs[k].msr == msr)
            return (!dsm_escrs[k].m12_only || m12) ? (int)(msr - DSM_MSR_NB_ESCR_FIRST) : -1;
    return -1;
}

static void nb_update_active(struct dsm_cpu *c)
{
    c->nb_active = 0;
    for (unsigned i = 0; i < 18; i++) {
        c->nb_escr_of[i] = -1;
        if (!(c->nb_cccr[i] & DSM_CCCR_ENABLE))
            continue;
        int s = nb_resolve(c, i, c->nb_cccr[i]);
        c->nb_escr_of[i] = (int8_t)s;
        if (s >= 0)
            c->nb_active |= 1u << i;
    }
}

static unsigned nb_nctr(const struct dsm_cpu *c) { (void)c; return 18; }
static unsigned nb_nescr(const struct dsm_cpu *c) { (void)c; return DSM_NB_ESCR_SLOTS; }

/* MSR_*_COUNTERn (300H+n): 40 bits. */
static int nb_counter(struct dsm_cpu *c, unsigned i, bool wr, uint64_t *v)
{
    int rc = dsm_rw(&c->nb_cnt[i], wr, v, wmask(DSM_NB_WIDTH));
    if (wr && rc == DSM_OK)
        c->armed &= ~(1ull << i);
    return rc;
}

/* MSR_*_CCCRn (360H+n): a write re-pairs the counters with their ESCRs. */
static int nb_cccr(struct dsm_cpu *c, unsigned i, bool wr, uint64_t *v)
{
    int rc = dsm_rw(&c->nb_cccr[i], wr, v, DSM_CCCR_VALID);
    if (wr && rc == DSM_OK)
        nb_update_active(c);
    return rc;
}

/* The ESCRs (3A0H..3E1H): those of the table only (IQ_ESCR0/1 on models 1-2). */
static int nb_escr(struct dsm_cpu *c, unsigned i, bool wr, uint64_t *v)
{
    int s = nb_escr_index(c, DSM_MSR_NB_ESCR_FIRST + i);
    if (s < 0)
        return DSM_GP;
    return dsm_rw(&c->nb_escr[s], wr, v, DSM_ESCR_VALID);
}

static const struct dsm_msr_range nb_ranges[] = {
    { DSM_MSR_NB_COUNTER0, nb_nctr, nb_counter },
    { DSM_MSR_NB_CCCR0, nb_nctr, nb_cccr },
    { DSM_MSR_NB_ESCR_FIRST, nb_nescr, nb_escr },
};

static int nb_debugctl(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (wr) {
        if (*v & ~c->debugctl_valid)
            return DSM_GP;
        /* BTS_OFF_OS/USR need DS-CPL (SDM "Debug Store (DS) Mechanism") */
        if ((*v & (DSM_NBDBG_OFF_OS | DSM_NBDBG_OFF_USR)) && !(c->cpuid1[2] & DSM_C1_ECX_DSCPL))
            return DSM_GP;
        c->debugctl = *v;
    } else {
        *v = c->debugctl;
    }
    return DSM_OK;
}

static int nb_pebs_enable(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (!has_pebs(c))
        return DSM_GP;
    return dsm_rw(&c->pebs_enable, wr, v, DSM_NB_PEBS_VALID);
}

static int nb_matrix_vert(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)   /* MSR_PEBS_MATRIX_VERT */
{
    (void)msr;
    if (!has_pebs(c))
        return DSM_GP;
    return dsm_rw(&c->pebs_cfg, wr, v, DSM_NB_VERT_VALID);
}

static int nb_ler(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    if (wr)
        return DSM_GP;
    *v = msr == DSM_MSR_NB_LER_FROM ? c->ler_from : c->ler_to;
    return DSM_OK;
}

static const struct dsm_msr_op nb_ops[] = {
    { DSM_MSR_DEBUGCTL, nb_debugctl },   { DSM_MSR_PEBS_ENABLE, nb_pebs_enable },
    { DSM_MSR_PEBS_3F2, nb_matrix_vert }, { DSM_MSR_NB_LER_FROM, nb_ler }, { DSM_MSR_NB_LER_TO, nb_ler },
};

int dsm__msr_nb(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    int rc;
    if (dsm__msr_ranges(nb_ranges, sizeof(nb_ranges) / sizeof(nb_ranges[0]), c, msr, wr, v, &rc) ||
        dsm__msr_ops(nb_ops, sizeof(nb_ops) / sizeof(nb_ops[0]), c, msr, wr, v, &rc) ||
        dsm__lbr_msr(c, msr, wr, v, &rc))
        return rc;
    return DSM_GP;
}

/* NetBurst: increments of counter i's event for this instruction. */
static unsigned nb_inc(const struct dsm_cpu *c, unsigned i, const struct dsm_event *ev, bool fe_tag, bool rp_tag,
                       bool *at_ret_pebs)
{
    int s = c->nb_escr_of[i];
    uint64_t e = c->nb_escr[s];
    uint32_t msr = DSM_MSR_NB_ESCR_FIRST + (uint32_t)s;
    *at_ret_pebs = false;
    if (!(e & (ev->cpl == 0 ? DSM_ESCR_T0_OS : DSM_ESCR_T0_USR)))
        return 0;
    unsigned evsel = (unsigned)(e >> 25) & 0x3F, mask = (unsigned)(e >> 9) & 0xFFFF;
    bool br = (ev->flags & DSM_EV_BRANCH) != 0, mis = (ev->flags & DSM_EV_MISPRED) != 0;
    bool tagged = fe_tag || rp_tag;
    unsigned inc = 0;
    if (msr == 0x3B8 || msr == 0x3B9) {          /* CRU_ESCR0/1 */
        switch (evsel) {
        case 0x02: inc = ((mask & 1) && !tagged) || ((mask & 2) && tagged); break; /* instr_retired */
        case 0x01: inc = (mask & 1) != 0; break;                                   /* uops_retired */
        case 0x03: inc = (mask & 1) && br && mis; break;                           /* mispred_branch_retired */
        default: break;
        }
    } else if (msr == 0x3A2 || msr == 0x3A3) {   /* FSB_ESCR0/1 */
        /* global_power_events (13H), RUNNING (bit 0): cycles, one per instruction
         * (model choice); encoding: libpfm4 netburst_events.h, Linux p4 global_power_events */
        inc = evsel == 0x13 && (mask & 1);
    } else if (msr == 0x3CC || msr == 0x3CD) {   /* CRU_ESCR2/3 */
        switch (evsel) {
        case 0x08: inc = (mask & 1) && fe_tag; *at_ret_pebs = true; break;         /* front_end_event */
        case 0x09: inc = (mask & 1) && rp_tag; *at_ret_pebs = true; break;         /* replay_event */
        case 0x0C: inc = 0; *at_ret_pebs = true; break;  /* execution_event: no upstream tagging modelled */
        case 0x06:                                                                  /* branch_retired */
            if (br) {
                unsigned b = ((ev->flags & DSM_EV_TAKEN) ? 2u : 0u) + (mis ? 1u : 0u);
                inc = (mask >> b) & 1;
            }
            break;
        default: break;
        }
    }
    uint64_t cccr = c->nb_cccr[i];
    /* Active thread: 00 none; 01 single, 11 any count (one thread active); 10 both: no */
    unsigned at = (unsigned)(cccr >> DSM_CCCR_AT_SHIFT) & 3;
    if (at == 0 || at == 2)
        return 0;
    if (cccr & DSM_CCCR_COMPARE) {
        unsigned thr = (unsigned)(cccr >> DSM_CCCR_THR_SHIFT) & 0xF;
        bool pass = (cccr & DSM_CCCR_COMPLEMENT) ? inc <= thr : inc > thr;
        inc = pass ? inc : 0;
    }
    return inc;
}

static void nb_pebs_record(struct dsm_cpu *c, const struct dsm_event *ev)
{
    uint8_t rec[144];
    uint32_t size;
    if (dsm_ds64(c)) {
        size = 144;
        for (unsigned k = 0; k < 18; k++)
            put64(rec + 8 * k, k == DSM_R_IP ? ev->next_ip : ev->regs[k]);
    } else {
        /* 32-bit record: EFLAGS, EIP, EAX, EBX, ECX, EDX, ESI, EDI, EBP, ESP */
        size = 40;
        for (unsigned k = 0; k < 10; k++) {
            uint32_t v = (uint32_t)(k == DSM_R_IP ? ev->next_ip : ev->regs[k]);
            for (int b = 0; b < 4; b++)
                rec[4 * k + b] = (uint8_t)(v >> (8 * b));
        }
    }
    bool crossed;
    if (dsm__ds_append(c, 4, rec, size, false, &crossed)) {
        c->st.pebs_written++;
        if (crossed)
            c->pmi_pending |= DSM_PMI_PEBS;
    } else {
        c->st.pebs_skipped++;
    }
}

void dsm__nb_retire(struct dsm_cpu *c, const struct dsm_event *ev)
{
    bool fe_tag = false, rp_tag = false;
    bool load = (ev->flags & DSM_EV_LOAD) != 0;
    /* Front-end tagging: uop_type (0x02) on RAT_ESCR0/1 with Tag enable */
    for (unsigned k = 0; k < 2; k++) {
        uint64_t e = c->nb_escr[0x3BC + k - DSM_MSR_NB_ESCR_FIRST];
        if (((e >> 25) & 0x3F) == 0x02 && (e & DSM_ESCR_TAG_EN) &&
            (e & (ev->cpl == 0 ? DSM_ESCR_T0_OS : DSM_ESCR_T0_USR))) {
            unsigned m = (unsigned)(e >> 9) & 0xFFFF;
            if (((m & 2) && load) || ((m & 4) && (ev->flags & DSM_EV_STORE)))
                fe_tag = true;
        }
    }
    /* Replay tagging (reference netburst.md "Replay-tagging metrics") */
    if (c->pebs_enable & DSM_NB_PEBS_UOP_TAG) {
        uint64_t pe = c->pebs_enable, mv = c->pebs_cfg;
        unsigned src = ev->data_src & 0xF;
        if (load && (mv & 1) && (pe & 1) && src != 0x1)
            rp_tag = true;                       /* 1stL_cache_load_miss_retired */
        if (load && (mv & 1) && (pe & 2) && src != 0x1 && src != 0x2 && src != 0x3)
            rp_tag = true;                       /* 2ndL_cache_load_miss_retired */
        if ((ev->flags & DSM_EV_BRANCH) && (ev->flags & DSM_EV_MISPRED) && (mv & 0x10) && (pe & 0x18000) == 0x18000)
            rp_tag = true;                       /* Tagged_mispred_branch */
    }
    bool pebs_hit = false;
    uint32_t act = c->nb_active;
    while (act) {
        unsigned i = (unsigned)__builtin_ctz(act);
        act &= act - 1;
        bool atret;
        unsigned inc = nb_inc(c, i, ev, fe_tag, rp_tag, &atret);
        uint64_t cccr = c->nb_cccr[i];
        if (!inc)
            continue;
        bool pebs = i == DSM_NB_PEBS_CTR && atret && (c->pebs_enable & DSM_NB_PEBS_MY_THR) && has_pebs(c);
        if (pebs && (c->armed & (1ull << 16))) {
            pebs_hit = true;
            continue;
        }
        c->nb_cnt[i] = (c->nb_cnt[i] + 1) & wmask(DSM_NB_WIDTH);
        if (c->nb_cnt[i] == 0 || (cccr & DSM_CCCR_FORCE_OVF)) {
            c->nb_cccr[i] |= DSM_CCCR_OVF;   /* sticky until software clears it */
            if (pebs)   /* PEBS counter: the PMI comes from the DS threshold */
                c->armed |= 1ull << 16;
            else if (cccr & DSM_CCCR_OVF_PMI_T0)
                c->pmi_pending |= DSM_PMI_COUNTER;
        }
    }
    if (pebs_hit) {
        nb_pebs_record(c, ev);
        c->armed &= ~(1ull << 16);
        c->nb_cnt[16] = dsm__ds_reset_value(c, 0) & wmask(DSM_NB_WIDTH);
        c->nb_cnt[16] = (c->nb_cnt[16] + 1) & wmask(DSM_NB_WIDTH);
        if (c->nb_cnt[16] == 0) {
            c->nb_cccr[16] |= DSM_CCCR_OVF;
            c->armed |= 1ull << 16;
        }
    }
}
