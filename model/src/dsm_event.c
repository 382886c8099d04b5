/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsmodel: per-microarchitecture event decoding of the GP counters (what an
 * EVTSEL event/umask counts on the profile's core, on which counters, and
 * whether it takes a PEBS assist). Includes no libds header.
 */
#include "dsmodel_int.h"

/* Per-microarchitecture event decoding. One row: what an EVTSEL event/umask
 * counts on the profile's core, whether a PEBS-enabled counter programmed
 * with it takes an assist, and on which GP counters it counts (bit n = PMCn).
 * An encoding missing from the core's table, or on a counter its row does not
 * list, counts nothing (a wrong umask gets no samples). Encodings and
 * counters: Intel perfmon JSON (github.com/intel/perfmon <dir>/events/
 * <core>_core.json, "EventCode", "UMask", "Counter"); Core 2 (no perfmon
 * file): SDM Vol. 3B "Performance Monitoring Events" (Intel Core
 * microarchitecture table). C0H/00H, C4H/00H, C5H/00H, 3CH/00H and 3CH/01H are
 * the SDM "Pre-defined Architectural Performance Events": they count on every
 * core even where perfmon lists another umask.
 * Assist (EP_*): the perfmon "PEBS" field (up to SKL: 0 "cannot collect a PEBS
 * record with a Precise IP", 1 precise, 2 PEBS only) or "Precise" with
 * "CollectPEBSRecord" (ICL and later, perfmon README); perfmon says nothing
 * for the PEBS-0 events, Linux decides: intel_core2_ and intel_nehalem_
 * pebs_event_constraints list the PEBS events and nothing else (EP_NONE: the
 * counter counts, no record, as the SDM's PEBS event lists say); intel_atom_,
 * intel_hsw_, intel_skl_pebs_event_constraints end with "Allow all events as
 * PEBS with no flags" (EP_IMPRECISE: the record is taken at the next retired
 * instruction after the overflow, not at an occurrence of the event).
 * struct ev_row, EW_* and EP_*: dsmodel_int.h. */
#define EVC_ALL 0xFFFFu
#define EV_ARCH_CYC(p) { 0x3C, 0x00, EW_CYC, p, EVC_ALL, 0 }, { 0x3C, 0x01, EW_CYC, p, EVC_ALL, 0 }

/* Core 2 (06_0FH): SDM Core-microarchitecture table; PEBS: Linux
 * intel_core2_pebs_event_constraints (0x00c0, 0x00c5; PEBS on PMC0 only). */
static const struct ev_row ev_core2[] = {
    { 0xC0, 0x00, EW_INST, EP_PRECISE, EVC_ALL, 0 },   /* INST_RETIRED.ANY_P */
    { 0xC0, 0x01, EW_LOAD, EP_NONE, EVC_ALL, 0 },      /* INST_RETIRED.LOADS */
    { 0xC0, 0x02, EW_STORE, EP_NONE, EVC_ALL, 0 },     /* INST_RETIRED.STORES */
    { 0xC4, 0x00, EW_BR, EP_NONE, EVC_ALL, 0 },        /* BR_INST_RETIRED.ANY */
    { 0xC5, 0x00, EW_MISP, EP_PRECISE, EVC_ALL, 0 },   /* BR_INST_RETIRED.MISPRED */
    EV_ARCH_CYC(EP_NONE), { 0, 0, 0, 0, 0, 0 }
};
/* Bonnell (06_1CH): BNL/events/bonnell_core.json (v5). It has no retired-load
 * or retired-store event (L1D_CACHE.LD/ST 40H count cache accesses, not
 * retirement): loads and stores count nothing here. */
static const struct ev_row ev_bonnell[] = {
    { 0xC0, 0x00, EW_INST, EP_PRECISE, 0x3, 0 },       /* INST_RETIRED.ANY_P, PEBS 2 */
    { 0xC4, 0x00, EW_BR, EP_IMPRECISE, 0x3, 0 },       /* BR_INST_RETIRED.ANY, PEBS 0 */
    { 0xC5, 0x00, EW_MISP, EP_PRECISE, 0x3, 0 },       /* BR_INST_RETIRED.MISPRED, PEBS 1 */
    EV_ARCH_CYC(EP_IMPRECISE), { 0, 0, 0, 0, 0, 0 }
};
/* Nehalem (06_1AH): NHM-EP/events/NehalemEP_core.json (v4); PEBS: Linux
 * intel_nehalem_pebs_event_constraints (0xc0, 0xc4, 0x0b any umask; of 0xc5
 * only 0x02c5 NEAR_CALL). */
static const struct ev_row ev_nehalem[] = {
    { 0xC0, 0x00, EW_INST, EP_PRECISE, EVC_ALL, 0 },   /* architectural */
    { 0xC0, 0x01, EW_INST, EP_PRECISE, EVC_ALL, 0 },   /* INST_RETIRED.ANY_P, PEBS 1 */
    { 0xC4, 0x00, EW_BR, EP_PRECISE, EVC_ALL, 0 },     /* architectural */
    { 0xC4, 0x04, EW_BR, EP_PRECISE, EVC_ALL, 0 },     /* BR_INST_RETIRED.ALL_BRANCHES, PEBS 1 */
    { 0xC5, 0x00, EW_MISP, EP_NONE, EVC_ALL, 0 },      /* architectural; not a PEBS event */
    { 0x0B, 0x01, EW_LOAD, EP_PRECISE, EVC_ALL, 0 },   /* MEM_INST_RETIRED.LOADS, PEBS 1 */
    { 0x0B, 0x02, EW_STORE, EP_PRECISE, EVC_ALL, 0 },  /* MEM_INST_RETIRED.STORES, PEBS 1 */
    { 0x0B, 0x10, EW_LL, EP_PRECISE, 0x8, 0 },         /* ...LATENCY_ABOVE_THRESHOLD, PMC3 */
    EV_ARCH_CYC(EP_NONE), { 0, 0, 0, 0, 0, 0 }
};
/* Haswell (06_3CH): HSW/events/haswell_core.json (v36). Skylake (06_5EH):
 * SKL/events/skylake_core.json (v59): the same rows, load latency on PMC0-3. */
#define EV_HSW_SKL(llc)                                                                  \
    { 0xC0, 0x00, EW_INST, EP_IMPRECISE, EVC_ALL, 0 },  /* INST_RETIRED.ANY_P, PEBS 0 */    \
    { 0xC0, 0x01, EW_INST, EP_PRECISE, 0x2, 0 },        /* INST_RETIRED.PREC_DIST, PMC1 */  \
    { 0xC4, 0x00, EW_BR, EP_IMPRECISE, EVC_ALL, 0 },    /* BR_INST_RETIRED.ALL_BRANCHES */  \
    { 0xC4, 0x04, EW_BR, EP_PRECISE, EVC_ALL, 0 },      /* ...ALL_BRANCHES_PEBS, PEBS 2 */   \
    { 0xC5, 0x00, EW_MISP, EP_IMPRECISE, EVC_ALL, 0 },  /* BR_MISP_RETIRED.ALL_BRANCHES */  \
    { 0xC5, 0x04, EW_MISP, EP_PRECISE, EVC_ALL, 0 },    /* ...ALL_BRANCHES_PEBS, PEBS 2 */   \
    { 0xD0, 0x81, EW_LOAD, EP_PRECISE, EVC_ALL, 0 },    /* MEM_{UOPS,INST}_RETIRED.ALL_LOADS */ \
    { 0xD0, 0x82, EW_STORE, EP_PRECISE, EVC_ALL, 0 },   /* ...ALL_STORES, PEBS 1 */         \
    { 0xCD, 0x01, EW_LL, EP_PRECISE, llc, 0 },          /* MEM_TRANS_RETIRED.LOAD_LATENCY */ \
    EV_ARCH_CYC(EP_IMPRECISE), { 0, 0, 0, 0, 0, 0 }
static const struct ev_row ev_haswell[] = { EV_HSW_SKL(0x8) };
static const struct ev_row ev_skylake[] = { EV_HSW_SKL(0xF) };
/* Ice Lake (ICL/events/icelake_core.json v1.24), Golden Cove (SPR v1.39,
 * ADL goldencove v1.40), Redwood Cove (GNR v1.20), Lion Cove (LNL v1.26),
 * Cougar Cove (PTL v1.07): Precise 1 / CollectPEBSRecord 2 for all but the
 * cycles (Precise 0, CollectPEBSRecord 2); loads/stores on PMC0-3; load
 * latency on all (ICL), PMC1-7 (GLC, RWC), PMC2-9 (LNC, CGC).
 * INST_RETIRED.ANY_P (c0p): GLC/RWC "Counter" 0-7 but "PEBScounters" 1-7
 * (sapphirerapids_core.json, alderlake_goldencove_core.json,
 * graniterapids_core.json): counts on PMC0, no PEBS record there. */
#define EV_BIGCORE(llc, c0p)                                                             \
    { 0xC0, 0x00, EW_INST, EP_PRECISE, EVC_ALL, c0p }, /* INST_RETIRED.ANY_P */          \
    { 0xC4, 0x00, EW_BR, EP_PRECISE, EVC_ALL, 0 },     /* BR_INST_RETIRED.ALL_BRANCHES */   \
    { 0xC5, 0x00, EW_MISP, EP_PRECISE, EVC_ALL, 0 },   /* BR_MISP_RETIRED.ALL_BRANCHES */   \
    { 0xD0, 0x81, EW_LOAD, EP_PRECISE, 0xF, 0 },       /* MEM_INST_RETIRED.ALL_LOADS */     \
    { 0xD0, 0x82, EW_STORE, EP_PRECISE, 0xF, 0 },      /* MEM_INST_RETIRED.ALL_STORES */    \
    { 0xCD, 0x01, EW_LL, EP_PRECISE, llc, 0 },         /* MEM_TRANS_RETIRED.LOAD_LATENCY_GT_* */ \
    EV_ARCH_CYC(EP_IMPRECISE), { 0, 0, 0, 0, 0, 0 }
static const struct ev_row ev_icelake[] = { EV_BIGCORE(EVC_ALL, 0) };
static const struct ev_row ev_goldencove[] = { EV_BIGCORE(0xFE, 0xFE) };
static const struct ev_row ev_lioncove[] = { EV_BIGCORE(0x3FC, 0) };
/* Gracemont (ADL/events/alderlake_gracemont_core.json v1.40), Skymont
 * (LNL/events/lunarlake_skymont_core.json v1.26), Darkmont
 * (PTL/events/pantherlake_darkmont_core.json v1.07): MEM_UOPS_RETIRED; load
 * latency D0H/05H on PMC0-1 (Gracemont, Skymont), all (Darkmont). */
#define EV_ATOMCORE(llc)                                                                 \
    { 0xC0, 0x00, EW_INST, EP_PRECISE, EVC_ALL, 0 },   /* INST_RETIRED.ANY_P */             \
    { 0xC4, 0x00, EW_BR, EP_PRECISE, EVC_ALL, 0 },     /* BR_INST_RETIRED.ALL_BRANCHES */   \
    { 0xC5, 0x00, EW_MISP, EP_PRECISE, EVC_ALL, 0 },   /* BR_MISP_RETIRED.ALL_BRANCHES */   \
    { 0xD0, 0x81, EW_LOAD, EP_PRECISE, EVC_ALL, 0 },   /* MEM_UOPS_RETIRED.ALL_LOADS */     \
    { 0xD0, 0x82, EW_STORE, EP_PRECISE, EVC_ALL, 0 },  /* MEM_UOPS_RETIRED.ALL_STORES */    \
    { 0xD0, 0x05, EW_LL, EP_PRECISE, llc, 0 },         /* MEM_UOPS_RETIRED.LOAD_LATENCY_GT_* */ \
    EV_ARCH_CYC(EP_IMPRECISE), { 0, 0, 0, 0, 0, 0 }
static const struct ev_row ev_gracemont[] = { EV_ATOMCORE(0x3) };   /* and Skymont */
static const struct ev_row ev_darkmont[] = { EV_ATOMCORE(EVC_ALL) };

static const struct ev_row *ev_table(enum dsm_profile p)
{
    switch (p) {
    case DSM_CORE2: return ev_core2;
    case DSM_ATOM: return ev_bonnell;
    case DSM_NEHALEM: return ev_nehalem;
    case DSM_HASWELL: return ev_haswell;
    case DSM_SKYLAKE: case DSM_KVM_SKL: return ev_skylake;
    case DSM_ICELAKE: return ev_icelake;
    case DSM_SAPPHIRERAPIDS: case DSM_GRANITERAPIDS: case DSM_ALDERLAKE_P: case DSM_KVM_SPR:
        return ev_goldencove;
    case DSM_LUNARLAKE: case DSM_PTL_P: case DSM_ARROWLAKE_H: return ev_lioncove;
    /* Skymont (Lunar Lake E-core): Linux intel_pmu_init_skt starts from
     * intel_pmu_init_grt, the Gracemont PEBS constraints (load latency on PMC0-1) */
    case DSM_ALDERLAKE_E: case DSM_LUNARLAKE_E: return ev_gracemont;
    case DSM_PTL_E: return ev_darkmont;
    default: return NULL;
    }
}

/* The row GP counter n's EVTSEL selects, or NULL (counts nothing). */
const struct ev_row *dsm__ev_row_of(const struct dsm_cpu *c, unsigned n)
{
    uint64_t sel = c->evtsel[n];
    unsigned e = (unsigned)(sel & 0xFF), um = (unsigned)((sel >> 8) & 0xFF);
    for (const struct ev_row *r = ev_table(c->profile); r && r->what; r++)
        if (r->ev == e && r->um == um)
            return (r->ctrs & (1u << n)) ? r : NULL;
    return NULL;
}

/* Whether the retired instruction is an occurrence of row r's event. */
bool dsm__ev_occurs(const struct dsm_cpu *c, const struct ev_row *r, const struct dsm_event *ev)
{
    uint32_t f = ev->flags;
    switch (r->what) {
    case EW_INST: case EW_CYC: return true;   /* cycles: one per instruction (model choice) */
    case EW_BR: return (f & DSM_EV_BRANCH) != 0;
    case EW_MISP: return (f & DSM_EV_BRANCH) && (f & DSM_EV_MISPRED);
    case EW_LOAD: return (f & DSM_EV_LOAD) != 0;
    case EW_STORE: return (f & DSM_EV_STORE) != 0;
    case EW_LL: return c->ll && (f & DSM_EV_LOAD) && ev->load_latency > (c->ld_lat & 0xFFFF);
    default: return false;
    }
}

bool dsm__ev_is_ll(const struct dsm_cpu *c, unsigned n)
{
    const struct ev_row *r = dsm__ev_row_of(c, n);
    return r && r->what == EW_LL;
}

bool dsm__ev_is_load(const struct dsm_cpu *c, unsigned n)
{
    const struct ev_row *r = dsm__ev_row_of(c, n);
    return r && (r->what == EW_LOAD || r->what == EW_LL);
}
