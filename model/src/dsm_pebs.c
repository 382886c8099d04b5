/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsmodel: PEBS of the DS area (SDM Vol. 3B "Processor Event Based
 * Sampling"; reference pebs-records.md): the PEBS MSRs (PEBS_ENABLE,
 * PEBS_DATA_CFG, PEBS_LD_LAT, PEBS_FRONTEND), which counters take an assist,
 * record sizes and the record writers of formats 0-3 and adaptive formats
 * 4-6. NetBurst PEBS: dsm_netburst.c; architectural PEBS: dsm_archpebs.c.
 * Includes no libds header.
 */
#include "dsmodel_int.h"

/* Adaptive record size for a DATA_CFG value (reference pebs-records.md). */
static uint32_t adaptive_size(uint64_t cfg)
{
    uint32_t s = 32;
    if (cfg & 1)
        s += 32;
    if (cfg & 2)
        s += 144;
    if (cfg & 4)
        s += 256;
    if (cfg & 8)
        s += 24 * (uint32_t)(((cfg >> 24) & 0xFF) + 1);
    /* format 6 counters group (Linux pebs_update_adaptive_cfg): bit 4 or 5 ->
     * 16-byte header; bit 4: one qword per counter; bit 5: slots + metrics */
    if (cfg & (DSM_CFG_CNTR | DSM_CFG_METRICS))
        s += 16;
    if (cfg & DSM_CFG_CNTR)
        s += 8 * (popc((uint32_t)((cfg >> DSM_CFG_GP_SHIFT) & 0xFFFF)) +
                  popc((uint32_t)((cfg >> DSM_CFG_FIX_SHIFT) & 0xFF)));
    if (cfg & DSM_CFG_METRICS)
        s += 16;
    return s;
}

uint32_t dsm_pebs_record_size(const struct dsm_cpu *c)
{
    if (!c || !has_pebs(c))
        return 0;
    if (c->kind == K_NB)
        return dsm_ds64(c) ? 144 : 40;
    switch (c->pebs_fmt) {
    case 0: return 0x90;
    case 1: return 0xB0;
    case 2: return 0xC0;
    case 3: return 0xC8;
    case 4: case 5: case 6: return adaptive_size(c->pebs_cfg);
    default: return 0;
    }
}

static uint64_t pebs_enable_valid(const struct dsm_cpu *c)
{
    switch (c->pebs_fmt) {
    case 0: return 1;                                         /* PMC0 only */
    case 1: case 2: case 3: return 0xFull | (0xFull << 32);   /* PEBS_EN 3:0, LL_EN 35:32 */
    case 4: case 5:
        /* KVM intel_pmu_refresh: GP counters only without PEBS_BASELINE */
        if (!adaptive_ok(c))
            return wmask(c->ngp);
        return wmask(c->ngp) | (fxmask(c) << 32);
    case 6: return wmask(c->ngp) | (fxmask(c) << 32);
    default: return 0;
    }
}

/* IA32_PEBS_ENABLE (3F1H). */
int dsm__msr_pebs_enable(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (!has_pebs(c))
        return DSM_GP;
    return dsm_rw(&c->pebs_enable, wr, v, pebs_enable_valid(c));
}

/* MSR_PEBS_DATA_CFG (3F2H), adaptive PEBS only. */
int dsm__msr_pebs_data_cfg(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (!has_pebs(c) || !adaptive_ok(c))   /* KVM intel_is_valid_msr: needs PEBS_BASELINE */
        return DSM_GP;
    if (wr) {
        /* groups 3:0, LBR entries-1 in 31:24 (model: at most the LBR depth) */
        uint64_t ok = 0xFF00000Full;
        if (c->pebs_fmt >= 6)   /* counters group, GP mask 47:32, fixed mask 55:48 */
            ok |= DSM_CFG_CNTR | (wmask(c->ngp) << DSM_CFG_GP_SHIFT) | (fxmask(c) << DSM_CFG_FIX_SHIFT);
        if (c->pebs_fmt >= 6 && (c->perf_caps & DSM_CAP_PERF_METRICS))   /* metrics, bit 5 */
            ok |= DSM_CFG_METRICS;
        if ((*v & ~ok) || ((*v >> 24) & 0xFF) >= c->lbr_depth)
            return DSM_GP;
        c->pebs_cfg = *v;
    } else {
        *v = c->pebs_cfg;
    }
    return DSM_OK;
}

/* MSR_PEBS_LD_LAT (3F6H): the load latency threshold, bits 15:0. */
int dsm__msr_pebs_ld_lat(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (!c->ll || !has_pebs(c))
        return DSM_GP;
    return dsm_rw(&c->ld_lat, wr, v, 0xFFFFull);
}

/* MSR_PEBS_FRONTEND (3F7H): Skylake+; fields single-source: model accepts bits 23:0. */
int dsm__msr_pebs_frontend(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (c->pebs_fmt < 3 || !has_pebs(c))
        return DSM_GP;
    return dsm_rw(&c->frontend, wr, v, 0xFFFFFFull);
}

bool dsm__pebs_on(const struct dsm_cpu *c, unsigned bit)
{
    if (c->ap.on)
        return dsm__apebs_counter_on(c, bit);
    if (!(c->pebs_enable & (1ull << bit)))
        return false;
    if (c->pebs_fmt == 0)
        return bit == 0;
    if (c->pebs_fmt <= 3)
        return bit < 4;
    return true;
}

/* What the applicable counters @hit sample: load latency (a load latency
 * event with its LL_EN bit up to format 3), a load, and whether any asks for
 * the adaptive record (EVTSEL / FIXED_CTR_CTRL adaptive bit). */
static void pebs_hit_kind(const struct dsm_cpu *c, const struct dsm_event *ev, uint64_t hit, bool *ll,
                          bool *load, bool *adaptive)
{
    *ll = *load = *adaptive = false;
    for (unsigned n = 0; n < c->ngp; n++)
        if (hit & (1ull << n)) {
            if (dsm__ev_is_ll(c, n) && (c->pebs_fmt >= 4 || (c->pebs_enable & (1ull << (32 + n)))))
                *ll = true;
            if (dsm__ev_is_load(c, n))
                *load = true;
            if (c->evtsel[n] & DSM_EVT_ADAPTIVE)
                *adaptive = true;
        }
    for (unsigned m = 0; m < c->nfixed; m++)
        if ((hit & (1ull << (32 + m))) && ((c->fixed_ctrl >> (32 + 4 * m)) & 1))
            *adaptive = true;
    *load = *load && (ev->flags & DSM_EV_LOAD);
    *ll = *ll && (ev->flags & DSM_EV_LOAD);
}

/* Formats 0-3: SDM "PEBS Record Format" (Core 2), Core i7 (fmt 1), Haswell
 * (fmt 2), Skylake (fmt 3). Returns the record size. */
static uint32_t pebs_legacy(const struct dsm_cpu *c, const struct dsm_event *ev, uint64_t hit, uint64_t rip,
                            bool ll, bool load, uint8_t *rec)
{
    static const uint32_t sizes[4] = { 0x90, 0xB0, 0xC0, 0xC8 };
    for (unsigned k = 0; k < 18; k++)
        put64(rec + 8 * k, k == DSM_R_IP ? rip : ev->regs[k]);
    if (c->pebs_fmt >= 1) {
        put64(rec + 0x90, c->pebs_fmt == 3 ? hit : c->gstatus);
        put64(rec + 0x98, (ll || (load && c->pebs_fmt >= 2)) ? ev->load_addr : 0);
        put64(rec + 0xA0, ll ? ev->data_src : 0);
        put64(rec + 0xA8, ll ? ev->load_latency : 0);
    }
    if (c->pebs_fmt >= 2) {
        put64(rec + 0xB0, ev->ip);   /* EventingIP */
        put64(rec + 0xB8, 0);        /* no TSX in the model */
    }
    if (c->pebs_fmt == 3)
        put64(rec + 0xC0, ev->tsc);
    return sizes[c->pebs_fmt];
}

/* Adaptive groups: each writes at rec + o and returns the offset after it. */
static uint32_t grp_meminfo(uint8_t *rec, uint32_t o, const struct dsm_event *ev, bool ll, bool load)
{
    put64(rec + o, load ? ev->load_addr : 0);
    put64(rec + o + 8, load ? ev->data_src : 0);
    put64(rec + o + 16, ll ? ev->load_latency : 0);
    put64(rec + o + 24, 0);
    return o + 32;
}

static uint32_t grp_gpr(uint8_t *rec, uint32_t o, const struct dsm_event *ev, uint64_t rip)
{
    static const uint8_t order[18] = { DSM_R_FLAGS, DSM_R_IP, DSM_R_AX, DSM_R_CX, DSM_R_DX, DSM_R_BX,
                                       DSM_R_SP, DSM_R_BP, DSM_R_SI, DSM_R_DI, 10, 11, 12, 13, 14, 15, 16, 17 };
    for (unsigned k = 0; k < 18; k++)
        put64(rec + o + 8 * k, order[k] == DSM_R_IP ? rip : ev->regs[order[k]]);
    return o + 144;
}

static uint32_t grp_xmm(uint8_t *rec, uint32_t o, const struct dsm_event *ev)
{
    for (unsigned k = 0; k < 32; k++)
        put64(rec + o + 8 * k, ev->xmm ? ev->xmm[k] : 0);
    return o + 256;
}

static uint32_t grp_lbr(uint8_t *rec, uint32_t o, const struct dsm_cpu *c, uint64_t cfg)
{
    uint32_t n = (uint32_t)((cfg >> 24) & 0xFF) + 1;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t e[3] = { 0, 0, 0 };
        if (k < c->lbr_depth)
            dsm__lbr_entry(c, k, e);
        put64(rec + o, e[0]);
        put64(rec + o + 8, e[1]);
        put64(rec + o + 16, e[2]);
        o += 24;
    }
    return o;
}

/* Format 6 counters group: the counters snapshot at the assist, before the reload. */
static uint32_t grp_cntr(uint8_t *rec, uint32_t o, const struct dsm_cpu *c, uint64_t cfg)
{
    bool cn = (cfg & DSM_CFG_CNTR) != 0, met = (cfg & DSM_CFG_METRICS) != 0;
    uint32_t gp = cn ? (uint32_t)((cfg >> DSM_CFG_GP_SHIFT) & 0xFFFF) : 0;
    uint32_t fx = cn ? (uint32_t)((cfg >> DSM_CFG_FIX_SHIFT) & 0xFF) : 0;
    put64(rec + o, gp | ((uint64_t)fx << 32));
    put64(rec + o + 8, met ? DSM_CNTR_METRICS : 0);   /* metrics field; reserved 0 */
    o += 16;
    for (unsigned n = 0; n < 16; n++)
        if (gp & (1u << n)) {
            put64(rec + o, c->pmc[n]);
            o += 8;
        }
    for (unsigned m = 0; m < 8; m++)
        if (fx & (1u << m)) {
            put64(rec + o, c->fixed[m]);
            o += 8;
        }
    if (met) {   /* TOPDOWN.SLOTS = fixed counter 3, then IA32_PERF_METRICS */
        put64(rec + o, c->fixed[3]);
        put64(rec + o + 8, c->perf_metrics);
        o += 16;
    }
    return o;
}

/* Adaptive PEBS (reference pebs-records.md "Format 4"): basic, then meminfo,
 * GPRs, XMM, LBR, counters as selected by PEBS_DATA_CFG (none unless a hit
 * counter asks for the adaptive record). Returns the record size. */
static uint32_t pebs_adaptive(const struct dsm_cpu *c, const struct dsm_event *ev, uint64_t hit, uint64_t rip,
                              uint64_t cfg, bool ll, bool load, uint8_t *rec)
{
    uint32_t size = adaptive_size(cfg);
    /* header: groups 31:0, retire latency 47:32 with timed PEBS (Linux
     * struct pebs_basic format_group:32, retire_latency:16, format_size:16) */
    uint64_t rl = c->timed_pebs ? (uint64_t)ev->retire_latency << 32 : 0;
    put64(rec + 0, (cfg & 0xFFFFFFFFull) | rl | ((uint64_t)size << 48));
    put64(rec + 8, ev->ip);
    put64(rec + 16, hit);
    put64(rec + 24, ev->tsc);
    uint32_t o = 32;
    if (cfg & 1)
        o = grp_meminfo(rec, o, ev, ll, load);
    if (cfg & 2)
        o = grp_gpr(rec, o, ev, rip);
    if (cfg & 4)
        o = grp_xmm(rec, o, ev);
    if (cfg & 8)
        o = grp_lbr(rec, o, c, cfg);
    if (cfg & (DSM_CFG_CNTR | DSM_CFG_METRICS))
        (void)grp_cntr(rec, o, c, cfg);
    return size;
}

/* Write the PEBS record for applicable counters `hit` (formats 0-6). */
void dsm__pebs_record(struct dsm_cpu *c, const struct dsm_event *ev, uint64_t hit)
{
    uint8_t rec[1456];   /* largest: 1232 + counters group 16 + 8 * (16 + 8) + metrics 16 */
    uint64_t rip = (c->perf_caps & DSM_CAP_PEBS_TRAP) ? ev->next_ip : ev->ip;
    bool ll, load, adaptive;
    pebs_hit_kind(c, ev, hit, &ll, &load, &adaptive);
    uint32_t size;
    if (c->pebs_fmt <= 3)
        size = pebs_legacy(c, ev, hit, rip, ll, load, rec);
    else
        size = pebs_adaptive(c, ev, hit, rip, adaptive ? c->pebs_cfg : 0, ll, load, rec);
    bool crossed;
    if (dsm__ds_append(c, 4, rec, size, false, &crossed)) {
        c->st.pebs_written++;
        if (crossed) {
            c->gstatus |= DSM_GS_OVFBUF;
            c->pmi_pending |= DSM_PMI_PEBS;
        }
    } else {
        c->st.pebs_skipped++;
    }
}
