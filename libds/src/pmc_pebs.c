/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PEBS enables on the architectural / Core counters (SDM Vol. 3B
 * "Processor Event Based Sampling"; reference msr.md 4-5): which counter
 * takes which PEBS event (per-core rules, Core 2 and Nehalem event lists,
 * arch-PEBS event counters), the errata gates, load latency and
 * MSR_PEBS_DATA_CFG. Needs DS_CONFIG_PMC and DS_CONFIG_PEBS (split from
 * pmc.c, issue 26).
 */
#include <ds/pmc.h>
#include <ds/pebs.h>
#include <ds/event.h>
#include "util.h"
#include "pmc_int.h"

#if DS_CONFIG_PMC && DS_CONFIG_PEBS
DS_COLD int ds_pmc_core2_pebs_event(uint8_t model, uint8_t event, uint8_t umask)
{
    switch (model) {
    case 0x0F: case 0x16: case 0x17: case 0x1D:
        /* SDM "PEBS Performance Events for Intel Core Microarchitecture";
         * Linux ds.c intel_core2_pebs_event_constraints */
        if ((event == 0xC0 && umask == 0x00) || (event == 0xC1 && umask == 0xFE) ||
            (event == 0xC5 && umask == 0x00) || (event == 0xC7 && umask == 0x1F))
            return DS_OK;
        if (event == 0xCB && (umask == 0x01 || umask == 0x02 || umask == 0x04 || umask == 0x08 ||
                              umask == 0x10))
            return DS_OK;
        return DS_ERR_PMC_PEBS_EVENT;
    case 0x1C: case 0x26: case 0x27: case 0x35: case 0x36:
        /* Linux ds.c intel_atom_pebs_event_constraints: INST_RETIRED.ANY,
         * MISPREDICTED_BRANCH_RETIRED, MEM_LOAD_RETIRED.* and "Allow all
         * events as PEBS with no flags" INTEL_ALL_EVENT_CONSTRAINT(0, 0x1):
         * every event/umask (perfmon bonnell_core.json PEBS 10H/81H, 10H/82H,
         * 82H/02H, B0H/80H among them); the flags rule is pebs_gp_rules'. */
        (void)event;
        (void)umask;
        return DS_OK;
    default:
        return DS_ERR_UNSUPPORTED;
    }
}

static int check_pebs(const struct ds_cpu *cpu)
{
    int e = check_arch(cpu);
    if (e)
        return e;
    const struct ds_caps *c = &cpu->caps;
    if (!c->ds)
        return DS_ERR_NO_DS;
    if (c->pebs_unavailable || !c->has_misc_enable)
        return DS_ERR_PEBS_UNAVAILABLE;
    if (c->pebs_format > DS_PMC_PEBS_FMT_MAX)
        return DS_ERR_PMC_NO_PEBS_FMT;
    return DS_OK;
}

/*
 * Which counters can take PEBS: one table, first matching row wins. A row
 * with a model applies to that family-6 DisplayModel whatever the PEBS
 * format; a row with model 0 applies to its format range.
 *  - Silvermont 06_37H/4AH/4DH/5AH/5DH, Airmont 06_4CH/75H, Goldmont
 *    06_5CH/5FH: PEBS on IA32_PMC0 only (SDM 18.6.1.1 "PEBS ... Silvermont",
 *    Goldmont section; Linux ds.c intel_slm_/intel_glm_pebs_event_constraints
 *    INTEL_ALL_EVENT_CONSTRAINT(0, 0x1)); Knights Landing 06_57H and Mill
 *    06_85H likewise (SDM 18.7.1; Linux uses the slm constraints for KNL).
 *  - Goldmont Plus 06_7AH: extended PEBS on every GP counter and the fixed
 *    counters (Linux PMU_FL_PEBS_ALL; SDM "PEBS Extensions" of Goldmont Plus;
 *    fixed m uses DS counter-reset slot 8+m).
 *  - Format 0 (Core 2, Atom Bonnell): PMC0 and a listed event
 *    (ds_pmc_core2_pebs_event); formats 1-3 and 4+ without PEBS_BASELINE
 *    (Nehalem..Skylake): PMC0-3; adaptive (4-6 + baseline, Linux
 *    PMU_FL_PEBS_ALL): GP 0-7 (fmt 4) or 0-31 (fmts 5, 6) and the fixed
 *    counters (counter-reset slots; Linux MAX_PEBS_EVENTS_FMT4).
 * Per-event constraints: Nehalem/Westmere (nhm_pebs_event), Sandy Bridge
 * .. Skylake (pebs_event_counter), adaptive formats (apebs_rows).
 */
struct pebs_ctr_rule {
    uint8_t model;          /* family-6 DisplayModel; 0 = a format row */
    uint8_t fmt_lo, fmt_hi; /* PEBS format range of a format row */
    bool baseline;          /* format row needs PERF_CAPABILITIES.PEBS_BASELINE */
    bool fixed;             /* fixed counters take PEBS (IA32_PEBS_ENABLE bit 32+m) */
    uint32_t gp;            /* PEBS-capable GP counters */
    int err;                /* error for a GP counter outside @gp */
};
/* Model rows leave the format fields out (unused there). */
#define PMC0_ONLY(m) { .model = (m), .gp = 0x1, .err = DS_ERR_PMC_PEBS_PMC0_ONLY }
static const struct pebs_ctr_rule pebs_ctr_rules[] = {
    PMC0_ONLY(0x37), /* Silvermont */
    PMC0_ONLY(0x4A), /* Silvermont (Merrifield) */
    PMC0_ONLY(0x4D), /* Silvermont-D (Avoton) */
    PMC0_ONLY(0x5A), /* Airmont (Moorefield) */
    PMC0_ONLY(0x5D), /* Silvermont (SoFIA) */
    PMC0_ONLY(0x4C), /* Airmont */
    PMC0_ONLY(0x75), /* Airmont NP */
    PMC0_ONLY(0x5C), /* Goldmont */
    PMC0_ONLY(0x5F), /* Goldmont-D (Denverton) */
    PMC0_ONLY(0x57), /* Knights Landing */
    PMC0_ONLY(0x85), /* Knights Mill */
    { .model = 0x7A, .fixed = true, .gp = 0xFF, .err = DS_ERR_PMC_PEBS_COUNTER }, /* Goldmont Plus */
    { .fmt_lo = 0, .fmt_hi = 0, .gp = 0x1, .err = DS_ERR_PMC_PEBS_COUNTER },    /* Core 2, Atom */
    { .fmt_lo = 4, .fmt_hi = 4, .baseline = true, .fixed = true, .gp = 0xFF,
      .err = DS_ERR_PMC_PEBS_COUNTER },                                         /* Ice Lake, Tremont */
    { .fmt_lo = 5, .fmt_hi = DS_PMC_PEBS_FMT_MAX, .baseline = true, .fixed = true, .gp = 0xFFFFFFFFu,
      .err = DS_ERR_PMC_PEBS_COUNTER },                                         /* SPR .., LNL/ARL */
};
#undef PMC0_ONLY
/* Every other part (formats 1-3, formats 4+ without PEBS_BASELINE: Nehalem ..
 * Skylake, a KVM guest): PMC0-3. */
static const struct pebs_ctr_rule pebs_ctr_default = { .gp = 0xF, .err = DS_ERR_PMC_PEBS_COUNTER };

/* The row for @c: the first matching row, else pebs_ctr_default. */
static const struct pebs_ctr_rule *pebs_rule(const struct ds_caps *c)
{
    for (size_t i = 0; i < DS_ARRAY_SIZE(pebs_ctr_rules); i++) {
        const struct pebs_ctr_rule *r = &pebs_ctr_rules[i];
        if (r->model) {
            if (c->display_family == 6 && c->display_model == r->model)
                return r;
            continue;
        }
        if (c->pebs_format >= r->fmt_lo && c->pebs_format <= r->fmt_hi &&
            (!r->baseline || c->pebs_baseline))
            return r;
    }
    return &pebs_ctr_default;
}


/*
 * Nehalem/Westmere (PEBS format 1) PEBS events, the only format 1-3 parts
 * whose Linux list has no "allow all events" row (ds.c
 * intel_nehalem_pebs_event_constraints / intel_westmere_..., SDM
 * "PEBS ... Nehalem"): Sandy Bridge onwards Linux accepts any event on
 * PMC0-3 (INTEL_ALL_EVENT_CONSTRAINT(0, 0xf)), so libds does too.
 * Linux's matching: FLAGS rows need EDGE/INV/CMASK/ANY clear; UOPS_RETIRED
 * (C2H) ignores them; cycles:p is C0H/00H with INV and CMASK = 16 exactly.
 */
#define DS_PMC_EVTSEL_FLAGS (DS_EVTSEL_EDGE | DS_EVTSEL_INV | DS_EVTSEL_CMASK_MASK | DS_EVTSEL_ANY)
static int nhm_pebs_event(const struct ds_caps *c, uint64_t evtsel)
{
    uint8_t ev = (uint8_t)(evtsel & 0xFF), um = (uint8_t)((evtsel >> 8) & 0xFF);
    uint64_t fl = evtsel & DS_PMC_EVTSEL_FLAGS;
    bool wsm = c->display_model == 0x25 || c->display_model == 0x2C || c->display_model == 0x2F;
    if (ev == 0xC2)
        return DS_OK;                                   /* UOPS_RETIRED.* */
    if (ev == 0xC0 && um == 0 && fl == (DS_EVTSEL_INV | (16ull << DS_EVTSEL_CMASK_SHIFT)))
        return DS_OK;                                   /* cycles:p */
    if (fl)
        return DS_ERR_PMC_PEBS_EVENT;
    switch (ev) {
    case 0x0F: case 0xC0: case 0xC4: case 0xC7: case 0xCB: case 0xF7:
        return DS_OK;                                   /* any unit mask */
    case 0xC5:                                          /* BR_MISP_RETIRED */
        return (wsm || um == 0x02) ? DS_OK : DS_ERR_PMC_PEBS_EVENT;
    case 0x0B:                                          /* MEM_INST_RETIRED.LATENCY_ABOVE_THRESHOLD */
        return um == 0x10 ? DS_OK : DS_ERR_PMC_PEBS_EVENT;
    case 0x0C:                                          /* MEM_STORE_RETIRED.DTLB_MISS */
        return um == 0x01 ? DS_OK : DS_ERR_PMC_PEBS_EVENT;
    case 0xC8:                                          /* ITLB_MISS_RETIRED */
        return um == 0x20 ? DS_OK : DS_ERR_PMC_PEBS_EVENT;
    default:
        return DS_ERR_PMC_PEBS_EVENT;
    }
}


/*
 * Per-event counter constraints of formats 1-3 after Westmere (Linux ds.c
 * intel_snb_/ivb_/hsw_/bdw_/skl_pebs_event_constraints):
 * INST_RETIRED.PREC_DIST (C0H/01H, also with INV + CMASK 16 = cycles:ppp)
 * only on PMC1 (mask 0x2); on Sandy/Ivy Bridge (06_2AH/2DH/3AH/3EH)
 * MEM_TRANS_RETIRED.LAT_ABOVE_THR (CDH/01H) and .PRECISE_STORES (CDH/02H)
 * only on PMC3 (mask 0x8). Applied to the generic PMC0-3 row only.
 * Event 3CH (CPU_CLK_UNHALTED.*) is no PEBS event at all: perfmon
 * SNB/IVB/HSW/BDW/SKL *_core.json give every 3CH row "PEBS": "0", and
 * Linux never PEBS-enables it: intel_pebs_aliases_snb/_skl rewrite a
 * precise 003CH into the UOPS_RETIRED / INST_RETIRED cycles encodings
 * (libds's generic cycles rows are those; a raw 3CH is refused).
 */
static int pebs_event_counter(const struct ds_caps *c, unsigned idx, uint64_t evtsel)
{
    uint8_t ev = (uint8_t)(evtsel & 0xFF), um = (uint8_t)((evtsel >> 8) & 0xFF);
    uint64_t fl = evtsel & DS_PMC_EVTSEL_FLAGS;
    bool snb_ivb = c->display_family == 6 && (c->display_model == 0x2A || c->display_model == 0x2D ||
                                              c->display_model == 0x3A || c->display_model == 0x3E);
    if (ev == 0x3C)
        return DS_ERR_PMC_PEBS_EVENT; /* unhalted cycles: no PEBS (see above) */
    if (ev == 0xC0 && um == 0x01 && (!fl || fl == (DS_EVTSEL_INV | (16ull << DS_EVTSEL_CMASK_SHIFT))))
        return idx == 1 ? DS_OK : DS_ERR_PMC_PEBS_EVENT_COUNTER;
    if (snb_ivb && ev == 0xCD && um == 0x02 && !fl)
        return idx == 3 ? DS_OK : DS_ERR_PMC_PEBS_EVENT_COUNTER;
    return DS_OK;   /* CDH/01H: ldlat13_gp */
}

/*
 * The load-latency event of PEBS formats 1-3 and the GP counters it may
 * count on (its PEBS and its MSR_PEBS_LD_LAT enable, IA32_PEBS_ENABLE bit
 * 32+n):
 *  - Nehalem/Westmere MEM_INST_RETIRED.LATENCY_ABOVE_THRESHOLD 0BH/10H:
 *    PMC3. Deviation from Linux INTEL_PLD_CONSTRAINT(0x100b, 0xf): perfmon
 *    NehalemEP_core.json, WestmereEP-SP_core.json "Counter": "3".
 *  - Sandy/Ivy Bridge MEM_TRANS_RETIRED.LAT_ABOVE_THR CDH/01H: PMC3 (Linux
 *    intel_snb_/ivb_pebs_event_constraints INTEL_PLD_CONSTRAINT(0x01cd, 0x8)).
 *  - Haswell/Broadwell CDH/01H: PMC3. Deviation from Linux intel_hsw_/
 *    bdw_pebs_event_constraints INTEL_PLD_CONSTRAINT(0x01cd, 0xf): perfmon
 *    haswell_core.json, broadwell_core.json "Counter": "3" and libpfm4
 *    lib/events/intel_hsw_events.h, intel_bdw_events.h MEM_TRANS_RETIRED
 *    cntmsk 0x8 say PMC3 only.
 *  - Skylake and any other format 1-3 part: CDH/01H on PMC0-3 (perfmon
 *    skylake_core.json "Counter": "0,1,2,3", Linux 0xf).
 */
static uint64_t ldlat13_event(const struct ds_cpu *cpu, uint32_t *gp)
{
    enum ds_uarch u = DS_UARCH_UNKNOWN;
    (void)ds_uarch_of(cpu, &u);
    *gp = u == DS_UARCH_NEHALEM || u == DS_UARCH_SANDYBRIDGE || u == DS_UARCH_HASWELL ? 0x8u : 0xFu;
    return u == DS_UARCH_NEHALEM ? DS_EVTSEL(0x0B, 0x10) : DS_EVTSEL(0xCD, 0x01);
}

/* Formats 1-3: @evtsel is the load-latency event (flags clear: Linux's PLD
 * constraint masks X86_ALL_EVENT_FLAGS) and @idx is not one of its counters. */
static int ldlat13_counter(const struct ds_cpu *cpu, unsigned idx, uint64_t evtsel)
{
    uint32_t gp;
    uint64_t ll = ldlat13_event(cpu, &gp);
    if ((evtsel & 0xFFFFu) != ll || (evtsel & DS_PMC_EVTSEL_FLAGS))
        return DS_OK;
    return ((gp >> idx) & 1) ? DS_OK : DS_ERR_PMC_PEBS_EVENT_COUNTER;
}

/*
 * Per-event counter constraints of adaptive PEBS (formats 4-6 with
 * PEBS_BASELINE), per core microarchitecture (ds_uarch_of: DisplayModel,
 * hybrid core type). Linux ds.c:
 *  - intel_icl_pebs_event_constraints (Ice Lake/Tiger/Rocket Lake):
 *    INST_RETIRED.PREC_DIST 01C0H only on fixed counter 0 (no GP counter);
 *    MEM_TRANS_RETIRED.LOAD_LATENCY 01CDH (INTEL_PLD_CONSTRAINT) 0xff;
 *    MEM_INST_RETIRED D0H and MEM_LOAD_*_RETIRED D1H..D4H (DATALA) 0xf.
 *  - intel_glc_pebs_event_constraints (Golden/Raptor Cove, Redwood Cove):
 *    INST_RETIRED C0H (INTEL_FLAGS_EVENT_CONSTRAINT, any unit mask) 0xfe:
 *    no PEBS on PMC0 (perfmon "PEBScounters" 1-7 agrees); 01CDH PLD 0xfe,
 *    02CDH MEM_TRANS_RETIRED.STORE_SAMPLE (INTEL_PSD_CONSTRAINT) 0x1,
 *    D0H..D4H 0xf. Lion Cove's list has no C0H row.
 *  - intel_lnc_pebs_event_constraints (Lion Cove): 01CDH 0x3fc, 02CDH 0x3,
 *    D0H..D4H 0xf.
 *  - intel_grt_pebs_event_constraints (Gracemont; Crestmont and Skymont
 *    through intel_pmu_init_grt / _skt): MEM_UOPS_RETIRED.LOAD_LATENCY
 *    05D0H 0x3, .STORE_LATENCY 06D0H 0xf.
 *  - all three P-core lists: 0100H (INST_RETIRED.PREC_DIST pseudo-encoding)
 *    on fixed counter 0 and 0400H (SLOTS) on fixed counter 3 only.
 * Rows match with EDGE/INV/CMASK/ANY clear (Linux puts X86_ALL_EVENT_FLAGS
 * in the constraint mask); anything else falls to PMU_FL_PEBS_ALL (the
 * counter table). Tremont, Darkmont and Arctic Wolf have no row.
 * Not checked on hardware (no Intel PMU on the test host).
 *
 * Architectural PEBS cores (session.c pick_apebs through
 * ds_pmc_pebs_event_counters; no PEBS_ENABLE bit is involved):
 *  - Cougar Cove (Panther Lake, Wildcat Lake P-cores): Linux core.c
 *    intel_pmu_init "pantherlake_hybrid" goes to lnl_common, so the Lion
 *    Cove list (intel_lnc_pebs_event_constraints) applies; perfmon
 *    pantherlake_cougarcove_core.json V1.07 agrees: MEM_INST_RETIRED.
 *    ALL_LOADS/ALL_STORES D0H/81H, 82H "PEBScounters" 0-3, MEM_TRANS_RETIRED.
 *    LOAD_LATENCY_GT_* CDH/01H 2-9.
 *  - Coyote Cove (Nova Lake P-cores): perfmon novalake_coyotecove_core.json
 *    V1.00 MEM_INST_RETIRED D0H 0-3 except .ANY D0H/87H (every counter),
 *    CDH/01H 2-7 (0xFC), CDH/02H 0-1; Linux has no Nova Lake PEBS
 *    constraint list to follow.
 */
enum { AP_ICL = 1, AP_GLC = 2, AP_LNC = 4, AP_GRT = 8, AP_BIG = AP_ICL | AP_GLC | AP_LNC,
       AP_CGC = 16, AP_CYC = 32, AP_ARCH = AP_CGC | AP_CYC };
static unsigned apebs_class(const struct ds_cpu *cpu)
{
    enum ds_uarch u;
    if (ds_uarch_of(cpu, &u) != DS_OK)
        return 0;
    switch (u) {
    case DS_UARCH_ICELAKE: return AP_ICL;
    case DS_UARCH_GOLDENCOVE: case DS_UARCH_REDWOODCOVE: return AP_GLC;
    case DS_UARCH_LIONCOVE: return AP_LNC;
    case DS_UARCH_GRACEMONT: case DS_UARCH_CRESTMONT: case DS_UARCH_SKYMONT: return AP_GRT;
    case DS_UARCH_COUGARCOVE: return AP_CGC;
    case DS_UARCH_COYOTECOVE: return AP_CYC;
    default: return 0;
    }
}

struct apebs_row { uint8_t cls, ev_lo, ev_hi, umask; bool any_umask; uint32_t gp; };
static const struct apebs_row apebs_rows[] = {
    { AP_ICL, 0xC0, 0xC0, 0x01, false, 0x0 },   /* PREC_DIST: fixed counter 0 only */
    { .cls = AP_GLC, .ev_lo = 0xC0, .ev_hi = 0xC0, .any_umask = true, .gp = 0xFE }, /* INST_RETIRED.*: PMC1-7 */
    { AP_BIG | AP_CGC, 0x00, 0x00, 0x01, false, 0x0 },   /* 0100H INST_RETIRED.PREC_DIST: fixed 0 only */
    { AP_BIG | AP_CGC, 0x00, 0x00, 0x04, false, 0x0 },   /* 0400H SLOTS: fixed 3 only */
    { AP_ICL, 0xCD, 0xCD, 0x01, false, 0xFF },
    { AP_GLC, 0xCD, 0xCD, 0x01, false, 0xFE },
    { AP_GLC, 0xCD, 0xCD, 0x02, false, 0x1 },
    { AP_LNC | AP_CGC, 0xCD, 0xCD, 0x01, false, 0x3FC },
    { AP_LNC | AP_CGC, 0xCD, 0xCD, 0x02, false, 0x3 },
    { AP_CYC, 0xCD, 0xCD, 0x01, false, 0xFC },
    { AP_CYC, 0xCD, 0xCD, 0x02, false, 0x3 },
    { AP_CYC, 0xD0, 0xD0, 0x87, false, 0xFFFFFFFFu },   /* MEM_INST_RETIRED.ANY: every counter */
    { .cls = AP_BIG | AP_ARCH, .ev_lo = 0xD0, .ev_hi = 0xD4, .any_umask = true, .gp = 0xF },
    { AP_GRT, 0xD0, 0xD0, 0x05, false, 0x3 },
    { AP_GRT, 0xD0, 0xD0, 0x06, false, 0xF },
};

/* GP counters event @evtsel may take PEBS on (all ones: no constraint). */
static uint32_t apebs_event_mask(unsigned cls, uint64_t evtsel)
{
    uint8_t ev = (uint8_t)(evtsel & 0xFF), um = (uint8_t)((evtsel >> 8) & 0xFF);
    if (evtsel & DS_PMC_EVTSEL_FLAGS)
        return 0xFFFFFFFFu;
    for (size_t i = 0; i < DS_ARRAY_SIZE(apebs_rows); i++) {
        const struct apebs_row *r = &apebs_rows[i];
        if ((r->cls & cls) && ev >= r->ev_lo && ev <= r->ev_hi && (r->any_umask || r->umask == um))
            return r->gp;
    }
    return 0xFFFFFFFFu;
}

DS_COLD int ds_pmc_pebs_event_counters(const struct ds_cpu *cpu, uint64_t evtsel, uint32_t *out_gp)
{
    if (!cpu || !out_gp)
        return DS_ERR_NULL;
    *out_gp = 0;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    if (cpu->caps.vendor != DS_VENDOR_INTEL)
        return DS_ERR_NOT_INTEL;
    const struct ds_caps *c = &cpu->caps;
    unsigned cls = apebs_class(cpu);
    uint32_t gp = c->pebs_format >= 4 || (cls & AP_ARCH) ? apebs_event_mask(cls, evtsel) : 0xFFFFFFFFu;
    for (unsigned i = 0; c->pebs_format >= 1 && c->pebs_format <= 3 && i < 32; i++)
        if (ldlat13_counter(cpu, i, evtsel) ||
            (!nhm_wsm(c) && pebs_rule(c) == &pebs_ctr_default && pebs_event_counter(c, i, evtsel)))
            gp &= ~(1u << i);
    *out_gp = gp;
    return DS_OK;
}

/* The load-latency event of the class (0 where libds drives none). */
static uint64_t apebs_ll_event(unsigned cls)
{
    if (cls & AP_BIG)
        return DS_EVTSEL(0xCD, 0x01);   /* MEM_TRANS_RETIRED.LOAD_LATENCY */
    if (cls & AP_GRT)
        return DS_EVTSEL(0xD0, 0x05);   /* MEM_UOPS_RETIRED.LOAD_LATENCY */
    return 0;
}

/*
 * PEBS errata that make Linux turn PEBS off (checked before any MSR access
 * that enables PEBS; DS_PMC_PEBS_ALLOW_ERRATA skips them):
 *  - Core 2 Merom/Conroe/Clovertown 06_0FH, every stepping: AJ67 (CPL
 *    leaks), AJ68 (PMI one event late), AJ69 (GLOBAL_STATUS[62]), AJ106
 *    (FREEZE_LBRS_ON_PMI with PEBS); Linux intel_clovertown_quirk sets
 *    x86_pmu.pebs = 0 for INTEL_CORE2_MEROM. Penryn 06_17H is not affected.
 */
DS_COLD int ds_pmc_microcode_rev(struct ds_cpu *cpu, uint32_t *out)
{
    if (!cpu || !out)
        return DS_ERR_NULL;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    if (cpu->caps.vendor != DS_VENDOR_INTEL)
        return DS_ERR_NOT_INTEL;
    /* SDM Vol. 3A "Microcode Update Facilities": write 0 to
     * IA32_BIOS_SIGN_ID, execute CPUID(EAX=1), read the MSR: bits 63:32
     * hold the revision of the loaded update. */
    uint32_t r[4];
    uint64_t v;
    if (ds_msr_write(cpu, DS_PMC_MSR_IA32_BIOS_SIGN_ID, 0))
        return DS_ERR_MSR_FAULT;
    ds_cpuid(cpu, 1, 0, r);
    if (ds_msr_read(cpu, DS_PMC_MSR_IA32_BIOS_SIGN_ID, &v))
        return DS_ERR_MSR_FAULT;
    *out = (uint32_t)(v >> 32);
    return DS_OK;
}

/*
 * Sandy Bridge PEBS needs a microcode update (Linux core.c pebs_ucodes /
 * intel_snb_check_microcode): 06_2AH stepping 7 >= 0x28, 06_2DH stepping 6
 * >= 0x618, stepping 7 >= 0x70C. Like Linux (x86_match_min_microcode_rev
 * fails without a matching row), any other stepping of these two models
 * counts as broken.
 */
static int snb_ucode_gate(struct ds_cpu *cpu)
{
    const struct ds_caps *c = &cpu->caps;
    if (c->display_family != 6 || (c->display_model != 0x2A && c->display_model != 0x2D))
        return DS_OK;
    uint32_t min = 0xFFFFFFFFu, rev;
    if (c->display_model == 0x2A && c->stepping == 7)
        min = 0x28;
    else if (c->display_model == 0x2D && c->stepping == 6)
        min = 0x618;
    else if (c->display_model == 0x2D && c->stepping == 7)
        min = 0x70C;
    int e = ds_pmc_microcode_rev(cpu, &rev);
    if (e)
        return e;
    return rev < min ? DS_ERR_PMC_PEBS_UCODE : DS_OK;
}

static int pebs_errata(struct ds_cpu *cpu, unsigned flags)
{
    const struct ds_caps *c = &cpu->caps;
    if (flags & DS_PMC_PEBS_ALLOW_ERRATA)
        return DS_OK;
    if (c->display_family == 6 && c->display_model == 0x0F)
        return DS_ERR_PMC_PEBS_ERRATUM;
    return snb_ucode_gate(cpu);
}

static int pebs_gp_rules(const struct ds_cpu *cpu, unsigned idx, uint64_t evtsel);

DS_COLD int ds_pmc_pebs_errata_check(struct ds_cpu *cpu, unsigned flags)
{
    if (!cpu)
        return DS_ERR_NULL;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    if (flags & ~DS_PMC_PEBS_ALLOW_ERRATA)
        return DS_ERR_BAD_FLAGS;
    return pebs_errata(cpu, flags);
}

DS_COLD int ds_pmc_pebs_enable(struct ds_cpu *cpu, unsigned idx, uint64_t evtsel)
{
    return ds_pmc_pebs_enable_ex(cpu, idx, evtsel, 0);
}

DS_COLD int ds_pmc_pebs_enable_ex(struct ds_cpu *cpu, unsigned idx, uint64_t evtsel, unsigned flags)
{
    int e = check_pebs(cpu);
    if (e)
        return e;
    if (flags & ~DS_PMC_PEBS_ALLOW_ERRATA)
        return DS_ERR_BAD_FLAGS;
    e = pebs_gp_rules(cpu, idx, evtsel);
    if (e)
        return e;
    e = pebs_errata(cpu, flags);
    if (e)
        return e;
    uint64_t v;
    if (ds_msr_read(cpu, DS_MSR_IA32_PEBS_ENABLE, &v))
        return DS_ERR_MSR_FAULT;
    return ds_msr_write(cpu, DS_MSR_IA32_PEBS_ENABLE, v | DS_PEBS_EN_PMC(idx)) ? DS_ERR_MSR_FAULT
                                                                                : DS_OK;
}

DS_COLD int ds_pmc_pebs_check(const struct ds_cpu *cpu, unsigned idx, uint64_t evtsel)
{
    int e = check_pebs(cpu);
    return e ? e : pebs_gp_rules(cpu, idx, evtsel);
}

DS_COLD int ds_pmc_pebs_check_fixed(const struct ds_cpu *cpu, unsigned idx)
{
    int e = check_pebs(cpu);
    if (e)
        return e;
    const struct ds_caps *c = &cpu->caps;
    if (c->perfmon_version < 2 || idx > 7 || !fixed_present(c, idx))
        return DS_ERR_PMC_BAD_FIXED;
    return pebs_rule(c)->fixed ? DS_OK : DS_ERR_PMC_PEBS_NO_FIXED;
}

/* Bonnell: Linux's catch-all row takes events with EDGE/INV/CMASK/ANY clear
 * only; with flags only the cycles:p alias INST_RETIRED.ANY_P INV CMASK 16
 * (INTEL_FLAGS_UEVENT_CONSTRAINT(0x108000c0, 0x01)) matches. */
static bool atom_flags(const struct ds_caps *c, uint64_t evtsel)
{
    uint64_t fl = evtsel & DS_PMC_EVTSEL_FLAGS;
    bool atom = c->display_model == 0x1C || c->display_model == 0x26 || c->display_model == 0x27 ||
                c->display_model == 0x35 || c->display_model == 0x36;
    if (!atom || !fl)
        return false;
    return !((evtsel & 0xFFFFu) == 0xC0 && fl == (DS_EVTSEL_INV | (16ull << DS_EVTSEL_CMASK_SHIFT)));
}

/* The counter table and event checks of a PEBS enable on GP counter @idx
 * (after check_pebs; no MSR access): shared by ds_pmc_pebs_enable_ex and
 * ds_pmc_pebs_check. */
static int pebs_gp_rules(const struct ds_cpu *cpu, unsigned idx, uint64_t evtsel)
{
    const struct ds_caps *c = &cpu->caps;
    if (!gp_present(c, idx))
        return DS_ERR_PMC_BAD_COUNTER;
    int e = ds__pmc_check_evtsel(cpu, evtsel);
    if (e)
        return e;
    if (evtsel & DS_EVTSEL_INT)
        return DS_ERR_PMC_PEBS_INT;
    const struct pebs_ctr_rule *r = pebs_rule(c);
    if (!((r->gp >> idx) & 1))
        return r->err;
    if (c->pebs_format == 0) {
        e = ds_pmc_core2_pebs_event(c->display_model, (uint8_t)(evtsel & 0xFF),
                                    (uint8_t)((evtsel >> 8) & 0xFF));
        if (!e && atom_flags(c, evtsel))
            e = DS_ERR_PMC_PEBS_EVENT;
        if (e)
            return e;
    } else if (c->pebs_format <= 3 && nhm_wsm(c)) {
        e = nhm_pebs_event(c, evtsel);
        if (e)
            return e;
    } else if (r == &pebs_ctr_default) {
        e = pebs_event_counter(c, idx, evtsel); /* the generic PMC0-3 row */
        if (e)
            return e;
    }
    if (c->pebs_format >= 1 && c->pebs_format <= 3 && (e = ldlat13_counter(cpu, idx, evtsel)) != DS_OK)
        return e;
    /* formats 4+ (adaptive, or a guest without PEBS_BASELINE on such a core) */
    if (c->pebs_format >= 4 && !((apebs_event_mask(apebs_class(cpu), evtsel) >> idx) & 1))
        return DS_ERR_PMC_PEBS_EVENT_COUNTER;
    return DS_OK;
}

/* Fixed counter @idx takes PEBS: IA32_PEBS_ENABLE bit 32+idx (adaptive PEBS,
 * Goldmont Plus extended PEBS; Linux intel_pmu_pebs_enable with
 * PMU_FL_PEBS_ALL). Linux clears the PMI enable of a PEBS event
 * (intel_pmu_pebs_enable: config &= ~EVENTSEL_INT), so the counter's
 * FIXED_CTR_CTRL PMI bit must be clear, like EVTSEL.INT. */
DS_COLD int ds_pmc_pebs_enable_fixed(struct ds_cpu *cpu, unsigned idx)
{
    int e = ds_pmc_pebs_check_fixed(cpu, idx);
    if (e)
        return e;
    uint64_t ctl, v;
    if (ds_msr_read(cpu, DS_MSR_IA32_FIXED_CTR_CTRL, &ctl))
        return DS_ERR_MSR_FAULT;
    if ((ctl >> (4 * idx)) & DS_FIXED_PMI)
        return DS_ERR_PMC_PEBS_INT;
    if (ds_msr_read(cpu, DS_MSR_IA32_PEBS_ENABLE, &v))
        return DS_ERR_MSR_FAULT;
    return ds_msr_write(cpu, DS_MSR_IA32_PEBS_ENABLE, v | DS_PEBS_EN_FIXED(idx)) ? DS_ERR_MSR_FAULT
                                                                                  : DS_OK;
}

DS_COLD int ds_pmc_pebs_disable(struct ds_cpu *cpu, uint64_t mask)
{
    int e = check_pebs(cpu);
    if (e)
        return e;
    uint64_t v;
    if (ds_msr_read(cpu, DS_MSR_IA32_PEBS_ENABLE, &v))
        return DS_ERR_MSR_FAULT;
    return ds_msr_write(cpu, DS_MSR_IA32_PEBS_ENABLE, v & ~mask) ? DS_ERR_MSR_FAULT : DS_OK;
}

/* Load latency with PEBS formats 4-6 (SDM "Load Latency Performance
 * Monitoring Facility", Ice Lake and later): threshold in MSR_PEBS_LD_LAT
 * 3F6H, PEBS on counter @idx through IA32_PEBS_ENABLE bit idx only: bits
 * 32+ enable fixed-counter PEBS with adaptive PEBS (Linux
 * intel_pmu_pebs_enable sets LL_EN bit idx+32 only for x86_pmu.version <
 * 5), and a KVM guest without PEBS_BASELINE has no bit 32+ at all (KVM
 * intel_pmu_refresh pebs_enable_mask: GP counters only). The counter must
 * be one the uarch's load-latency event may use (apebs_rows). */
static int ldlat_fmt4(struct ds_cpu *cpu, unsigned idx, uint32_t threshold)
{
    unsigned cls = apebs_class(cpu);
    uint64_t ll = apebs_ll_event(cls), v;
    if (!ll)
        return DS_ERR_PMC_NO_LDLAT;
    if (threshold < DS_PEBS_LDLAT_MIN || threshold > DS_PEBS_LDLAT_MAX)
        return DS_ERR_PMC_LDLAT_RANGE;
    if (!gp_present(&cpu->caps, idx))
        return DS_ERR_PMC_BAD_COUNTER;
    if (!((pebs_rule(&cpu->caps)->gp >> idx) & 1))
        return pebs_rule(&cpu->caps)->err;
    if (!((apebs_event_mask(cls, ll) >> idx) & 1))
        return DS_ERR_PMC_PEBS_EVENT_COUNTER;
    if (ds_msr_write(cpu, DS_MSR_PEBS_LD_LAT, threshold))
        return DS_ERR_MSR_FAULT;
    if (ds_msr_read(cpu, DS_MSR_IA32_PEBS_ENABLE, &v))
        return DS_ERR_MSR_FAULT;
    return ds_msr_write(cpu, DS_MSR_IA32_PEBS_ENABLE, v | DS_PEBS_EN_PMC(idx)) ? DS_ERR_MSR_FAULT : DS_OK;
}

DS_COLD int ds_pmc_pebs_ldlat(struct ds_cpu *cpu, unsigned idx, uint32_t threshold)
{
    int e = check_pebs(cpu);
    if (e)
        return e;
    const struct ds_caps *c = &cpu->caps;
    if (c->pebs_format >= 4)
        return ldlat_fmt4(cpu, idx, threshold);
    if (c->pebs_format < 1 || c->pebs_format > 3)
        return DS_ERR_PMC_NO_LDLAT;
    if (threshold < DS_PEBS_LDLAT_MIN || threshold > DS_PEBS_LDLAT_MAX)
        return DS_ERR_PMC_LDLAT_RANGE;
    if (idx > 3 || idx >= c->gp_counters)
        return DS_ERR_PMC_PEBS_COUNTER;
    if (!((pebs_rule(c)->gp >> idx) & 1))
        return pebs_rule(c)->err;
    uint32_t llgp;
    (void)ldlat13_event(cpu, &llgp);
    if (!((llgp >> idx) & 1))
        return DS_ERR_PMC_PEBS_EVENT_COUNTER; /* the load-latency event's counters (ldlat13_event) */
    e = pebs_errata(cpu, 0); /* Sandy Bridge microcode gate (no override here) */
    if (e)
        return e;
    uint64_t v;
    if (ds_msr_write(cpu, DS_MSR_PEBS_LD_LAT, threshold))
        return DS_ERR_MSR_FAULT;
    if (ds_msr_read(cpu, DS_MSR_IA32_PEBS_ENABLE, &v))
        return DS_ERR_MSR_FAULT;
    v |= DS_PEBS_EN_PMC(idx) | DS_PEBS_EN_LDLAT(idx);
    return ds_msr_write(cpu, DS_MSR_IA32_PEBS_ENABLE, v) ? DS_ERR_MSR_FAULT : DS_OK;
}

/* Format 6 counters group (Linux "perf/x86/intel/ds: Add PEBS format 6",
 * PEBS_DATACFG_CNTR/METRICS): the GP [47:32] and fixed [55:48] masks name
 * counters that exist, need the CNTRS bit, and METRICS needs PERF_METRICS. */
static int check_data_cfg6(const struct ds_caps *c, uint64_t data_cfg)
{
    uint64_t gp = (data_cfg & DS_PEBS_DATA_CFG_GP_MASK) >> DS_PEBS_DATA_CFG_GP_SHIFT;
    uint64_t fix = (data_cfg & DS_PEBS_DATA_CFG_FIX_MASK) >> DS_PEBS_DATA_CFG_FIX_SHIFT;
    if ((gp || fix) && !(data_cfg & DS_PEBS_DATA_CFG_CNTRS))
        return DS_ERR_PMC_RESERVED;
    if ((gp & ~(uint64_t)c->gp_mask) || (fix & ~(uint64_t)c->fixed_mask))
        return DS_ERR_PMC_RESERVED;
    if ((data_cfg & DS_PEBS_DATA_CFG_METRICS) && !c->perf_metrics)
        return DS_ERR_PMC_RESERVED;
    return DS_OK;
}

DS_COLD int ds_pmc_pebs_data_cfg(struct ds_cpu *cpu, uint64_t data_cfg)
{
    int e = check_arch(cpu);
    if (e)
        return e;
    const struct ds_caps *c = &cpu->caps;
    if (!adaptive_pebs(c))
        return DS_ERR_PMC_NO_ADAPTIVE;
    uint64_t valid = c->pebs_format >= 6 ? DS_PEBS_DATA_CFG_VALID6 : DS_PEBS_DATA_CFG_VALID;
    if (data_cfg & ~valid)
        return DS_ERR_PMC_RESERVED;
    if ((data_cfg & DS_PEBS_DATACFG_LBR_MASK) && !(data_cfg & DS_PEBS_DATACFG_LBRS))
        return DS_ERR_PMC_RESERVED;
    e = check_data_cfg6(c, data_cfg);
    if (e)
        return e;

    return ds_msr_write(cpu, DS_MSR_PEBS_DATA_CFG, data_cfg) ? DS_ERR_MSR_FAULT : DS_OK;
}
#endif /* DS_CONFIG_PMC && DS_CONFIG_PEBS */

#if !DS_CONFIG_PMC || !DS_CONFIG_PEBS
/* The PEBS enables need both DS_CONFIG_PMC and DS_CONFIG_PEBS (ds/config.h). */
DS_COLD int ds_pmc_pebs_event_counters(const struct ds_cpu *cpu, uint64_t evtsel, uint32_t *out_gp)
{
    (void)cpu;
    (void)evtsel;
    if (out_gp)
        *out_gp = 0;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_core2_pebs_event(uint8_t display_model, uint8_t event, uint8_t umask)
{
    (void)display_model;
    (void)event;
    (void)umask;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_pebs_enable(struct ds_cpu *cpu, unsigned idx, uint64_t evtsel)
{
    (void)cpu;
    (void)idx;
    (void)evtsel;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_microcode_rev(struct ds_cpu *cpu, uint32_t *out)
{
    (void)cpu;
    if (out)
        *out = 0;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_pebs_enable_ex(struct ds_cpu *cpu, unsigned idx, uint64_t evtsel, unsigned flags)
{
    (void)cpu;
    (void)idx;
    (void)evtsel;
    (void)flags;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_pebs_enable_fixed(struct ds_cpu *cpu, unsigned idx)
{
    (void)cpu;
    (void)idx;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_pebs_check(const struct ds_cpu *cpu, unsigned idx, uint64_t evtsel)
{
    (void)cpu;
    (void)idx;
    (void)evtsel;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_pebs_check_fixed(const struct ds_cpu *cpu, unsigned idx)
{
    (void)cpu;
    (void)idx;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_pebs_disable(struct ds_cpu *cpu, uint64_t mask)
{
    (void)cpu;
    (void)mask;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_pebs_ldlat(struct ds_cpu *cpu, unsigned idx, uint32_t threshold)
{
    (void)cpu;
    (void)idx;
    (void)threshold;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_pebs_data_cfg(struct ds_cpu *cpu, uint64_t data_cfg)
{
    (void)cpu;
    (void)data_cfg;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_pebs_errata_check(struct ds_cpu *cpu, unsigned flags)
{
    (void)cpu;
    (void)flags;
    return DS_ERR_UNSUPPORTED;
}
#endif /* !DS_CONFIG_PMC || !DS_CONFIG_PEBS */
