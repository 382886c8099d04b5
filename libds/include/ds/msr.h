/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MSR and CPUID access for libds.
 *
 * By default libds executes RDMSR, WRMSR and CPUID itself (static inline
 * below). A caller may instead give struct ds_cpu an operations table: host
 * tests, the reference model, hypervisors and OSes that proxy MSRs do. The
 * table's functions report a faulting access (#GP) as DS_ERR_MSR_FAULT; the
 * inline path cannot catch faults, which is why libds only touches an MSR
 * whose existence it has established from CPUID and the model tables
 * (SDM Vol. 3B, "Debug Store (DS) Mechanism": check CPUID.01H:EDX.DS, then
 * IA32_MISC_ENABLE).
 *
 * MSR numbers common to several facilities are listed here; facility-only
 * MSRs (NetBurst ESCR/CCCR, LBR stacks) live in their own headers.
 * Sources for every number: ../shared/reference/msr.md (SDM Vol. 4 MSR
 * tables, cross-checked against Linux msr-index.h and EDK2).
 */
#ifndef DS_MSR_H
#define DS_MSR_H

#include <stdint.h>
#include <stdbool.h>
#include <ds/err.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- Architectural and common MSRs ---------------------------------------- */
#define DS_MSR_IA32_PMC0                 0x0C1u  /* + n: IA32_PMCn */
#define DS_MSR_IA32_PERFEVTSEL0          0x186u  /* + n: IA32_PERFEVTSELn */
#define DS_MSR_IA32_MISC_ENABLE          0x1A0u
#define DS_MSR_IA32_DEBUGCTL             0x1D9u  /* MSR_DEBUGCTLA on NetBurst: other bit layout */
#define DS_MSR_IA32_FIXED_CTR0           0x309u  /* + m: IA32_FIXED_CTRm */
#define DS_MSR_IA32_PERF_CAPABILITIES    0x345u  /* exists iff CPUID.01H:ECX.PDCM */
#define DS_MSR_IA32_FIXED_CTR_CTRL       0x38Du
#define DS_MSR_IA32_PERF_GLOBAL_STATUS   0x38Eu
#define DS_MSR_IA32_PERF_GLOBAL_CTRL     0x38Fu
#define DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL 0x390u  /* perfmon v1-v3 name */
#define DS_MSR_IA32_PERF_GLOBAL_STATUS_RESET 0x390u /* perfmon v4+ name, same MSR */
#define DS_MSR_IA32_PERF_GLOBAL_STATUS_SET   0x391u /* perfmon v4+ */
#define DS_MSR_IA32_PERF_GLOBAL_INUSE    0x392u  /* perfmon v4+ */
#define DS_MSR_IA32_PEBS_ENABLE          0x3F1u  /* MSR_PEBS_ENABLE on NetBurst: other layout */
#define DS_MSR_PEBS_MATRIX_VERT          0x3F2u  /* NetBurst only */
#define DS_MSR_PEBS_DATA_CFG             0x3F2u  /* adaptive PEBS (fmt 4+) only; same address */
#define DS_MSR_PEBS_LD_LAT               0x3F6u  /* Nehalem+ load-latency threshold */
#define DS_MSR_PEBS_FRONTEND             0x3F7u  /* Skylake+ */
#define DS_MSR_IA32_A_PMC0               0x4C1u  /* + n: full-width alias (PERF_CAPABILITIES[13]) */
#define DS_MSR_IA32_DS_AREA              0x600u
#define DS_MSR_IA32_X2APIC_LVT_PMI       0x834u

/* --- IA32_MISC_ENABLE bits (SDM Vol. 4, "IA32_MISC_ENABLE") --------------- */
#define DS_MISC_ENABLE_PERFMON_AVAIL     (1ull << 7)
#define DS_MISC_ENABLE_BTS_UNAVAIL       (1ull << 11)
#define DS_MISC_ENABLE_PEBS_UNAVAIL      (1ull << 12)

/*
 * Backend operations. Every function returns DS_OK or DS_ERR_MSR_FAULT
 * (read/write); cpuid cannot fail. @ctx is the ctx given to ds_cpu_init().
 * The functions must be callable from the context the caller uses libds in
 * (an NMI handler if the PMI is delivered as NMI).
 *
 * cpuid may be NULL: libds then executes the CPUID instruction (not on a
 * host build, where every test supplies a CPUID function; there ds_cpuid()
 * then gives all 0). read or write NULL: that access is a fault
 * (DS_ERR_MSR_FAULT), the backend's others still work.
 */
struct ds_msr_ops {
    int (*read)(void *ctx, uint32_t msr, uint64_t *out);
    int (*write)(void *ctx, uint32_t msr, uint64_t val);
    void (*cpuid)(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t out[4]);
};

#if defined(__i386__) || defined(__x86_64__)
/*
 * Native access. Privileged: executes at CPL 0 only; #GP on a missing MSR
 * (not caught: use ds_msr_read/ds_msr_write through a backend for that).
 * No error return. MSRs: exactly @msr (cpuid: none). NMI-safe: yes.
 */
static inline uint64_t ds_rdmsr_native(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((uint64_t)hi << 32) | lo;
}

static inline void ds_wrmsr_native(uint32_t msr, uint64_t val)
{
    __asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32)) : "memory");
}

static inline void ds_cpuid_native(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    __asm__ volatile("cpuid"
                     : "=a"(out[0]), "=b"(out[1]), "=c"(out[2]), "=d"(out[3])
                     : "a"(leaf), "c"(subleaf));
}
#endif

struct ds_cpu;

/*
 * Read/write one MSR through @cpu's backend (inline instruction when the
 * cpu has no ops table). Returns DS_OK, DS_ERR_NULL or the backend's
 * DS_ERR_MSR_FAULT (also: backend table without that function; a host
 * build with no table). @out is not written on an error. These do not check
 * that the MSR exists: the facility functions do that before calling them.
 * MSRs: reads (write: writes) exactly @msr, nothing else.
 * NMI-safe: yes if the backend is (native path: one RDMSR/WRMSR).
 */
/* ds_msr_read, ds_msr_write and ds_cpuid are defined in cpu.c: they read
 * struct ds_cpu, and this header stays below ds/cpu.h (issue 26 item 5). */
int ds_msr_read(const struct ds_cpu *cpu, uint32_t msr, uint64_t *out);
int ds_msr_write(const struct ds_cpu *cpu, uint32_t msr, uint64_t val);

/* CPUID through @cpu's backend. out[0..3] = EAX, EBX, ECX, EDX; all 0 when
 * @cpu is NULL; nothing is done when @out is NULL. No error return.
 * MSRs: none. NMI-safe: yes if the backend is (native path: CPUID). */
void ds_cpuid(const struct ds_cpu *cpu, uint32_t leaf, uint32_t subleaf, uint32_t out[4]);

#ifdef __cplusplus
}
#endif

#endif /* DS_MSR_H */
