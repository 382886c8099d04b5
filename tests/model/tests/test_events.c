/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The model alone (no libds): every profile decodes the generic events the
 * way its microarchitecture encodes them. Per profile, this file's own
 * transcription (independent of the model's tables and of libds/src/event.c):
 *   Core 2 (06_0FH): SDM Vol. 3B, Intel Core microarchitecture event table;
 *     PEBS: Linux ds.c intel_core2_pebs_event_constraints (C0H/00H, C5H/00H).
 *   Atom (06_1CH): perfmon BNL/events/bonnell_core.json ("PEBS" field); no
 *     retired load/store event (L1D_CACHE.LD 40H/A1H counts cache accesses).
 *   Nehalem (06_1AH): perfmon NHM-EP/events/NehalemEP_core.json;
 *     LATENCY_ABOVE_THRESHOLD on PMC3 only; BR_MISP_RETIRED.ALL_BRANCHES is
 *     no PEBS event (Linux intel_nehalem_pebs_event_constraints: 0x02c5 only).
 *   Haswell/Skylake: perfmon HSW haswell_core.json, SKL skylake_core.json:
 *     PREC_DIST C0H/01H on PMC1, *_PEBS umask 04H for branches, D0H/81H/82H;
 *     LOAD_LATENCY CDH/01H on PMC3 (HSW), PMC0-3 (SKL).
 *   Ice Lake and later big cores: ICL, SPR, GNR, ADL goldencove, LNL
 *     lioncove, PTL cougarcove JSON: C0H, C4H, C5H umask 0, D0H/81H/82H on
 *     PMC0-3, CDH/01H on all (ICL), PMC1-7 (GLC/RWC), PMC2-9 (LNC/CGC).
 *   Gracemont/Skymont/Darkmont: ADL gracemont, LNL skymont, PTL darkmont
 *     JSON: MEM_UOPS_RETIRED D0H/81H/82H, load latency D0H/05H on PMC0-1
 *     (GRT, SKT), all (DKT).
 * Kinds: P precise PEBS record at the event's instruction, I imprecise (the
 * record is taken at the instruction after the overflow: perfmon "PEBS" 0,
 * Linux "Allow all events as PEBS"), N counts but no record (Core 2 and
 * Nehalem list their PEBS events; nothing else takes an assist).
 */
#include <stdio.h>
#include "check.h"
#include "model_util.h"
#include "ev_expect.h"

#define LIN64 0xFFFF800000200000ull
#define PEBS_BUF 0x1000u
static _Alignas(4096) uint8_t blk[1 << 16];
static struct fake_mem mem;

#define NI 240u

static void wr(struct dsm_cpu *c, uint32_t msr, uint64_t v)
{
    CHECK_EQ(dsm_wrmsr(c, msr, v), DSM_OK, "wrmsr 0x%X = 0x%llx", msr, (unsigned long long)v);
}

/* Program GP counter ctr with ev/um (user, enabled) at start; PEBS on it if pebs. */
static void setup(struct dsm_cpu *c, enum dsm_profile p, const struct enc *x, uint64_t start, bool pebs)
{
    CHECK_EQ(fm_cpu_init(c, p, &mem, blk, sizeof blk, LIN64), DSM_OK, "init %s", dsm_profile_name(p));
    if (pebs) {
        ds_setup(&mem, LIN64, true, 0, 0, 0, LIN64 + PEBS_BUF, LIN64 + PEBS_BUF + 0x8000, LIN64 + PEBS_BUF + 0x8000);
        wr64(&mem, LIN64 + 0x40 + 8 * x->ctr, start);   /* DS counter reset slot */
        wr(c, 0x600, LIN64);
    }
    if (c->ll && c->pebs_fmt >= 0)
        wr(c, 0x3F6, WL_LAT_THR);
    wr(c, 0x186 + x->ctr, x->ev | ((uint64_t)x->um << 8) | (1u << 16) | (1u << 22));
    wr(c, 0xC1 + x->ctr, start & 0xFFFFFFFFu);          /* legacy write: sign-extended */
    if (pebs)   /* PEBS_EN and, for the Nehalem..Skylake LL event, LL_EN (bit 32 + n) */
        wr(c, 0x3F1, (1ull << x->ctr) | (c->pebs_fmt <= 3 && c->pebs_fmt >= 1 ? 1ull << (32 + x->ctr) : 0));
    if (c->version >= 2)
        wr(c, 0x38F, 1ull << x->ctr);
}

static void run(struct dsm_cpu *c)
{
    for (unsigned i = 0; i < NI; i++) {
        struct dsm_event e = wl_ev(i);
        dsm_retire(c, &e);
    }
}

/* Counting: the counter counts exactly the workload's occurrences. */
static void check_count(enum dsm_profile p, unsigned g, const struct enc *x)
{
    struct dsm_cpu c;
    setup(&c, p, x, 0, false);
    run(&c);
    CHECK_EQ(c.pmc[x->ctr], wl_count(g, NI), "%s %s %02X/%02X on PMC%u counts the workload's occurrences",
             dsm_profile_name(p), gname[g], x->ev, x->um, x->ctr);
}

/* Sampling every P: precise records at occurrences P+1, 2P+1, ... (floor((n-1)/P),
 * dsm_pebs_expected); imprecise records exist and some land on other
 * instructions; none for 'N'. */
static void check_pebs(enum dsm_profile p, unsigned g, const struct enc *x)
{
    const uint64_t P = 3;
    struct dsm_cpu c;
    setup(&c, p, x, (uint64_t)-P, true);
    run(&c);
    unsigned n = wl_count(g, NI), recs = (unsigned)dsm_stats(&c)->pebs_written, on_ev = 0;
    uint32_t sz = dsm_pebs_record_size(&c);
    /* formats 0-3: RIP after the instruction with PERF_CAPABILITIES.PEBS_TRAP;
     * adaptive basic group (format 4+): the eventing IP (Linux struct pebs_basic ip) */
    bool trap = c.pebs_fmt <= 3 && (c.perf_caps & (1u << 6)) != 0;
    for (unsigned k = 0; k < recs && sz; k++) {
        uint64_t rip = rd64(&mem, LIN64 + PEBS_BUF + (uint64_t)k * sz + 8);
        unsigned i = wl_index(trap ? rip - WL_STRIDE : rip, NI);
        struct dsm_event e = wl_ev(i < NI ? i : 0);
        on_ev += i < NI && wl_is(g, &e);
    }
    const char *pn = dsm_profile_name(p);
    if (x->kind == 'P') {
        CHECK_EQ(recs, dsm_pebs_expected(n, P), "%s %s: floor((%u-1)/%u) precise records", pn, gname[g], n,
                 (unsigned)P);
        CHECK_EQ(on_ev, recs, "%s %s: every record's IP is one of the event's instructions", pn, gname[g]);
    } else if (x->kind == 'I') {
        CHECK(recs > 0, "%s %s: imprecise records", pn, gname[g]);
        if (g != G_INST && g != G_CYC)
            CHECK(on_ev < recs, "%s %s: imprecise: some record IPs are not the event's", pn, gname[g]);
    } else {
        CHECK_EQ(recs, 0, "%s %s: not a PEBS event here: no record", pn, gname[g]);
        uint64_t w = c.gp_width >= 64 ? ~0ull : (1ull << c.gp_width) - 1;
        CHECK_EQ(c.pmc[x->ctr], ((uint64_t)n - P) & w, "%s %s: the counter still counts all %u", pn, gname[g], n);
    }
}

static void check_bad(enum dsm_profile p, const struct enc *x)
{
    struct dsm_cpu c;
    if (x->ctr == 0xFF)
        return;   /* no restriction to test on this core */
    setup(&c, p, x, 0, false);
    run(&c);
    CHECK_EQ(c.pmc[x->ctr], 0, "%s: %02X/%02X on PMC%u counts nothing", dsm_profile_name(p), x->ev, x->um, x->ctr);
}

/* Every architectural-perfmon profile has its core's expectations (a new
 * profile without an ev_table row would count nothing on its GP counters). */
static void test_every_profile(void)
{
    for (int p = 0; p < DSM_PROFILE__COUNT; p++) {
        struct dsm_cpu c;
        fm_cpu_init(&c, (enum dsm_profile)p, &mem, blk, sizeof blk, LIN64);
        if (c.kind == 2 && c.ngp)
            CHECK(ev_expect_of((enum dsm_profile)p) != NULL, "%s: an ev_expect.h row",
                  dsm_profile_name((enum dsm_profile)p));
    }
}

int main(void)
{
    test_every_profile();
    for (size_t k = 0; k < sizeof exps / sizeof exps[0]; k++) {
        const struct prof_exp *pe = &exps[k];
        struct dsm_cpu c;
        fm_cpu_init(&c, pe->p, &mem, blk, sizeof blk, LIN64);
        /* PEBS through the DS area only (architectural PEBS: test_archpebs.c, e2e_arch_pebs.c) */
        bool ds_pebs = c.pebs_fmt >= 0 && !c.ap.on;
        for (unsigned g = 0; g < G__N; g++) {
            const struct enc *x = &pe->e[g];
            if (!x->kind)
                continue;
            if (g == G_LL && (!c.ll || c.pebs_fmt < 0))   /* no PEBS: no MSR_PEBS_LD_LAT threshold */
                continue;
            check_count(pe->p, g, x);
            /* Core 2 and Atom (PEBS format 0) take PEBS on PMC0 only; formats 1-3 on PMC0-3 */
            if (ds_pebs && (c.pebs_fmt != 0 || x->ctr == 0) && (c.pebs_fmt > 3 || x->ctr < 4))
                check_pebs(pe->p, g, x);
        }
        for (unsigned b = 0; b < 4; b++)
            check_bad(pe->p, &pe->bad[b]);
    }
    /* the workload has each kind (a check that cannot pass vacuously) */
    CHECK(wl_count(G_BR, NI) && wl_count(G_MISP, NI) && wl_count(G_LOAD, NI) && wl_count(G_STORE, NI) && wl_count(G_LL, NI) &&
          wl_count(G_LL, NI) < wl_count(G_LOAD, NI), "workload mix");
    return check_summary();
}
