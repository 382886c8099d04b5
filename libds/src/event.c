/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Generic events per microarchitecture (event.h).
 *
 * Model numbers: Linux arch/x86/include/asm/intel-family.h (INTEL_* and
 * their core-name comments); hybrid parts are split by the core type of
 * CPUID leaf 1AH (SDM Vol. 2A). Encodings and the PEBS column: Intel
 * perfmon JSON (github.com/intel/perfmon, <dir>/events/<name>_core.json,
 * fields EventCode/UMask/PEBS or Precise), the SDM Vol. 3B event tables for
 * Core 2 and NetBurst (no perfmon file exists for them), Linux
 * arch/x86/events/intel/core.c and ds.c where they restrict PEBS further
 * (pmc.h follows Linux, so a row is only precise where pmc.h accepts it).
 *
 * Deliberate choices, each stated once here:
 *  - Sandy Bridge .. Skylake: INST_RETIRED.ANY_P C0H/00H and
 *    BR_*_RETIRED.ALL_BRANCHES C4H/00H, C5H/00H are not PEBS events (perfmon
 *    PEBS "0"); the rows use the precise twins that count the same thing:
 *    INST_RETIRED.PREC_DIST C0H/01H (PMC1 only), BR_INST_RETIRED.
 *    ALL_BRANCHES_PEBS C4H/04H, BR_MISP_RETIRED.ALL_BRANCHES_PEBS C5H/04H.
 *  - Nehalem/Westmere: MEM_INST_RETIRED.LOADS/STORES 0BH/01H, 02H are PEBS in
 *    perfmon but not in Linux ds.c intel_nehalem_pebs_event_constraints
 *    (only 0BH/10H), which pmc.h enforces: not precise here. Branch misses:
 *    Nehalem has only BR_MISP_RETIRED.NEAR_CALL C5H/02H as PEBS (Westmere
 *    C5H/04H too); the uarch row is the architectural C5H/00H, not precise.
 *  - cycles: no PEBS anywhere (Linux samples cycles:p through an
 *    INST_RETIRED alias with INV/CMASK 16, not encoded here).
 *  - Load latency (ll_evsel/ll_umask): only where pmc.h ds_pmc_pebs_ldlat
 *    drives it: PEBS formats 1-3 (Nehalem .. Skylake) and the adaptive
 *    cores pmc.c knows the load-latency event of: Ice Lake, Golden/Redwood/
 *    Lion Cove MEM_TRANS_RETIRED.LOAD_LATENCY CDH/01H, Gracemont/Crestmont/
 *    Skymont MEM_UOPS_RETIRED.LOAD_LATENCY D0H/05H (Linux core.c mem-loads
 *    "event=0xcd,umask=0x1,ldlat=3" / "event=0xd0,umask=0x5,ldlat=3").
 *    Tremont and the architectural-PEBS cores say 0/0.
 *  - Bonnell has no retired-load or retired-store event (perfmon
 *    BNL/events/bonnell_core.json; L1D_CACHE.LD/ST 40H/A1H, A2H count L1
 *    cache accesses, which Linux uses for L1-dcache-loads): DS_ERR_EVENT_NONE.
 * Nothing here was checked on hardware (no Intel PMU on the test host).
 */
#include <ds/event.h>
#include <ds/netburst.h>
#include "util.h"

#define P_NONE DS_PRECISE_NONE
#define P_GP DS_PRECISE_GP
#define P_FIX DS_PRECISE_FIXED

/* The vendor event names, each once (rows hold an index: issue 28 item 6). */
#define EV_NAMES(X) \
    X(N_BR_INST_RETIRED, "BR_INST_RETIRED") \
    X(N_BR_INST_RETIRED_ALL_BRANCHES, "BR_INST_RETIRED.ALL_BRANCHES") \
    X(N_BR_INST_RETIRED_ALL_BRANCHES_PEBS, "BR_INST_RETIRED.ALL_BRANCHES_PEBS") \
    X(N_BR_INST_RETIRED_ANY, "BR_INST_RETIRED.ANY") \
    X(N_BR_INST_RETIRED_MISPRED, "BR_INST_RETIRED.MISPRED") \
    X(N_BR_MISP_RETIRED, "BR_MISP_RETIRED") \
    X(N_BR_MISP_RETIRED_ALL_BRANCHES, "BR_MISP_RETIRED.ALL_BRANCHES") \
    X(N_BR_MISP_RETIRED_ALL_BRANCHES_PEBS, "BR_MISP_RETIRED.ALL_BRANCHES_PEBS") \
    X(N_CPU_CLK_UNHALTED_CORE_P, "CPU_CLK_UNHALTED.CORE_P") \
    X(N_CPU_CLK_UNHALTED_THREAD_P, "CPU_CLK_UNHALTED.THREAD_P") \
    X(N_INSTR_RETIRED, "INSTR_RETIRED") \
    X(N_INST_RETIRED_ANY_P, "INST_RETIRED.ANY_P") \
    X(N_INST_RETIRED_ANY_PS, "INST_RETIRED.ANY_PS") \
    X(N_INST_RETIRED_LOADS, "INST_RETIRED.LOADS") \
    X(N_INST_RETIRED_PREC_DIST, "INST_RETIRED.PREC_DIST") \
    X(N_INST_RETIRED_STORES, "INST_RETIRED.STORES") \
    X(N_MEM_INST_RETIRED_ALL_LOADS, "MEM_INST_RETIRED.ALL_LOADS") \
    X(N_MEM_INST_RETIRED_ALL_STORES, "MEM_INST_RETIRED.ALL_STORES") \
    X(N_MEM_INST_RETIRED_LOADS, "MEM_INST_RETIRED.LOADS") \
    X(N_MEM_INST_RETIRED_STORES, "MEM_INST_RETIRED.STORES") \
    X(N_MEM_UOPS_RETIRED_ALL_LOADS, "MEM_UOPS_RETIRED.ALL_LOADS") \
    X(N_MEM_UOPS_RETIRED_ALL_STORES, "MEM_UOPS_RETIRED.ALL_STORES") \
    X(N_UNHALTED_CORE_CYCLES, "UNHALTED_CORE_CYCLES")
#define X(id, str) id,
enum ev_name { EV_NAMES(X) EV_NAME__COUNT };
#undef X
#define X(id, str) char id[sizeof str];
struct ev_name_strs { EV_NAMES(X) };
#undef X
#define X(id, str) str,
static const struct ev_name_strs ev_name_strs = { EV_NAMES(X) };
#undef X
#define X(id, str) offsetof(struct ev_name_strs, id),
static const uint16_t ev_name_off[EV_NAME__COUNT] = { EV_NAMES(X) };
#undef X

/* A performance-counter row (not NetBurst), packed (issue 28 item 6: the
 * full struct ds_event_desc per row was 80 bytes of relocated data, half of
 * it NetBurst-only pointers; 10 bytes now, no relocation): ds_event_row()
 * expands it. */
struct ev_row {
    uint16_t source; /* offset in ev_src_strs */
    uint8_t name, uarch, evsel, umask, cmask, ll_evsel, ll_umask; /* name: enum ev_name */
    uint8_t event : 3, inv : 1, fixed1 : 2, precise : 2;         /* fixed1 = fixed + 1 */
};
_Static_assert(EV_NAME__COUNT <= 256 && DS_UARCH__COUNT <= 256 && DS_EVENT__COUNT <= 8 && DS_PRECISE_NETBURST < 4,
               "ev_row fields");

#define I DS_EVENT_INSTRUCTIONS
#define B DS_EVENT_BRANCHES
#define M DS_EVENT_BRANCH_MISSES
#define L DS_EVENT_LOADS
#define S DS_EVENT_STORES
#define C DS_EVENT_CYCLES

#define CYC(u, src) R(u, C, 0x3C, 0x00, 0, false, 1, P_NONE, 0, 0, N_CPU_CLK_UNHALTED_THREAD_P, src)

/* The six rows of an Ice Lake-style P-core (PEBS format 4+ or arch PEBS). */
#define BIGCORE(u, lle, llu, json)                                                                        \
    R(u, I, 0xC0, 0x00, 0, false, 0, P_FIX, 0, 0, N_INST_RETIRED_ANY_P, json " INST_RETIRED.ANY (fixed 0) and _ANY_P: Precise 1") \
    R(u, B, 0xC4, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_INST_RETIRED_ALL_BRANCHES, json " Precise 1")   \
    RS(u, M, B, 0xC5, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_MISP_RETIRED_ALL_BRANCHES)   \
    R(u, L, 0xD0, 0x81, 0, false, -1, P_GP, lle, llu, N_MEM_INST_RETIRED_ALL_LOADS, json " Precise 1; Linux L1D read access") \
    R(u, S, 0xD0, 0x82, 0, false, -1, P_GP, 0, 0, N_MEM_INST_RETIRED_ALL_STORES, json " Precise 1; Linux L1D write access") \
    CYC(u, json " CPU_CLK_UNHALTED.THREAD_P (fixed 1 CPU_CLK_UNHALTED.THREAD): Precise 0")

/* The six rows of a Tremont-or-later E-core (adaptive or arch PEBS). */
#define SMALLCORE(u, lle, llu, json)                                                                      \
    R(u, I, 0xC0, 0x00, 0, false, 0, P_FIX, 0, 0, N_INST_RETIRED_ANY_P, json " INST_RETIRED.ANY (fixed 0) and _ANY_P: PEBS") \
    R(u, B, 0xC4, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_INST_RETIRED_ALL_BRANCHES, json " PEBS")        \
    RS(u, M, B, 0xC5, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_MISP_RETIRED_ALL_BRANCHES)        \
    RS(u, L, B, 0xD0, 0x81, 0, false, -1, P_GP, lle, llu, N_MEM_UOPS_RETIRED_ALL_LOADS)      \
    RS(u, S, B, 0xD0, 0x82, 0, false, -1, P_GP, 0, 0, N_MEM_UOPS_RETIRED_ALL_STORES)         \
    R(u, C, 0x3C, 0x00, 0, false, 1, P_NONE, 0, 0, N_CPU_CLK_UNHALTED_CORE_P, json " PEBS 0")

/* Why loads/stores keep perfmon's D0H/81H, 82H where Linux's L1-dcache
 * ids differ (issue 25 item 10): Linux snb_hw_cache_event_ids L1D
 * read/write access 0xf1d0 / 0xf2d0 set STLB_MISS|LOCK|SPLIT beside ALL
 * (bit 7), which already counts every load/store uop; perfmon names 81H/82H
 * ALL_LOADS/ALL_STORES (PEBS). Haswell/Skylake Linux ids are 0x81d0/0x82d0. */
#define SNB_LS_WHY "Linux snb_hw_cache_event_ids L1D access 0xf1d0/0xf2d0 add STLB_MISS|LOCK|SPLIT to ALL (bit 7), the same uops: perfmon's ALL_LOADS/ALL_STORES kept"

/* Sandy Bridge .. Skylake (PEBS formats 1-3, load latency CDH/01H). */
#define SNB_HSW_SKL(u, json, nl, ns, lswhy)                                                               \
    R(u, I, 0xC0, 0x01, 0, false, 0, P_GP, 0, 0, N_INST_RETIRED_PREC_DIST, json " PEBS 2, counter 1; Linux ds.c INTEL_FLAGS_UEVENT_CONSTRAINT(0x01c0, 0x2)") \
    R(u, B, 0xC4, 0x04, 0, false, -1, P_GP, 0, 0, N_BR_INST_RETIRED_ALL_BRANCHES_PEBS, json " PEBS 2") \
    RS(u, M, B, 0xC5, 0x04, 0, false, -1, P_GP, 0, 0, N_BR_MISP_RETIRED_ALL_BRANCHES_PEBS) \
    R(u, L, 0xD0, 0x81, 0, false, -1, P_GP, 0xCD, 0x01, nl, json " PEBS 1; ldlat MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4 CDH/01H PEBS 2; " lswhy) \
    R(u, S, 0xD0, 0x82, 0, false, -1, P_GP, 0, 0, ns, json " PEBS 1; " lswhy)    \
    CYC(u, json " PEBS 0")

/* NetBurst rows, NB(i, event, nb_event, nb_mask, nb_metric, precise,
 * nb_tag_event, nb_tag_mask, name, source), "" for no tag: SDM Vol. 3B
 * ch. 19 Pentium 4 event tables and performance metrics (replay /
 * front-end tagging); Linux p4.c p4_general_events where it agrees (it
 * differs for instructions and branches, see rows). Stored packed like the
 * rows after them (issue 28 item 6): texts in one char-array struct, 16-bit
 * offsets. */
#define NB_ROWS(NB)                                                                                                 \
    NB(0, I, "instr_retired", "NBOGUSNTAG|NBOGUSTAG", -1, P_NONE, "", "", "instr_retired:NBOGUSNTAG|NBOGUSTAG",     \
       "SDM Pentium 4 performance metric Instructions_retired (non-bogus, tagged or not); Linux p4.c p4_general_events uses NBOGUSNTAG|BOGUSNTAG") \
    NB(1, B, "branch_retired", "MMNP|MMNM|MMTP|MMTM", -1, P_NONE, "", "", "branch_retired:MMNP|MMNM|MMTP|MMTM",      \
       "SDM Pentium 4 performance metric Branches_retired; Linux p4.c p4_general_events uses retired_branch_type instead") \
    NB(2, M, "replay_event", "NBOGUS", DS_NB_METRIC_TAGGED_MISPRED_BRANCH, DS_PRECISE_NETBURST, "", "",             \
       "replay_event:NBOGUS (Tagged_mispred_branch)",                                                               \
       "SDM Pentium 4 replay-tagging metric Tagged_mispred_branch (PEBS-capable); Linux p4.c p4_general_events counts mispred_branch_retired:NBOGUS without PEBS") \
    NB(3, L, "front_end_event", "NBOGUS", -1, P_NONE, "uop_type", "TAGLOADS", "front_end_event:NBOGUS (uop_type:TAGLOADS)", \
       "SDM Pentium 4 front-end tagging metrics, Memory_loads")                                                     \
    NB(4, S, "front_end_event", "NBOGUS", -1, P_NONE, "uop_type", "TAGSTORES", "front_end_event:NBOGUS (uop_type:TAGSTORES)", \
       "SDM Pentium 4 front-end tagging metrics, Memory_stores")                                                    \
    NB(5, C, "global_power_events", "RUNNING", -1, P_NONE, "", "", "global_power_events:RUNNING",                   \
       "SDM Pentium 4 global_power_events RUNNING (non-halted clocks); Linux p4.c p4_general_events[CPU_CYCLES]")

struct nb_strs {
#define NB(i, e, Ev, Mk, met, pr, Tev, Tmk, Nm, Src) \
    char ev##i[sizeof Ev], mk##i[sizeof Mk], tev##i[sizeof Tev], tmk##i[sizeof Tmk], nm##i[sizeof Nm], src##i[sizeof Src];
    NB_ROWS(NB)
#undef NB
};
static const struct nb_strs nb_strs = {
#define NB(i, e, ev, mk, met, pr, tev, tmk, nm, src) ev, mk, tev, tmk, nm, src,
    NB_ROWS(NB)
#undef NB
};
struct nb_row {
    uint16_t ev, mk, tev, tmk, nm, src; /* offsets in nb_strs */
    int8_t metric;
    uint8_t event, precise;
};
_Static_assert(sizeof(struct nb_strs) <= 0xFFFF, "16-bit offsets");
static const struct nb_row nb_table[] = {
#define NB(i, e, Ev, Mk, met, pr, Tev, Tmk, Nm, Src)                                                        \
    { offsetof(struct nb_strs, ev##i), offsetof(struct nb_strs, mk##i), offsetof(struct nb_strs, tev##i), \
      offsetof(struct nb_strs, tmk##i), offsetof(struct nb_strs, nm##i), offsetof(struct nb_strs, src##i), \
      (met), (e), (pr) },
    NB_ROWS(NB)
#undef NB
};

/* The rows after nb_table[] (ds_event_row numbers them on): event_rows.h.
 * Their source texts lie once each in one char-array struct (a 16-bit
 * offset per row, no relocated pointer: issue 28 item 6). */
struct ev_src_strs {
#define R(u, e, ev, um, cm, iv, fx, pr, lle, llu, nm, src) char s_##u##_##e[sizeof src];
#define RS(u, e, same, ev, um, cm, iv, fx, pr, lle, llu, nm)
#include "event_rows.h"
#undef R
};
_Static_assert(sizeof(struct ev_src_strs) <= 0xFFFF, "16-bit source offsets");
static const struct ev_src_strs ev_src_strs = {
#define R(u, e, ev, um, cm, iv, fx, pr, lle, llu, nm, src) src,
#include "event_rows.h"
#undef R
#undef RS
};
#define ROW(u, e, mem, ev, um, cm, iv, fx, pr, lle, llu, nm)                                 \
    { .event = (e), .uarch = (u), .evsel = (ev), .umask = (um), .cmask = (cm), .inv = (iv), \
      .fixed1 = (fx) + 1, .precise = (pr), .ll_evsel = (lle), .ll_umask = (llu),         \
      .name = (nm), .source = offsetof(struct ev_src_strs, mem) },
#define R(u, e, ev, um, cm, iv, fx, pr, lle, llu, nm, src) ROW(u, e, s_##u##_##e, ev, um, cm, iv, fx, pr, lle, llu, nm)
#define RS(u, e, same, ev, um, cm, iv, fx, pr, lle, llu, nm) ROW(u, e, s_##u##_##same, ev, um, cm, iv, fx, pr, lle, llu, nm)
static const struct ev_row table[] = {
#include "event_rows.h"
};

/* Family 6 parts with one core type: DisplayModel -> uarch. */
struct model_row {
    uint8_t model;
    uint8_t uarch;
};

static const struct model_row uarch_models[] = {
    { 0x0E, DS_UARCH_YONAH }, /* Linux intel_pmu_init INTEL_CORE_YONAH: "core" */
    { 0x0F, DS_UARCH_CORE2 }, { 0x16, DS_UARCH_CORE2 }, { 0x17, DS_UARCH_CORE2 }, { 0x1D, DS_UARCH_CORE2 },
    { 0x1C, DS_UARCH_BONNELL }, { 0x26, DS_UARCH_BONNELL }, { 0x27, DS_UARCH_BONNELL },
    { 0x35, DS_UARCH_BONNELL }, { 0x36, DS_UARCH_BONNELL },
    { 0x37, DS_UARCH_SILVERMONT }, { 0x4A, DS_UARCH_SILVERMONT }, { 0x4D, DS_UARCH_SILVERMONT },
    { 0x5A, DS_UARCH_SILVERMONT }, { 0x5D, DS_UARCH_SILVERMONT }, { 0x4C, DS_UARCH_SILVERMONT },
    { 0x75, DS_UARCH_SILVERMONT },
    { 0x57, DS_UARCH_KNIGHTS }, { 0x85, DS_UARCH_KNIGHTS },
    { 0x5C, DS_UARCH_GOLDMONT }, { 0x5F, DS_UARCH_GOLDMONT }, { 0x7A, DS_UARCH_GOLDMONT_PLUS },
    { 0x86, DS_UARCH_TREMONT }, { 0x96, DS_UARCH_TREMONT }, { 0x9C, DS_UARCH_TREMONT },
    { 0x1A, DS_UARCH_NEHALEM }, { 0x1E, DS_UARCH_NEHALEM }, { 0x1F, DS_UARCH_NEHALEM }, { 0x2E, DS_UARCH_NEHALEM },
    { 0x25, DS_UARCH_NEHALEM }, { 0x2C, DS_UARCH_NEHALEM }, { 0x2F, DS_UARCH_NEHALEM },
    { 0x2A, DS_UARCH_SANDYBRIDGE }, { 0x2D, DS_UARCH_SANDYBRIDGE }, { 0x3A, DS_UARCH_SANDYBRIDGE },
    { 0x3E, DS_UARCH_SANDYBRIDGE },
    { 0x3C, DS_UARCH_HASWELL }, { 0x3F, DS_UARCH_HASWELL }, { 0x45, DS_UARCH_HASWELL }, { 0x46, DS_UARCH_HASWELL },
    { 0x3D, DS_UARCH_HASWELL }, { 0x47, DS_UARCH_HASWELL }, { 0x4F, DS_UARCH_HASWELL }, { 0x56, DS_UARCH_HASWELL },
    { 0x4E, DS_UARCH_SKYLAKE }, { 0x5E, DS_UARCH_SKYLAKE }, { 0x55, DS_UARCH_SKYLAKE }, { 0x8E, DS_UARCH_SKYLAKE },
    { 0x9E, DS_UARCH_SKYLAKE }, { 0xA5, DS_UARCH_SKYLAKE }, { 0xA6, DS_UARCH_SKYLAKE },
    { 0x7D, DS_UARCH_ICELAKE }, { 0x7E, DS_UARCH_ICELAKE }, { 0x6A, DS_UARCH_ICELAKE }, { 0x6C, DS_UARCH_ICELAKE },
    { 0x8C, DS_UARCH_ICELAKE }, { 0x8D, DS_UARCH_ICELAKE }, { 0xA7, DS_UARCH_ICELAKE },
    { 0x8F, DS_UARCH_GOLDENCOVE }, { 0xCF, DS_UARCH_GOLDENCOVE }, { 0xBE, DS_UARCH_GRACEMONT },
    { 0xD7, DS_UARCH_GOLDENCOVE }, /* Bartlett Lake: Raptor Cove, listed with the P-core-only parts */
    { 0xAD, DS_UARCH_REDWOODCOVE }, { 0xAE, DS_UARCH_REDWOODCOVE },
    { 0xAF, DS_UARCH_CRESTMONT }, { 0xB6, DS_UARCH_CRESTMONT }, { 0xDD, DS_UARCH_DARKMONT },
};

/* Hybrid family-6 parts: DisplayModel -> P-core / E-core uarch
 * (intel-family.h comments "P-core / E-core"; Linux core.c intel_pmu_init
 * groups 06_B5H with Meteor Lake). */
struct hybrid_row {
    uint8_t model;
    uint8_t p, e;
};

static const struct hybrid_row hybrids[] = {
    { 0x8A, DS_UARCH_ICELAKE, DS_UARCH_TREMONT },         /* Lakefield: Sunny Cove / Tremont */
    { 0x97, DS_UARCH_GOLDENCOVE, DS_UARCH_GRACEMONT },    /* Alder Lake */
    { 0x9A, DS_UARCH_GOLDENCOVE, DS_UARCH_GRACEMONT },
    { 0xB7, DS_UARCH_GOLDENCOVE, DS_UARCH_GRACEMONT },    /* Raptor Lake: Raptor Cove / Gracemont */
    { 0xBA, DS_UARCH_GOLDENCOVE, DS_UARCH_GRACEMONT },
    { 0xBF, DS_UARCH_GOLDENCOVE, DS_UARCH_GRACEMONT },
    { 0xAA, DS_UARCH_REDWOODCOVE, DS_UARCH_CRESTMONT },   /* Meteor Lake */
    { 0xAC, DS_UARCH_REDWOODCOVE, DS_UARCH_CRESTMONT },
    { 0xB5, DS_UARCH_REDWOODCOVE, DS_UARCH_CRESTMONT },   /* Arrow Lake U */
    { 0xBD, DS_UARCH_LIONCOVE, DS_UARCH_SKYMONT },        /* Lunar Lake */
    { 0xC5, DS_UARCH_LIONCOVE, DS_UARCH_SKYMONT },        /* Arrow Lake H */
    { 0xC6, DS_UARCH_LIONCOVE, DS_UARCH_SKYMONT },        /* Arrow Lake */
    { 0xCC, DS_UARCH_COUGARCOVE, DS_UARCH_DARKMONT },     /* Panther Lake */
    { 0xD5, DS_UARCH_COUGARCOVE, DS_UARCH_DARKMONT },     /* Wildcat Lake: Panther Lake to Linux intel_pmu_init and perfmon mapfile.csv 6-D5 */
};

/* Hybrid cores by CPUID.1AH core type and native model ID (EAX[23:0]), as
 * Intel perfmon mapfile.csv keys its hybrid event files ("Core Type",
 * "Native Model ID"): it is what tells the low-power Crestmont E-cores of
 * Arrow Lake H 06_C5H (native model 2) from its Skymont E-cores (3). */
struct native_row {
    uint8_t core_type;
    uint32_t native;
    uint8_t uarch;
};

static const struct native_row natives[] = {
    { DS_CORE_TYPE_ATOM, 1, DS_UARCH_GRACEMONT },   { DS_CORE_TYPE_CORE, 1, DS_UARCH_GOLDENCOVE },
    { DS_CORE_TYPE_ATOM, 2, DS_UARCH_CRESTMONT },   { DS_CORE_TYPE_CORE, 2, DS_UARCH_REDWOODCOVE },
    { DS_CORE_TYPE_ATOM, 3, DS_UARCH_SKYMONT },     { DS_CORE_TYPE_CORE, 3, DS_UARCH_LIONCOVE },
    { DS_CORE_TYPE_ATOM, 4, DS_UARCH_DARKMONT },    { DS_CORE_TYPE_CORE, 4, DS_UARCH_COUGARCOVE },
    { DS_CORE_TYPE_ATOM, 5, DS_UARCH_ARCTICWOLF },  { DS_CORE_TYPE_CORE, 5, DS_UARCH_COYOTECOVE },
};

/* DisplayFamily 18 (12H): Nova Lake 12_01H, 12_03H, "Coyote Cove / Arctic
 * Wolf" (intel-family.h INTEL_NOVALAKE, INTEL_NOVALAKE_L; perfmon
 * mapfile.csv GenuineIntel-18-1, -18-3). */
static const struct hybrid_row hybrids18[] = {
    { 0x01, DS_UARCH_COYOTECOVE, DS_UARCH_ARCTICWOLF },
    { 0x03, DS_UARCH_COYOTECOVE, DS_UARCH_ARCTICWOLF },
};

#define DS_EVENT_ROWS (DS_ARRAY_SIZE(nb_table) + DS_ARRAY_SIZE(table))

static enum ds_uarch row_uarch(size_t i)
{
    size_t n = DS_ARRAY_SIZE(nb_table);
    return i < n ? DS_UARCH_NETBURST : (enum ds_uarch)table[i - n].uarch;
}

static enum ds_event row_event(size_t i)
{
    size_t n = DS_ARRAY_SIZE(nb_table);
    return (enum ds_event)(i < n ? nb_table[i].event : table[i - n].event);
}

static enum ds_uarch uarch_hybrid(const struct ds_caps *c, const struct hybrid_row *h)
{
    for (size_t i = 0; c->has_leaf_1a && i < DS_ARRAY_SIZE(natives); i++)
        if (natives[i].core_type == c->core_type && natives[i].native == c->native_model_id)
            return (enum ds_uarch)natives[i].uarch;
    if (c->has_leaf_1a && c->core_type == DS_CORE_TYPE_ATOM)
        return (enum ds_uarch)h->e;
    if (c->has_leaf_1a && c->core_type == DS_CORE_TYPE_CORE)
        return (enum ds_uarch)h->p;
    /* No core type: a non-hybrid SKU of the model has P-cores only (its
     * E-core-only siblings have their own models: 06_BEH, 06_AFH ...). */
    if (!c->hybrid && !c->has_leaf_1a)
        return (enum ds_uarch)h->p;
    return DS_UARCH_UNKNOWN;
}

static enum ds_uarch uarch_family18(const struct ds_caps *c)
{
    for (size_t i = 0; i < DS_ARRAY_SIZE(hybrids18); i++)
        if (hybrids18[i].model == c->display_model)
            return uarch_hybrid(c, &hybrids18[i]);
    return DS_UARCH_UNKNOWN;
}

static enum ds_uarch uarch_family6(const struct ds_caps *c)
{
    for (size_t i = 0; i < DS_ARRAY_SIZE(uarch_models); i++)
        if (uarch_models[i].model == c->display_model)
            return (enum ds_uarch)uarch_models[i].uarch;
    for (size_t i = 0; i < DS_ARRAY_SIZE(hybrids); i++)
        if (hybrids[i].model == c->display_model)
            return uarch_hybrid(c, &hybrids[i]);
    return DS_UARCH_UNKNOWN;
}

DS_COLD int ds_uarch_of(const struct ds_cpu *cpu, enum ds_uarch *out)
{
    if (!cpu || !out)
        return DS_ERR_NULL;
    *out = DS_UARCH_UNKNOWN;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    if (cpu->caps.vendor != DS_VENDOR_INTEL)
        return DS_ERR_NOT_INTEL;
    /* Family 0FH is NetBurst (caps.netburst: Intel and DisplayFamily 0FH);
     * family 19 (Diamond Rapids, Panther Cove) is not in the table: Intel
     * perfmon publishes no event list for it. */
    if (cpu->caps.netburst)
        *out = DS_UARCH_NETBURST;
    else if (cpu->caps.display_family == 6)
        *out = uarch_family6(&cpu->caps);
    else if (cpu->caps.display_family == 18)
        *out = uarch_family18(&cpu->caps);
    return *out == DS_UARCH_UNKNOWN ? DS_ERR_EVENT_UARCH : DS_OK;
}

static const char uarch_names[DS_UARCH__COUNT][14] = {
    "unknown", "netburst", "core2", "bonnell", "silvermont", "knights", "goldmont", "goldmont_plus",
    "tremont", "nehalem", "sandybridge", "haswell", "skylake", "icelake", "goldencove", "gracemont",
    "redwoodcove", "crestmont", "lioncove", "skymont", "cougarcove", "darkmont", "coyotecove", "arcticwolf",
    "yonah",
};

DS_COLD const char *ds_uarch_name(enum ds_uarch u)
{
    if ((unsigned)u >= DS_UARCH__COUNT)
        return "unknown";
    return uarch_names[u];
}

static const char event_names[DS_EVENT__COUNT][14] = {
    "unknown", "instructions", "branches", "branch-misses", "loads", "stores", "cycles",
};

DS_COLD const char *ds_event_name(enum ds_event e)
{
    if ((unsigned)e >= DS_EVENT__COUNT)
        return "unknown";
    return event_names[e];
}

/* CPUID.0AH:EBX bit of the architectural event, or -1 (SDM Vol. 3B
 * "Pre-defined Architectural Performance Events": bit 0 core cycles, 1
 * instructions retired, 5 branch instructions retired, 6 branch misses). */
static int arch_bit(enum ds_event ev)
{
    switch (ev) {
    case DS_EVENT_CYCLES: return 0;
    case DS_EVENT_INSTRUCTIONS: return 1;
    case DS_EVENT_BRANCHES: return 5;
    case DS_EVENT_BRANCH_MISSES: return 6;
    default: return -1;
    }
}

/* The CPU says the architectural event is not available: the bit is inside
 * the EBX vector length (EAX[31:24]) and set. Bits beyond the length say
 * nothing; the row is the model's own event then. */
static bool arch_unavailable(const struct ds_caps *c, enum ds_event ev)
{
    int bit = arch_bit(ev);
    if (bit < 0 || !c->has_leaf_0a) /* has_leaf_0a: perfmon version >= 1 (cpu.c) */
        return false;
    return bit < c->ebx_length && (c->events_unavailable & (1u << bit));
}

DS_COLD int ds_event_lookup(const struct ds_cpu *cpu, enum ds_event ev, struct ds_event_desc *out)
{
    enum ds_uarch u;
    if (!cpu || !out)
        return DS_ERR_NULL;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    if ((unsigned)ev <= DS_EVENT_NONE || (unsigned)ev >= DS_EVENT__COUNT)
        return DS_ERR_EVENT_UNKNOWN;
    int r = ds_uarch_of(cpu, &u);
    if (r != DS_OK)
        return r;
    if (arch_unavailable(&cpu->caps, ev))
        return DS_ERR_EVENT_UNAVAILABLE;
    for (size_t i = 0; i < DS_EVENT_ROWS; i++)
        if (row_uarch(i) == u && row_event(i) == ev)
            return ds_event_row(i, out);
    return DS_ERR_EVENT_NONE;
}

DS_COLD size_t ds_event_rows(void)
{
    return DS_EVENT_ROWS;
}

DS_COLD int ds_event_row(size_t i, struct ds_event_desc *out)
{
    if (!out)
        return DS_ERR_NULL;
    ds__zero(out, sizeof *out);
    if (i >= DS_EVENT_ROWS)
        return DS_ERR_INVAL;
    if (i < DS_ARRAY_SIZE(nb_table)) {
        const struct nb_row *n = &nb_table[i];
        const char *b = (const char *)&nb_strs;
        out->event = (enum ds_event)n->event;
        out->uarch = DS_UARCH_NETBURST;
        out->fixed = -1;
        out->precise = (enum ds_event_precise)n->precise;
        out->nb_event = b + n->ev;
        out->nb_mask = b + n->mk;
        out->nb_metric = n->metric;
        out->name = b + n->nm;
        out->source = b + n->src;
        out->nb_tag_event = b[n->tev] ? b + n->tev : NULL;
        out->nb_tag_mask = b[n->tmk] ? b + n->tmk : NULL;
        return DS_OK;
    }
    const struct ev_row *r = &table[i - DS_ARRAY_SIZE(nb_table)];
    out->event = (enum ds_event)r->event;
    out->uarch = (enum ds_uarch)r->uarch;
    out->evsel = r->evsel;
    out->umask = r->umask;
    out->cmask = r->cmask;
    out->inv = r->inv;
    out->fixed = (int8_t)(r->fixed1 - 1);
    out->precise = (enum ds_event_precise)r->precise;
    out->ll_evsel = r->ll_evsel;
    out->ll_umask = r->ll_umask;
    out->nb_metric = -1;
    out->name = (const char *)&ev_name_strs + ev_name_off[r->name];
    out->source = (const char *)&ev_src_strs + r->source;
    return DS_OK;
}
