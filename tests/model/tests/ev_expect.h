/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How each model profile's core encodes the generic events, and which take a
 * precise PEBS record: the tests' own transcription (sources in
 * test_events.c's header comment), independent of the model's ev_table and
 * of libds/src/event.c. Used by test_events.c (the model alone) and
 * e2e_session.c (libds sessions against the model).
 */
#ifndef EV_EXPECT_H
#define EV_EXPECT_H

#include "dsmodel.h"
#include "model_util.h"

enum { G_INST, G_BR, G_MISP, G_LOAD, G_STORE, G_LL, G_CYC, G__N };
static const char *const gname[G__N] = { "inst", "branches", "mispredicts", "loads", "stores", "load-latency",
                                         "cycles" };
struct enc { uint8_t ev, um, ctr; char kind; };   /* kind 0: the core has no such event */
struct prof_exp {
    enum dsm_profile p;
    struct enc e[G__N];
    struct enc bad[4];   /* encodings (or counters) that count nothing on this core */
};

#define X { 0, 0, 0, 0 }
static const struct prof_exp exps[] = {
    { DSM_CORE2, { { 0xC0, 0, 0, 'P' }, { 0xC4, 0, 0, 'N' }, { 0xC5, 0, 0, 'P' }, { 0xC0, 1, 0, 'N' },
                   { 0xC0, 2, 0, 'N' }, X, { 0x3C, 0, 0, 'N' } },
      { { 0xD0, 0x82, 0, 0 }, { 0xD0, 0x81, 0, 0 }, { 0x0B, 1, 0, 0 }, { 0xCD, 1, 0, 0 } } },
    { DSM_ATOM, { { 0xC0, 0, 0, 'P' }, { 0xC4, 0, 0, 'I' }, { 0xC5, 0, 0, 'P' }, X, X, X, { 0x3C, 0, 0, 'I' } },
      { { 0xC0, 1, 0, 0 }, { 0x40, 0xA1, 0, 0 }, { 0xD0, 0x81, 0, 0 }, { 0xD0, 0x82, 0, 0 } } },
    { DSM_NEHALEM, { { 0xC0, 1, 0, 'P' }, { 0xC4, 4, 0, 'P' }, { 0xC5, 0, 0, 'N' }, { 0x0B, 1, 0, 'P' },
                     { 0x0B, 2, 0, 'P' }, { 0x0B, 0x10, 3, 'P' }, { 0x3C, 0, 0, 'N' } },
      { { 0x0B, 0x10, 0, 0 }, { 0xD0, 0x81, 0, 0 }, { 0xC0, 2, 0, 0 }, { 0xCD, 1, 3, 0 } } },
#define HSWSKL(pr, llc)                                                                                    \
    { pr, { { 0xC0, 1, 1, 'P' }, { 0xC4, 4, 0, 'P' }, { 0xC5, 4, 0, 'P' }, { 0xD0, 0x81, 0, 'P' },          \
            { 0xD0, 0x82, 0, 'P' }, { 0xCD, 1, llc, 'P' }, { 0x3C, 0, 0, 'I' } },                          \
      { { 0xC0, 1, 0, 0 }, { 0xC0, 2, 0, 0 }, { 0x0B, 1, 0, 0 }, { 0x0B, 2, 0, 0 } } }
    HSWSKL(DSM_HASWELL, 3), HSWSKL(DSM_SKYLAKE, 0), HSWSKL(DSM_KVM_SKL, 0),
/* ic: the counter instructions are sampled on: INST_RETIRED.ANY_P
 * "PEBScounters" 1-7 on Golden/Redwood Cove (sapphirerapids_core.json,
 * alderlake_goldencove_core.json, graniterapids_core.json; Linux
 * intel_glc_pebs_event_constraints 0xc0 mask 0xfe) */
#define BIG(pr, ic, llc, llbad)                                                                            \
    { pr, { { 0xC0, 0, ic, 'P' }, { 0xC4, 0, 0, 'P' }, { 0xC5, 0, 0, 'P' }, { 0xD0, 0x81, 0, 'P' },          \
            { 0xD0, 0x82, 0, 'P' }, { 0xCD, 1, llc, 'P' }, { 0x3C, 0, 0, 'I' } },                          \
      { { 0xD0, 0x81, 4, 0 }, { 0xC0, 2, 0, 0 }, { 0xD0, 0x05, 0, 0 }, { 0xCD, 1, llbad, 0 } } }
    BIG(DSM_ICELAKE, 0, 0, 0xFF), BIG(DSM_SAPPHIRERAPIDS, 1, 1, 0), BIG(DSM_GRANITERAPIDS, 1, 1, 0),
    BIG(DSM_ALDERLAKE_P, 1, 1, 0), BIG(DSM_KVM_SPR, 1, 1, 0), BIG(DSM_LUNARLAKE, 0, 2, 1), BIG(DSM_PTL_P, 0, 2, 1),
    BIG(DSM_ARROWLAKE_H, 0, 2, 1),
#define SMALL(pr, llbad)                                                                                   \
    { pr, { { 0xC0, 0, 0, 'P' }, { 0xC4, 0, 0, 'P' }, { 0xC5, 0, 0, 'P' }, { 0xD0, 0x81, 0, 'P' },          \
            { 0xD0, 0x82, 0, 'P' }, { 0xD0, 0x05, 0, 'P' }, { 0x3C, 0, 0, 'I' } },                         \
      { { 0xCD, 1, 0, 0 }, { 0x0B, 1, 0, 0 }, { 0xC0, 2, 0, 0 }, { 0xD0, 0x05, llbad, 0 } } }
    SMALL(DSM_ALDERLAKE_E, 2), SMALL(DSM_LUNARLAKE_E, 2), SMALL(DSM_PTL_E, 0xFF),
};


/* The workload: instruction i at WL_IP0 + 16 i (next_ip + 16): every 3rd a
 * branch (taken to the next instruction; every 2nd of those mispredicted),
 * every 4th a load (latency 100, or 2 for every 3rd load), every 5th a store. */
#define WL_IP0 0x400000ull
#define WL_STRIDE 16u
#define WL_LAT_THR 50u   /* MSR_PEBS_LD_LAT threshold the tests program */
static inline struct dsm_event wl_ev(unsigned i)
{
    struct dsm_event e = ev_plain(WL_IP0 + (uint64_t)WL_STRIDE * i);
    e.next_ip = e.ip + WL_STRIDE;
    if (i % 3 == 1) {
        e = ev_branch(e.ip, e.ip + WL_STRIDE, (i / 3) % 2 == 0);
    } else if (i % 4 == 2) {
        e = ev_load(e.ip, 0x900000 + 64ull * i, (i / 4) % 3 == 0 ? 2 : 100, 1);
        e.next_ip = e.ip + WL_STRIDE;
    } else if (i % 5 == 3) {
        e.flags = DSM_EV_STORE;
    }
    return e;
}

/* Whether workload instruction e is an occurrence of generic event g. */
static inline bool wl_is(unsigned g, const struct dsm_event *e)
{
    switch (g) {
    case G_INST: case G_CYC: return true;
    case G_BR: return e->flags & DSM_EV_BRANCH;
    case G_MISP: return e->flags & DSM_EV_MISPRED;
    case G_LOAD: return e->flags & DSM_EV_LOAD;
    case G_STORE: return e->flags & DSM_EV_STORE;
    case G_LL: return (e->flags & DSM_EV_LOAD) && e->load_latency > WL_LAT_THR;
    default: return false;
    }
}

/* Occurrences of g in the first n instructions. */
static inline unsigned wl_count(unsigned g, unsigned n)
{
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        struct dsm_event e = wl_ev(i);
        k += wl_is(g, &e);
    }
    return k;
}

/* Instruction index an IP names, or n when it names none of the first n. */
static inline unsigned wl_index(uint64_t ip, unsigned n)
{
    if (ip < WL_IP0 || (ip - WL_IP0) % WL_STRIDE || (ip - WL_IP0) / WL_STRIDE >= n)
        return n;
    return (unsigned)((ip - WL_IP0) / WL_STRIDE);
}

static inline const struct prof_exp *ev_expect_of(enum dsm_profile p)
{
    for (size_t k = 0; k < sizeof exps / sizeof exps[0]; k++)
        if (exps[k].p == p)
            return &exps[k];
    return NULL;
}

#endif
