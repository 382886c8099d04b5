/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Issue 25 item 13 (LBR part): lbr.c's legacy LBR rows against Linux perf,
 * as facts transcribed here (no Linux code in the repo). Sources (Linux
 * arch/x86/events/intel/, read at linux-next 2bab8c4655ca of 2025):
 *
 * lbr.c, the legacy init functions (MSR numbers: asm/msr-index.h
 * MSR_LBR_TOS 0x1c9, MSR_LBR_CORE_FROM 0x40, MSR_LBR_CORE_TO 0x60,
 * MSR_LBR_NHM_FROM 0x680, MSR_LBR_NHM_TO 0x6c0):
 *   intel_pmu_lbr_init_core: "x86_pmu.lbr_nr = 4;" lbr_from = MSR_LBR_CORE_FROM, no lbr_sel_mask
 *   intel_pmu_lbr_init_nhm:  "x86_pmu.lbr_nr = 16;" MSR_LBR_NHM_FROM, "lbr_sel_map = nhm_lbr_sel_map"
 *   intel_pmu_lbr_init_snb:  16, MSR_LBR_NHM_FROM, snb_lbr_sel_map
 *   intel_pmu_lbr_init_hsw:  16, MSR_LBR_NHM_FROM, hsw_lbr_sel_map (PERF_SAMPLE_BRANCH_CALL_STACK)
 *   intel_pmu_lbr_init_skl:  "x86_pmu.lbr_nr = 32;" MSR_LBR_NHM_FROM, hsw_lbr_sel_map
 *   intel_pmu_lbr_init_atom: "x86_pmu.lbr_nr = 8;" MSR_LBR_CORE_FROM, no lbr_sel_mask
 *   intel_pmu_lbr_init_slm:  8, MSR_LBR_CORE_FROM, nhm_lbr_sel_map
 *   intel_pmu_lbr_init_knl:  8, MSR_LBR_NHM_FROM, snb_lbr_sel_map; "if (lbr_format ==
 *                            LBR_FORMAT_LIP) lbr_format = LBR_FORMAT_EIP_FLAGS"
 * The LBR format is never per model in Linux (PERF_CAPABILITIES[5:0],
 * x86_pmu.intel_cap.lbr_format) except that Knights Landing/Mill override;
 * LBR_INFO follows the format (x86_perf_get_lbr: "info = (lbr_fmt ==
 * LBR_FORMAT_INFO) ? MSR_LBR_INFO_0 : 0"), so it is not compared here.
 *
 * core.c intel_pmu_init, "case INTEL_...:" groups and the init they call:
 *   CORE2_MEROM/MEROM_L/PENRYN/DUNNINGTON (0F 16 17 1D) -> core
 *   NEHALEM/NEHALEM_EP/NEHALEM_EX (1E 1A 2E), WESTMERE/_EP/_EX (25 2C 2F) -> nhm
 *   ATOM_BONNELL/_MID, SALTWELL/_MID/_TABLET (1C 26 36 27 35) -> atom
 *   ATOM_SILVERMONT/_D/_MID, AIRMONT, SILVERMONT_MID2 (37 4D 4A 4C 5A) -> slm
 *   ATOM_GOLDMONT/_D (5C 5F), GOLDMONT_PLUS (7A), TREMONT_D/TREMONT/_L (86 96 9C) -> skl
 *   SANDYBRIDGE/_X (2A 2D), IVYBRIDGE/_X (3A 3E) -> snb
 *   HASWELL/_X/_L/_G (3C 3F 45 46), BROADWELL/_D/_G/_X (3D 56 47 4F) -> hsw
 *   XEON_PHI_KNL/KNM (57 85) -> knl
 *   SKYLAKE_X/_L, SKYLAKE, KABYLAKE_L/KABYLAKE, COMETLAKE_L/COMETLAKE (55 4E 5E 8E 9E A6 A5) -> skl
 *   ICELAKE_X/_D/_L, ICELAKE, TIGERLAKE_L/TIGERLAKE, ROCKETLAKE (6A 6C 7E 7D 8C 8D A7) -> skl
 *   SAPPHIRERAPIDS_X, EMERALDRAPIDS_X, GRANITERAPIDS_X/_D, ALDERLAKE/_L, RAPTORLAKE/_P/_S,
 *   METEORLAKE/_L, ARROWLAKE_U, LUNARLAKE_M, ARROWLAKE, ARROWLAKE_H, PANTHERLAKE_L,
 *   WILDCATLAKE_L, ATOM_GRACEMONT, ATOM_CRESTMONT/_X (8F CF AD AE 97 9A B7 BA BF AA AC B5 BD
 *   C6 C5 CC D5 BE AF B6): no legacy init; "if (boot_cpu_has(X86_FEATURE_ARCH_LBR))
 *   intel_pmu_arch_lbr_init();"
 */
#include "check.h"
#include <ds/ds.h>
#include <ds/lbr.h>
#include <string.h>

enum linit { L_CORE, L_NHM, L_SNB, L_HSW, L_SKL, L_ATOM, L_SLM, L_KNL, L_ARCH };
static const struct { uint8_t depth; uint32_t from, to; bool sel, callstack; } inits[] = {
    [L_CORE] = { 4, 0x40, 0x60, false, false },   [L_NHM] = { 16, 0x680, 0x6C0, true, false },
    [L_SNB] = { 16, 0x680, 0x6C0, true, false },  [L_HSW] = { 16, 0x680, 0x6C0, true, true },
    [L_SKL] = { 32, 0x680, 0x6C0, true, true },   [L_ATOM] = { 8, 0x40, 0x60, false, false },
    [L_SLM] = { 8, 0x40, 0x60, true, false },     [L_KNL] = { 8, 0x680, 0x6C0, true, false },
    [L_ARCH] = { 0, 0, 0, false, false },
};
static const struct { uint8_t model; enum linit init; } linux_models[] = {
    { 0x0F, L_CORE }, { 0x16, L_CORE }, { 0x17, L_CORE }, { 0x1D, L_CORE },
    { 0x1E, L_NHM }, { 0x1A, L_NHM }, { 0x2E, L_NHM }, { 0x25, L_NHM }, { 0x2C, L_NHM }, { 0x2F, L_NHM },
    { 0x1C, L_ATOM }, { 0x26, L_ATOM }, { 0x36, L_ATOM }, { 0x27, L_ATOM }, { 0x35, L_ATOM },
    { 0x37, L_SLM }, { 0x4D, L_SLM }, { 0x4A, L_SLM }, { 0x4C, L_SLM }, { 0x5A, L_SLM },
    { 0x5C, L_SKL }, { 0x5F, L_SKL }, { 0x7A, L_SKL }, { 0x86, L_SKL }, { 0x96, L_SKL }, { 0x9C, L_SKL },
    { 0x2A, L_SNB }, { 0x2D, L_SNB }, { 0x3A, L_SNB }, { 0x3E, L_SNB },
    { 0x3C, L_HSW }, { 0x3F, L_HSW }, { 0x45, L_HSW }, { 0x46, L_HSW },
    { 0x3D, L_HSW }, { 0x56, L_HSW }, { 0x47, L_HSW }, { 0x4F, L_HSW },
    { 0x57, L_KNL }, { 0x85, L_KNL },
    { 0x55, L_SKL }, { 0x4E, L_SKL }, { 0x5E, L_SKL }, { 0x8E, L_SKL }, { 0x9E, L_SKL }, { 0xA6, L_SKL },
    { 0xA5, L_SKL },
    { 0x6A, L_SKL }, { 0x6C, L_SKL }, { 0x7E, L_SKL }, { 0x7D, L_SKL }, { 0x8C, L_SKL }, { 0x8D, L_SKL },
    { 0xA7, L_SKL },
    { 0x8F, L_ARCH }, { 0xCF, L_ARCH }, { 0xAD, L_ARCH }, { 0xAE, L_ARCH }, { 0x97, L_ARCH }, { 0x9A, L_ARCH },
    { 0xB7, L_ARCH }, { 0xBA, L_ARCH }, { 0xBF, L_ARCH }, { 0xAA, L_ARCH }, { 0xAC, L_ARCH }, { 0xB5, L_ARCH },
    { 0xBD, L_ARCH }, { 0xC6, L_ARCH }, { 0xC5, L_ARCH }, { 0xCC, L_ARCH }, { 0xD5, L_ARCH }, { 0xBE, L_ARCH },
    { 0xAF, L_ARCH }, { 0xB6, L_ARCH },
};

/* libds family-6 legacy rows Linux has no case for, each with its reason. */
static const struct { uint8_t model; const char *why; } extra[] = {
    { 0x0D, "Pentium M: Linux p6_pmu_init (no ARCH_PERFMON), no LBR; EDK2 layout, DS_LBR_F_UNCONFIRMED" },
    { 0x0E, "Yonah: Linux 'core' has no lbr_init; EDK2 layout, DS_LBR_F_UNCONFIRMED" },
    { 0x1F, "INTEL_NEHALEM_G: SDM Table 17-4 and 16-3 list 06_1FH with Nehalem's 16 entries; absent from Linux's NEHALEM case" },
    { 0x5D, "SDM Table 17-4 and EDK2 SilvermontMsr.h list 06_5DH with Silvermont's 8 entries; not in Linux's case" },
    { 0x66, "Cannon Lake: Xen vmx.c sk_lbr and EDK2 SkylakeMsr.h (32 entries, LBR_INFO); Linux has no Cannon Lake case" },
    { 0x8A, "Lakefield: Linux has no case (row DS_LBR_F_UNCONFIRMED, Sunny Cove layout)" },
    { 0x9D, "Ice Lake NNPI: Linux has no case (row DS_LBR_F_UNCONFIRMED)" },
    { 0x75, "Airmont NP: Linux has no case (row DS_LBR_F_UNCONFIRMED, Airmont layout)" },
};

static void test_linux_lbr_rows(void)
{
    for (size_t i = 0; i < sizeof linux_models / sizeof linux_models[0]; i++) {
        const struct ds_lbr_model *m = NULL;
        uint8_t mo = linux_models[i].model;
        enum linit k = linux_models[i].init;
        CHECK_EQ(ds_lbr_lookup(6, mo, &m), DS_OK, "06_%02XH in lbr.c", mo);
        if (!m)
            continue;
        if (k == L_ARCH) {
            CHECK(m->flags & DS_LBR_F_ARCH, "06_%02XH: Arch LBR as Linux (no legacy init)", mo);
            continue;
        }
        CHECK(!(m->flags & DS_LBR_F_ARCH), "06_%02XH: legacy LBR", mo);
        CHECK_EQ(m->depth, inits[k].depth, "06_%02XH depth", mo);
        CHECK_EQ(m->from_base, inits[k].from, "06_%02XH FROM base", mo);
        CHECK_EQ(m->to_base, inits[k].to, "06_%02XH TO base", mo);
        CHECK_EQ(m->tos_msr, 0x1C9, "06_%02XH TOS MSR_LBR_TOS", mo);
        CHECK_EQ(!!(m->flags & DS_LBR_F_SELECT), inits[k].sel, "06_%02XH LBR_SELECT (Linux lbr_sel_mask)", mo);
        CHECK_EQ(!!((m->flags & DS_LBR_F_CALLSTACK) == DS_LBR_F_CALLSTACK), inits[k].callstack,
                 "06_%02XH call stack (Linux hsw_lbr_sel_map)", mo);
        CHECK_EQ(!!(m->flags & DS_LBR_F_LIP_MISPRED), k == L_KNL, "06_%02XH KNL format override", mo);
        CHECK(!(m->flags & DS_LBR_F_UNCONFIRMED), "06_%02XH: Linux confirms it", mo);
    }
    /* every family-6 row of lbr.c is Linux's or a named exception */
    size_t n;
    const struct ds_lbr_model *rows = ds_lbr_models(&n);
    unsigned used[sizeof extra / sizeof extra[0]] = { 0 };
    for (size_t i = 0; i < n; i++) {
        if (rows[i].family != 6)
            continue;
        bool known = false;
        for (size_t j = 0; j < sizeof linux_models / sizeof linux_models[0]; j++)
            known |= linux_models[j].model == rows[i].model;
        for (size_t j = 0; !known && j < sizeof extra / sizeof extra[0]; j++)
            if (extra[j].model == rows[i].model) {
                known = true;
                used[j]++;
            }
        CHECK(known || (rows[i].flags & DS_LBR_F_ARCH), "06_%02XH (%s): Linux's or a named exception", rows[i].model,
              rows[i].uarch);
    }
    for (size_t j = 0; j < sizeof extra / sizeof extra[0]; j++)
        CHECK(used[j] == 1, "exception 06_%02XH is a row (%s)", extra[j].model, extra[j].why);
}

int main(void)
{
    test_linux_lbr_rows();
    return check_summary();
}
