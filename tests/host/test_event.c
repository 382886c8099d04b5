/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Generic events (event.h, issue 16): ds_uarch_of on the real CPUID dumps of
 * ../shared/cpuid, the encodings against a transcription typed here from the
 * Intel perfmon JSON files / SDM tables named in each row, every precise row
 * against pmc.h's PEBS checks (and NetBurst rows against netburst.h), and
 * every error path.
 */
#include "check.h"
#include "fake_cpu.h"
#include "cpuid_dump.h"
#include <ds/session.h>
#include <ds/ds.h>
#include <ds/event.h>

#ifndef DS_CPUID_DUMP_DIR
#define DS_CPUID_DUMP_DIR "../shared/cpuid"
#endif

/* ---- a fake CPU of each microarchitecture ------------------------------ */

struct profile {
    enum ds_uarch u;
    uint32_t sig;        /* CPUID.01H:EAX */
    uint32_t a0a, d0a;   /* CPUID.0AH EAX, EDX */
    unsigned fmt;        /* PEBS record format */
    bool adaptive;       /* PERF_CAPABILITIES.PEBS_BASELINE */
    uint8_t core_type;   /* hybrid: CPUID.1AH:EAX[31:24], 0 = not hybrid */
    unsigned gp, fixed;
};

/* Signatures of parts of each uarch (intel-family.h; the dumps' file names). */
static const struct profile profiles[] = {
    { DS_UARCH_CORE2, 0x00010676, 0x07280202, 0x503, 0, false, 0, 2, 3 },      /* Penryn 06_17H */
    { DS_UARCH_YONAH, 0x000006E8, 0x07280201, 0, 0, false, 0, 2, 0 },          /* Core Duo 06_0EH, perfmon v1 */
    { DS_UARCH_BONNELL, 0x000106C2, 0x07280203, 0x503, 0, false, 0, 2, 3 },    /* Diamondville 06_1CH */
    { DS_UARCH_SILVERMONT, 0x00030678, 0x07280203, 0x503, 2, false, 0, 2, 3 }, /* Bay Trail 06_37H */
    { DS_UARCH_KNIGHTS, 0x00050671, 0x07280203, 0x503, 2, false, 0, 2, 3 },    /* KNL 06_57H */
    { DS_UARCH_GOLDMONT, 0x000506C9, 0x07300404, 0x603, 3, false, 0, 4, 3 },   /* Apollo Lake 06_5CH */
    { DS_UARCH_GOLDMONT_PLUS, 0x000706A8, 0x07300404, 0x603, 3, false, 0, 4, 3 }, /* Gemini Lake 06_7AH */
    { DS_UARCH_TREMONT, 0x000906C0, 0x07300405, 0x603, 4, true, 0, 4, 3 },     /* Jasper Lake 06_9CH */
    { DS_UARCH_NEHALEM, 0x000106A5, 0x07300403, 0x603, 1, false, 0, 4, 3 },    /* Nehalem-EP 06_1AH */
    { DS_UARCH_SANDYBRIDGE, 0x000306A9, 0x07300403, 0x603, 1, false, 0, 4, 3 },/* Ivy Bridge 06_3AH */
    { DS_UARCH_HASWELL, 0x000306C3, 0x07300403, 0x603, 2, false, 0, 4, 3 },    /* Haswell 06_3CH */
    { DS_UARCH_SKYLAKE, 0x000506E3, 0x07300404, 0x603, 3, false, 0, 4, 3 },    /* Skylake 06_5EH */
    { DS_UARCH_ICELAKE, 0x000706E5, 0x08300805, 0x604, 4, true, 0, 8, 4 },     /* Ice Lake 06_7EH */
    { DS_UARCH_GOLDENCOVE, 0x000806F8, 0x08300805, 0x604, 4, true, 0, 8, 4 },  /* SPR 06_8FH */
    { DS_UARCH_GRACEMONT, 0x000B06E0, 0x08300605, 0x603, 4, true, 0, 6, 3 },   /* ADL-N 06_BEH */
    { DS_UARCH_REDWOODCOVE, 0x000A06D1, 0x08300805, 0x604, 5, true, 0, 8, 4 }, /* GNR 06_ADH */
    { DS_UARCH_CRESTMONT, 0x000A06F3, 0x08300805, 0x603, 5, true, 0, 8, 3 },   /* SRF 06_AFH */
    { DS_UARCH_LIONCOVE, 0x000B06D1, 0x08300805, 0x604, 6, true, 0x40, 8, 4 }, /* LNL 06_BDH P-core */
    { DS_UARCH_SKYMONT, 0x000B06D1, 0x08300805, 0x603, 6, true, 0x20, 8, 3 },  /* LNL 06_BDH E-core */
};

static const struct profile *profile_of(enum ds_uarch u)
{
    for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
        if (profiles[i].u == u)
            return &profiles[i];
    return NULL;
}

static void fake_profile(struct fake_cpu *f, const struct profile *p)
{
    memset(f, 0, sizeof(*f));
    fake_set_cpuid(f, 0, 0, 0x23, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(f, 1, 0, p->sig, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
    fake_set_cpuid(f, 0xA, 0, p->a0a, 0, 0, p->d0a);
    fake_set_cpuid(f, 7, 0, 0, 0, 0, p->core_type ? 1u << 15 : 0);
    fake_set_cpuid(f, 0x1A, 0, (uint32_t)p->core_type << 24, 0, 0, 0);
    fake_set_msr(f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    uint64_t caps = ((uint64_t)p->fmt << 8) | 0xC0 | 0x05;
    if (p->adaptive)
        caps |= 0x4000 | 0x2000;
    fake_set_msr(f, DS_MSR_IA32_PERF_CAPABILITIES, caps);
    fake_add_pmu_msrs(f, p->gp, p->fixed);
    fake_set_msr(f, DS_MSR_PEBS_DATA_CFG, 0);
}

static int cpu_of(struct fake_cpu *f, struct ds_cpu *cpu, const struct profile *p)
{
    fake_profile(f, p);
    ds_cpu_init(cpu, &fake_ops, f);
    return ds_cpu_identify(cpu);
}

/* ---- ds_uarch_of on the real dumps -------------------------------------- */

struct dump_exp {
    const char *file;
    int err;             /* DS_OK or the expected error */
    enum ds_uarch p, e;  /* P-core (or only) uarch, E-core uarch (hybrid) */
};

/* Typed from /work/shared/cpuid/README.md and the part names in the file names. */
static const struct dump_exp dumps[] = {
    { "AuthenticAMD0000F4A_K8_Clawhammer_CPUID.txt", DS_ERR_NOT_INTEL, 0, 0 },
    { "AuthenticAMD0A60F12_K19_Raphael_01_CPUID.txt", DS_ERR_NOT_INTEL, 0, 0 },
    { "GenuineIntel00006F6_Conroe_CPUID.txt", DS_OK, DS_UARCH_CORE2, 0 },
    { "GenuineIntel00006F6_Merom_CPUID.txt", DS_OK, DS_UARCH_CORE2, 0 },
    { "GenuineIntel0000F24_P4_Northwood_CPUID.txt", DS_OK, DS_UARCH_NETBURST, 0 },
    { "GenuineIntel0000F34_P4_Prescott_CPUID.txt", DS_OK, DS_UARCH_NETBURST, 0 },
    { "GenuineIntel0000F65_P4_CedarMill_CPUID.txt", DS_OK, DS_UARCH_NETBURST, 0 },
    { "GenuineIntel0010676_Penryn_CPUID.txt", DS_OK, DS_UARCH_CORE2, 0 },
    { "GenuineIntel00106A1_Nehalem_CPUID.txt", DS_OK, DS_UARCH_NEHALEM, 0 },
    { "GenuineIntel00206A7_SandyBridge_CPUID.txt", DS_OK, DS_UARCH_SANDYBRIDGE, 0 },
    { "GenuineIntel0030678_Silvermont_CPUID.txt", DS_OK, DS_UARCH_SILVERMONT, 0 },
    { "GenuineIntel00306C3_Haswell_CPUID.txt", DS_OK, DS_UARCH_HASWELL, 0 },
    { "GenuineIntel00406F1_BroadwellE_CPUID.txt", DS_OK, DS_UARCH_HASWELL, 0 },
    { "GenuineIntel0050654_SkylakeX_CPUID.txt", DS_OK, DS_UARCH_SKYLAKE, 0 },
    { "GenuineIntel0050671_KnightsLanding_CPUID.txt", DS_OK, DS_UARCH_KNIGHTS, 0 },
    { "GenuineIntel00506C9_Goldmont_CPUID.txt", DS_OK, DS_UARCH_GOLDMONT, 0 },
    { "GenuineIntel00506E3_Skylake_CPUID.txt", DS_OK, DS_UARCH_SKYLAKE, 0 },
    { "GenuineIntel00606A6_ICX_04_CPUID.txt", DS_OK, DS_UARCH_ICELAKE, 0 },
    { "GenuineIntel00706A8_GoldmontPlus_CPUID.txt", DS_OK, DS_UARCH_GOLDMONT_PLUS, 0 },
    { "GenuineIntel00806F8_SapphireRapids_05_CPUID.txt", DS_OK, DS_UARCH_GOLDENCOVE, 0 },
    /* Core i5-12400: the P-core-only Alder Lake die (07H EDX[15] = 0, 1AH = 0;
     * tests/cpuid/expect.txt): the no-core-type rule gives the P-core uarch. */
    { "GenuineIntel0090672_AlderLake_02_CPUID.txt", DS_OK, DS_UARCH_GOLDENCOVE, 0 },
    { "GenuineIntel00906C0_JasperLake_01_CPUID.txt", DS_OK, DS_UARCH_TREMONT, 0 },
    { "GenuineIntel00A06A4_MeteorLake_07_CPUID.txt", DS_OK, DS_UARCH_REDWOODCOVE, DS_UARCH_CRESTMONT },
    { "GenuineIntel00B06D1_LunarLake_04_CPUID.txt", DS_OK, DS_UARCH_LIONCOVE, DS_UARCH_SKYMONT },
    { "GenuineIntel00C0662_ArrowLake_07_CPUID.txt", DS_OK, DS_UARCH_LIONCOVE, DS_UARCH_SKYMONT },
    { "GenuineIntel00C06C3_PantherLakeL_01_CPUID.txt", DS_OK, DS_UARCH_COUGARCOVE, DS_UARCH_DARKMONT },
    { "GenuineIntel00C06F2_EmeraldRapids_01_CPUID.txt", DS_OK, DS_UARCH_GOLDENCOVE, 0 },
};

/* The event table as an array (ds_event_row expands the packed rows). */
static const struct ds_event_desc *event_table(size_t *n)
{
    static struct ds_event_desc t[256];
    *n = ds_event_rows();
    CHECK(*n <= sizeof t / sizeof t[0], "%zu event rows fit the test's copy", *n);
    if (*n > sizeof t / sizeof t[0])
        return NULL;
    for (size_t i = 0; i < *n; i++)
        if (ds_event_row(i, &t[i]) != DS_OK)
            return NULL;
    return t;
}

/* Architectural PEBS (Panther Lake): the precise rows must name counters
 * CPUID.23H.5 says take PEBS (pmc.h's legacy checks do not apply there). */
static void check_arch_pebs_rows(const char *file, const struct ds_cpu *cpu, enum ds_uarch u)
{
    size_t n;
    const struct ds_event_desc *t = event_table(&n);
    CHECK(cpu->caps.has_leaf_23 && cpu->caps.arch_pebs_gp_mask, "%s: CPUID.23H.5 enumerated", file);
    for (size_t i = 0; i < n; i++) {
        if (t[i].uarch != u || t[i].precise == DS_PRECISE_NONE)
            continue;
        if (t[i].precise == DS_PRECISE_FIXED)
            CHECK(cpu->caps.arch_pebs_fixed_mask & (1u << t[i].fixed), "%s %s: fixed %d takes arch PEBS",
                  file, t[i].name, t[i].fixed);
        else
            CHECK(cpu->caps.arch_pebs_gp_mask != 0, "%s %s: a GP counter takes arch PEBS", file, t[i].name);
    }
}

static void ses_sink(void *arg, const struct ds_session_sample *s)
{
    (void)arg;
    (void)s;
}

static void check_dump(const char *dir, const struct dump_exp *x)
{
    char path[4096], err[256];
    struct cpuid_dump d;
    snprintf(path, sizeof path, "%s/%s", dir, x->file);
    CHECK(cpuid_dump_load(path, &d, err, sizeof err) == 0, "%s: %s", x->file, err);
    if (d.ncpus == 0)
        return;
    unsigned np = 0, ne = 0;
    for (size_t i = 0; i < d.ncpus; i++) {
        struct cpuid_replay r;
        struct ds_cpu cpu;
        enum ds_uarch u;
        cpuid_replay_init(&r, &d, i);
        ds_cpu_init(&cpu, &cpuid_replay_ops, &r);
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "%s cpu %zu identify", x->file, i);
        /* issue 29: every real Intel part can run a session (init's
         * cause-first capability check passes), AMD is refused as such */
        struct ds_session ses;
        struct ds_session_config sc;
        memset(&ses, 0, sizeof ses);
        memset(&sc, 0, sizeof sc);
        sc.on_sample = ses_sink;
        int se = ds_session_init(&ses, &cpu, &sc);
        CHECK(se == (x->err == DS_ERR_NOT_INTEL ? DS_ERR_NOT_INTEL : DS_OK), "%s cpu %zu: session init %s", x->file,
              i, ds_errname(se));
        int e = ds_uarch_of(&cpu, &u);
        CHECK(e == x->err, "%s cpu %zu: %s, want %s", x->file, i, ds_errname(e), ds_errname(x->err));
        if (x->err != DS_OK)
            continue;
        bool atom = x->e && cpu.caps.core_type == DS_CORE_TYPE_ATOM;
        enum ds_uarch want = atom ? x->e : x->p;
        atom ? ne++ : np++;
        CHECK(u == want, "%s cpu %zu: %s, want %s", x->file, i, ds_uarch_name(u), ds_uarch_name(want));
        if (u == DS_UARCH_COUGARCOVE || u == DS_UARCH_DARKMONT)
            check_arch_pebs_rows(x->file, &cpu, u);
    }
    if (x->e)
        CHECK(np > 0 && ne > 0, "%s: both core types seen (%u P, %u E)", x->file, np, ne);
    cpuid_dump_free(&d);
}

static void test_dumps(void)
{
    FILE *probe = fopen(DS_CPUID_DUMP_DIR "/README.md", "r");
    if (!probe) {
        printf("SKIP dumps: %s absent (a clone without ../shared/cpuid)\n", DS_CPUID_DUMP_DIR);
        return;
    }
    fclose(probe);
    CHECK_EQ(sizeof(dumps) / sizeof(dumps[0]), 27, "all 27 dumps listed");
    for (size_t i = 0; i < sizeof(dumps) / sizeof(dumps[0]); i++)
        check_dump(DS_CPUID_DUMP_DIR, &dumps[i]);
}

/* ---- encodings: an independent transcription ---------------------------- */

struct enc {
    enum ds_uarch u;
    enum ds_event e;
    uint8_t ev, um;
    enum ds_event_precise p;
    int8_t fixed;
    uint8_t lle, llu;
};

#define G DS_PRECISE_GP
#define F DS_PRECISE_FIXED
#define N DS_PRECISE_NONE
/* Typed from the perfmon JSON EventCode/UMask/PEBS (or Precise) fields of
 * SKL/skylake_core.json, ICL/icelake_core.json, SPR/sapphirerapids_core.json,
 * ADL/alderlake_gracemont_core.json, LNL/lunarlake_{lioncove,skymont}_core.json,
 * NHM-EP/NehalemEP_core.json (PEBS narrowed by Linux ds.c
 * intel_nehalem_pebs_event_constraints), and the SDM Core 2 event and PEBS
 * tables. */
static const struct enc encs[] = {
    { DS_UARCH_SKYLAKE, DS_EVENT_INSTRUCTIONS, 0xC0, 0x01, G, 0, 0, 0 },
    { DS_UARCH_SKYLAKE, DS_EVENT_BRANCHES, 0xC4, 0x04, G, -1, 0, 0 },
    { DS_UARCH_SKYLAKE, DS_EVENT_BRANCH_MISSES, 0xC5, 0x04, G, -1, 0, 0 },
    { DS_UARCH_SKYLAKE, DS_EVENT_LOADS, 0xD0, 0x81, G, -1, 0xCD, 0x01 },
    { DS_UARCH_SKYLAKE, DS_EVENT_STORES, 0xD0, 0x82, G, -1, 0, 0 },
    { DS_UARCH_SKYLAKE, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_ICELAKE, DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, F, 0, 0, 0 },
    { DS_UARCH_ICELAKE, DS_EVENT_BRANCHES, 0xC4, 0x00, G, -1, 0, 0 },
    { DS_UARCH_ICELAKE, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, G, -1, 0, 0 },
    /* load latency with adaptive PEBS: Linux core.c mem-loads aliases
     * "event=0xcd,umask=0x1,ldlat=3" (P-cores, EVENT_ATTR_STR mem_ld_hsw/icl)
     * and "event=0xd0,umask=0x5,ldlat=3" (E-cores, mem_ld_adl); perfmon
     * MEM_TRANS_RETIRED.LOAD_LATENCY_GT_* / MEM_UOPS_RETIRED.LOAD_LATENCY_GT_* */
    { DS_UARCH_ICELAKE, DS_EVENT_LOADS, 0xD0, 0x81, G, -1, 0xCD, 0x01 },
    { DS_UARCH_ICELAKE, DS_EVENT_STORES, 0xD0, 0x82, G, -1, 0, 0 },
    { DS_UARCH_ICELAKE, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_GOLDENCOVE, DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, F, 0, 0, 0 },
    { DS_UARCH_GOLDENCOVE, DS_EVENT_BRANCHES, 0xC4, 0x00, G, -1, 0, 0 },
    { DS_UARCH_GOLDENCOVE, DS_EVENT_LOADS, 0xD0, 0x81, G, -1, 0xCD, 0x01 },
    { DS_UARCH_GOLDENCOVE, DS_EVENT_STORES, 0xD0, 0x82, G, -1, 0, 0 },
    { DS_UARCH_GRACEMONT, DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, F, 0, 0, 0 },
    { DS_UARCH_GRACEMONT, DS_EVENT_BRANCHES, 0xC4, 0x00, G, -1, 0, 0 },
    { DS_UARCH_GRACEMONT, DS_EVENT_LOADS, 0xD0, 0x81, G, -1, 0xD0, 0x05 },
    { DS_UARCH_GRACEMONT, DS_EVENT_STORES, 0xD0, 0x82, G, -1, 0, 0 },
    { DS_UARCH_LIONCOVE, DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, F, 0, 0, 0 },
    { DS_UARCH_LIONCOVE, DS_EVENT_BRANCHES, 0xC4, 0x00, G, -1, 0, 0 },
    { DS_UARCH_LIONCOVE, DS_EVENT_LOADS, 0xD0, 0x81, G, -1, 0xCD, 0x01 },
    { DS_UARCH_LIONCOVE, DS_EVENT_STORES, 0xD0, 0x82, G, -1, 0, 0 },
    { DS_UARCH_SKYMONT, DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, F, 0, 0, 0 },
    { DS_UARCH_SKYMONT, DS_EVENT_BRANCHES, 0xC4, 0x00, G, -1, 0, 0 },
    { DS_UARCH_SKYMONT, DS_EVENT_LOADS, 0xD0, 0x81, G, -1, 0xD0, 0x05 },
    { DS_UARCH_SKYMONT, DS_EVENT_STORES, 0xD0, 0x82, G, -1, 0, 0 },
    { DS_UARCH_NEHALEM, DS_EVENT_INSTRUCTIONS, 0xC0, 0x01, G, 0, 0, 0 },
    { DS_UARCH_NEHALEM, DS_EVENT_BRANCHES, 0xC4, 0x04, G, -1, 0, 0 },
    { DS_UARCH_NEHALEM, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, N, -1, 0, 0 },
    { DS_UARCH_NEHALEM, DS_EVENT_LOADS, 0x0B, 0x01, N, -1, 0x0B, 0x10 },
    { DS_UARCH_NEHALEM, DS_EVENT_STORES, 0x0B, 0x02, N, -1, 0, 0 },
    { DS_UARCH_CORE2, DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, G, 0, 0, 0 },
    { DS_UARCH_CORE2, DS_EVENT_BRANCHES, 0xC4, 0x00, N, -1, 0, 0 },
    { DS_UARCH_CORE2, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, G, -1, 0, 0 },
    { DS_UARCH_CORE2, DS_EVENT_LOADS, 0xC0, 0x01, N, -1, 0, 0 },
    { DS_UARCH_CORE2, DS_EVENT_STORES, 0xC0, 0x02, N, -1, 0, 0 },
    { DS_UARCH_CORE2, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
};
#undef G
#undef F
#undef N

static void test_encodings(void)
{
    static struct fake_cpu f;
    for (size_t i = 0; i < sizeof(encs) / sizeof(encs[0]); i++) {
        const struct enc *x = &encs[i];
        struct ds_cpu cpu;
        struct ds_event_desc d;
        enum ds_uarch u;
        CHECK_EQ(cpu_of(&f, &cpu, profile_of(x->u)), DS_OK, "identify %s", ds_uarch_name(x->u));
        CHECK(ds_uarch_of(&cpu, &u) == DS_OK && u == x->u, "profile is %s", ds_uarch_name(x->u));
        int r = ds_event_lookup(&cpu, x->e, &d);
        CHECK_EQ(r, DS_OK, "%s %s", ds_uarch_name(x->u), ds_event_name(x->e));
        if (r != DS_OK)
            continue;
        CHECK(d.event == x->e && d.uarch == x->u, "%s %s: row identity", ds_uarch_name(x->u), ds_event_name(x->e));
        CHECK(d.evsel == x->ev && d.umask == x->um, "%s %s: %02XH/%02XH, want %02XH/%02XH", ds_uarch_name(x->u),
              ds_event_name(x->e), d.evsel, d.umask, x->ev, x->um);
        CHECK(d.precise == x->p, "%s %s: precise %d, want %d", ds_uarch_name(x->u), ds_event_name(x->e), d.precise, x->p);
        CHECK(d.fixed == x->fixed, "%s %s: fixed %d", ds_uarch_name(x->u), ds_event_name(x->e), d.fixed);
        CHECK(d.ll_evsel == x->lle && d.ll_umask == x->llu, "%s %s: latency variant %02XH/%02XH",
              ds_uarch_name(x->u), ds_event_name(x->e), d.ll_evsel, d.ll_umask);
        CHECK(d.cmask == 0 && !d.inv && !d.ldlat, "%s %s: plain event", ds_uarch_name(x->u), ds_event_name(x->e));
        CHECK(d.name && d.source && d.source[0], "%s %s: named and sourced", ds_uarch_name(x->u), ds_event_name(x->e));
    }
}

/* NetBurst: SDM Pentium 4 event names and Linux p4.c p4_general_events,
 * checked against netburst.h's own tables (names must resolve there). */
static void test_netburst(void)
{
    static const struct {
        enum ds_event e;
        const char *ev, *mask, *tag, *tagmask;
        int metric;
    } nb[] = {
        { DS_EVENT_INSTRUCTIONS, "instr_retired", "NBOGUSNTAG|NBOGUSTAG", NULL, NULL, -1 },
        { DS_EVENT_BRANCHES, "branch_retired", "MMNP|MMNM|MMTP|MMTM", NULL, NULL, -1 },
        { DS_EVENT_BRANCH_MISSES, "replay_event", "NBOGUS", NULL, NULL, DS_NB_METRIC_TAGGED_MISPRED_BRANCH },
        { DS_EVENT_LOADS, "front_end_event", "NBOGUS", "uop_type", "TAGLOADS", -1 },
        { DS_EVENT_STORES, "front_end_event", "NBOGUS", "uop_type", "TAGSTORES", -1 },
        { DS_EVENT_CYCLES, "global_power_events", "RUNNING", NULL, NULL, -1 },
    };
    static struct fake_cpu f;
    struct ds_cpu cpu;
    fake_netburst(&f);
    ds_cpu_init(&cpu, &fake_ops, &f);
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "NetBurst identify");
    for (size_t i = 0; i < sizeof(nb) / sizeof(nb[0]); i++) {
        struct ds_event_desc d;
        CHECK_EQ(ds_event_lookup(&cpu, nb[i].e, &d), DS_OK, "NetBurst %s", ds_event_name(nb[i].e));
        CHECK(d.nb_event && strcmp(d.nb_event, nb[i].ev) == 0, "NetBurst %s event", ds_event_name(nb[i].e));
        CHECK(d.nb_mask && strcmp(d.nb_mask, nb[i].mask) == 0, "NetBurst %s mask", ds_event_name(nb[i].e));
        CHECK(d.nb_metric == nb[i].metric, "NetBurst %s metric %d", ds_event_name(nb[i].e), d.nb_metric);
        CHECK((d.nb_tag_event == NULL) == (nb[i].tag == NULL) &&
                  (!nb[i].tag || (strcmp(d.nb_tag_event, nb[i].tag) == 0 && strcmp(d.nb_tag_mask, nb[i].tagmask) == 0)),
              "NetBurst %s tagging event", ds_event_name(nb[i].e));
        CHECK(d.precise == (nb[i].metric >= 0 ? DS_PRECISE_NETBURST : DS_PRECISE_NONE), "NetBurst %s precise",
              ds_event_name(nb[i].e));
    }
}

/* ---- every row against pmc.h / netburst.h ------------------------------- */

static uint64_t evtsel_of(const struct ds_event_desc *d)
{
    return DS_EVTSEL(d->evsel, d->umask) | DS_EVTSEL_USR | DS_EVTSEL_OS | DS_EVTSEL_EN |
           ((uint64_t)d->cmask << DS_EVTSEL_CMASK_SHIFT) | (d->inv ? DS_EVTSEL_INV : 0);
}

/* Some GP counter of a fresh @p CPU takes PEBS for @evtsel. */
static bool gp_pebs_ok(const struct profile *p, uint64_t evtsel)
{
    static struct fake_cpu f;
    for (unsigned idx = 0; idx < p->gp; idx++) {
        struct ds_cpu cpu;
        cpu_of(&f, &cpu, p);
        if (ds_pmc_pebs_enable(&cpu, idx, evtsel) == DS_OK)
            return true;
    }
    return false;
}

static int fixed_pebs(const struct profile *p, unsigned idx)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    cpu_of(&f, &cpu, p);
    return ds_pmc_pebs_enable_fixed(&cpu, idx);
}

/* Load latency works on some counter (threshold 3, the SDM minimum). */
static bool ldlat_ok(const struct profile *p)
{
    static struct fake_cpu f;
    for (unsigned idx = 0; idx < 4 && idx < p->gp; idx++) {
        struct ds_cpu cpu;
        cpu_of(&f, &cpu, p);
        fake_set_msr(&f, DS_MSR_PEBS_LD_LAT, 0);
        if (ds_pmc_pebs_ldlat(&cpu, idx, DS_PEBS_LDLAT_MIN) == DS_OK)
            return true;
    }
    return false;
}

static void check_nb_row(const struct ds_event_desc *d)
{
    unsigned idx, tidx;
    uint32_t mask;
    size_t n;
    const struct ds_nb_event_info *evs = ds_nb_events(&n);
    const struct ds_nb_metric_info *mi;
    CHECK(ds_nb_event_find(d->nb_event, &idx) == DS_OK, "NetBurst %s: event %s known", d->name, d->nb_event);
    CHECK(ds_nb_mask_parse(idx, d->nb_mask, &mask) == DS_OK && mask, "NetBurst %s: mask %s", d->name, d->nb_mask);
    if (d->nb_tag_event) {
        CHECK(ds_nb_event_find(d->nb_tag_event, &tidx) == DS_OK, "NetBurst %s: tag event", d->name);
        CHECK(ds_nb_mask_parse(tidx, d->nb_tag_mask, &mask) == DS_OK, "NetBurst %s: tag mask", d->name);
    }
    if (d->precise == DS_PRECISE_NETBURST) {
        CHECK(ds_nb_metric_info((unsigned)d->nb_metric, &mi) == DS_OK, "NetBurst %s: metric", d->name);
        CHECK(idx < n && (evs[idx].flags & DS_NB_EV_PEBS), "NetBurst %s: PEBS-capable event", d->name);
    } else {
        CHECK(d->precise == DS_PRECISE_NONE && d->nb_metric == -1, "NetBurst %s: no PEBS", d->name);
    }
}

/* Where pmc.h checks PEBS events (Core 2, Nehalem), a row that says
 * "not precise" must also be refused there: the table and pmc.h agree.
 * Bonnell left the list with issue 25 item 8: pmc.h follows Linux's
 * catch-all row there, like Sandy Bridge onwards (the rows follow perfmon). */
static bool pmc_lists_events(enum ds_uarch u)
{
    return u == DS_UARCH_CORE2 || u == DS_UARCH_NEHALEM;
}

static void check_pmc_row(const struct ds_event_desc *d, const struct profile *p)
{
    const char *un = ds_uarch_name(d->uarch);
    if (d->precise == DS_PRECISE_GP)
        CHECK(gp_pebs_ok(p, evtsel_of(d)), "%s %s: some GP counter takes PEBS", un, d->name);
    if (d->precise == DS_PRECISE_FIXED) {
        CHECK_EQ(fixed_pebs(p, (unsigned)d->fixed), DS_OK, "%s %s: fixed %d takes PEBS", un, d->name, d->fixed);
        CHECK(gp_pebs_ok(p, evtsel_of(d)), "%s %s: and a GP counter", un, d->name);
    }
    if (d->precise == DS_PRECISE_NONE && pmc_lists_events(d->uarch))
        CHECK(!gp_pebs_ok(p, evtsel_of(d)), "%s %s: pmc.h refuses PEBS as the row says", un, d->name);
    if (d->ll_evsel)
        CHECK(ldlat_ok(p), "%s %s: ds_pmc_pebs_ldlat works", un, d->name);
}

static void test_rows(void)
{
    size_t n;
    const struct ds_event_desc *t = event_table(&n);
    CHECK(t && n > 0, "table");
    unsigned seen[DS_UARCH__COUNT][DS_EVENT__COUNT];
    memset(seen, 0, sizeof seen);
    for (size_t i = 0; i < n; i++) {
        const struct ds_event_desc *d = &t[i];
        CHECK(d->uarch > DS_UARCH_UNKNOWN && d->uarch < DS_UARCH__COUNT, "row %zu uarch", i);
        CHECK(d->event > DS_EVENT_NONE && d->event < DS_EVENT__COUNT, "row %zu event", i);
        if (d->uarch >= DS_UARCH__COUNT || d->event >= DS_EVENT__COUNT)
            continue;
        seen[d->uarch][d->event]++;
        CHECK(d->name && d->source && strlen(d->source) > 8, "row %zu named and sourced", i);
        CHECK(d->fixed == -1 || (d->fixed == 0 && d->event == DS_EVENT_INSTRUCTIONS) ||
                  (d->fixed == 1 && d->event == DS_EVENT_CYCLES), "row %zu (%s) fixed counter %d", i, d->name, d->fixed);
        CHECK(d->precise != DS_PRECISE_FIXED || d->fixed >= 0, "row %zu FIXED names its counter", i);
        CHECK(!d->ldlat, "row %zu: no row is itself a latency event", i);
        CHECK(!d->ll_evsel || d->event == DS_EVENT_LOADS, "row %zu: latency variant only for loads", i);
        CHECK((d->uarch == DS_UARCH_NETBURST) == (d->nb_event != NULL), "row %zu NetBurst names", i);
        if (d->uarch == DS_UARCH_NETBURST) {
            check_nb_row(d);
            continue;
        }
        const struct profile *p = profile_of(d->uarch);
        if (!p) {
            /* Cougar Cove / Darkmont: architectural PEBS, checked on the
             * Panther Lake dump (check_arch_pebs_rows). Coyote Cove /
             * Arctic Wolf (Nova Lake): no public CPUID dump, so their
             * precise column is the perfmon JSON's alone (unverified). */
            CHECK(d->uarch == DS_UARCH_COUGARCOVE || d->uarch == DS_UARCH_DARKMONT ||
                      d->uarch == DS_UARCH_COYOTECOVE || d->uarch == DS_UARCH_ARCTICWOLF,
                  "row %zu has a profile", i);
            continue;
        }
        check_pmc_row(d, p);
    }
    for (unsigned u = 1; u < DS_UARCH__COUNT; u++) {
        unsigned rows = 0;
        for (unsigned e = 1; e < DS_EVENT__COUNT; e++) {
            CHECK(seen[u][e] <= 1, "%s %s: one row at most", ds_uarch_name((enum ds_uarch)u),
                  ds_event_name((enum ds_event)e));
            rows += seen[u][e];
        }
        CHECK(rows == (u == DS_UARCH_BONNELL || u == DS_UARCH_ARCTICWOLF || u == DS_UARCH_YONAH ? 4u : 6u), "%s: %u rows",
              ds_uarch_name((enum ds_uarch)u), rows);
    }
}

/* ---- errors and boundaries ---------------------------------------------- */

static int uarch_of_native(struct fake_cpu *f, uint32_t sig, uint8_t core_type, uint32_t native, bool hybrid,
                           enum ds_uarch *u)
{
    struct profile p = profiles[0];
    struct ds_cpu cpu;
    p.sig = sig;
    p.core_type = core_type;
    fake_profile(f, &p);
    for (int i = 0; i < f->nleaves; i++)
        if (f->leaves[i].leaf == 0x1A)
            f->leaves[i].r[0] |= native; /* CPUID.1AH:EAX[23:0] native model ID */
    ds_cpu_init(&cpu, &fake_ops, f);
    ds_cpu_identify(&cpu);
    cpu.caps.hybrid = hybrid; /* CPUID.07H:EDX[15], independent of the core type here */
    return ds_uarch_of(&cpu, u);
}

static int uarch_of_sig(struct fake_cpu *f, uint32_t sig, uint8_t core_type, bool hybrid, enum ds_uarch *u)
{
    return uarch_of_native(f, sig, core_type, 0, hybrid, u);
}

static void test_uarch_rules(void)
{
    static struct fake_cpu f;
    enum ds_uarch u = DS_UARCH_SKYLAKE;
    /* Outside the table: Pentium M 06_09H, Nova Lake 18_01H, Diamond Rapids 19_01H. */
    CHECK_EQ(uarch_of_sig(&f, 0x00000695, 0, false, &u), DS_ERR_EVENT_UARCH, "06_09H");
    CHECK_EQ(u, DS_UARCH_UNKNOWN, "06_09H: out cleared");
    CHECK_EQ(uarch_of_sig(&f, 0x00300F20, 0, false, &u), DS_ERR_EVENT_UARCH, "family 18 model 02H");
    CHECK_EQ(uarch_of_sig(&f, 0x00400F10, 0, false, &u), DS_ERR_EVENT_UARCH, "family 19 (Diamond Rapids)");
    /* Hybrid Alder Lake 06_97H: the core type decides. */
    CHECK(uarch_of_sig(&f, 0x00090672, DS_CORE_TYPE_CORE, true, &u) == DS_OK && u == DS_UARCH_GOLDENCOVE, "ADL P-core");
    CHECK(uarch_of_sig(&f, 0x00090672, DS_CORE_TYPE_ATOM, true, &u) == DS_OK && u == DS_UARCH_GRACEMONT, "ADL E-core");
    CHECK_EQ(uarch_of_sig(&f, 0x00090672, 0, true, &u), DS_ERR_EVENT_UARCH, "ADL hybrid without a core type");
    CHECK_EQ(uarch_of_sig(&f, 0x00090672, 0x10, true, &u), DS_ERR_EVENT_UARCH, "ADL unknown core type 10H");
    CHECK(uarch_of_sig(&f, 0x00090672, 0, false, &u) == DS_OK && u == DS_UARCH_GOLDENCOVE, "ADL P-core-only SKU");
    /* Arrow Lake U 06_B5H is Meteor Lake silicon (Linux intel_pmu_init). */
    CHECK(uarch_of_sig(&f, 0x000B0650, DS_CORE_TYPE_ATOM, true, &u) == DS_OK && u == DS_UARCH_CRESTMONT, "ARL-U E-core");
    /* Arrow Lake H 06_C5H: Skymont E-cores (native model 3) and low-power
     * Crestmont E-cores (native model 2): perfmon mapfile.csv rows 6-C5. */
    CHECK(uarch_of_native(&f, 0x000C0650, DS_CORE_TYPE_ATOM, 3, true, &u) == DS_OK && u == DS_UARCH_SKYMONT,
          "ARL-H E-core");
    CHECK(uarch_of_native(&f, 0x000C0650, DS_CORE_TYPE_ATOM, 2, true, &u) == DS_OK && u == DS_UARCH_CRESTMONT,
          "ARL-H low-power E-core: %s", ds_uarch_name(u));
    CHECK(uarch_of_native(&f, 0x000C0650, DS_CORE_TYPE_CORE, 3, true, &u) == DS_OK && u == DS_UARCH_LIONCOVE,
          "ARL-H P-core");
    /* Nova Lake 12_01H / 12_03H (intel-family.h, perfmon mapfile.csv 18-1/18-3: native model 5). */
    CHECK(uarch_of_native(&f, 0x00300F10, DS_CORE_TYPE_CORE, 5, true, &u) == DS_OK && u == DS_UARCH_COYOTECOVE,
          "NVL P-core");
    CHECK(uarch_of_native(&f, 0x00300F30, DS_CORE_TYPE_ATOM, 5, true, &u) == DS_OK && u == DS_UARCH_ARCTICWOLF,
          "NVL-L E-core");
    CHECK(uarch_of_native(&f, 0x00300F10, DS_CORE_TYPE_ATOM, 0, true, &u) == DS_OK && u == DS_UARCH_ARCTICWOLF,
          "NVL E-core by the model rule");
    /* Bartlett Lake 06_D7H: Raptor Cove, with the P-core-only parts in intel-family.h. */
    CHECK(uarch_of_sig(&f, 0x000D0670, 0, false, &u) == DS_OK && u == DS_UARCH_GOLDENCOVE, "Bartlett Lake");
    /* A non-hybrid model ignores leaf 1AH (Jasper Lake reports Atom; a Core type changes nothing). */
    CHECK(uarch_of_sig(&f, 0x000906C0, DS_CORE_TYPE_CORE, false, &u) == DS_OK && u == DS_UARCH_TREMONT, "JSL");
}

static void test_errors(void)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_event_desc d;
    enum ds_uarch u;
    const struct profile *skl = profile_of(DS_UARCH_SKYLAKE);
    cpu_of(&f, &cpu, skl);
    CHECK_EQ(ds_uarch_of(NULL, &u), DS_ERR_NULL, "uarch NULL cpu");
    CHECK_EQ(ds_uarch_of(&cpu, NULL), DS_ERR_NULL, "uarch NULL out");
    CHECK_EQ(ds_event_lookup(NULL, DS_EVENT_INSTRUCTIONS, &d), DS_ERR_NULL, "lookup NULL cpu");
    CHECK_EQ(ds_event_lookup(&cpu, DS_EVENT_INSTRUCTIONS, NULL), DS_ERR_NULL, "lookup NULL out");
    CHECK_EQ(ds_event_lookup(&cpu, DS_EVENT_NONE, &d), DS_ERR_EVENT_UNKNOWN, "event 0");
    CHECK_EQ(ds_event_lookup(&cpu, DS_EVENT__COUNT, &d), DS_ERR_EVENT_UNKNOWN, "DS_EVENT__COUNT");
    CHECK_EQ(ds_event_lookup(&cpu, (enum ds_event)-1, &d), DS_ERR_EVENT_UNKNOWN, "event -1");
    CHECK_EQ(ds_event_lookup(&cpu, DS_EVENT_CYCLES, &d), DS_OK, "last event");

    struct ds_cpu raw;
    ds_cpu_init(&raw, &fake_ops, &f);
    CHECK_EQ(ds_uarch_of(&raw, &u), DS_ERR_NOT_IDENTIFIED, "uarch before identify");
    CHECK_EQ(ds_event_lookup(&raw, DS_EVENT_INSTRUCTIONS, &d), DS_ERR_NOT_IDENTIFIED, "lookup before identify");

    /* AMD family 0FH (K8): never NetBurst. */
    fake_profile(&f, skl);
    f.leaves[0].r[1] = 0x68747541u; f.leaves[0].r[3] = 0x69746E65u; f.leaves[0].r[2] = 0x444D4163u;
    f.leaves[1].r[0] = 0x00000F4A;
    ds_cpu_init(&cpu, &fake_ops, &f);
    ds_cpu_identify(&cpu);
    CHECK_EQ(ds_uarch_of(&cpu, &u), DS_ERR_NOT_INTEL, "AMD K8");
    CHECK_EQ(ds_event_lookup(&cpu, DS_EVENT_INSTRUCTIONS, &d), DS_ERR_NOT_INTEL, "AMD lookup");

    CHECK_EQ(uarch_of_sig(&f, 0x00000695, 0, false, &u), DS_ERR_EVENT_UARCH, "unknown model");
    cpu_of(&f, &cpu, profile_of(DS_UARCH_BONNELL));
    CHECK_EQ(ds_event_lookup(&cpu, DS_EVENT_LOADS, &d), DS_ERR_EVENT_NONE, "Bonnell loads");
    CHECK_EQ(ds_event_lookup(&cpu, DS_EVENT_STORES, &d), DS_ERR_EVENT_NONE, "Bonnell stores");
    CHECK_EQ(ds_event_lookup(&cpu, DS_EVENT_BRANCHES, &d), DS_OK, "Bonnell branches");
    /* Arctic Wolf: novalake_arcticwolf_core.json V1.00 lists no retired load/store event. */
    {
        struct profile p = *profile_of(DS_UARCH_SKYMONT);
        p.sig = 0x00300F10;
        cpu_of(&f, &cpu, &p);
        CHECK(ds_uarch_of(&cpu, &u) == DS_OK && u == DS_UARCH_ARCTICWOLF, "NVL E-core profile");
        CHECK_EQ(ds_event_lookup(&cpu, DS_EVENT_LOADS, &d), DS_ERR_EVENT_NONE, "Arctic Wolf loads");
        CHECK_EQ(ds_event_lookup(&cpu, DS_EVENT_INSTRUCTIONS, &d), DS_OK, "Arctic Wolf instructions");
    }
}

/* CPUID.0AH:EBX: bit set inside the vector length (EAX[31:24]) = not available. */
static int lookup_with_ebx(enum ds_event ev, uint32_t ebx, unsigned len)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_event_desc d;
    fake_profile(&f, profile_of(DS_UARCH_SKYLAKE));
    for (int i = 0; i < f.nleaves; i++)
        if (f.leaves[i].leaf == 0xA) {
            f.leaves[i].r[0] = (f.leaves[i].r[0] & 0x00FFFFFFu) | (len << 24);
            f.leaves[i].r[1] = ebx;
        }
    ds_cpu_init(&cpu, &fake_ops, &f);
    ds_cpu_identify(&cpu);
    return ds_event_lookup(&cpu, ev, &d);
}

static void test_unavailable(void)
{
    static const struct { enum ds_event e; unsigned bit; } a[] = {
        { DS_EVENT_CYCLES, 0 }, { DS_EVENT_INSTRUCTIONS, 1 }, { DS_EVENT_BRANCHES, 5 }, { DS_EVENT_BRANCH_MISSES, 6 },
    };
    for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
        const char *n = ds_event_name(a[i].e);
        CHECK_EQ(lookup_with_ebx(a[i].e, 1u << a[i].bit, 7), DS_ERR_EVENT_UNAVAILABLE, "%s: EBX bit %u", n, a[i].bit);
        CHECK_EQ(lookup_with_ebx(a[i].e, 1u << a[i].bit, a[i].bit + 1), DS_ERR_EVENT_UNAVAILABLE, "%s: length just covers", n);
        CHECK_EQ(lookup_with_ebx(a[i].e, 1u << a[i].bit, a[i].bit), DS_OK, "%s: bit beyond the length", n);
        CHECK_EQ(lookup_with_ebx(a[i].e, ~(1u << a[i].bit), 7), DS_OK, "%s: every other bit set", n);
    }
    CHECK_EQ(lookup_with_ebx(DS_EVENT_LOADS, 0x7F, 7), DS_OK, "loads: no architectural bit");
    CHECK_EQ(lookup_with_ebx(DS_EVENT_STORES, 0x7F, 7), DS_OK, "stores: no architectural bit");
}

static void test_names(void)
{
    for (unsigned u = 1; u < DS_UARCH__COUNT; u++) {
        const char *n = ds_uarch_name((enum ds_uarch)u);
        CHECK(n && strcmp(n, "unknown") != 0, "uarch %u named", u);
        for (unsigned v = 1; v < u; v++)
            CHECK(strcmp(n, ds_uarch_name((enum ds_uarch)v)) != 0, "uarch names %u/%u differ", u, v);
    }
    CHECK(strcmp(ds_uarch_name(DS_UARCH__COUNT), "unknown") == 0, "uarch out of range");
    CHECK(strcmp(ds_uarch_name((enum ds_uarch)-1), "unknown") == 0, "uarch -1");
    CHECK(strcmp(ds_uarch_name(DS_UARCH_GOLDENCOVE), "goldencove") == 0, "goldencove");
    /* the longest names fill event.c's char[14] rows but one byte (the NUL) */
    CHECK(strcmp(ds_uarch_name(DS_UARCH_GOLDMONT_PLUS), "goldmont_plus") == 0, "goldmont_plus");
    CHECK(strcmp(ds_event_name(DS_EVENT_INSTRUCTIONS), "instructions") == 0, "instructions");
    CHECK(strcmp(ds_event_name(DS_EVENT_BRANCH_MISSES), "branch-misses") == 0, "branch-misses");
    CHECK(strcmp(ds_event_name(DS_EVENT__COUNT), "unknown") == 0, "event out of range");
    CHECK(strcmp(ds_event_name(DS_EVENT_NONE), "unknown") == 0, "event 0");
}

/* ---- the rest of the table: a second independent transcription ---------- */

/* The rows encs[] leaves out (every microarchitecture that has a fake
 * profile, every generic event), typed from the perfmon JSON EventCode/
 * UMask/PEBS fields of SNB/sandybridge_core.json, HSW/haswell_core.json,
 * BNL/bonnell_core.json, SLM/silvermont_core.json, KNL/
 * knightslanding_core.json, GLM/goldmont_core.json, GLP/
 * goldmontplus_core.json, EHL/elkhartlake_core.json (Tremont), GNR/
 * graniterapids_core.json (Redwood Cove), SRF/sierraforest_core.json
 * (Crestmont) and the SPR/ADL/LNL files of encs[]; load-latency variants
 * from Linux core.c mem-loads "event=0xcd,umask=0x1,ldlat=3" (mem_ld_hsw/
 * icl: SNB..SKL, ICL, SPR, GNR, LNL P-cores) and "event=0xd0,umask=0x5,
 * ldlat=3" (mem_ld_adl: Gracemont, Crestmont, Skymont); Tremont has no
 * mem-loads alias in Linux (no load-latency variant). CYCLES is
 * CPU_CLK_UNHALTED.THREAD_P / CORE_P 3CH/00H on every part (architectural
 * event, fixed counter 1, PEBS 0). Knights Landing stores are left out
 * (not found in the JSON as recalled). */
static const struct enc encs_rest[] = {
#define G DS_PRECISE_GP
#define F DS_PRECISE_FIXED
#define N DS_PRECISE_NONE
    { DS_UARCH_SANDYBRIDGE, DS_EVENT_INSTRUCTIONS, 0xC0, 0x01, G, 0, 0, 0 },
    { DS_UARCH_SANDYBRIDGE, DS_EVENT_BRANCHES, 0xC4, 0x04, G, -1, 0, 0 },
    { DS_UARCH_SANDYBRIDGE, DS_EVENT_BRANCH_MISSES, 0xC5, 0x04, G, -1, 0, 0 },
    { DS_UARCH_SANDYBRIDGE, DS_EVENT_LOADS, 0xD0, 0x81, G, -1, 0xCD, 0x01 },
    { DS_UARCH_SANDYBRIDGE, DS_EVENT_STORES, 0xD0, 0x82, G, -1, 0, 0 },
    { DS_UARCH_SANDYBRIDGE, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_HASWELL, DS_EVENT_INSTRUCTIONS, 0xC0, 0x01, G, 0, 0, 0 },
    { DS_UARCH_HASWELL, DS_EVENT_BRANCHES, 0xC4, 0x04, G, -1, 0, 0 },
    { DS_UARCH_HASWELL, DS_EVENT_BRANCH_MISSES, 0xC5, 0x04, G, -1, 0, 0 },
    { DS_UARCH_HASWELL, DS_EVENT_LOADS, 0xD0, 0x81, G, -1, 0xCD, 0x01 },
    { DS_UARCH_HASWELL, DS_EVENT_STORES, 0xD0, 0x82, G, -1, 0, 0 },
    { DS_UARCH_HASWELL, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_BONNELL, DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, G, 0, 0, 0 },
    { DS_UARCH_BONNELL, DS_EVENT_BRANCHES, 0xC4, 0x00, N, -1, 0, 0 },
    { DS_UARCH_BONNELL, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, G, -1, 0, 0 },
    { DS_UARCH_BONNELL, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_SILVERMONT, DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, N, 0, 0, 0 },
    { DS_UARCH_SILVERMONT, DS_EVENT_BRANCHES, 0xC4, 0x00, G, -1, 0, 0 },
    { DS_UARCH_SILVERMONT, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, G, -1, 0, 0 },
    { DS_UARCH_SILVERMONT, DS_EVENT_LOADS, 0x04, 0x40, N, -1, 0, 0 },
    { DS_UARCH_SILVERMONT, DS_EVENT_STORES, 0x04, 0x80, N, -1, 0, 0 },
    { DS_UARCH_SILVERMONT, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_KNIGHTS, DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, G, 0, 0, 0 },
    { DS_UARCH_KNIGHTS, DS_EVENT_BRANCHES, 0xC4, 0x00, G, -1, 0, 0 },
    { DS_UARCH_KNIGHTS, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, G, -1, 0, 0 },
    { DS_UARCH_KNIGHTS, DS_EVENT_LOADS, 0x04, 0x40, N, -1, 0, 0 },
    { DS_UARCH_KNIGHTS, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_GOLDMONT, DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, G, 0, 0, 0 },
    { DS_UARCH_GOLDMONT, DS_EVENT_BRANCHES, 0xC4, 0x00, G, -1, 0, 0 },
    { DS_UARCH_GOLDMONT, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, G, -1, 0, 0 },
    { DS_UARCH_GOLDMONT, DS_EVENT_LOADS, 0xD0, 0x81, G, -1, 0, 0 },
    { DS_UARCH_GOLDMONT, DS_EVENT_STORES, 0xD0, 0x82, G, -1, 0, 0 },
    { DS_UARCH_GOLDMONT, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_GOLDMONT_PLUS, DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, F, 0, 0, 0 },
    { DS_UARCH_GOLDMONT_PLUS, DS_EVENT_BRANCHES, 0xC4, 0x00, G, -1, 0, 0 },
    { DS_UARCH_GOLDMONT_PLUS, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, G, -1, 0, 0 },
    { DS_UARCH_GOLDMONT_PLUS, DS_EVENT_LOADS, 0xD0, 0x81, G, -1, 0, 0 },
    { DS_UARCH_GOLDMONT_PLUS, DS_EVENT_STORES, 0xD0, 0x82, G, -1, 0, 0 },
    { DS_UARCH_GOLDMONT_PLUS, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_TREMONT, DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, F, 0, 0, 0 },
    { DS_UARCH_TREMONT, DS_EVENT_BRANCHES, 0xC4, 0x00, G, -1, 0, 0 },
    { DS_UARCH_TREMONT, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, G, -1, 0, 0 },
    { DS_UARCH_TREMONT, DS_EVENT_LOADS, 0xD0, 0x81, G, -1, 0, 0 },
    { DS_UARCH_TREMONT, DS_EVENT_STORES, 0xD0, 0x82, G, -1, 0, 0 },
    { DS_UARCH_TREMONT, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_NEHALEM, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_GOLDENCOVE, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, G, -1, 0, 0 },
    { DS_UARCH_GOLDENCOVE, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_GRACEMONT, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, G, -1, 0, 0 },
    { DS_UARCH_GRACEMONT, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_REDWOODCOVE, DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, F, 0, 0, 0 },
    { DS_UARCH_REDWOODCOVE, DS_EVENT_BRANCHES, 0xC4, 0x00, G, -1, 0, 0 },
    { DS_UARCH_REDWOODCOVE, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, G, -1, 0, 0 },
    { DS_UARCH_REDWOODCOVE, DS_EVENT_LOADS, 0xD0, 0x81, G, -1, 0xCD, 0x01 },
    { DS_UARCH_REDWOODCOVE, DS_EVENT_STORES, 0xD0, 0x82, G, -1, 0, 0 },
    { DS_UARCH_REDWOODCOVE, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_CRESTMONT, DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, F, 0, 0, 0 },
    { DS_UARCH_CRESTMONT, DS_EVENT_BRANCHES, 0xC4, 0x00, G, -1, 0, 0 },
    { DS_UARCH_CRESTMONT, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, G, -1, 0, 0 },
    { DS_UARCH_CRESTMONT, DS_EVENT_LOADS, 0xD0, 0x81, G, -1, 0xD0, 0x05 },
    { DS_UARCH_CRESTMONT, DS_EVENT_STORES, 0xD0, 0x82, G, -1, 0, 0 },
    { DS_UARCH_CRESTMONT, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_LIONCOVE, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, G, -1, 0, 0 },
    { DS_UARCH_LIONCOVE, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
    { DS_UARCH_SKYMONT, DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, G, -1, 0, 0 },
    { DS_UARCH_SKYMONT, DS_EVENT_CYCLES, 0x3C, 0x00, N, 1, 0, 0 },
#undef G
#undef F
#undef N
};

static void test_encodings_rest(void)
{
    static struct fake_cpu f;
    for (size_t i = 0; i < sizeof(encs_rest) / sizeof(encs_rest[0]); i++) {
        const struct enc *x = &encs_rest[i];
        const char *un = ds_uarch_name(x->u), *en = ds_event_name(x->e);
        struct ds_cpu cpu;
        struct ds_event_desc d;
        enum ds_uarch u;
        CHECK_EQ(cpu_of(&f, &cpu, profile_of(x->u)), DS_OK, "identify %s", un);
        CHECK(ds_uarch_of(&cpu, &u) == DS_OK && u == x->u, "profile is %s", un);
        if (ds_event_lookup(&cpu, x->e, &d) != DS_OK) {
            CHECK(false, "%s %s: looked up", un, en);
            continue;
        }
        CHECK(d.event == x->e && d.uarch == x->u && d.evsel == x->ev && d.umask == x->um,
              "%s %s: %02XH/%02XH, want %02XH/%02XH", un, en, d.evsel, d.umask, x->ev, x->um);
        CHECK(d.precise == x->p && d.fixed == x->fixed, "%s %s: precise %d fixed %d, want %d %d", un, en,
              d.precise, d.fixed, x->p, x->fixed);
        CHECK(d.ll_evsel == x->lle && d.ll_umask == x->llu, "%s %s: latency variant %02XH/%02XH, want %02XH/%02XH",
              un, en, d.ll_evsel, d.ll_umask, x->lle, x->llu);
        CHECK(d.cmask == 0 && !d.inv && !d.ldlat, "%s %s: plain event", un, en);
    }
}

/* The architectural-PEBS uarches (no fake profile here: found in the table
 * itself) typed from perfmon PTL/events/pantherlake_{cougarcove,darkmont}
 * _core.json and NVL/events/novalake_{coyotecove,arcticwolf}_core.json
 * V1.00: INST_RETIRED.ANY_P C0H/00H (fixed 0), BR_INST_RETIRED.ALL_BRANCHES
 * C4H/00H, BR_MISP_RETIRED.ALL_BRANCHES C5H/00H, MEM_{INST,UOPS}_RETIRED.
 * ALL_LOADS/ALL_STORES D0H/81H, 82H (none published for Arctic Wolf),
 * cycles 3CH/00H (fixed 1). Precise: fixed 0 for instructions, a GP
 * counter for the others, none for cycles. */
static void test_encodings_arch_pebs_uarches(void)
{
    static const enum ds_uarch us[] = { DS_UARCH_COUGARCOVE, DS_UARCH_DARKMONT, DS_UARCH_COYOTECOVE,
                                        DS_UARCH_ARCTICWOLF };
    static const struct { enum ds_event e; uint8_t ev, um; enum ds_event_precise p; int8_t fixed; } want[] = {
        { DS_EVENT_INSTRUCTIONS, 0xC0, 0x00, DS_PRECISE_FIXED, 0 },
        { DS_EVENT_BRANCHES, 0xC4, 0x00, DS_PRECISE_GP, -1 },
        { DS_EVENT_BRANCH_MISSES, 0xC5, 0x00, DS_PRECISE_GP, -1 },
        { DS_EVENT_LOADS, 0xD0, 0x81, DS_PRECISE_GP, -1 },
        { DS_EVENT_STORES, 0xD0, 0x82, DS_PRECISE_GP, -1 },
        { DS_EVENT_CYCLES, 0x3C, 0x00, DS_PRECISE_NONE, 1 },
    };
    size_t n;
    const struct ds_event_desc *t = event_table(&n);
    for (size_t k = 0; k < sizeof(us) / sizeof(us[0]); k++)
        for (size_t j = 0; j < sizeof(want) / sizeof(want[0]); j++) {
            bool none = us[k] == DS_UARCH_ARCTICWOLF && (want[j].e == DS_EVENT_LOADS || want[j].e == DS_EVENT_STORES);
            const struct ds_event_desc *d = NULL;
            unsigned rows = 0;
            for (size_t i = 0; i < n; i++)
                if (t[i].uarch == us[k] && t[i].event == want[j].e) {
                    d = &t[i];
                    rows++;
                }
            const char *un = ds_uarch_name(us[k]), *en = ds_event_name(want[j].e);
            CHECK_EQ(rows, none ? 0 : 1, "%s %s: rows", un, en);
            if (!d)
                continue;
            CHECK(d->evsel == want[j].ev && d->umask == want[j].um, "%s %s: %02XH/%02XH", un, en, d->evsel, d->umask);
            CHECK(d->precise == want[j].p && d->fixed == want[j].fixed, "%s %s: precise %d fixed %d", un, en,
                  d->precise, d->fixed);
            CHECK(d->cmask == 0 && !d->inv && !d->ldlat, "%s %s: plain event", un, en);
        }
}

/* event.h contract of ll_evsel/ll_umask: the load-latency variant of the
 * LOADS row, "0/0 = none". Every other row has none, and no row has half a
 * variant (an event code 0 with a unit mask, or a code without one: every
 * load-latency event of encs[] has both, CDH/01H, D0H/05H, 0BH/10H). */
static void test_ll_pairs(void)
{
    size_t n;
    const struct ds_event_desc *t = event_table(&n);
    for (size_t i = 0; i < n; i++) {
        const char *un = ds_uarch_name(t[i].uarch), *en = ds_event_name(t[i].event);
        CHECK((t[i].ll_evsel == 0) == (t[i].ll_umask == 0), "%s %s: latency variant %02XH/%02XH is whole or none",
              un, en, t[i].ll_evsel, t[i].ll_umask);
        if (t[i].event != DS_EVENT_LOADS)
            CHECK(t[i].ll_evsel == 0 && t[i].ll_umask == 0, "%s %s: only LOADS rows have a latency variant", un, en);
    }
}

/* Every non-hybrid family-6 model libds names, typed from Linux
 * arch/x86/include/asm/intel-family.h (INTEL_<name> = model) and the
 * microarchitecture each name belongs to (the SDM model tables of Vol. 4):
 * ds_uarch_of on a fake CPU of that signature. */
static void test_uarch_every_model(void)
{
    static const struct { uint8_t model; enum ds_uarch u; const char *name; } rows[] = {
        { 0x0F, DS_UARCH_CORE2, "CORE2_MEROM" }, { 0x16, DS_UARCH_CORE2, "CORE2_MEROM_L" },
        { 0x17, DS_UARCH_CORE2, "CORE2_PENRYN" }, { 0x1D, DS_UARCH_CORE2, "CORE2_DUNNINGTON" },
        { 0x1C, DS_UARCH_BONNELL, "ATOM_BONNELL" }, { 0x26, DS_UARCH_BONNELL, "ATOM_BONNELL_MID" },
        { 0x36, DS_UARCH_BONNELL, "ATOM_SALTWELL" }, { 0x27, DS_UARCH_BONNELL, "ATOM_SALTWELL_MID" },
        { 0x35, DS_UARCH_BONNELL, "ATOM_SALTWELL_TABLET" },
        { 0x37, DS_UARCH_SILVERMONT, "ATOM_SILVERMONT" }, { 0x4D, DS_UARCH_SILVERMONT, "ATOM_SILVERMONT_D" },
        { 0x4A, DS_UARCH_SILVERMONT, "ATOM_SILVERMONT_MID" }, { 0x5D, DS_UARCH_SILVERMONT, "ATOM_SILVERMONT_MID2" },
        { 0x4C, DS_UARCH_SILVERMONT, "ATOM_AIRMONT" }, { 0x5A, DS_UARCH_SILVERMONT, "ATOM_AIRMONT_MID" },
        { 0x75, DS_UARCH_SILVERMONT, "ATOM_AIRMONT_NP" },
        { 0x57, DS_UARCH_KNIGHTS, "XEON_PHI_KNL" }, { 0x85, DS_UARCH_KNIGHTS, "XEON_PHI_KNM" },
        { 0x5C, DS_UARCH_GOLDMONT, "ATOM_GOLDMONT" }, { 0x5F, DS_UARCH_GOLDMONT, "ATOM_GOLDMONT_D" },
        { 0x7A, DS_UARCH_GOLDMONT_PLUS, "ATOM_GOLDMONT_PLUS" },
        { 0x86, DS_UARCH_TREMONT, "ATOM_TREMONT_D" }, { 0x96, DS_UARCH_TREMONT, "ATOM_TREMONT" },
        { 0x9C, DS_UARCH_TREMONT, "ATOM_TREMONT_L" },
        { 0x1E, DS_UARCH_NEHALEM, "NEHALEM" }, { 0x1F, DS_UARCH_NEHALEM, "NEHALEM_G" },
        { 0x1A, DS_UARCH_NEHALEM, "NEHALEM_EP" }, { 0x2E, DS_UARCH_NEHALEM, "NEHALEM_EX" },
        { 0x25, DS_UARCH_NEHALEM, "WESTMERE" }, { 0x2C, DS_UARCH_NEHALEM, "WESTMERE_EP" },
        { 0x2F, DS_UARCH_NEHALEM, "WESTMERE_EX" },
        { 0x2A, DS_UARCH_SANDYBRIDGE, "SANDYBRIDGE" }, { 0x2D, DS_UARCH_SANDYBRIDGE, "SANDYBRIDGE_X" },
        { 0x3A, DS_UARCH_SANDYBRIDGE, "IVYBRIDGE" }, { 0x3E, DS_UARCH_SANDYBRIDGE, "IVYBRIDGE_X" },
        { 0x3C, DS_UARCH_HASWELL, "HASWELL" }, { 0x3F, DS_UARCH_HASWELL, "HASWELL_X" },
        { 0x45, DS_UARCH_HASWELL, "HASWELL_L" }, { 0x46, DS_UARCH_HASWELL, "HASWELL_G" },
        { 0x3D, DS_UARCH_HASWELL, "BROADWELL" }, { 0x47, DS_UARCH_HASWELL, "BROADWELL_G" },
        { 0x4F, DS_UARCH_HASWELL, "BROADWELL_X" }, { 0x56, DS_UARCH_HASWELL, "BROADWELL_D" },
        { 0x4E, DS_UARCH_SKYLAKE, "SKYLAKE_L" }, { 0x5E, DS_UARCH_SKYLAKE, "SKYLAKE" },
        { 0x55, DS_UARCH_SKYLAKE, "SKYLAKE_X" }, { 0x8E, DS_UARCH_SKYLAKE, "KABYLAKE_L" },
        { 0x9E, DS_UARCH_SKYLAKE, "KABYLAKE" }, { 0xA5, DS_UARCH_SKYLAKE, "COMETLAKE" },
        { 0xA6, DS_UARCH_SKYLAKE, "COMETLAKE_L" },
        { 0x7D, DS_UARCH_ICELAKE, "ICELAKE" }, { 0x7E, DS_UARCH_ICELAKE, "ICELAKE_L" },
        { 0x6A, DS_UARCH_ICELAKE, "ICELAKE_X" }, { 0x6C, DS_UARCH_ICELAKE, "ICELAKE_D" },
        { 0x8C, DS_UARCH_ICELAKE, "TIGERLAKE_L" }, { 0x8D, DS_UARCH_ICELAKE, "TIGERLAKE" },
        { 0xA7, DS_UARCH_ICELAKE, "ROCKETLAKE" },
        { 0x8F, DS_UARCH_GOLDENCOVE, "SAPPHIRERAPIDS_X" }, { 0xCF, DS_UARCH_GOLDENCOVE, "EMERALDRAPIDS_X" },
        { 0xBE, DS_UARCH_GRACEMONT, "ATOM_GRACEMONT" },
        { 0xAD, DS_UARCH_REDWOODCOVE, "GRANITERAPIDS_X" }, { 0xAE, DS_UARCH_REDWOODCOVE, "GRANITERAPIDS_D" },
        { 0xAF, DS_UARCH_CRESTMONT, "ATOM_CRESTMONT_X" }, { 0xB6, DS_UARCH_CRESTMONT, "ATOM_CRESTMONT" },
        { 0xDD, DS_UARCH_DARKMONT, "ATOM_DARKMONT_X" },
    };
    static struct fake_cpu f;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        uint32_t m = rows[i].model, sig = ((m >> 4) << 16) | (6u << 8) | ((m & 0xFu) << 4) | 1u;
        enum ds_uarch u = DS_UARCH_UNKNOWN;
        int e = uarch_of_sig(&f, sig, 0, false, &u);
        CHECK(e == DS_OK && u == rows[i].u, "06_%02XH %s: %s, want %s", m, rows[i].name,
              e == DS_OK ? ds_uarch_name(u) : ds_errname(e), ds_uarch_name(rows[i].u));
    }
}

/*
 * mut3C (issue 10 test strength): every hybrid model libds names, each core
 * type, typed from Intel perfmon mapfile.csv ("Family-model", "Core Type"
 * 0x20 Atom / 0x40 Core, "Native Model ID"): 6-97/9A/B7/BA/BF gracemont /
 * goldencove native 1; 6-AA/AC/B5 crestmont / redwoodcove native 2;
 * 6-BD/C6 skymont / lioncove native 3, 6-C5 also LowPower_Atom crestmont
 * native 2; 6-CC darkmont / cougarcove native 4; 18-1/18-3 arcticwolf /
 * coyotecove native 5. Lakefield 06_8AH is not in mapfile.csv: Linux
 * intel-family.h INTEL_LAKEFIELD "Sunny Cove / Tremont". Each model is
 * resolved with its native model ID, with none (the core-type rule), and as
 * a P-core-only SKU (no leaf 1AH, not hybrid: the P-core uarch).
 */
static void test_uarch_every_hybrid_model(void)
{
    static const struct { uint32_t sig; uint32_t native; enum ds_uarch e, p; } rows[] = {
        { 0x000806A0, 0, DS_UARCH_TREMONT, DS_UARCH_ICELAKE },
        { 0x00090670, 1, DS_UARCH_GRACEMONT, DS_UARCH_GOLDENCOVE }, { 0x000906A0, 1, DS_UARCH_GRACEMONT, DS_UARCH_GOLDENCOVE },
        { 0x000B0670, 1, DS_UARCH_GRACEMONT, DS_UARCH_GOLDENCOVE }, { 0x000B06A0, 1, DS_UARCH_GRACEMONT, DS_UARCH_GOLDENCOVE },
        { 0x000B06F0, 1, DS_UARCH_GRACEMONT, DS_UARCH_GOLDENCOVE },
        { 0x000A06A0, 2, DS_UARCH_CRESTMONT, DS_UARCH_REDWOODCOVE }, { 0x000A06C0, 2, DS_UARCH_CRESTMONT, DS_UARCH_REDWOODCOVE },
        { 0x000B0650, 2, DS_UARCH_CRESTMONT, DS_UARCH_REDWOODCOVE },
        { 0x000B06D0, 3, DS_UARCH_SKYMONT, DS_UARCH_LIONCOVE }, { 0x000C0660, 3, DS_UARCH_SKYMONT, DS_UARCH_LIONCOVE },
        { 0x000C0650, 3, DS_UARCH_SKYMONT, DS_UARCH_LIONCOVE },
        { 0x000C06C0, 4, DS_UARCH_DARKMONT, DS_UARCH_COUGARCOVE },
        { 0x00300F10, 5, DS_UARCH_ARCTICWOLF, DS_UARCH_COYOTECOVE }, { 0x00300F30, 5, DS_UARCH_ARCTICWOLF, DS_UARCH_COYOTECOVE },
    };
    static struct fake_cpu f;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        uint32_t sig = rows[i].sig;
        for (int ct = 0; ct < 2; ct++) {
            uint8_t type = ct ? DS_CORE_TYPE_CORE : DS_CORE_TYPE_ATOM;
            enum ds_uarch want = ct ? rows[i].p : rows[i].e;
            enum ds_uarch u = DS_UARCH_UNKNOWN;
            int e = uarch_of_native(&f, sig, type, rows[i].native, true, &u);
            CHECK(e == DS_OK && u == want, "sig %08x core type %02x native %u: %s, want %s", sig, type,
                  rows[i].native, e == DS_OK ? ds_uarch_name(u) : ds_errname(e), ds_uarch_name(want));
            u = DS_UARCH_UNKNOWN;
            e = uarch_of_native(&f, sig, type, 0, true, &u);
            CHECK(e == DS_OK && u == want, "sig %08x core type %02x, no native ID: %s, want %s", sig, type,
                  e == DS_OK ? ds_uarch_name(u) : ds_errname(e), ds_uarch_name(want));
        }
        enum ds_uarch u = DS_UARCH_UNKNOWN;
        int e = uarch_of_sig(&f, sig, 0, false, &u);
        CHECK(e == DS_OK && u == rows[i].p, "sig %08x P-core-only SKU: %s", sig, e == DS_OK ? ds_uarch_name(u) : ds_errname(e));
    }
    /* the low-power E-cores of Arrow Lake H 06_C5H: native model 2 */
    enum ds_uarch u = DS_UARCH_UNKNOWN;
    CHECK(uarch_of_native(&f, 0x000C0650, DS_CORE_TYPE_ATOM, 2, true, &u) == DS_OK && u == DS_UARCH_CRESTMONT,
          "ARL-H native 2: crestmont");
    /* the neighbours of the family-18 rows are not Nova Lake */
    CHECK_EQ(uarch_of_sig(&f, 0x00300F00, DS_CORE_TYPE_CORE, true, &u), DS_ERR_EVENT_UARCH, "18_00H");
    CHECK_EQ(uarch_of_sig(&f, 0x00300F40, DS_CORE_TYPE_CORE, true, &u), DS_ERR_EVENT_UARCH, "18_04H");
}

/* mut3C: ds_event_lookup checks identification before the event index
 * (event.h: DS_ERR_NOT_IDENTIFIED), and the index bounds are exact. */
static void test_lookup_order(void)
{
    static struct fake_cpu f;
    struct ds_cpu raw;
    struct ds_event_desc d;
    fake_profile(&f, profile_of(DS_UARCH_SKYLAKE));
    ds_cpu_init(&raw, &fake_ops, &f);
    CHECK_EQ(ds_event_lookup(&raw, DS_EVENT_NONE, &d), DS_ERR_NOT_IDENTIFIED, "unidentified, event 0");
    CHECK_EQ(ds_event_lookup(&raw, DS_EVENT__COUNT, &d), DS_ERR_NOT_IDENTIFIED, "unidentified, event past the end");
    CHECK(strcmp(ds_uarch_name((enum ds_uarch)(DS_UARCH__COUNT - 1)), "yonah") == 0, "last uarch name (issue 25 item 9)");
    CHECK(strcmp(ds_event_name((enum ds_event)(DS_EVENT__COUNT - 1)), "cycles") == 0, "last event name");
    CHECK(strcmp(ds_uarch_name(DS_UARCH_UNKNOWN), "unknown") == 0, "uarch 0 name");
}

/* mut3C: the EBX availability vector applies from perfmon version 1 (SDM
 * CPUID leaf 0AH: EAX[7:0] version, EAX[31:24] vector length, EBX bit set =
 * event not available): a version-1 leaf with the instructions bit set
 * refuses, as version 4 does. */
static void test_unavailable_at_v1(void)
{
    static struct fake_cpu f;
    for (unsigned v = 1; v <= 4; v += 3) {
        struct ds_cpu cpu;
        struct ds_event_desc d;
        fake_profile(&f, profile_of(DS_UARCH_SKYLAKE));
        for (int i = 0; i < f.nleaves; i++)
            if (f.leaves[i].leaf == 0xA) {
                f.leaves[i].r[0] = (f.leaves[i].r[0] & 0x00FFFF00u) | (7u << 24) | v;
                f.leaves[i].r[1] = 1u << 1;
            }
        ds_cpu_init(&cpu, &fake_ops, &f);
        ds_cpu_identify(&cpu);
        CHECK_EQ(cpu.caps.perfmon_version, v, "perfmon v%u", v);
        CHECK_EQ(ds_event_lookup(&cpu, DS_EVENT_INSTRUCTIONS, &d), DS_ERR_EVENT_UNAVAILABLE, "v%u: EBX bit 1", v);
        CHECK_EQ(ds_event_lookup(&cpu, DS_EVENT_CYCLES, &d), DS_OK, "v%u: cycles available", v);
    }
}

/*
 * mut3C, a missing row found while typing test_uarch_every_hybrid_model:
 * Wildcat Lake 06_D5H (Linux intel-family.h INTEL_WILDCATLAKE_L) is Panther
 * Lake to Linux core.c intel_pmu_init ("case INTEL_PANTHERLAKE_L: case
 * INTEL_WILDCATLAKE_L: pantherlake_hybrid") and to Intel perfmon
 * mapfile.csv (GenuineIntel-6-D5: pantherlake_darkmont_core.json 0x20 /
 * pantherlake_cougarcove_core.json 0x40, native model 4). Its
 * neighbours 06_D4H and 06_D6H are not named anywhere.
 */
static void test_wildcat_lake(void)
{
    static struct fake_cpu f;
    enum ds_uarch u = DS_UARCH_UNKNOWN;
    CHECK(uarch_of_native(&f, 0x000D0650, DS_CORE_TYPE_CORE, 4, true, &u) == DS_OK && u == DS_UARCH_COUGARCOVE,
          "WCL P-core: %s", ds_uarch_name(u));
    u = DS_UARCH_UNKNOWN;
    CHECK(uarch_of_native(&f, 0x000D0650, DS_CORE_TYPE_ATOM, 4, true, &u) == DS_OK && u == DS_UARCH_DARKMONT,
          "WCL E-core: %s", ds_uarch_name(u));
    u = DS_UARCH_UNKNOWN;
    CHECK(uarch_of_native(&f, 0x000D0650, DS_CORE_TYPE_ATOM, 0, true, &u) == DS_OK && u == DS_UARCH_DARKMONT,
          "WCL E-core by the model rule: %s", ds_uarch_name(u));
    CHECK_EQ(uarch_of_sig(&f, 0x000D0640, DS_CORE_TYPE_CORE, true, &u), DS_ERR_EVENT_UARCH, "06_D4H");
    CHECK_EQ(uarch_of_sig(&f, 0x000D0660, DS_CORE_TYPE_CORE, true, &u), DS_ERR_EVENT_UARCH, "06_D6H");
}

/*
 * mut3C: the native model ID decides over the model (design.md "Which
 * uarch": core type and native model ID paired as Intel perfmon
 * mapfile.csv pairs them, 20H/1 gracemont, 40H/1 goldencove, /2 crestmont /
 * redwoodcove, /3 skymont / lioncove, /4 darkmont / cougarcove, /5
 * arcticwolf / coyotecove), each pair checked on a hybrid model whose own
 * E-core / P-core answer differs: Panther Lake 06_CCH for natives 1-3 and 5,
 * Alder Lake 06_97H for native 4.
 */
static void test_native_pairs_decide(void)
{
    static const struct { uint32_t native; enum ds_uarch e, p; } pairs[] = {
        { 1, DS_UARCH_GRACEMONT, DS_UARCH_GOLDENCOVE }, { 2, DS_UARCH_CRESTMONT, DS_UARCH_REDWOODCOVE },
        { 3, DS_UARCH_SKYMONT, DS_UARCH_LIONCOVE },     { 4, DS_UARCH_DARKMONT, DS_UARCH_COUGARCOVE },
        { 5, DS_UARCH_ARCTICWOLF, DS_UARCH_COYOTECOVE },
    };
    static struct fake_cpu f;
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        uint32_t sig = pairs[i].native == 4 ? 0x00090670 : 0x000C06C0;
        for (int ct = 0; ct < 2; ct++) {
            enum ds_uarch u = DS_UARCH_UNKNOWN, want = ct ? pairs[i].p : pairs[i].e;
            int e = uarch_of_native(&f, sig, ct ? DS_CORE_TYPE_CORE : DS_CORE_TYPE_ATOM, pairs[i].native, true, &u);
            CHECK(e == DS_OK && u == want, "sig %08x %s native %u: %s, want %s", sig, ct ? "core" : "atom",
                  pairs[i].native, e == DS_OK ? ds_uarch_name(u) : ds_errname(e), ds_uarch_name(want));
        }
    }
}

/* mut3C: event.h field contract of the performance-counter rows: no
 * NetBurst names, nb_metric -1 ("or -1": no replay-tagging metric). */
static void test_pmc_rows_no_netburst_fields(void)
{
    size_t n;
    const struct ds_event_desc *t = event_table(&n);
    for (size_t i = 0; i < n; i++) {
        if (t[i].uarch == DS_UARCH_NETBURST)
            continue;
        CHECK(t[i].nb_metric == -1 && !t[i].nb_event && !t[i].nb_mask && !t[i].nb_tag_event && !t[i].nb_tag_mask,
              "%s %s: no NetBurst fields (metric %d)", ds_uarch_name(t[i].uarch), ds_event_name(t[i].event),
              t[i].nb_metric);
    }
}

/*
 * Issue 25 items 10 and 12. Linux's L1-dcache read/write access ids
 * (core.c core2_hw_cache_event_ids 0x0f40 L1D_CACHE_LD.MESI / 0x0f41
 * L1D_CACHE_ST.MESI; snb_hw_cache_event_ids 0xf1d0 / 0xf2d0, transcribed
 * here) differ from the Core 2 and Sandy Bridge loads/stores rows: each such
 * row names Linux's id beside it with the reason. The Sandy Bridge ..
 * Skylake PREC_DIST rows cite Linux ds.c's real constraint,
 * INTEL_FLAGS_UEVENT_CONSTRAINT(0x01c0, 0x2) (intel_snb_/hsw_/skl_pebs_
 * event_constraints), not INTEL_PST_CONSTRAINT.
 */
static void test_tab25_linux_ids_beside_rows(void)
{
    static const struct { enum ds_uarch u; enum ds_event e; uint16_t linux_id; const char *cite; } ids[] = {
        { DS_UARCH_CORE2, DS_EVENT_LOADS, 0x0f40, "0x0f40" },
        { DS_UARCH_CORE2, DS_EVENT_STORES, 0x0f41, "0x0f41" },
        { DS_UARCH_SANDYBRIDGE, DS_EVENT_LOADS, 0xf1d0, "0xf1d0" },
        { DS_UARCH_SANDYBRIDGE, DS_EVENT_STORES, 0xf2d0, "0xf2d0" },
    };
    size_t n;
    const struct ds_event_desc *t = event_table(&n);
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        const struct ds_event_desc *d = NULL;
        for (size_t i = 0; i < n; i++)
            if (t[i].uarch == ids[k].u && t[i].event == ids[k].e)
                d = &t[i];
        CHECK(d != NULL, "%s %s row", ds_uarch_name(ids[k].u), ds_event_name(ids[k].e));
        if (!d)
            continue;
        bool same = ((uint16_t)(d->umask << 8 | d->evsel)) == ids[k].linux_id;
        CHECK(same || (strstr(d->source, "Linux") && strstr(d->source, ids[k].cite)),
              "%s %s %02X/%02X differs from Linux %s: the row says why (%s)", ds_uarch_name(ids[k].u),
              ds_event_name(ids[k].e), d->evsel, d->umask, ids[k].cite, d->source);
    }
    for (size_t i = 0; i < n; i++) {
        if (t[i].evsel != 0xC0 || t[i].umask != 0x01 || t[i].uarch < DS_UARCH_SANDYBRIDGE || t[i].uarch > DS_UARCH_SKYLAKE)
            continue;
        CHECK(strstr(t[i].source, "INTEL_FLAGS_UEVENT_CONSTRAINT(0x01c0, 0x2)") && !strstr(t[i].source, "PST_CONSTRAINT"),
              "%s PREC_DIST cites Linux's constraint: %s", ds_uarch_name(t[i].uarch), t[i].source);
    }
}

/*
 * Issue 25 item 9: Yonah 06_0EH (Core Solo/Duo). Linux core.c
 * intel_pmu_init handles it (INTEL_CORE_YONAH, "Core events", name "core")
 * with the architectural intel_perfmon_event_map: cycles 0x003c,
 * instructions 0x00c0, branches 0x00c4, branch-misses 0x00c5 (typed here);
 * perfmon v1: no fixed counter, no PEBS; no hw_cache ids, so no
 * loads/stores. It was DS_ERR_EVENT_UARCH.
 */
static void test_tab25_yonah(void)
{
    static const struct { enum ds_event e; uint8_t ev; } want[] = {
        { DS_EVENT_CYCLES, 0x3C }, { DS_EVENT_INSTRUCTIONS, 0xC0 },
        { DS_EVENT_BRANCHES, 0xC4 }, { DS_EVENT_BRANCH_MISSES, 0xC5 },
    };
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct profile p = { DS_UARCH_YONAH, 0x000006E8, 0x07280201, 0, 0, false, 0, 2, 0 };
    enum ds_uarch u = DS_UARCH_UNKNOWN;
    struct ds_event_desc d;
    CHECK_EQ(cpu_of(&f, &cpu, &p), DS_OK, "identify Core Duo 06_0EH");
    CHECK_EQ(ds_uarch_of(&cpu, &u), DS_OK, "06_0EH is in the table");
    CHECK(u == DS_UARCH_YONAH && !strcmp(ds_uarch_name(u), "yonah"), "yonah (%s)", ds_uarch_name(u));
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CHECK_EQ(ds_event_lookup(&cpu, want[i].e, &d), DS_OK, "%s", ds_event_name(want[i].e));
        CHECK(d.evsel == want[i].ev && d.umask == 0 && d.cmask == 0 && !d.inv && d.fixed == -1 &&
                  d.precise == DS_PRECISE_NONE,
              "%s: %02X/00, no fixed counter, not precise", ds_event_name(want[i].e), want[i].ev);
    }
    CHECK_EQ(ds_event_lookup(&cpu, DS_EVENT_LOADS, &d), DS_ERR_EVENT_NONE, "no loads");
    CHECK_EQ(ds_event_lookup(&cpu, DS_EVENT_STORES, &d), DS_ERR_EVENT_NONE, "no stores");
}

/* ds_event_row (issue 28 item 6: the table is packed, rows are expanded):
 * the edges of the NetBurst rows and the packed rows, the last row, one
 * past it, NULL. Expected rows as event.c lists them (NetBurst cycles,
 * Core 2 instructions, Yonah cycles). */
static void test_row_edges(void)
{
    struct ds_event_desc d;
    size_t n = ds_event_rows();
    CHECK_EQ(ds_event_row(0, NULL), DS_ERR_NULL, "row 0 into NULL");
    memset(&d, 0xAA, sizeof d);
    CHECK_EQ(ds_event_row(n, &d), DS_ERR_INVAL, "row %zu (one past the last)", n);
    CHECK(d.name == NULL && d.source == NULL && d.evsel == 0 && d.uarch == 0 && d.fixed == 0, "row %zu: out zeroed", n);
    CHECK_EQ(ds_event_row(5, &d), DS_OK, "row 5");
    CHECK(d.uarch == DS_UARCH_NETBURST && d.event == DS_EVENT_CYCLES && d.fixed == -1 && d.nb_metric == -1 &&
              !strcmp(d.nb_event, "global_power_events") && !strcmp(d.nb_mask, "RUNNING") && !d.nb_tag_event,
          "row 5: NetBurst cycles (%s)", d.name ? d.name : "?");
    memset(&d, 0xAA, sizeof d);
    CHECK_EQ(ds_event_row(6, &d), DS_OK, "row 6");
    CHECK(d.uarch == DS_UARCH_CORE2 && d.event == DS_EVENT_INSTRUCTIONS && d.evsel == 0xC0 && d.umask == 0 &&
              d.cmask == 0 && !d.inv && d.fixed == 0 && d.precise == DS_PRECISE_GP && !d.ldlat && d.ll_evsel == 0 &&
              d.ll_umask == 0 && d.nb_metric == -1 && !d.nb_event && !d.nb_mask && !d.nb_tag_event &&
              !d.nb_tag_mask && !strcmp(d.name, "INST_RETIRED.ANY_P"),
          "row 6: Core 2 INST_RETIRED.ANY_P, every other field cleared");
    CHECK_EQ(ds_event_row(n - 1, &d), DS_OK, "last row");
    CHECK(d.uarch == DS_UARCH_YONAH && d.event == DS_EVENT_CYCLES && d.evsel == 0x3C && d.fixed == -1 &&
              d.precise == DS_PRECISE_NONE && !strcmp(d.name, "UNHALTED_CORE_CYCLES"),
          "last row: Yonah cycles (%s)", d.name);
}

int main(void)
{
    test_dumps();
    test_encodings();
    test_netburst();
    test_rows();
    test_row_edges();
    test_uarch_rules();
    test_errors();
    test_unavailable();
    test_names();
    test_encodings_rest();
    test_encodings_arch_pebs_uarches();
    test_ll_pairs();
    test_uarch_every_model();
    test_uarch_every_hybrid_model();
    test_lookup_order();
    test_unavailable_at_v1();
    test_wildcat_lake();
    test_native_pairs_decide();
    test_pmc_rows_no_netburst_fields();
    test_tab25_linux_ids_beside_rows();
    test_tab25_yonah();
    return check_summary();
}
