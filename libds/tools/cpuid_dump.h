/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CPUID replay: read a CPUID register dump of a real processor (the
 * InstLatx64 / AIDA64 "CPUID Registers" text format of ../shared/cpuid,
 * described in its README) and answer libds's CPUID and MSR requests from it,
 * one logical CPU at a time, through struct ds_msr_ops.
 *
 * Host code (hosted C, allocates): used by dsinfo (`dsinfo cpu --cpuid-dump`)
 * and by the replay ctest (tests/cpuid). Not part of libds.
 *
 * Format accepted (every variant found in the 27 dumps):
 *   "------[ CPUID Registers / Logical CPU #N ]------" or
 *   "------[ Logical CPU #N ]------"            start logical CPU N;
 *   "CPUID Registers (CPU #N...):"              start logical CPU N;
 *   no header at all: a leaf-0 line when the current CPU already has leaf 0
 *   starts the next CPU (files with the CPUs simply concatenated);
 *   "CPUID LLLLLLLL[:] EAX-EBX-ECX-EDX [SL ss] [comment]": leaf L, sub-leaf ss
 *   (hex). Without "[SL ss]" a repeated leaf is numbered 0, 1, 2... in file
 *   order (the older dumps list leaf 4 and 0BH sub-leaves that way);
 *   "------[ MSR Registers / Logical CPU #N ]------" then "MSR RRRRRRRR:
 *   hhhh-hhhh-hhhh-hhhh": MSR values of CPU N; MSR lines in a section without
 *   a CPU number ("------[ MSR Registers ]------") are what the dumping tool
 *   read on the one CPU it ran on: they answer for every CPU of the file that
 *   has no value of its own (an assumption, stated: firmware programs
 *   IA32_MISC_ENABLE alike on every logical CPU). The first value of a
 *   repeated MSR wins.
 * A leaf that is not listed reads as zeros, and so does an unlisted sub-leaf
 * of a leaf that has sub-leaves (README); a leaf without sub-leaves (SDM Vol.
 * 2A: ECX is ignored) answers every sub-leaf with its one line.
 *
 * MSRs: a dump holds a few MSR values. Everything else, IA32_PERF_CAPABILITIES
 * and every PMU MSR included, is UNKNOWN: a read fails (DS_ERR_MSR_FAULT, so
 * libds treats it as absent, never as zero) and is counted in
 * struct cpuid_replay, so a caller can tell "unknown" from a real #GP.
 * Writes always fail (a dump cannot take them) and are counted.
 */
#ifndef DS_CPUID_DUMP_H
#define DS_CPUID_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ds/msr.h>

struct cpuid_dump_leaf {
    uint32_t leaf, sub;
    bool tagged;        /* "[SL ss]" was given */
    uint32_t r[4];      /* EAX, EBX, ECX, EDX */
};

struct cpuid_dump_msr {
    uint32_t msr;
    uint64_t val;
};

struct cpuid_dump_cpu {
    long index;         /* N of the header, -1 without one */
    struct cpuid_dump_leaf *leaves;
    size_t nleaves, cap;
    struct cpuid_dump_msr *msrs;
    size_t nmsrs, mcap;
};

struct cpuid_dump {
    struct cpuid_dump_cpu *cpus;
    size_t ncpus, cap;
    struct cpuid_dump_cpu global;   /* MSRs of a section without a CPU number */
};

/* Parse @path into @d (zeroed first). Returns 0, or -1 with a message in
 * @err (cannot open, no CPUID line, out of memory). */
int cpuid_dump_load(const char *path, struct cpuid_dump *d, char *err, size_t errlen);
void cpuid_dump_free(struct cpuid_dump *d);

/* CPUID of logical CPU @c (rules above). */
void cpuid_dump_cpuid(const struct cpuid_dump_cpu *c, uint32_t leaf, uint32_t sub, uint32_t out[4]);

/* MSR value of @c from the dump (own value, else the file-wide section).
 * Returns false when the dump does not hold it (unknown). */
bool cpuid_dump_msr(const struct cpuid_dump *d, const struct cpuid_dump_cpu *c, uint32_t msr, uint64_t *out);

/* ds_msr_ops context for one logical CPU of a dump. */
struct cpuid_replay {
    const struct cpuid_dump *dump;
    const struct cpuid_dump_cpu *cpu;
    unsigned msr_reads;         /* answered from the dump */
    unsigned unknown_reads;     /* not in the dump: failed as unknown */
    uint32_t unknown[8];        /* the first unknown MSRs read, in order */
    unsigned writes;            /* every write fails */
};

void cpuid_replay_init(struct cpuid_replay *r, const struct cpuid_dump *d, size_t cpu);
extern const struct ds_msr_ops cpuid_replay_ops;

#endif
