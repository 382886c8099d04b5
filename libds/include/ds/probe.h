/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Functional probe: "advertised" vs "working".
 *
 * Emulators advertise DS and performance monitoring and implement none of
 * it (QEMU TCG drops every PMU MSR write silently and reads 0). The probe
 * writes a value into IA32_DS_AREA and into a counter, reads it back,
 * restores the prior value, and (optionally, with caller scratch memory)
 * runs BTS for a few branches and checks that records appeared.
 *
 * It never touches an MSR whose existence is not established by CPUID,
 * IA32_MISC_ENABLE or the family: IA32_DS_AREA only with CPUID DS;
 * IA32_DEBUGCTL only when BTS is advertised; IA32_PEBS_ENABLE only when
 * PEBS is advertised and PERF_CAPABILITIES.PEBS_FMT is not 0xF (the MSR does
 * not exist with architectural PEBS: Linux "perf/x86/intel: Initialize
 * architectural PEBS"); IA32_PEBS_INDEX / IA32_PEBS_BASE only when
 * ds_arch_pebs_detect accepts the CPU; IA32_PMC0 / IA32_PERFEVTSEL0 only with CPUID.0AH
 * reporting >= 1 GP counter; NetBurst MSR_BPU_COUNTER0 (0x300) and
 * MSR_BPU_CCCR0 (0x360) only on family 0FH with perfmon available.
 * It refuses (DS_PROBE_BUSY, nothing written) when BTS or PEBS is active
 * or the probed counter is enabled: those belong to someone else. On an
 * arch-PEBS CPU the DS area serves BTS alone, so only BTS makes it busy;
 * arch-PEBS has its own item (IA32_PEBS_INDEX.EN set: busy).
 *
 * Configuration (ds/config.h): the probe is always compiled in. With
 * DS_CONFIG_BTS=0 (or DS_CONFIG_NETBURST=0 on a NetBurst CPU) the BTS item
 * is DS_PROBE_NOT_TESTED with reason DS_ERR_UNSUPPORTED; with
 * DS_CONFIG_NETBURST=0 so is the NetBurst counter item. The IA32_DS_AREA
 * item is an MSR write/read-back and needs no facility.
 * DS_CONFIG_FORMAT=0: ds_probe_format returns DS_ERR_UNSUPPORTED with an
 * empty string.
 */
#ifndef DS_PROBE_H
#define DS_PROBE_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <ds/err.h>
#include <ds/cpu.h>
#include <ds/area.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ds_probe_verdict {
    DS_PROBE_NOT_ADVERTISED = 0, /* CPUID/MISC_ENABLE say absent; not touched */
    DS_PROBE_WORKING = 1,        /* held the written value / produced records */
    DS_PROBE_INERT = 2,          /* advertised, accepted writes, but did not work */
    DS_PROBE_FAULT = 3,          /* advertised, but the MSR access faulted */
    DS_PROBE_BUSY = 4,           /* in use by someone else; not touched */
    DS_PROBE_NOT_TESTED = 5,     /* advertised; this probe had no way to test it */
};

struct ds_probe_item {
    enum ds_probe_verdict verdict;
    int reason;          /* enum ds_err explaining the verdict (DS_OK when WORKING) */
    uint64_t wrote;      /* test value written (0 if none) */
    uint64_t read_back;  /* value read back */
    bool restored;       /* prior value written back and verified (or nothing changed) */
    uint32_t msr;        /* the MSR @reason is about (0: none), e.g. IA32_MISC_ENABLE
                          * 0x1A0 when BTS is not advertised because it was not read */
};

struct ds_probe_result {
    struct ds_probe_item ds_area;   /* IA32_DS_AREA holds a value */
    struct ds_probe_item counter;   /* a GP counter holds a value */
    struct ds_probe_item bts;       /* BTS produced records (needs scratch) */
    /* Architectural PEBS: NOT_ADVERTISED with ds_arch_pebs_detect's reason
     * (DS_ERR_APEBS_NOT_ENUMERATED on DS-area PEBS CPUs), BUSY with msr
     * IA32_PEBS_INDEX (0x3F5) when its EN bit is set, FAULT naming the MSR,
     * else IA32_PEBS_BASE (0x3F4, msr) holds a value; NOT_TESTED
     * (DS_ERR_UNSUPPORTED) with DS_CONFIG_PEBS=0. */
    struct ds_probe_item arch_pebs;
    /* What ds_cpu_identify() found of the two capability MSRs, msr set:
     * WORKING (read), NOT_ADVERTISED (not read: reason DS_ERR_NOT_INTEL,
     * DS_ERR_NO_MSR or DS_ERR_NO_PDCM) or FAULT (advertised, read faulted:
     * DS_ERR_MSR_FAULT). Not accessed again by the probe. */
    struct ds_probe_item misc_enable;
    struct ds_probe_item perf_caps;
};

/*
 * Optional scratch for the BTS functional test. @area and @buf are
 * caller memory (buf >= 8 records of the layout's BTS size) mapped for the
 * CPU at @area_linear / @buf_linear (0 = pointer value). @exercise, called
 * with BTS on, must execute a few taken branches (NULL: the probe's own
 * code between the two DEBUGCTL writes is all that runs). BTS is enabled
 * in circular mode with BTS_OFF_USR clear and BTS_OFF_OS clear.
 */
struct ds_probe_bts_scratch {
    union ds_area *area;
    uint64_t area_linear;
    void *buf;
    uint64_t buf_linear;
    size_t buf_bytes;
    void (*exercise)(void *arg);
    void *arg;
};

/*
 * Probe @cpu (ds_cpu_identify() done). @bts_scratch is optional: NULL (or
 * without area/buf) leaves BTS NOT_TESTED with reason DS_ERR_NOT_GIVEN when
 * advertised. Prior values of IA32_DS_AREA, IA32_DEBUGCTL
 * and the counter are restored; item.restored says whether that was
 * verified. The counter is written through IA32_PMC0 with a 31-bit
 * pattern; its prior value is restored through IA32_A_PMC0 when
 * PERF_CAPABILITIES.FW_WRITE, otherwise through IA32_PMC0 (which only
 * loads bits 31:0 sign-extended: a prior value above 31 bits cannot be
 * restored exactly, and restored is then false).
 * BTS that is not advertised has reason DS_ERR_BTS_UNAVAILABLE only when
 * IA32_MISC_ENABLE was read and has BTS_UNAVAILABLE set; when it was not
 * read, the reason is why (caps.misc_enable_err) with item.msr 0x1A0.
 * Returns DS_OK (verdicts in @out; MSR faults and refusals are verdicts,
 * not errors), DS_ERR_NULL (@cpu or @out NULL), DS_ERR_NOT_IDENTIFIED.
 * MSRs: (under the conditions above) reads and writes IA32_DS_AREA (0x600),
 * IA32_DEBUGCTL / MSR_DEBUGCTLA (0x1D9), IA32_PMC0 (0xC1) or
 * MSR_BPU_COUNTER0 (0x300), IA32_PEBS_BASE (0x3F4); writes IA32_A_PMC0
 * (0x4C1) when FW_WRITE; reads IA32_PEBS_ENABLE (0x3F1) or IA32_PEBS_INDEX
 * (0x3F5), IA32_PERFEVTSEL0 (0x186), MSR_BPU_CCCR0 (0x360). NMI-safe: no,
 * because it briefly replaces IA32_DS_AREA, IA32_PEBS_BASE, a counter and
 * DEBUGCTL that a PMI handler may rely on (configuration time).
 */
int ds_probe(struct ds_cpu *cpu, const struct ds_probe_bts_scratch *bts_scratch, struct ds_probe_result *out);

/* "working", "inert", ... ("?" if unknown). Never NULL. No error return.
 * MSRs: none. NMI-safe: yes (pure). */
const char *ds_probe_verdict_name(enum ds_probe_verdict v);

/*
 * Render @r as "ds_area: inert (reason)\n" lines, one per item; a reason
 * about an MSR names it: "bts: not advertised (IA32_MISC_ENABLE (0x1A0): MSR
 * access faulted (#GP))". Every line states only what was read: a BTS/PEBS
 * "unavailable" reason appears only when IA32_MISC_ENABLE was read and had
 * the bit set. Same conventions as
 * ds_caps_format(): DS_OK, DS_ERR_NULL, DS_ERR_BUFSZ (truncated, or @len
 * 0), DS_ERR_UNSUPPORTED (DS_CONFIG_FORMAT=0, empty string).
 * MSRs: none. NMI-safe: yes (pure, no locks).
 */
int ds_probe_format(const struct ds_probe_result *r, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* DS_PROBE_H */
