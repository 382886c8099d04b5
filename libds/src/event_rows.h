/* SPDX-License-Identifier: BSD-2-Clause */
/* event.c's performance-counter rows (not NetBurst), in table order, one
 * R(uarch, event, evsel, umask, cmask, inv, fixed, precise, ll_evsel,
 * ll_umask, name, source) per (uarch, event) pair, or RS(uarch, event, same,
 * evsel, ..., name) for a row whose source text is the text of row (uarch,
 * same) (stored once, so the two cannot drift apart), or a macro that
 * expands to such rows (BIGCORE, SMALLCORE, SNB_HSW_SKL, CYC: event.c). No
 * separators: R supplies them. Included by
 * event.c for the source strings' storage, their initialiser and the
 * packed rows (issue 28 item 6). */
/* Core 2: SDM Vol. 3B "Performance Monitoring Events for Intel Core
 * Microarchitecture" and "PEBS Performance Events for Intel Core"; Linux
 * ds.c intel_core2_pebs_event_constraints. */
R(DS_UARCH_CORE2, I, 0xC0, 0x00, 0, false, 0, P_GP, 0, 0, N_INST_RETIRED_ANY_P, "SDM Core 2 PEBS events; Linux intel_core2_pebs_event_constraints 0x00c0")
R(DS_UARCH_CORE2, B, 0xC4, 0x00, 0, false, -1, P_NONE, 0, 0, N_BR_INST_RETIRED_ANY, "SDM Core 2 events (not in its PEBS table)")
R(DS_UARCH_CORE2, M, 0xC5, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_INST_RETIRED_MISPRED, "SDM Core 2 PEBS events; Linux intel_core2_pebs_event_constraints 0x00c5")
/* Linux core2_hw_cache_event_ids L1D read/write access are 0x0f40
 * L1D_CACHE_LD.MESI / 0x0f41 L1D_CACHE_ST.MESI: L1 data cache reads and
 * writes (accesses, speculative ones included), not retired load/store
 * instructions, which "loads"/"stores" count here (issue 25 item 10). */
R(DS_UARCH_CORE2, L, 0xC0, 0x01, 0, false, -1, P_NONE, 0, 0, N_INST_RETIRED_LOADS, "SDM Core 2 events (not in its PEBS table); not Linux's L1-dcache 0x0f40 L1D_CACHE_LD.MESI: that counts cache reads, this retired loads")
R(DS_UARCH_CORE2, S, 0xC0, 0x02, 0, false, -1, P_NONE, 0, 0, N_INST_RETIRED_STORES, "SDM Core 2 events (not in its PEBS table); not Linux's L1-dcache 0x0f41 L1D_CACHE_ST.MESI: that counts cache writes, this retired stores")
R(DS_UARCH_CORE2, C, 0x3C, 0x00, 0, false, 1, P_NONE, 0, 0, N_CPU_CLK_UNHALTED_CORE_P, "SDM Core 2 events; Linux intel_perfmon_event_map")

/* Bonnell: perfmon BNL/events/bonnell_core.json; Linux intel_atom_pebs_event_constraints. */
R(DS_UARCH_BONNELL, I, 0xC0, 0x00, 0, false, 0, P_GP, 0, 0, N_INST_RETIRED_ANY_P, "bonnell_core.json PEBS 2; Linux intel_atom_pebs_event_constraints 0x00c0")
R(DS_UARCH_BONNELL, B, 0xC4, 0x00, 0, false, -1, P_NONE, 0, 0, N_BR_INST_RETIRED_ANY, "bonnell_core.json PEBS 0")
R(DS_UARCH_BONNELL, M, 0xC5, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_INST_RETIRED_MISPRED, "bonnell_core.json PEBS 1; Linux intel_atom_pebs_event_constraints 0x00c5")
RS(DS_UARCH_BONNELL, C, B, 0x3C, 0x00, 0, false, 1, P_NONE, 0, 0, N_CPU_CLK_UNHALTED_CORE_P)

/* Silvermont/Airmont: perfmon SLM/events/Silvermont_core.json. */
R(DS_UARCH_SILVERMONT, I, 0xC0, 0x00, 0, false, 0, P_NONE, 0, 0, N_INST_RETIRED_ANY_P, "Silvermont_core.json PEBS 0")
R(DS_UARCH_SILVERMONT, B, 0xC4, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_INST_RETIRED_ALL_BRANCHES, "Silvermont_core.json PEBS 1 (PMC0: Linux intel_slm_pebs_event_constraints)")
R(DS_UARCH_SILVERMONT, M, 0xC5, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_MISP_RETIRED_ALL_BRANCHES, "Silvermont_core.json PEBS 1")
RS(DS_UARCH_SILVERMONT, L, I, 0x04, 0x40, 0, false, -1, P_NONE, 0, 0, N_MEM_UOPS_RETIRED_ALL_LOADS)
RS(DS_UARCH_SILVERMONT, S, I, 0x04, 0x80, 0, false, -1, P_NONE, 0, 0, N_MEM_UOPS_RETIRED_ALL_STORES)
RS(DS_UARCH_SILVERMONT, C, I, 0x3C, 0x00, 0, false, 1, P_NONE, 0, 0, N_CPU_CLK_UNHALTED_CORE_P)

/* Knights Landing/Mill: perfmon KNL/events/knightslanding_core.json. */
R(DS_UARCH_KNIGHTS, I, 0xC0, 0x00, 0, false, 0, P_GP, 0, 0, N_INST_RETIRED_ANY_PS, "knightslanding_core.json INST_RETIRED.ANY_PS PEBS 2, counter 0")
R(DS_UARCH_KNIGHTS, B, 0xC4, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_INST_RETIRED_ALL_BRANCHES, "knightslanding_core.json PEBS 1")
RS(DS_UARCH_KNIGHTS, M, B, 0xC5, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_MISP_RETIRED_ALL_BRANCHES)
R(DS_UARCH_KNIGHTS, L, 0x04, 0x40, 0, false, -1, P_NONE, 0, 0, N_MEM_UOPS_RETIRED_ALL_LOADS, "knightslanding_core.json PEBS 0")
RS(DS_UARCH_KNIGHTS, S, L, 0x04, 0x80, 0, false, -1, P_NONE, 0, 0, N_MEM_UOPS_RETIRED_ALL_STORES)
RS(DS_UARCH_KNIGHTS, C, L, 0x3C, 0x00, 0, false, 1, P_NONE, 0, 0, N_CPU_CLK_UNHALTED_THREAD_P)

/* Goldmont: perfmon GLM/events/goldmont_core.json (PEBS on PMC0: Linux intel_glm_pebs_event_constraints). */
R(DS_UARCH_GOLDMONT, I, 0xC0, 0x00, 0, false, 0, P_GP, 0, 0, N_INST_RETIRED_ANY_P, "goldmont_core.json PEBS 2")
RS(DS_UARCH_GOLDMONT, B, I, 0xC4, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_INST_RETIRED_ALL_BRANCHES)
RS(DS_UARCH_GOLDMONT, M, I, 0xC5, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_MISP_RETIRED_ALL_BRANCHES)
RS(DS_UARCH_GOLDMONT, L, I, 0xD0, 0x81, 0, false, -1, P_GP, 0, 0, N_MEM_UOPS_RETIRED_ALL_LOADS)
RS(DS_UARCH_GOLDMONT, S, I, 0xD0, 0x82, 0, false, -1, P_GP, 0, 0, N_MEM_UOPS_RETIRED_ALL_STORES)
R(DS_UARCH_GOLDMONT, C, 0x3C, 0x00, 0, false, 1, P_NONE, 0, 0, N_CPU_CLK_UNHALTED_CORE_P, "goldmont_core.json PEBS 0")

/* Goldmont Plus: perfmon GLP/events/goldmontplus_core.json (INST_RETIRED.ANY on fixed 0 is PEBS 2). */
R(DS_UARCH_GOLDMONT_PLUS, I, 0xC0, 0x00, 0, false, 0, P_FIX, 0, 0, N_INST_RETIRED_ANY_P, "goldmontplus_core.json INST_RETIRED.ANY (fixed 0) PEBS 2")
R(DS_UARCH_GOLDMONT_PLUS, B, 0xC4, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_INST_RETIRED_ALL_BRANCHES, "goldmontplus_core.json PEBS 2")
RS(DS_UARCH_GOLDMONT_PLUS, M, B, 0xC5, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_MISP_RETIRED_ALL_BRANCHES)
RS(DS_UARCH_GOLDMONT_PLUS, L, B, 0xD0, 0x81, 0, false, -1, P_GP, 0, 0, N_MEM_UOPS_RETIRED_ALL_LOADS)
RS(DS_UARCH_GOLDMONT_PLUS, S, B, 0xD0, 0x82, 0, false, -1, P_GP, 0, 0, N_MEM_UOPS_RETIRED_ALL_STORES)
R(DS_UARCH_GOLDMONT_PLUS, C, 0x3C, 0x00, 0, false, 1, P_NONE, 0, 0, N_CPU_CLK_UNHALTED_CORE_P, "goldmontplus_core.json PEBS 0")

SMALLCORE(DS_UARCH_TREMONT, 0, 0, "perfmon EHL/events/elkhartlake_core.json, SNR/events/snowridgex_core.json")

/* Nehalem/Westmere: perfmon NHM-EP/events/NehalemEP_core.json,
 * WSM-EP-SP/events/WestmereEP-SP_core.json; Linux ds.c
 * intel_nehalem_/intel_westmere_pebs_event_constraints. */
R(DS_UARCH_NEHALEM, I, 0xC0, 0x01, 0, false, 0, P_GP, 0, 0, N_INST_RETIRED_ANY_P, "NehalemEP_core.json PEBS 1; Linux intel_nehalem_pebs_event_constraints 0xc0")
R(DS_UARCH_NEHALEM, B, 0xC4, 0x04, 0, false, -1, P_GP, 0, 0, N_BR_INST_RETIRED_ALL_BRANCHES, "NehalemEP_core.json PEBS 1; Linux intel_nehalem_pebs_event_constraints 0xc4")
R(DS_UARCH_NEHALEM, M, 0xC5, 0x00, 0, false, -1, P_NONE, 0, 0, N_BR_MISP_RETIRED_ALL_BRANCHES, "architectural event C5H/00H (SDM Vol. 3B Table 20-1); Linux intel_perfmon_event_map; Nehalem PEBS only C5H/02H")
R(DS_UARCH_NEHALEM, L, 0x0B, 0x01, 0, false, -1, P_NONE, 0x0B, 0x10, N_MEM_INST_RETIRED_LOADS, "NehalemEP_core.json; Linux intel_nehalem_pebs_event_constraints: only 0x100b (LATENCY_ABOVE_THRESHOLD, PEBS 2) is PEBS")
R(DS_UARCH_NEHALEM, S, 0x0B, 0x02, 0, false, -1, P_NONE, 0, 0, N_MEM_INST_RETIRED_STORES, "NehalemEP_core.json; not in Linux intel_nehalem_pebs_event_constraints")
CYC(DS_UARCH_NEHALEM, "NehalemEP_core.json PEBS 0")

SNB_HSW_SKL(DS_UARCH_SANDYBRIDGE, "perfmon SNB/events/sandybridge_core.json, IVB/events/ivybridge_core.json", N_MEM_UOPS_RETIRED_ALL_LOADS, N_MEM_UOPS_RETIRED_ALL_STORES, SNB_LS_WHY)
SNB_HSW_SKL(DS_UARCH_HASWELL, "perfmon HSW/events/haswell_core.json, BDW/events/broadwell_core.json", N_MEM_UOPS_RETIRED_ALL_LOADS, N_MEM_UOPS_RETIRED_ALL_STORES, "Linux hsw_hw_cache_event_ids L1D access 0x81d0/0x82d0 agree")
SNB_HSW_SKL(DS_UARCH_SKYLAKE, "perfmon SKL/events/skylake_core.json, SKX/events/skylakex_core.json", N_MEM_INST_RETIRED_ALL_LOADS, N_MEM_INST_RETIRED_ALL_STORES, "Linux skl_hw_cache_event_ids L1D access 0x81d0/0x82d0 agree")
BIGCORE(DS_UARCH_ICELAKE, 0xCD, 0x01, "perfmon ICL/events/icelake_core.json, ICX/events/icelakex_core.json")
BIGCORE(DS_UARCH_GOLDENCOVE, 0xCD, 0x01, "perfmon SPR/events/sapphirerapids_core.json, ADL/events/alderlake_goldencove_core.json")
SMALLCORE(DS_UARCH_GRACEMONT, 0xD0, 0x05, "perfmon ADL/events/alderlake_gracemont_core.json")
BIGCORE(DS_UARCH_REDWOODCOVE, 0xCD, 0x01, "perfmon MTL/events/meteorlake_redwoodcove_core.json, GNR/events/graniterapids_core.json")
SMALLCORE(DS_UARCH_CRESTMONT, 0xD0, 0x05, "perfmon MTL/events/meteorlake_crestmont_core.json, SRF/events/sierraforest_core.json")
BIGCORE(DS_UARCH_LIONCOVE, 0xCD, 0x01, "perfmon LNL/events/lunarlake_lioncove_core.json, ARL/events/arrowlake_lioncove_core.json")
SMALLCORE(DS_UARCH_SKYMONT, 0xD0, 0x05, "perfmon LNL/events/lunarlake_skymont_core.json, ARL/events/arrowlake_skymont_core.json")
BIGCORE(DS_UARCH_COUGARCOVE, 0, 0, "perfmon PTL/events/pantherlake_cougarcove_core.json")
SMALLCORE(DS_UARCH_DARKMONT, 0, 0, "perfmon PTL/events/pantherlake_darkmont_core.json, CWF/events/clearwaterforest_core.json")
BIGCORE(DS_UARCH_COYOTECOVE, 0, 0, "perfmon NVL/events/novalake_coyotecove_core.json V1.00")
/* Arctic Wolf: novalake_arcticwolf_core.json V1.00 publishes no retired
 * load or store event: loads/stores are DS_ERR_EVENT_NONE until it does. */
R(DS_UARCH_ARCTICWOLF, I, 0xC0, 0x00, 0, false, 0, P_FIX, 0, 0, N_INST_RETIRED_ANY_P, "perfmon NVL/events/novalake_arcticwolf_core.json V1.00 INST_RETIRED.ANY (fixed 0) and _ANY_P: Precise 1")
R(DS_UARCH_ARCTICWOLF, B, 0xC4, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_INST_RETIRED_ALL_BRANCHES, "perfmon NVL/events/novalake_arcticwolf_core.json V1.00 Precise 1")
RS(DS_UARCH_ARCTICWOLF, M, B, 0xC5, 0x00, 0, false, -1, P_GP, 0, 0, N_BR_MISP_RETIRED_ALL_BRANCHES)
R(DS_UARCH_ARCTICWOLF, C, 0x3C, 0x00, 0, false, 1, P_NONE, 0, 0, N_CPU_CLK_UNHALTED_CORE_P, "perfmon NVL/events/novalake_arcticwolf_core.json V1.00 Precise 0")

/* Yonah (Core Solo/Duo 06_0EH): Linux core.c intel_pmu_init "Core
 * events" (name "core") counts it with the architectural
 * intel_perfmon_event_map on perfmon v1 (no fixed counters, no PEBS,
 * no hw_cache ids: loads/stores DS_ERR_EVENT_NONE); SDM Vol. 3B
 * architectural events (Table 20-1). Perfmon publishes no file. */
R(DS_UARCH_YONAH, I, 0xC0, 0x00, 0, false, -1, P_NONE, 0, 0, N_INSTR_RETIRED, "architectural event C0H/00H (SDM Vol. 3B Table 20-1); Linux intel_perfmon_event_map 0x00c0")
R(DS_UARCH_YONAH, B, 0xC4, 0x00, 0, false, -1, P_NONE, 0, 0, N_BR_INST_RETIRED, "architectural event C4H/00H (SDM Vol. 3B Table 20-1); Linux intel_perfmon_event_map 0x00c4")
R(DS_UARCH_YONAH, M, 0xC5, 0x00, 0, false, -1, P_NONE, 0, 0, N_BR_MISP_RETIRED, "architectural event C5H/00H (SDM Vol. 3B Table 20-1); Linux intel_perfmon_event_map 0x00c5")
R(DS_UARCH_YONAH, C, 0x3C, 0x00, 0, false, -1, P_NONE, 0, 0, N_UNHALTED_CORE_CYCLES, "architectural event 3CH/00H (SDM Vol. 3B Table 20-1); Linux intel_perfmon_event_map 0x003c")
