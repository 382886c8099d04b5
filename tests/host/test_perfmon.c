/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Issue 25 item 13: event.c's rows and pmc.c's PEBS counter rules against
 * Intel's perfmon event files (tests/data/perfmon/events.tsv, extracted by
 * tests/data/perfmon/extract.py from github.com/intel/perfmon at the commit
 * in tests/data/perfmon/COMMIT, BSD-3-Clause: LICENSE.perfmon).
 *
 *  - every row of every uarch with a perfmon file: the event of that name
 *    exists in each file of the uarch with the row's code, unit mask, CMASK
 *    and INV, and the row is precise exactly when perfmon says PEBS/Precise;
 *  - every PEBS event of the extract: the GP counters pmc.h lets it take
 *    PEBS on (ds_pmc_pebs_check on a fake CPU of the uarch; on the
 *    architectural-PEBS cores ds_pmc_pebs_event_counters) equal perfmon's
 *    "PEBScounters" (else "Counter") within the CPU's counters;
 *  - the load-latency event of each loads row: PEBS in perfmon, and the
 *    counters ds_pmc_pebs_ldlat accepts equal perfmon's.
 * A disagreement fails unless the table below names it with the source
 * that makes libds differ. Core 2, Yonah and NetBurst have no perfmon file (SDM
 * rows, test_event.c).
 */
#include "check.h"
#include "fake_cpu.h"
#include <ds/ds.h>
#include <ds/event.h>
#include <ds/pmc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DS_PERFMON_TSV
#define DS_PERFMON_TSV "tests/data/perfmon/events.tsv"
#endif

struct pm_ev {
    char file[64], name[96];
    uint8_t code, umask, cmask;
    bool inv;
    int pebs;
    uint32_t counter, pebsctr;
    bool has_pebsctr;
};
static struct pm_ev evs[4096];
static int nev;

static uint32_t mask_of(const char *s)
{
    uint32_t m = 0;
    if (!strcmp(s, "-"))
        return 0;
    for (const char *p = s; *p;) {
        m |= 1u << strtoul(p, (char **)&p, 10);
        if (*p == ',')
            p++;
    }
    return m;
}

static bool load(void)
{
    FILE *f = fopen(DS_PERFMON_TSV, "r");
    char line[512];
    if (!f)
        return false;
    while (fgets(line, sizeof line, f) && nev < (int)(sizeof evs / sizeof evs[0])) {
        char *col[9], *save = NULL;
        int n = 0;
        line[strcspn(line, "\n")] = 0;
        for (char *t = strtok_r(line, "\t", &save); t && n < 9; t = strtok_r(NULL, "\t", &save))
            col[n++] = t;
        if (n != 9)
            continue;
        struct pm_ev *e = &evs[nev++];
        snprintf(e->file, sizeof e->file, "%s", col[0]);
        snprintf(e->name, sizeof e->name, "%s", col[1]);
        e->code = (uint8_t)strtoul(col[2], NULL, 16);
        e->umask = (uint8_t)strtoul(col[3], NULL, 16);
        e->cmask = (uint8_t)strtoul(col[4], NULL, 10);
        e->inv = atoi(col[5]) != 0;
        e->pebs = atoi(col[6]);
        e->counter = mask_of(col[7]);
        e->pebsctr = mask_of(col[8]);
        e->has_pebsctr = strcmp(col[8], "-") != 0;
    }
    fclose(f);
    return nev > 0;
}

/* perfmon files per uarch (mapfile.csv rows; the hybrid files by core name). */
struct ufiles {
    enum ds_uarch u;
    const char *files[6];
    uint32_t sig;        /* the profile's signature instead, 0 = the uarch's */
};
static const struct ufiles ufiles[] = {
    { DS_UARCH_BONNELL, { "BNL/" }, 0 },
    { DS_UARCH_SILVERMONT, { "SLM/" }, 0 },
    { DS_UARCH_KNIGHTS, { "KNL/" }, 0 },
    { DS_UARCH_GOLDMONT, { "GLM/" }, 0 },
    { DS_UARCH_GOLDMONT_PLUS, { "GLP/" }, 0 },
    { DS_UARCH_TREMONT, { "EHL/", "SNR/" }, 0 },
    { DS_UARCH_NEHALEM, { "NHM-EP/", "NHM-EX/" }, 0 },
    { DS_UARCH_NEHALEM, { "WSM-EP-SP/", "WSM-EP-DP/", "WSM-EX/" }, 0x000206C2 }, /* Westmere-EP 06_2CH */
    { DS_UARCH_SANDYBRIDGE, { "IVB/", "IVT/" }, 0 },
    { DS_UARCH_SANDYBRIDGE, { "SNB/", "JKT/" }, 0x000206A7 }, /* Sandy Bridge 06_2AH (microcode not read: pebs_check) */
    { DS_UARCH_HASWELL, { "HSW/", "HSX/" }, 0 },
    { DS_UARCH_HASWELL, { "BDW/", "BDX/", "BDW-DE/" }, 0x000406F1 }, /* Broadwell-E 06_4FH */
    { DS_UARCH_SKYLAKE, { "SKL/", "SKX/", "CLX/" }, 0 },
    { DS_UARCH_ICELAKE, { "ICL/", "ICX/", "TGL/", "RKL/" }, 0 },
    { DS_UARCH_GOLDENCOVE, { "SPR/", "EMR/", "ADL/events/alderlake_goldencove" }, 0 },
    { DS_UARCH_GRACEMONT, { "ADL/events/alderlake_gracemont" }, 0 },
    { DS_UARCH_REDWOODCOVE, { "MTL/events/meteorlake_redwoodcove", "GNR/" }, 0 },
    { DS_UARCH_CRESTMONT, { "MTL/events/meteorlake_crestmont", "SRF/", "GRR/", "ARL/events/arrowlake_crestmont" }, 0 },
    { DS_UARCH_LIONCOVE, { "LNL/events/lunarlake_lioncove", "ARL/events/arrowlake_lioncove" }, 0 },
    { DS_UARCH_SKYMONT, { "LNL/events/lunarlake_skymont", "ARL/events/arrowlake_skymont" }, 0 },
    { DS_UARCH_COUGARCOVE, { "PTL/events/pantherlake_cougarcove" }, 0 },
    { DS_UARCH_DARKMONT, { "PTL/events/pantherlake_darkmont", "CWF/" }, 0 },
    { DS_UARCH_COYOTECOVE, { "NVL/events/novalake_coyotecove" }, 0 },
    { DS_UARCH_ARCTICWOLF, { "NVL/events/novalake_arcticwolf" }, 0 },
};

static const struct ufiles *files_of(enum ds_uarch u, size_t from)
{
    for (size_t i = from; i < sizeof ufiles / sizeof ufiles[0]; i++)
        if (ufiles[i].u == u)
            return &ufiles[i];
    return NULL;
}

static bool in_file(const struct pm_ev *e, const char *prefix)
{
    return strncmp(e->file, prefix, strlen(prefix)) == 0;
}

/* ---- a fake CPU of each uarch (signatures: intel-family.h, the dumps) ---- */
struct profile {
    enum ds_uarch u;
    uint32_t sig, a0a, d0a;
    unsigned fmt;        /* PEBS record format (DS PEBS) */
    bool adaptive;       /* PERF_CAPABILITIES.PEBS_BASELINE */
    uint32_t leaf1a;     /* CPUID.1AH:EAX (hybrid core type, native model), 0 = none */
    unsigned gp;         /* GP counters compared (perfmon numbers them from 0) */
    bool arch;           /* architectural PEBS: ds_pmc_pebs_event_counters */
};
static const struct profile profiles[] = {
    { DS_UARCH_BONNELL, 0x000106C2, 0x07280203, 0x503, 0, false, 0, 2, false },
    { DS_UARCH_SILVERMONT, 0x00030678, 0x07280203, 0x503, 2, false, 0, 2, false },
    { DS_UARCH_KNIGHTS, 0x00050671, 0x07280203, 0x503, 2, false, 0, 2, false },
    { DS_UARCH_GOLDMONT, 0x000506C9, 0x07300404, 0x603, 3, false, 0, 4, false },
    { DS_UARCH_GOLDMONT_PLUS, 0x000706A8, 0x07300404, 0x603, 3, false, 0, 4, false },
    { DS_UARCH_TREMONT, 0x000906C0, 0x07300405, 0x603, 4, true, 0, 4, false },
    { DS_UARCH_NEHALEM, 0x000106A5, 0x07300403, 0x603, 1, false, 0, 4, false },
    { DS_UARCH_SANDYBRIDGE, 0x000306A9, 0x07300403, 0x603, 1, false, 0, 4, false },
    { DS_UARCH_HASWELL, 0x000306C3, 0x07300403, 0x603, 2, false, 0, 4, false },
    { DS_UARCH_SKYLAKE, 0x000506E3, 0x07300404, 0x603, 3, false, 0, 4, false },
    { DS_UARCH_ICELAKE, 0x000706E5, 0x08300805, 0x604, 4, true, 0, 8, false },
    { DS_UARCH_GOLDENCOVE, 0x000806F8, 0x08300805, 0x604, 4, true, 0, 8, false },
    { DS_UARCH_GRACEMONT, 0x000B06E0, 0x08300605, 0x603, 4, true, 0, 6, false },
    { DS_UARCH_REDWOODCOVE, 0x000A06D1, 0x08300805, 0x604, 5, true, 0, 8, false },
    { DS_UARCH_CRESTMONT, 0x000A06F3, 0x08300805, 0x603, 5, true, 0, 8, false },
    { DS_UARCH_LIONCOVE, 0x000B06D1, 0x08300805, 0x604, 6, true, 0x40000003, 8, false },
    { DS_UARCH_SKYMONT, 0x000B06D1, 0x08300805, 0x603, 6, true, 0x20000003, 8, false },
    { DS_UARCH_COUGARCOVE, 0x000C06C3, 0x08300A06, 0x604, 0, false, 0x40000004, 10, true },
    { DS_UARCH_DARKMONT, 0x000C06C3, 0x08300806, 0x603, 0, false, 0x20000004, 8, true },
    { DS_UARCH_COYOTECOVE, 0x00300F10, 0x08300806, 0x604, 0, false, 0x40000005, 8, true },
    { DS_UARCH_ARCTICWOLF, 0x00300F10, 0x08300806, 0x603, 0, false, 0x20000005, 8, true },
};

static const struct profile *profile_of(enum ds_uarch u)
{
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
        if (profiles[i].u == u)
            return &profiles[i];
    return NULL;
}

static struct fake_cpu fk;
static uint32_t sig_override;
static int cpu_of(struct ds_cpu *cpu, const struct profile *p)
{
    memset(&fk, 0, sizeof fk);
    fake_set_cpuid(&fk, 0, 0, 0x23, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(&fk, 1, 0, sig_override ? sig_override : p->sig, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
    fake_set_cpuid(&fk, 0xA, 0, p->a0a, 0, 0, p->d0a);
    fake_set_cpuid(&fk, 7, 0, 0, 0, 0, p->leaf1a ? 1u << 15 : 0);
    fake_set_cpuid(&fk, 0x1A, 0, p->leaf1a, 0, 0, 0);
    fake_set_msr(&fk, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    uint64_t caps = ((uint64_t)p->fmt << 8) | 0xC0 | 0x05;
    if (p->adaptive)
        caps |= 0x4000 | 0x2000;
    fake_set_msr(&fk, DS_MSR_IA32_PERF_CAPABILITIES, caps);
    fake_add_pmu_msrs(&fk, p->gp > 8 ? 8 : p->gp, 3);
    fake_set_msr(&fk, DS_MSR_PEBS_DATA_CFG, 0);
    fake_set_msr(&fk, DS_MSR_PEBS_LD_LAT, 0);
    /* Sandy Bridge's PEBS microcode gate reads IA32_BIOS_SIGN_ID: revision
     * 0x70C passes every row of Linux pebs_ucodes (writes ignored) */
    fake_set_msr(&fk, DS_PMC_MSR_IA32_BIOS_SIGN_ID, 0x70Cull << 32);
    fake_set_ro(&fk, DS_PMC_MSR_IA32_BIOS_SIGN_ID);
    ds_cpu_init(cpu, &fake_ops, &fk);
    return ds_cpu_identify(cpu);
}

static uint32_t gp_all(const struct profile *p)
{
    return p->gp >= 32 ? 0xFFFFFFFFu : (1u << p->gp) - 1;
}

static uint64_t evtsel_of(uint8_t code, uint8_t umask, uint8_t cmask, bool inv)
{
    return DS_EVTSEL(code, umask) | ((uint64_t)cmask << DS_EVTSEL_CMASK_SHIFT) | (inv ? DS_EVTSEL_INV : 0);
}

/* The GP counters pmc.h lets @evtsel take PEBS on, within the profile's. */
static uint32_t libds_pebs_mask(const struct profile *p, uint64_t evtsel)
{
    struct ds_cpu cpu;
    uint32_t m = 0;
    if (cpu_of(&cpu, p) != DS_OK)
        return 0xDEAD;
    if (p->arch) {
        if (ds_pmc_pebs_event_counters(&cpu, evtsel, &m) != DS_OK)
            return 0xDEAD;
        return m & gp_all(p);
    }
    for (unsigned i = 0; i < p->gp && i < cpu.caps.gp_counters; i++)
        if (ds_pmc_pebs_check(&cpu, i, evtsel) == DS_OK)
            m |= 1u << i;
    return m;
}

/* The GP counters ds_pmc_pebs_ldlat accepts. */
static uint32_t libds_ldlat_mask(const struct profile *p)
{
    uint32_t m = 0;
    for (unsigned i = 0; i < p->gp; i++) {
        struct ds_cpu cpu;
        if (cpu_of(&cpu, p) == DS_OK && i < cpu.caps.gp_counters && ds_pmc_pebs_ldlat(&cpu, i, 3) == DS_OK)
            m |= 1u << i;
    }
    return m;
}

static uint32_t perfmon_mask(const struct pm_ev *e, const struct profile *p)
{
    return (e->has_pebsctr ? e->pebsctr : e->counter) & gp_all(p);
}

/* ---- named exceptions: where libds knowingly differs from perfmon -------- */
enum exc_kind { X_NAME, X_PRECISE, X_COUNTERS, X_LDLAT };
struct exc {
    enum exc_kind kind;
    enum ds_uarch u;
    const char *name;      /* X_NAME, X_PRECISE: the row's event name */
    uint8_t code, umask;   /* X_COUNTERS, X_LDLAT */
    bool any_umask;
    bool any_event;        /* X_COUNTERS: every event of the uarch */
    uint32_t libds;        /* X_COUNTERS, X_LDLAT: libds's counters (exact) */
    const char *why;
};
#include "test_perfmon_exc.h"

static int exc_used[sizeof excs / sizeof excs[0]];

static const struct exc *exc_find(enum exc_kind k, enum ds_uarch u, const char *name, uint8_t code, uint8_t umask)
{
    for (size_t i = 0; i < sizeof excs / sizeof excs[0]; i++) {
        const struct exc *x = &excs[i];
        if (x->kind != k || x->u != u)
            continue;
        if ((k == X_NAME || k == X_PRECISE) ? !strcmp(x->name, name)
                                            : (x->any_event || (x->code == code && (x->any_umask || x->umask == umask)))) {
            exc_used[i]++;
            return x;
        }
    }
    return NULL;
}

/* ---- the checks ----------------------------------------------------------- */
static void check_row(const struct ds_event_desc *d, const struct ufiles *uf)
{
    const char *un = ds_uarch_name(d->uarch);
    for (size_t k = 0; k < 6 && uf->files[k]; k++) {
        const struct pm_ev *e = NULL;
        for (int i = 0; i < nev && !e; i++)
            if (in_file(&evs[i], uf->files[k]) && !strcmp(evs[i].name, d->name))
                e = &evs[i];
        if (!e) {
            CHECK(false, "%s %s: not in perfmon %s", un, d->name, uf->files[k]);
            continue;
        }
        CHECK(e->code == d->evsel && e->umask == d->umask && e->cmask == d->cmask && e->inv == d->inv,
              "%s %s: %02X/%02X cmask %u inv %d, perfmon %s %02X/%02X cmask %u inv %d", un, d->name, d->evsel,
              d->umask, d->cmask, d->inv, e->file, e->code, e->umask, e->cmask, e->inv);
        bool precise = d->precise != DS_PRECISE_NONE;
        if (precise != (e->pebs > 0))
            CHECK(exc_find(X_PRECISE, d->uarch, d->name, 0, 0) != NULL, "%s %s: precise %d, perfmon %s PEBS %d", un,
                  d->name, precise, e->file, e->pebs);
    }
}

static void check_counters(const struct profile *p, const struct ufiles *uf)
{
    const char *un = ds_uarch_name(p->u);
    for (int i = 0; i < nev; i++) {
        const struct pm_ev *e = &evs[i];
        bool mine = false;
        for (size_t k = 0; k < 6 && uf->files[k]; k++)
            mine |= in_file(e, uf->files[k]);
        if (!mine || e->pebs <= 0)
            continue;
        uint32_t want = perfmon_mask(e, p);
        uint32_t got = libds_pebs_mask(p, evtsel_of(e->code, e->umask, e->cmask, e->inv));
        if (got == want)
            continue;
        const struct exc *x = exc_find(X_COUNTERS, p->u, NULL, e->code, e->umask);
        CHECK(x && x->libds == got, "%s %s %s %02X/%02X: PEBS counters 0x%x, perfmon 0x%x%s", un, e->file, e->name,
              e->code, e->umask, got, want, x ? " (exception names another mask)" : "");
    }
}

static void check_ldlat(const struct ds_event_desc *d, const struct profile *p, const struct ufiles *uf)
{
    const char *un = ds_uarch_name(d->uarch);
    uint32_t got = libds_ldlat_mask(p);
    for (size_t k = 0; k < 6 && uf->files[k]; k++) {
        int seen = 0;
        for (int i = 0; i < nev; i++) {
            const struct pm_ev *e = &evs[i];
            if (!in_file(e, uf->files[k]) || e->code != d->ll_evsel || e->umask != d->ll_umask)
                continue;
            seen++;
            CHECK(e->pebs > 0, "%s %s: load-latency event PEBS in perfmon", un, e->name);
            uint32_t want = perfmon_mask(e, p);
            if (got == want)
                continue;
            const struct exc *x = exc_find(X_LDLAT, p->u, NULL, e->code, e->umask);
            CHECK(x && x->libds == got, "%s %s %s: ldlat counters 0x%x, perfmon 0x%x", un, e->file, e->name, got, want);
        }
        CHECK(seen > 0, "%s: load-latency event %02X/%02X in perfmon %s", un, d->ll_evsel, d->ll_umask, uf->files[k]);
    }
}

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

static void test_perfmon_oracle(void)
{
    size_t n;
    const struct ds_event_desc *t = event_table(&n);
    unsigned rows = 0;
    for (size_t i = 0; i < n; i++) {
        const struct ufiles *uf = files_of(t[i].uarch, 0);
        if (!uf) {
            CHECK(t[i].uarch == DS_UARCH_NETBURST || t[i].uarch == DS_UARCH_CORE2 || t[i].uarch == DS_UARCH_YONAH,
                  "%s: no perfmon file listed here", ds_uarch_name(t[i].uarch));
            continue;
        }
        rows++;
        const struct exc *x = exc_find(X_NAME, t[i].uarch, t[i].name, 0, 0);
        const struct profile *p = profile_of(t[i].uarch);
        CHECK(p != NULL, "%s: a fake CPU", ds_uarch_name(t[i].uarch));
        for (; uf; uf = files_of(t[i].uarch, (size_t)(uf - ufiles) + 1)) {
            sig_override = uf->sig;
            if (!x)
                check_row(&t[i], uf);
            if (p && t[i].ll_evsel)
                check_ldlat(&t[i], p, uf);
        }
        sig_override = 0;
    }
    CHECK(rows >= 100, "%u rows checked against perfmon", rows);
    for (size_t i = 0; i < sizeof ufiles / sizeof ufiles[0]; i++) {
        const struct profile *p = profile_of(ufiles[i].u);
        struct ds_cpu cpu;
        sig_override = ufiles[i].sig;
        CHECK(p && cpu_of(&cpu, p) == DS_OK, "%s: profile identifies", ds_uarch_name(ufiles[i].u));
        enum ds_uarch u = DS_UARCH_UNKNOWN;
        CHECK(p && ds_uarch_of(&cpu, &u) == DS_OK && u == ufiles[i].u, "%s: profile is that uarch (%s)",
              ds_uarch_name(ufiles[i].u), ds_uarch_name(u));
        if (p)
            check_counters(p, &ufiles[i]);
        sig_override = 0;
    }
    /* an exception nothing needs is stale: the disagreement it names is gone */
    for (size_t i = 0; i < sizeof excs / sizeof excs[0]; i++)
        CHECK(exc_used[i] > 0, "exception %zu (%s %s %02X/%02X) is used", i, ds_uarch_name(excs[i].u),
              excs[i].name ? excs[i].name : "", excs[i].code, excs[i].umask);
}

int main(void)
{
    if (!load()) {
        CHECK(false, "read %s", DS_PERFMON_TSV);
        return check_summary();
    }
    CHECK(nev > 1000, "%d perfmon events", nev);
    test_perfmon_oracle();
    return check_summary();
}
