/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PMI helpers: global-status decode, acknowledgement (legacy vs streamlined
 * freeze), and one shared DS interrupt service routine for PEBS, BTS and
 * non-precise counter overflow on a single vector.
 *
 * Sources: SDM Vol. 3B "IA32_PERF_GLOBAL_STATUS", "Freezing Performance
 * Monitoring on PMI" (Table "Legacy and Streamlined Operation with
 * Freeze_Perfmon_On_PMI = 1, Counter Overflowed"), "Performance Monitoring
 * Version 4"; reference pmi.md.
 *
 * The LVT performance-counter entry, the EOI and the vector belong to the
 * kernel: after ds_pmi_handle() it must rewrite LVTPC (the CPU masks it on
 * delivery) and, for fixed delivery, send EOI. On NetBurst it must clear
 * CCCR.OVF (netburst.h, through the hook) BEFORE unmasking.
 *
 * MSR accesses per PMI (ds_pmi_handle, one pass, hook not counted):
 *   perfmon v4, DS_FREEZE_STREAMLINED, PEBS only: 2 RDMSR + 1 WRMSR = 3
 *   (status, ack, re-read to find overflows that landed in the handler);
 *   v2/v3, DS_FREEZE_LEGACY: 2 RDMSR + 2 WRMSR (ack, GLOBAL_CTRL) = 4;
 *   v2+, DS_FREEZE_NONE: 3; spurious (status 0): 1 RDMSR (+1 WRMSR
 *   GLOBAL_CTRL with DS_FREEZE_LEGACY and BTS with BTINT: step 6); every further
 *   pass (status refilled during the handler): +1 RDMSR +1 WRMSR.
 *   NetBurst / perfmon v1: 0 (buffers are checked in memory, counters by
 *   the hook).
 *
 * Lost-PMI window: an overflow after the handler's last status read raises
 * its PMI while LVTPC is still masked (the APIC masked it on delivery): it
 * is lost unless the kernel rewrites LVTPC BEFORE ds_pmi_handle() (Linux
 * intel_pmu_handle_irq without late_ack: the NMI, or the fixed vector in
 * IRR, then stays pending and is taken after the return). The test kernel
 * rewrites it after the handler (kernel/src/pmi.c): its e2e counts PMIs.
 *
 * Configuration (ds/config.h): DS_CONFIG_PMI=0 compiles this out; every
 * function below then returns DS_ERR_UNSUPPORTED with its outputs cleared
 * (ds_pmi_ack_mask returns 0; ds_pmi_handle's result says handled = false).
 * DS_CONFIG_PEBS=0 / DS_CONFIG_BTS=0: ds_pmi_handle has no PEBS / BTS drain
 * path (no context can hold such a buffer then).
 */
#ifndef DS_PMI_H
#define DS_PMI_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <ds/err.h>
#include <ds/cpu.h>
#include <ds/area.h>
#include <ds/pebs.h>
#include <ds/bts.h>
#include <ds/lbr.h>
#include <ds/arch_pebs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* IA32_PERF_GLOBAL_STATUS (0x38E) bits (SDM "IA32_PERF_GLOBAL_STATUS"; msr.md 5) */
#define DS_GSTATUS_FIXED_SHIFT    32             /* bit 32 + m: Ovf_FixedCtrm */
#define DS_GSTATUS_PERF_METRICS   (1ull << 48)
#define DS_GSTATUS_TOPA           (1ull << 55)   /* Trace_ToPA_PMI */
#define DS_GSTATUS_LBR_FRZ        (1ull << 58)   /* v4+ */
#define DS_GSTATUS_CTR_FRZ        (1ull << 59)   /* v4+ */
#define DS_GSTATUS_ASCI           (1ull << 60)
#define DS_GSTATUS_OVF_UNCORE     (1ull << 61)   /* v3+ */
#define DS_GSTATUS_OVF_BUF        (1ull << 62)   /* DS buffer reached its threshold */
#define DS_GSTATUS_COND_CHGD      (1ull << 63)

/* IA32_DEBUGCTL freeze bits (SDM "IA32_DEBUGCTL MSR"; not NetBurst) */
#define DS_DEBUGCTL_FREEZE_PERFMON_ON_PMI (1ull << 12)

struct ds_pmi_status {
    uint64_t raw;
    uint32_t gp_ovf;         /* bit n: GP counter n overflowed (bit n of caps.gp_mask) */
    uint32_t fixed_ovf;      /* bit m: IA32_FIXED_CTRm overflowed */
    bool ovf_buf;            /* bit 62 */
    bool cond_chgd;          /* bit 63 */
    bool ctr_frz;            /* bit 59 (v4+) */
    bool lbr_frz;            /* bit 58 (v4+) */
    bool uncore;             /* bit 61 (v3+) */
    bool asci;               /* bit 60 */
    bool topa;               /* bit 55 */
    bool perf_metrics;       /* bit 48 */
    uint64_t unknown;        /* set bits this CPU's caps do not define */
};

/*
 * Split a GLOBAL_STATUS value into its parts for @caps (counter counts,
 * perfmon version decide which bits are defined).
 * Errors: DS_ERR_NULL (@caps or @out). MSRs: none. NMI-safe: yes (pure).
 */
int ds_pmi_decode(uint64_t raw, const struct ds_caps *caps, struct ds_pmi_status *out);

/*
 * The GLOBAL_OVF_CTRL / STATUS_RESET bits that may be written on @caps
 * (writing 1 to a reserved bit raises #GP): counters present (caps.gp_mask
 * and caps.fixed_mask, CPUID.23H.1 where enumerated; fixed bits 47:32 at
 * most), 62, 63; 61 from v3; 58, 59 from v4; 48 from v4 with
 * PERF_CAPABILITIES.PERF_METRICS. Bits 55 (ToPA, needs Intel PT) and 60
 * (ASCI, needs SGX) depend on CPUID.07H, which @caps does not hold: they
 * are never in this mask; ds_pmi_init() adds them to pmi->ack_mask on
 * perfmon v4+ when CPUID.(EAX=07H,ECX=0):EBX[25] / EBX[2] report the feature.
 * 0 without global MSRs (NetBurst, even where a leaf 0AH is reported;
 * perfmon v1; NULL @caps). No error return.
 * MSRs: none. NMI-safe: yes (pure).
 */
uint64_t ds_pmi_ack_mask(const struct ds_caps *caps);

enum ds_freeze_mode {
    DS_FREEZE_NONE = 0,        /* counters run during the handler */
    DS_FREEZE_LEGACY = 1,      /* v2/v3 FREEZE_PERFMON_ON_PMI: CPU clears GLOBAL_CTRL; handler rewrites it */
    DS_FREEZE_STREAMLINED = 2, /* v4+: CPU sets CTR_Frz; acknowledging unfreezes */
};

/*
 * Counter-overflow hook for what libds does not own (reloading
 * non-precise sampling counters, NetBurst CCCR.OVF scan and clear).
 * @ovf: GLOBAL_STATUS counter bits not PEBS-enabled (bit n GP, 32+m
 * fixed); @no_global: true on NetBurst / perfmon v1, where there is no
 * global status and the hook must find overflowed counters itself.
 * Set *out_handled to how many overflows it serviced. Runs in the PMI
 * (NMI) context: must be NMI-safe and bounded. Return DS_OK or an error
 * (reported as DS_ERR_PMI_HOOK; the acknowledgement still happens).
 */
typedef int (*ds_pmi_ovf_hook)(void *arg, uint64_t ovf, bool no_global, uint32_t *out_handled);

/*
 * Optional LBR snapshot step of ds_pmi_handle() (issue 10 item 1; Linux
 * intel_pmu_handle_irq reads the LBRs before it acknowledges the status).
 * With FREEZE_LBRS_ON_PMI the LBRs are frozen when the PMI arrives; on
 * perfmon v4+ acknowledging LBR_Frz (GLOBAL_STATUS bit 58) unfreezes them,
 * so any read after that holds the handler's own branches.
 *  - model set: on the first pass of a PMI that is ours (status has an
 *    ackable bit; NetBurst / v1: never), ds_lbr_read(cpu, model, format,
 *    buf, cap) BEFORE the acknowledgement; result.lbr_n entries, newest
 *    first. Only when it succeeded is bit 58 acknowledged (v4+: LBRs
 *    recording again on return).
 *  - model NULL, or the read failed: bit 58 is never acknowledged by
 *    ds_pmi_handle (result.lbr_frozen): the caller reads the still-frozen
 *    stack after the handler and then calls ds_lbr_unfreeze().
 * Before v4 the CPU froze the LBRs by clearing DEBUGCTL.LBR; ds_pmi_handle
 * never writes DEBUGCTL (a read-modify-write others share): the caller
 * calls ds_lbr_unfreeze() after the handler in both cases.
 */
struct ds_pmi_lbr {
    const struct ds_lbr_model *model; /* NULL: no snapshot step */
    unsigned format;                  /* ds_lbr_format() */
    struct ds_lbr_entry *buf;         /* caller memory, >= the LBR depth entries */
    size_t cap;
};

struct ds_pmi_config {
    enum ds_freeze_mode freeze;
    uint64_t global_ctrl;      /* DS_FREEZE_LEGACY: the enables to restore */
    uint64_t pebs_counters;    /* status bits of PEBS-enabled counters (drained, not hooked) */
    ds_pebs_sink pebs_sink;    /* may be NULL if no PEBS buffer */
    void *pebs_arg;
    ds_bts_sink bts_sink;      /* may be NULL if no BTS buffer */
    void *bts_arg;
    ds_pmi_ovf_hook ovf_hook;  /* may be NULL: overflowed non-PEBS counters are only acknowledged */
    void *ovf_arg;
    struct ds_pmi_lbr lbr;     /* optional LBR snapshot step (see above) */
    /* Architectural PEBS (arch_pebs.h), or NULL: an installed buffer of the
     * same CPU. GLOBAL_STATUS bit 54 (DS_APEBS_GLOBAL_STATUS_THRESHOLD) is
     * then serviced next to legacy PEBS, BTS and counter overflow: drained
     * with ds_arch_pebs_drain into pebs_sink (result.pebs, pebs_drained) and
     * acknowledged (Linux handle_pmi_common: test_and_clear bit 54, then
     * drain_pebs). Without it bit 54 is not acked (reported in unacked). */
    struct ds_arch_pebs *apebs;
};

/* Passes of ds_pmi_handle()'s service/ack loop before it declares a storm
 * (Linux intel_pmu_handle_irq: "irq loop stuck" after 100). */
#define DS_PMI_MAX_PASSES 100u

/* What one ds_pmi_handle() call did. Written by every call past the
 * argument checks (ds_pmi_handle: not for DS_ERR_NULL / DS_ERR_PMI_NOT_INIT):
 * every field but bts, which is written only when bts_drained (a BTS drain
 * ran: its counts, summed over the passes); with bts_drained false it holds
 * whatever it held (issue 28 item 3: a PMI no longer clears the 56 bytes of
 * BTS counts it does not use). pebs is always written (zero when
 * pebs_drained is false), lbr_n too (0 unless lbr_taken). */
struct ds_pmi_result {
    /* (bools grouped at the end: ds_pmi_handle writes them on every NMI) */
    uint64_t status;           /* GLOBAL_STATUS as read (0 without global MSRs) */
    uint64_t acked;            /* bits written to OVF_CTRL / STATUS_RESET */
    uint64_t unacked;          /* status bits set but not ackable on this CPU */
    uint64_t hooked;           /* counter bits passed to the hook */
    struct ds_drain_stats pebs;
    struct ds_drain_stats bts; /* only when bts_drained (see above) */
    size_t lbr_n;              /* entries in cfg.lbr.buf */
    int lbr_err;               /* ds_lbr_read's error (snapshot not taken), else DS_OK */
    uint32_t hook_handled;
    unsigned msr_reads;
    unsigned msr_writes;
    unsigned passes;           /* service/ack passes (1 unless status refilled during the handler) */
    bool pebs_drained;
    bool bts_drained;
    bool lbr_taken;            /* cfg.lbr: snapshot read into cfg.lbr.buf before the ack */
    bool lbr_frozen;           /* LBR_Frz was set and left set: read, then ds_lbr_unfreeze() */
    bool storm;                /* status never cleared: PMU stopped (DS_ERR_PMI_STORM) */
    bool handled;              /* something was ours: false = spurious (NMI: pass it on) */
};

/* Handler state: one per logical CPU, caller-owned. */
struct ds_pmi {
    struct ds_cpu *cpu;
    struct ds_ctx *ctx;        /* may be NULL: counters only */
    struct ds_pmi_config cfg;
    /* cpu's MSR backend (ops->read / ->write and its context) as ds_pmi_init
     * found it, for the handler's GLOBAL_* accesses (issue 28 item 3: two
     * loads and a test fewer each); NULL: through cpu (native, or a fault).
     * Call ds_pmi_init again after a ds_cpu_init that changes the backend. */
    int (*msr_rd)(void *ctx, uint32_t msr, uint64_t *out);
    int (*msr_wr)(void *ctx, uint32_t msr, uint64_t val);
    void *msr_ctx;
    uint64_t ack_mask;         /* ds_pmi_ack_mask(caps) + 55/60 per CPUID.07H (ds_pmi_init) */
    uint64_t ctr_bits;         /* status bits of the counters present (ds_pmi_init) */
    bool has_global;           /* perfmon v2+ (GLOBAL_STATUS exists) */
    bool init;
    volatile bool pmu_enabled; /* ds_pmi_pmu_enable(); true after ds_pmi_init */
    /* ds_pmi_handle's result when the caller passes none (@out NULL): kept
     * here, not in the handler's frame (issue 29 item 3: the PMI path's
     * stack); the last such call's result until the next. */
    struct ds_pmi_result res;
    /* The sample every PEBS drain of the handler decodes each record into
     * and hands to cfg.pebs_sink (read-only for the sink, valid during the
     * call, as ds_pebs_drain's): fixed formats (NetBurst, 0-3), adaptive
     * (4-6) and architectural PEBS; no sample on the handler's stack
     * (issue 28, issue 29 item 3). Cleared (and given a fixed format's
     * per-format fields) once, when first used with the context's format,
     * not on every PMI (issue 10 item 21); after an adaptive or arch drain
     * it holds the last record, whose validated header lets the next PMI's
     * records skip validation. The key says what it holds (0 = nothing;
     * libds/src/pebs_int.h). Private to pmi.c and the PEBS sources. Its
     * layout (private to arch_pebs.c): the group offsets of the
     * architectural PEBS record in the sample (valid set), kept between
     * PMIs so that a PMI does not recompute them (issue 28 item 3) nor
     * hold them in a frame. */
    struct ds__pmi_scratch pebs_scratch;
};


/*
 * Is freeze mode @f possible on @cpu? DS_FREEZE_NONE always; LEGACY needs
 * the global MSRs (perfmon v2+, not NetBurst); STREAMLINED perfmon v4+;
 * any other value is unknown. Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED,
 * DS_ERR_PMI_FREEZE_MODE. MSRs: none. NMI-safe: yes (pure). Compiled in
 * every configuration.
 */
int ds_pmi_freeze_check(const struct ds_cpu *cpu, enum ds_freeze_mode f);

/*
 * Prepare @pmi. Validates the config against @cpu's caps.
 * Errors: DS_ERR_NULL; DS_ERR_NOT_IDENTIFIED; DS_ERR_NOT_SETUP (@ctx given
 * but not set up); DS_ERR_PMI_CTX_CPU (@ctx set up for another struct
 * ds_cpu, e.g. a copy of @cpu); DS_ERR_PMI_FREEZE_MODE (ds_pmi_freeze_check: LEGACY needs v2..v3 or later
 * global MSRs and not NetBurst; STREAMLINED needs perfmon v4+; unknown
 * mode); DS_ERR_PMI_CTRL_MASK (global_ctrl or pebs_counters name counters
 * the CPU lacks: bits outside caps.gp_mask / fixed_mask, so GP8-9 of a
 * perfmon v6 part whose CPUID.23H.1 lists them are accepted); DS_ERR_PMI_LBR_BUF (cfg.lbr.model set without
 * cfg.lbr.buf or with cap 0); DS_ERR_UNSUPPORTED (cfg.lbr.model with
 * DS_CONFIG_LBR=0, or cfg.apebs with DS_CONFIG_PEBS=0); DS_ERR_APEBS_PMI
 * (cfg.apebs not installed, set up for another CPU, or no global MSRs). Touches no MSR (setting DEBUGCTL.FREEZE_PERFMON_ON_PMI is
 * the caller's, see ds_pmi_set_freeze()); executes CPUID leaf 07H once
 * (ack bits 55/60). Call it again to change the config (e.g. new
 * GLOBAL_CTRL enables for legacy freeze). On error @pmi is unchanged.
 * MSRs: none (CPUID 07H only). NMI-safe: no, because ds_pmi_handle() in a
 * PMI arriving during it would see @pmi half rewritten (no lock, no MSR:
 * re-run it with the PMI masked on this CPU).
 */
int ds_pmi_init(struct ds_pmi *pmi, struct ds_cpu *cpu, struct ds_ctx *ctx, const struct ds_pmi_config *cfg);

/*
 * Set or clear IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI (bit 12) to match
 * pmi->cfg.freeze (RMW of 0x1D9: 1 RDMSR + 1 WRMSR). Only with perfmon v2+
 * global MSRs, not NetBurst, and (to set it) CPUID.01H:ECX.PDCM: the SDM
 * defines bit 12 only "if CPUID.01H:ECX[15] = 1 && CPUID.0AH:EAX[7:0] > 1"
 * (else DS_ERR_UNSUPPORTED, nothing touched). Errors: DS_ERR_NULL, DS_ERR_PMI_NOT_INIT,
 * DS_ERR_UNSUPPORTED, DS_ERR_MSR_FAULT (read fault: nothing written).
 * MSRs: reads and writes IA32_DEBUGCTL (0x1D9). NMI-safe: no, because it
 * is a non-atomic read-modify-write of DEBUGCTL that a PMI handler's own
 * DEBUGCTL write would be lost to (call once per CPU at setup; no locks).
 */
int ds_pmi_set_freeze(struct ds_pmi *pmi);

/*
 * Start or stop the counters as a unit and tell the handler so: sets
 * pmi->pmu_enabled = @on FIRST, then WRMSR IA32_PERF_GLOBAL_CTRL = @on ?
 * cfg.global_ctrl : 0. With DS_FREEZE_LEGACY, ds_pmi_handle() rewrites
 * GLOBAL_CTRL only while pmu_enabled is set (Linux intel_pmu_handle_irq:
 * re-enable only if cpuc->enabled was set on entry), so a PMI that lands
 * after a stop does not restart the counters. Flag-then-MSR in both
 * directions: a PMI between the two either restores what the WRMSR writes
 * anyway (on) or leaves the counters frozen until the WRMSR stops them (off).
 * ds_pmi_init() sets pmu_enabled = true (the caller owns the first enable).
 * Errors: DS_ERR_NULL, DS_ERR_PMI_NOT_INIT, DS_ERR_UNSUPPORTED (no perfmon
 * v2+ global MSRs: nothing changed), DS_ERR_MSR_FAULT.
 * MSRs: writes IA32_PERF_GLOBAL_CTRL (0x38F). NMI-safe: yes (one flag store
 * and one WRMSR; it must not race ds_pmi_init on the same @pmi).
 */
int ds_pmi_pmu_enable(struct ds_pmi *pmi, bool on);

/*
 * Building blocks for a kernel that writes its own ISR.
 * ds_pmi_read_status(): 1 RDMSR IA32_PERF_GLOBAL_STATUS (perfmon v2+ only:
 * DS_ERR_UNSUPPORTED otherwise, nothing read).
 * ds_pmi_ack(): WRMSR 0x390 (OVF_CTRL / STATUS_RESET) = @status & ack mask
 * (nothing if that is 0), then with DS_FREEZE_LEGACY, pmi->pmu_enabled and
 * @status != 0 (or BTS running with DS_BTS_INT, whose threshold PMI sets no
 * status bit: see ds_pmi_handle step 6), WRMSR GLOBAL_CTRL = cfg.global_ctrl. *out_unacked (may be NULL) gets the bits not ackable on
 * this CPU. Errors: DS_ERR_NULL (@pmi; @out_status for read_status),
 * DS_ERR_PMI_NOT_INIT, DS_ERR_UNSUPPORTED (no perfmon v2+ global MSRs),
 * DS_ERR_MSR_FAULT (ack: the GLOBAL_CTRL write is skipped after a fault).
 * MSRs: ds_pmi_read_status reads IA32_PERF_GLOBAL_STATUS (0x38E), writes
 * none; ds_pmi_ack reads none, writes IA32_PERF_GLOBAL_OVF_CTRL /
 * IA32_PERF_GLOBAL_STATUS_RESET (0x390) and, with DS_FREEZE_LEGACY,
 * IA32_PERF_GLOBAL_CTRL (0x38F). NMI-safe: yes.
 */
int ds_pmi_read_status(struct ds_pmi *pmi, uint64_t *out_status);
int ds_pmi_ack(struct ds_pmi *pmi, uint64_t status, uint64_t *out_unacked);

/*
 * The shared DS interrupt service routine. Order:
 *   1. v2+: status = RDMSR IA32_PERF_GLOBAL_STATUS; first pass, cfg.lbr
 *      set and status has an ackable bit: LBR snapshot (ds_lbr_read,
 *      1 + 2 * depth (+ depth INFO) RDMSR, not in msr_reads);
 *   2. PEBS: drain if status.OvfBuf, or the PEBS index reached the
 *      threshold (NetBurst, v1; memory check);
 *   3. BTS: drain if BTS runs with BTINT and the index reached the
 *      threshold (no status bit exists for BTS);
 *   4. counters: status counter bits minus pebs_counters -> hook
 *      (NetBurst / v1: the hook is always called with no_global; one pass);
 *   5. v2+: if status has ackable bits: WRMSR IA32_PERF_GLOBAL_OVF_CTRL /
 *      STATUS_RESET = status & ack_mask, less LBR_Frz (bit 58) unless the
 *      snapshot of step 1 was taken (streamlined freeze: this unfreezes
 *      the counters, and with bit 58 the LBRs), re-read status and repeat 2-5 while it has ackable bits
 *      (an overflow that landed during the handler raised its PMI under the
 *      masked LVT: this loop is the only one to see it). Bounded: after
 *      DS_PMI_MAX_PASSES passes with bits still set (Linux: "irq loop
 *      stuck"), ack them, stop the PMU (pmu_enabled = false, WRMSR
 *      GLOBAL_CTRL = 0; the caller reprograms and calls
 *      ds_pmi_pmu_enable), result.storm, DS_ERR_PMI_STORM;
 *   6. DS_FREEZE_LEGACY, status != 0 (our PMI) and pmi->pmu_enabled as
 *      found on entry: WRMSR IA32_PERF_GLOBAL_CTRL = cfg.global_ctrl
 *      (never after ds_pmi_pmu_enable(false) or a storm). Status 0 with
 *      BTS running with BTINT (step 3 armed), DS_FREEZE_LEGACY and
 *      pmi->pmu_enabled: the same write, since a BTS threshold PMI sets no
 *      status bit yet the legacy freeze cleared GLOBAL_CTRL on it (SDM
 *      IA32_DEBUGCTL bit 12: "a PMI request clears" the enables; Linux
 *      intel_pmu_handle_irq re-enables on every exit, __intel_pmu_enable_all);
 *      a foreign NMI then costs that WRMSR too. Without BTINT, never for a
 *      status-0 NMI.
 * No locks; every loop bounded (buffer sizes, DS_PMI_MAX_PASSES): NMI-safe.
 * @out may be NULL. Errors: DS_ERR_NULL, DS_ERR_PMI_NOT_INIT,
 * DS_ERR_MSR_FAULT (status read: nothing else done; ack write: the loop
 * stops, reported after the drains), DS_ERR_PMI_HOOK (hook failed; ack
 * still done), DS_ERR_PMI_STORM, ds_lbr_read's errors (snapshot not
 * taken, LBR_Frz left set, everything else done). The first error wins; @out is filled in
 * every case past the argument checks.
 * MSRs: (perfmon v2+ only; none on NetBurst / v1, where only memory and
 * the hook are used) reads IA32_PERF_GLOBAL_STATUS (0x38E); writes
 * IA32_PERF_GLOBAL_OVF_CTRL / STATUS_RESET (0x390) and, with
 * DS_FREEZE_LEGACY or on a storm, IA32_PERF_GLOBAL_CTRL (0x38F). The hook
 * may touch others. NMI-safe: yes (if the hook and the sinks are); not
 * reentrant on one @pmi (one per CPU: the drains decode records into
 * pmi->pebs_scratch, and the ack sequence is per CPU anyway).
 * Architectural PEBS (cfg.apebs) under a freeze mode: IA32_PEBS_INDEX read
 * once and reset (the counters cannot assist before the ack; Linux
 * intel_pmu_drain_arch_pebs), 5 MSR accesses per threshold PMI with the
 * GLOBAL_STATUS re-read; DS_FREEZE_NONE: INDEX read again after the walk to
 * count records written meanwhile (DS_DRAIN_RACE), 6.
 * @out NULL: the result is written to pmi->res (struct ds_pmi), not to a
 * local (issue 29 item 3); it holds the last such call's result.
 * Stack (ctest embed.stack.*, gcc 12 -O2, installed-library flags; your
 * sinks, hook and MSR backend on top): at most 448 bytes (i386) / 408
 * (x86_64) with the session's sinks, 492 / 432 through ds_session_pmi
 * (was 1076 / 944, then 708 / 576, then 680 / 504); the test's PMI-path
 * budget is 512 on both (issue 29's goal; the deepest path is the
 * architectural PEBS drain's; docs/porting.md section 11).
 * @out's fields: see struct ds_pmi_result (bts only when bts_drained).
 */
int ds_pmi_handle(struct ds_pmi *pmi, struct ds_pmi_result *out);

/* Internal (ds_session_pmi, session.h): ds_pmi_handle(@pmi, @r) past its
 * two argument checks, for a caller that has made them (@pmi and @r not
 * NULL); the same result otherwise. Not part of the API. */
int ds__pmi_handle_r(struct ds_pmi *pmi, struct ds_pmi_result *r);

#ifdef __cplusplus
}
#endif

#endif /* DS_PMI_H */
