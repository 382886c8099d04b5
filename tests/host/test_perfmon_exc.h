/* SPDX-License-Identifier: BSD-2-Clause */
/* test_perfmon.c's named exceptions: each says where libds differs from
 * Intel perfmon and the source that makes it so (the rule: follow Linux
 * where hardware cannot be checked, unless a source says Linux is wrong).
 * Fields: kind, uarch, row name, code, umask, any umask, any event, libds's
 * counter mask, why. */
#define XN(u, nm, why) { X_NAME, u, nm, 0, 0, false, false, 0, why }
#define XP(u, nm, why) { X_PRECISE, u, nm, 0, 0, false, false, 0, why }
#define XC(u, c, um, any, m, why) { X_COUNTERS, u, NULL, c, um, any, false, m, why }
#define XALL(u, m, why) { X_COUNTERS, u, NULL, 0, 0, false, true, m, why }
#define XL(u, c, um, m, why) { X_LDLAT, u, NULL, c, um, false, false, m, why }
static const struct exc excs[] = {
    XN(DS_UARCH_NEHALEM, "BR_MISP_RETIRED.ALL_BRANCHES",
       "architectural event C5H/00H (SDM Vol. 3B Table 20-1, Linux intel_perfmon_event_map) for Nehalem and Westmere alike: NehalemEP has no ALL_BRANCHES, Westmere's is C5H/04H"),
    XP(DS_UARCH_NEHALEM, "MEM_INST_RETIRED.LOADS", "Linux ds.c intel_nehalem_pebs_event_constraints lists only 0x100b (pmc.h follows Linux)"),
    XP(DS_UARCH_NEHALEM, "MEM_INST_RETIRED.STORES", "Linux ds.c intel_nehalem_pebs_event_constraints lists only 0x100b"),
    XC(DS_UARCH_NEHALEM, 0x0B, 0x01, false, 0x0, "Linux intel_nehalem_/westmere_pebs_event_constraints: only 0x100b"),
    XC(DS_UARCH_NEHALEM, 0x0B, 0x02, false, 0x0, "Linux intel_nehalem_/westmere_pebs_event_constraints: only 0x100b"),
    XC(DS_UARCH_NEHALEM, 0xC0, 0x01, false, 0x0,
       "INST_RETIRED.TOTAL_CYCLES(_PS) is C0H/01H INV CMASK 16: Linux's FLAGS row 0xc0 needs the flags clear and its cycles:p alias is umask 00H"),
    XALL(DS_UARCH_BONNELL, 0x1, "PEBS on IA32_PMC0 only (SDM PEBS for Intel Atom; Linux intel_atom_pebs_event_constraints counter mask 0x1); perfmon Counter lists where it counts"),
    XALL(DS_UARCH_SILVERMONT, 0x1, "PEBS on IA32_PMC0 only (SDM 18.6.1.1; Linux intel_slm_pebs_event_constraints 0x1)"),
    XC(DS_UARCH_GOLDMONT_PLUS, 0xC0, 0x00, false, 0xF,
       "INST_RETIRED.PREC_DIST shares C0H/00H with INST_RETIRED.ANY_P (PEBS on every counter, Linux intel_glp_pebs_event_constraints all events 0xf); perfmon's PMC0 is the precise-distribution variant"),
    XC(DS_UARCH_SKYLAKE, 0xC0, 0x01, false, 0xF,
       "INST_RETIRED.TOTAL_CYCLES_PS C0H/01H INV CMASK 10: Linux's PMC1 rows (0x01c0 flags clear, 0x108001c0 CMASK 16) do not match it, the catch-all 0xf does"),
    XC(DS_UARCH_GRACEMONT, 0xD0, 0x06, false, 0xF, "Linux intel_grt_pebs_event_constraints INTEL_HYBRID_STLAT_CONSTRAINT(0x6d0, 0xf)"),
    XC(DS_UARCH_CRESTMONT, 0xD0, 0x06, false, 0xF, "Linux intel_grt_pebs_event_constraints (intel_pmu_init_grt) 0x6d0 0xf"),
    XC(DS_UARCH_SKYMONT, 0xD0, 0x06, false, 0xF, "Linux intel_grt_pebs_event_constraints (intel_pmu_init_skt) 0x6d0 0xf"),
    XC(DS_UARCH_LIONCOVE, 0xD0, 0x87, false, 0xF, "Linux intel_lnc_pebs_event_constraints INTEL_FLAGS_EVENT_CONSTRAINT(0xd0, 0xf)"),
    XC(DS_UARCH_COUGARCOVE, 0xD0, 0x87, false, 0xF,
       "Linux intel_lnc_pebs_event_constraints INTEL_FLAGS_EVENT_CONSTRAINT(0xd0, 0xf) (Panther Lake shares lnl_common)"),
};
#undef XN
#undef XP
#undef XC
#undef XALL
#undef XL
