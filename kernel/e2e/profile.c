/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The model profiles and the runs of one profile (or of the native CPU):
 * which runs the CPU's capabilities allow, each through the session
 * (session.c). See flow.h.
 */
#include "flow.h"

static bool e2e_streq(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

/* --- profiles ------------------------------------------------------------- */

static const struct {
    const char *name;
    enum dsm_profile p;
} profiles[] = {
    {"netburst_m3", DSM_NETBURST_M3}, {"netburst_m4_64", DSM_NETBURST_M4_64},
    {"core2", DSM_CORE2},             {"atom", DSM_ATOM},
    {"nehalem", DSM_NEHALEM},         {"haswell", DSM_HASWELL},
    {"skylake", DSM_SKYLAKE},         {"icelake", DSM_ICELAKE},
    {"sapphirerapids", DSM_SAPPHIRERAPIDS}, {"graniterapids", DSM_GRANITERAPIDS},
    {"lunarlake", DSM_LUNARLAKE},     {"alderlake_p", DSM_ALDERLAKE_P},
    {"alderlake_e", DSM_ALDERLAKE_E},
    {"kvm_spr", DSM_KVM_SPR},         {"kvm_skl", DSM_KVM_SKL},
    {"panther_lake_p", DSM_PTL_P},    {"panther_lake_e", DSM_PTL_E},
    {"lunarlake_e", DSM_LUNARLAKE_E}, {"arrowlake_h", DSM_ARROWLAKE_H},
};

#if defined(__x86_64__)
static const char *const default_profiles[] = {"netburst_m4_64", "core2",       "skylake",
                                               "icelake",        "alderlake_p", "lunarlake", "panther_lake_p"};
#else
static const char *const default_profiles[] = {"netburst_m3", "core2", "skylake", "icelake", "panther_lake_p"};
#endif
/* Whether DEBUGCTL.FREEZE_PERFMON_ON_PMI (bit 12) can be set; DEBUGCTL is
 * restored. A KVM guest faults (issue 14). */
static bool freeze_writable(void)
{
    uint64_t dc = 0;
    if (ds_msr_read(E.cpu, 0x1D9, &dc) != DS_OK)
        return false;
    if (ds_msr_write(E.cpu, 0x1D9, dc | DS_DEBUGCTL_FREEZE_PERFMON_ON_PMI) != DS_OK)
        return false;
    ds_msr_write(E.cpu, 0x1D9, dc);
    return true;
}

/* The freeze mode of the PEBS runs: streamlined on perfmon v4+, legacy on
 * v2/v3, none on v1 and NetBurst, and none (skipped, said) where
 * DEBUGCTL.FREEZE_PERFMON_ON_PMI faults. */
static enum ds_freeze_mode run_freeze(void)
{
    const struct ds_caps *caps = &E.cpu->caps;
    bool nb = caps->netburst;
    enum ds_freeze_mode fz = DS_FREEZE_NONE;
    if (!nb && caps->perfmon_version >= 4)
        fz = DS_FREEZE_STREAMLINED;
    else if (!nb && caps->perfmon_version >= 2)
        fz = DS_FREEZE_LEGACY;
    if (fz == DS_FREEZE_LEGACY && !freeze_writable()) {
        /* KVM offers DEBUGCTL.LBR and FREEZE_LBRS_ON_PMI at most (Linux vmx
         * vmx_get_supported_debugctl): FREEZE_PERFMON_ON_PMI raises #GP */
        fz = DS_FREEZE_NONE;
        E.skipped++;
        ktest_skip("%s: freeze on PMI: DEBUGCTL.FREEZE_PERFMON_ON_PMI faults; runs go unfrozen", E.prof_name);
    }
    return fz;
}

/* The runs of one backend/profile. */
void run_all(void)
{
    enum ds_freeze_mode fz = run_freeze();
    for (unsigned i = 0; i < CHASE_LEN; i++)
        E.chase_arr[i] = (i * 17u + 5u) % CHASE_LEN; /* 17 odd: one cycle through all 64 */

    struct run_cfg runs[6];
    zero(runs, sizeof runs);
    unsigned nr = pebs_runs(runs, 0, fz);
    nr = lbr_runs(runs, nr);
    nr = bts_runs(runs, nr);
    for (unsigned i = 0; i < nr; i++)
        runs[i].lbr = runs[i].lbr && E.lbrm;   /* no LBR: skipped above, PEBS/BTS runs go without */
    if (!nr) {
        E.skipped++;
        ktest_skip("%s: the CPU advertises neither PEBS nor BTS: no runs", E.prof_name);
    }
    for (unsigned i = 0; i < nr; i++) {
        if (k_opt("e2e_verbose", NULL))
            kprintf("# e2e: %s %s\n", E.prof_name, runs[i].name);
        do_session_run(&runs[i]);
    }
}

void run_model_profile(const char *name, const char *why)
{
    enum dsm_profile p = DSM_PROFILE__COUNT;
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
        if (e2e_streq(profiles[i].name, name))
            p = profiles[i].p;
    E.prof_name = name;
    if (p == DSM_PROFILE__COUNT) {
        ktest_fail("unknown model profile \"%s\" (profile=)", name);
        return;
    }
    E.prof = p;
    E.model = true;
    int me = dsm_init(&E.m, p, &dsm_identity_mem_ops, NULL);
#if defined(__x86_64__)
    bool ia32e = true;
#else
    bool ia32e = false;
#endif
    if (me == DSM_OK)
        me = dsm_set_ia32e(&E.m, ia32e);
    if (me != DSM_OK) {
        /* A 32-bit-only CPU cannot run the x86_64 kernel. */
        E.skipped++;
        ktest_skip("e2e/%s: profile cannot run this %s kernel (no Intel 64)", name, K_ARCH);
        return;
    }
    log_begin("model", name, why);
    dsm_set_pmi(&E.m, model_pmi, NULL);
    int e = ds_model_cpu_init(&E.mc, &E.m);
    if (e == DS_OK)
        e = ds_cpu_identify(&E.mc);
    E.cpu = &E.mc;
    if (check(e == DS_OK, "model cpu identified (%s)", ds_errname(e))) {
        lbr_setup();
        const struct ds_caps *c = &E.mc.caps;
        uint8_t ct = c->has_leaf_1a ? c->core_type : DS_CORE_TYPE_NONE;
        kprintf("# e2e: %smodel profile %s: family %x model %x, perfmon v%u, PEBS fmt %u, %s DS layout, LBR %s%s%s\n",
                E.tag, name, c->display_family, c->display_model, c->perfmon_version, c->pebs_format,
                dsm_ds64(&E.m) ? "64-bit" : "32-bit", E.lbrm ? E.lbrm->uarch : "none",
                ct == DS_CORE_TYPE_CORE ? ", core type 40H (Core)" : ct == DS_CORE_TYPE_ATOM ? ", core type 20H (Atom)" : "",
                c->has_leaf_1a && ct != DS_CORE_TYPE_CORE && ct != DS_CORE_TYPE_ATOM ? ", core type unknown" : "");
        /* SDM CPUID leaf 1AH: a hybrid part (07H EDX[15]) names its core type, 20H Atom or 40H Core (issue 13) */
        if (c->hybrid)
            check(ct == DS_CORE_TYPE_ATOM || ct == DS_CORE_TYPE_CORE, "hybrid part: CPUID 1AH core type %02XH is 20H or 40H",
                  ct);
        run_all();
    }
    log_end();
}

/* The model backend: the profiles of cpu_profile.N= (E.override), else
 * profile=, else the architecture's defaults, one log each. */
void run_model(const char *why)
{
    kprintf("#\n# ******** e2e: backend=model why=%s ********\n"
            "# ******** DS is not usable on this CPU: the records below come from the\n"
            "# ******** reference model (model/) driven by single-stepping the real workloads\n#\n",
            why);
    char list[128];
    const char *pl = k_opt_str("profile", list, sizeof list, NULL);
    if (E.override) {
        size_t n = 0;
        for (; n + 1 < sizeof list && E.override[n]; n++)
            list[n] = E.override[n];
        list[n] = 0;
        pl = list;
    }
    if (!pl) {
        for (size_t i = 0; i < sizeof default_profiles / sizeof default_profiles[0]; i++)
            run_model_profile(default_profiles[i], why);
        return;
    }
    char *s = list;
    while (*s) {
        char *e = s;
        while (*e && *e != ',')
            e++;
        char c = *e;
        *e = 0;
        if (*s)
            run_model_profile(s, why);
        if (!c)
            break;
        s = e + 1;
    }
}
