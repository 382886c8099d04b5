/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fault-safe probes: RDMSR, WRMSR, RDPMC and CPUID that return "faulted"
 * instead of crashing.
 *
 * Mechanism: each protected instruction has an entry {instruction address,
 * resume address} in the .kfixup section. If an exception (#GP, #UD, ...)
 * hits an address in that table, the trap dispatcher resumes at the resume
 * address and stores 0x100 | vector in the saved EDI/RDI, which the inline
 * asm binds to its fault output (initialised to 0). No global state: the
 * probes are reentrant and NMI-safe.
 *
 * Return value of every probe: K_SAFE_OK (0) if the instruction completed,
 * else K_SAFE_FAULT(vector) (nonzero; K_SAFE_VECTOR(ret) gives the vector,
 * 13 for #GP, 6 for #UD). On a fault, *out is left as 0.
 *
 * Under QEMU TCG, RDMSR/WRMSR of unknown MSRs do NOT fault (reads give 0,
 * writes are dropped); only a functional check (write, read back) detects
 * a missing MSR there. RDPMC raises #UD under TCG.
 */
#ifndef K_SAFE_H
#define K_SAFE_H

#include <stdint.h>
#include <stdbool.h>

#define K_SAFE_OK          0
#define K_SAFE_FAULT(vec)  (0x100 | (int)(vec))
#define K_SAFE_VECTOR(ret) ((unsigned)(ret) & 0xFFu)

/* One fixup table entry (linker section .kfixup). */
struct k_fixup {
    unsigned long insn;     /* address of the protected instruction */
    unsigned long resume;   /* where to continue after a fault */
};

/* Look up @ip in the fixup table; returns the resume address or 0. */
unsigned long k_fixup_find(unsigned long ip);

#if defined(__x86_64__)
#define K_FIXUP_ENTRY(insn, resume) ".pushsection .kfixup, \"a\"\n .balign 8\n .quad " #insn ", " #resume "\n .popsection\n"
#else
#define K_FIXUP_ENTRY(insn, resume) ".pushsection .kfixup, \"a\"\n .balign 4\n .long " #insn ", " #resume "\n .popsection\n"
#endif

static inline int k_rdmsr_safe(uint32_t msr, uint64_t *out)
{
    uint32_t lo = 0, hi = 0;
    unsigned long fault = 0;
    __asm__ volatile("1: rdmsr\n2:\n" K_FIXUP_ENTRY(1b, 2b)
                     : "+a"(lo), "+d"(hi), "+D"(fault) : "c"(msr) : "memory");
    *out = fault ? 0 : ((uint64_t)hi << 32) | lo;
    return (int)fault;
}

static inline int k_wrmsr_safe(uint32_t msr, uint64_t val)
{
    unsigned long fault = 0;
    __asm__ volatile("1: wrmsr\n2:\n" K_FIXUP_ENTRY(1b, 2b)
                     : "+D"(fault)
                     : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32)) : "memory");
    return (int)fault;
}

static inline int k_rdpmc_safe(uint32_t counter, uint64_t *out)
{
    uint32_t lo = 0, hi = 0;
    unsigned long fault = 0;
    __asm__ volatile("1: rdpmc\n2:\n" K_FIXUP_ENTRY(1b, 2b)
                     : "+a"(lo), "+d"(hi), "+D"(fault) : "c"(counter) : "memory");
    *out = fault ? 0 : ((uint64_t)hi << 32) | lo;
    return (int)fault;
}

/* CPUID cannot fault on any CPU this kernel runs on (it needs CPUID to
 * boot); the protected form exists for symmetry and for odd hypervisors. */
static inline int k_cpuid_safe(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    uint32_t a = leaf, b = 0, c = subleaf, d = 0;
    unsigned long fault = 0;
    __asm__ volatile("1: cpuid\n2:\n" K_FIXUP_ENTRY(1b, 2b)
                     : "+a"(a), "+b"(b), "+c"(c), "+d"(d), "+D"(fault) : : "memory");
    out[0] = a; out[1] = b; out[2] = c; out[3] = d;
    return (int)fault;
}

static inline void k_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    __asm__ volatile("cpuid" : "=a"(out[0]), "=b"(out[1]), "=c"(out[2]), "=d"(out[3]) : "a"(leaf), "c"(subleaf));
}

/* CPUID.01H:ECX[31]: running under a hypervisor (QEMU TCG sets it too). Tests
 * use it to turn a deviation that only a hypervisor may show into a skip. */
static inline bool k_under_hypervisor(void)
{
    uint32_t c[4];
    k_cpuid(1, 0, c);
    return (c[2] >> 31) & 1;
}

/* Unprotected accesses, for MSRs known to exist (a fault is fatal). */
static inline uint64_t k_rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((uint64_t)hi << 32) | lo;
}
static inline void k_wrmsr(uint32_t msr, uint64_t val)
{
    __asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)val), "d"((uint32_t)(val >> 32)) : "memory");
}

/* libds backend (struct ds_msr_ops) built on the probes above: a fault is
 * DS_ERR_MSR_FAULT. Defined in kernel/src/dsglue.c. */
struct ds_msr_ops;
extern const struct ds_msr_ops k_ds_msr_ops;
/* Kernel option msr_gp=ADDR: k_ds_msr_ops reports ADDR as #GP (simulates a
 * hypervisor that advertises an MSR and faults on it). 0 = off. */
void k_ds_set_gp_msr(uint32_t msr);
uint32_t k_ds_get_gp_msr(void);

#endif
