/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Generic events: what "instructions", "branches", "loads", "stores",
 * "cycles" and "mispredicted branches" are on each Intel microarchitecture,
 * and whether PEBS can sample them there.
 *
 * One table row per (microarchitecture, generic event), each citing its
 * source: the SDM event tables (Vol. 3B ch. 18-19, "Performance-Monitoring
 * Events"), Linux arch/x86/events/intel/core.c (the *_hw_cache_event_ids /
 * intel_perfmon_event_map / intel_*_event_constraints) and ds.c
 * (intel_*_pebs_event_constraints, pebs_aliases), Intel perfmon JSON
 * (github.com/intel/perfmon). Rows say what the event counts; which counter
 * may take PEBS for it is pmc.h's table (ds_pmc_pebs_check), NetBurst's is
 * netburst.h's allocator.
 *
 * The microarchitecture comes from DisplayFamily_DisplayModel and, on a
 * hybrid part, the core type of the logical processor the identification
 * ran on (CPUID leaf 1AH): identify on each CPU before looking up there.
 *
 * Configuration: pure tables, no MSR access.
 */
#ifndef DS_EVENT_H
#define DS_EVENT_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <ds/err.h>
#include <ds/cpu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Generic events (values are stable: they appear in logs). */
enum ds_event {
    DS_EVENT_NONE = 0,
    DS_EVENT_INSTRUCTIONS = 1,   /* instructions retired */
    DS_EVENT_BRANCHES = 2,       /* branch instructions retired */
    DS_EVENT_BRANCH_MISSES = 3,  /* mispredicted branch instructions retired */
    DS_EVENT_LOADS = 4,          /* load instructions (uops) retired */
    DS_EVENT_STORES = 5,         /* store instructions (uops) retired */
    DS_EVENT_CYCLES = 6,         /* core cycles, unhalted */
    DS_EVENT__COUNT              /* one past the last; not an event */
};

/* Microarchitectures the table knows (values are stable). */
enum ds_uarch {
    DS_UARCH_UNKNOWN = 0,
    DS_UARCH_NETBURST,       /* family 0FH */
    DS_UARCH_CORE2,          /* 06_0FH/16H/17H/1DH (Merom, Penryn, Dunnington) */
    DS_UARCH_BONNELL,        /* 06_1CH/26H/27H/35H/36H (Atom) */
    DS_UARCH_SILVERMONT,     /* 06_37H/4AH/4DH/5AH/5DH/4CH/75H (incl. Airmont) */
    DS_UARCH_KNIGHTS,        /* 06_57H/85H (Knights Landing/Mill) */
    DS_UARCH_GOLDMONT,       /* 06_5CH/5FH */
    DS_UARCH_GOLDMONT_PLUS,  /* 06_7AH */
    DS_UARCH_TREMONT,        /* 06_86H/96H/9CH, hybrid E-cores of 06_8AH (Lakefield) */
    DS_UARCH_NEHALEM,        /* 06_1AH/1EH/1FH/2EH, Westmere 06_25H/2CH/2FH */
    DS_UARCH_SANDYBRIDGE,    /* 06_2AH/2DH, Ivy Bridge 06_3AH/3EH */
    DS_UARCH_HASWELL,        /* 06_3CH/3FH/45H/46H, Broadwell 06_3DH/47H/4FH/56H */
    DS_UARCH_SKYLAKE,        /* 06_4EH/5EH/55H/8EH/9EH/A5H/A6H (incl. Kaby/Coffee/Comet, SKX/CLX) */
    DS_UARCH_ICELAKE,        /* 06_7DH/7EH/6AH/6CH/8CH/8DH/A7H (incl. Tiger/Rocket Lake), hybrid P-cores of 06_8AH */
    DS_UARCH_GOLDENCOVE,     /* 06_8FH/CFH (SPR/EMR), hybrid P-cores of 06_97H/9AH/B7H/BAH/BFH (ADL/RPL); 06_D7H (Bartlett Lake) */
    DS_UARCH_GRACEMONT,      /* hybrid E-cores of ADL/RPL; 06_BEH (Alder Lake-N) */
    DS_UARCH_REDWOODCOVE,    /* 06_ADH/AEH (GNR), hybrid P-cores of 06_AAH/ACH (Meteor Lake), 06_B5H (Arrow Lake U) */
    DS_UARCH_CRESTMONT,      /* 06_AFH (Sierra Forest), 06_B6H (Grand Ridge), hybrid E-cores of Meteor Lake / Arrow Lake U */
    DS_UARCH_LIONCOVE,       /* hybrid P-cores of 06_BDH (Lunar Lake), 06_C5H/C6H (Arrow Lake) */
    DS_UARCH_SKYMONT,        /* hybrid E-cores of Lunar/Arrow Lake */
    DS_UARCH_COUGARCOVE,     /* hybrid P-cores of 06_CCH (Panther Lake): architectural PEBS */
    DS_UARCH_DARKMONT,       /* hybrid E-cores of Panther Lake; 06_DDH (Clearwater Forest) */
    DS_UARCH_COYOTECOVE,     /* hybrid P-cores of 12_01H/12_03H (Nova Lake, DisplayFamily 18) */
    DS_UARCH_ARCTICWOLF,     /* hybrid E-cores of Nova Lake */
    DS_UARCH_YONAH,          /* 06_0EH Core Solo/Duo: architectural perfmon v1, no PEBS */
    DS_UARCH__COUNT
};

/* How PEBS can sample the event on that microarchitecture. */
enum ds_event_precise {
    DS_PRECISE_NONE = 0,     /* no PEBS: sample by counter overflow only */
    DS_PRECISE_GP,           /* PEBS on a GP counter (pmc.h constraints pick which) */
    DS_PRECISE_FIXED,        /* PEBS on fixed counter desc.fixed (adaptive/arch PEBS), else on a GP counter */
    DS_PRECISE_NETBURST      /* NetBurst PEBS: IQ_COUNTER4 with replay tagging (netburst.h) */
};

struct ds_event_desc {
    enum ds_event event;
    enum ds_uarch uarch;
    /* IA32_PERFEVTSELx encoding (not NetBurst) */
    uint8_t evsel, umask, cmask;
    bool inv;
    int8_t fixed;            /* fixed counter that counts it (0 = INST_RETIRED.ANY, 1 = CPU_CLK_UNHALTED.CORE), or -1 */
    enum ds_event_precise precise;
    bool ldlat;              /* evsel/umask itself is a load-latency event (MSR_PEBS_LD_LAT threshold applies) */
    /* DS_EVENT_LOADS: the load-latency variant used when a latency threshold
     * is asked for (MEM_TRANS_RETIRED.LOAD_LATENCY CDH/01H, Nehalem
     * MEM_INST_RETIRED.LATENCY_ABOVE_THRESHOLD 0BH/10H); 0/0 = none */
    uint8_t ll_evsel, ll_umask;
    /* NetBurst: event and mask names for netburst.h (ds_nb_event_find,
     * ds_nb_mask_parse), and the replay-tagging metric for PEBS, or -1 */
    const char *nb_event, *nb_mask;
    int nb_metric;
    const char *name;        /* the vendor event name ("INST_RETIRED.ANY_P") */
    const char *source;      /* where the row comes from (SDM table, Linux symbol, perfmon JSON file) */
    /* NetBurst front-end tagging (SDM Vol. 3B "Tagging Mechanism for
     * Front_end_event"): the event that tags the uops nb_event then counts
     * at retirement ("uop_type", "TAGLOADS"); the caller programs both.
     * NULL when nb_event needs no upstream tagging event. */
    const char *nb_tag_event, *nb_tag_mask;
};

/*
 * The microarchitecture of @cpu (identified; on a hybrid part, of the core
 * type the identification ran on: CPUID.1AH core type and native model ID
 * as Intel perfmon mapfile.csv pairs them (20H/1 gracemont ... 40H/4
 * cougarcove; Arrow Lake H's low-power E-cores are 20H/2, crestmont), else
 * core type 20H -> the model's E-core uarch, 40H -> its P-core uarch; a hybrid model without leaf 1AH and
 * without CPUID.07H:EDX[15] is a P-core-only SKU -> the P-core uarch; a
 * non-hybrid model ignores leaf 1AH). DS_ERR_EVENT_UARCH when the
 * family/model (or hybrid core type) is not one the table knows; @out is
 * then DS_UARCH_UNKNOWN. Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED,
 * DS_ERR_NOT_INTEL, DS_ERR_EVENT_UARCH. MSRs: none. NMI-safe: yes.
 */
int ds_uarch_of(const struct ds_cpu *cpu, enum ds_uarch *out);

/* "skylake", "goldencove", ...; "unknown" for values outside the enum. */
const char *ds_uarch_name(enum ds_uarch u);

/* "instructions", "branches", ...; "unknown" for values outside the enum. */
const char *ds_event_name(enum ds_event e);

/*
 * The row for generic event @ev on @cpu's microarchitecture (a copy into
 * @out). Architectural events the CPU disables in CPUID.0AH:EBX are refused
 * (DS_ERR_EVENT_UNAVAILABLE): cycles bit 0, instructions bit 1, branches
 * bit 5, branch misses bit 6, when the bit is below the vector length
 * EAX[31:24] and set. Checks in this order: NULL, identified, @ev,
 * uarch, availability, row. Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED,
 * DS_ERR_EVENT_UNKNOWN (@ev not a generic event), DS_ERR_EVENT_UARCH,
 * DS_ERR_EVENT_NONE (the microarchitecture has no such event),
 * DS_ERR_EVENT_UNAVAILABLE. MSRs: none. NMI-safe: yes.
 */
int ds_event_lookup(const struct ds_cpu *cpu, enum ds_event ev, struct ds_event_desc *out);

/*
 * The whole table (for tools and tests): ds_event_rows() rows, row @i
 * (0-based, in table order) expanded into *@out. The table is stored packed
 * (issue 28 item 6), so there is no array of struct ds_event_desc to point
 * into. Errors: DS_ERR_NULL; DS_ERR_INVAL when @i >= ds_event_rows() (*@out
 * zeroed). MSRs: none. NMI-safe: yes (pure).
 */
size_t ds_event_rows(void);
int ds_event_row(size_t i, struct ds_event_desc *out);

#ifdef __cplusplus
}
#endif

#endif /* DS_EVENT_H */
