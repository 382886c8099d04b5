/* SPDX-License-Identifier: BSD-2-Clause */
/* Error strings. One row per enum ds_err value; tests/host/test_err.c checks completeness. */
#include <stddef.h>
#include <ds/err.h> /* and nothing of libds above it: util.h includes err.h (issue 26 item 5) */

struct ds_err_row {
    int value;
    const char *name;
    const char *text;
};

#define ROW(v, t) { v, #v, t }

static const struct ds_err_row rows[] = {
    ROW(DS_OK, "success"),
    /* 1..99: generic and core */
    ROW(DS_ERR_INVAL, "invalid argument"),
    ROW(DS_ERR_NULL, "required pointer argument is NULL"),
    ROW(DS_ERR_UNSUPPORTED, "CPU, format or feature not supported by libds"),
    ROW(DS_ERR_MSR_FAULT, "MSR access faulted (#GP)"),
    ROW(DS_ERR_NO_MSR, "MSR not known to exist on this CPU; not accessed"),
    ROW(DS_ERR_NOT_INTEL, "CPU vendor is not GenuineIntel"),
    ROW(DS_ERR_NO_DS, "CPUID.01H:EDX.DS is 0: no Debug Store"),
    ROW(DS_ERR_BTS_UNAVAILABLE, "IA32_MISC_ENABLE.BTS_UNAVAILABLE is set"),
    ROW(DS_ERR_PEBS_UNAVAILABLE, "IA32_MISC_ENABLE.PEBS_UNAVAILABLE is set"),
    ROW(DS_ERR_NO_PERFMON, "performance monitoring not available"),
    ROW(DS_ERR_NOT_WORKING, "facility advertised but found inert by the functional probe"),
    ROW(DS_ERR_NO_PDCM, "IA32_PERF_CAPABILITIES absent (CPUID.01H:ECX.PDCM is 0)"),
    ROW(DS_ERR_NOT_IDENTIFIED, "ds_cpu_identify() has not been called on this context"),
    ROW(DS_ERR_NO_CPUID, "no CPUID available"),
    ROW(DS_ERR_BUFSZ, "output buffer too small; output truncated"),
    ROW(DS_ERR_NOT_GIVEN, "optional argument not given: what needs it was not done"),
    /* 100..199: DS save area, BTS, PEBS, drain */
    ROW(DS_ERR_AREA_ALIGN, "DS save area pointer or linear address misaligned"),
    ROW(DS_ERR_AREA_ADDR, "DS save area linear address non-canonical or not representable in the layout"),
    ROW(DS_ERR_BUF_ALIGN, "BTS/PEBS buffer pointer or linear address misaligned"),
    ROW(DS_ERR_BUF_ADDR, "BTS/PEBS buffer linear range non-canonical, wrapping or not representable in the layout"),
    ROW(DS_ERR_BUF_SIZE, "buffer size is not a non-zero multiple of the record size"),
    ROW(DS_ERR_BUF_SMALL, "buffer holds too few records for the threshold and its safety margin"),
    ROW(DS_ERR_THRESH_RANGE, "interrupt threshold lies outside the buffer"),
    ROW(DS_ERR_THRESH_MARGIN, "interrupt threshold is not enough records short of the absolute maximum"),
    ROW(DS_ERR_PEBS_FORMAT, "PEBS record format unknown to libds"),
    ROW(DS_ERR_RESET_WIDTH, "PEBS counter-reset value wider than the counter"),
    ROW(DS_ERR_RESET_SLOT, "no PEBS counter-reset slot for that counter on this CPU and format"),
    ROW(DS_ERR_NO_BUFFERS, "neither a BTS nor a PEBS buffer was configured"),
    ROW(DS_ERR_NOT_SETUP, "DS context not set up (ds_area_setup not called or failed)"),
    ROW(DS_ERR_INSTALLED, "DS area is installed; uninstall it first"),
    ROW(DS_ERR_NOT_INSTALLED, "DS area is not installed in IA32_DS_AREA"),
    ROW(DS_ERR_NO_BTS_BUFFER, "no BTS buffer configured in this DS context"),
    ROW(DS_ERR_NO_PEBS_BUFFER, "no PEBS buffer configured in this DS context"),
    ROW(DS_ERR_NO_DSCPL, "BTS CPL filtering requested but CPUID.01H:ECX.DS-CPL is 0"),
    ROW(DS_ERR_BTS_MODE, "BTS threshold-interrupt mode needs a configured BTS threshold"),
    ROW(DS_ERR_DS_BUSY, "BTS or PEBS is already active; DS state not touched"),
    ROW(DS_ERR_DATA_CFG, "invalid adaptive PEBS data configuration (reserved bits, or groups without PEBS baseline)"),
    ROW(DS_ERR_LAYOUT, "PEBS record format not possible with this DS save area layout"),
    ROW(DS_ERR_REC_SHORT, "record shorter than its format requires"),
    ROW(DS_ERR_REC_SIZE, "adaptive PEBS record size field inconsistent with its groups"),
    ROW(DS_ERR_OVERLAP, "DS area, BTS buffer and PEBS buffer overlap"),
    ROW(DS_ERR_BAD_FLAGS, "unknown flag bits given"),

    ROW(DS_ERR_PEBS_AMBIGUOUS, "PEBS record cannot be attributed to a single counter"),
    ROW(DS_ERR_PEBS_NO_COUNTERS, "PEBS buffer given but none of the PEBS-capable counters exists"),
    ROW(DS_ERR_PEBS_BUF_4K, "PEBS format 0 (Core 2/Atom) buffer larger than 4 KiB (WRMSR to GLOBAL_CTRL hangs)"),
    ROW(DS_ERR_REC_ALIGN, "adaptive PEBS record with XMM or LBR groups is not 8-byte aligned"),
    ROW(DS_ERR_MISC_ENABLE_UNREAD, "BTS/PEBS availability unknown: IA32_MISC_ENABLE could not be read (not: unavailable)"),
    ROW(DS_ERR_PEBS_CAPS_UNREAD, "PEBS format unknown: IA32_PERF_CAPABILITIES is advertised (PDCM) but its read faulted"),
    /* 200..249: PMI helpers */
    ROW(DS_ERR_PMI_FREEZE_MODE, "freeze mode not supported by this CPU's perfmon version"),
    ROW(DS_ERR_PMI_CTRL_MASK, "counter mask names counters this CPU does not have"),
    ROW(DS_ERR_PMI_NOT_INIT, "PMI handler state not initialised"),
    ROW(DS_ERR_PMI_HOOK, "counter-overflow hook reported an error"),
    ROW(DS_ERR_PMI_LBR_BUF, "PMI LBR snapshot step needs cfg.lbr.buf with cap >= the LBR depth"),
    ROW(DS_ERR_PMI_CTX_CPU, "DS context given to ds_pmi_init was set up for another struct ds_cpu"),
    ROW(DS_ERR_PMI_LVT_VECTOR, "LVT PC value: fixed delivery needs a vector 32..255 (0-31 are exceptions), NMI delivery no vector"),
    ROW(DS_ERR_PMI_STORM, "PMI storm: GLOBAL_STATUS still set after 100 handler passes; PMU stopped (GLOBAL_CTRL = 0)"),

    /* 250..299: architectural / Core counters */
    ROW(DS_ERR_PMC_NO_ARCH, "no architectural performance monitoring (CPUID leaf 0AH)"),
    ROW(DS_ERR_PMC_BAD_COUNTER, "general-purpose counter index beyond CPUID.0AH:EAX[15:8]"),
    ROW(DS_ERR_PMC_BAD_FIXED, "fixed-function counter not present"),
    ROW(DS_ERR_PMC_PERIOD_ZERO, "sampling period is 0"),
    ROW(DS_ERR_PMC_PERIOD_WIDE, "sampling period does not fit the counter width"),
    ROW(DS_ERR_PMC_RESERVED, "reserved or unsupported bit set in a counter control value"),
    ROW(DS_ERR_PMC_VALUE_WIDE, "counter value not writable at this counter width"),
    ROW(DS_ERR_PMC_PEBS_COUNTER, "PEBS not supported on this counter"),
    ROW(DS_ERR_PMC_PEBS_EVENT, "event is not PEBS-capable on this processor"),
    ROW(DS_ERR_PMC_PEBS_INT, "EVTSEL.INT must be clear on a PEBS counter"),
    ROW(DS_ERR_PMC_NO_LDLAT, "load-latency PEBS not supported by this PEBS format or core"),
    ROW(DS_ERR_PMC_LDLAT_RANGE, "load-latency threshold outside 3..65535"),
    ROW(DS_ERR_PMC_NO_ADAPTIVE, "adaptive PEBS not supported (needs PEBS format 4+ and PEBS_BASELINE)"),
    ROW(DS_ERR_PMC_NO_PEBS_FMT, "PEBS not advertised or PEBS format unknown"),
    ROW(DS_ERR_PMC_NETBURST, "NetBurst processor: use the ESCR/CCCR interface"),
    ROW(DS_ERR_PMC_NO_GLOBAL, "perfmon version 1: no global control MSRs"),
    ROW(DS_ERR_PMC_PEBS_PMC0_ONLY, "PEBS only on IA32_PMC0 on this microarchitecture (Silvermont/Airmont/Goldmont/Knights)"),
    ROW(DS_ERR_PMC_PEBS_NO_FIXED, "fixed-counter PEBS needs adaptive PEBS or Goldmont Plus extended PEBS"),
    ROW(DS_ERR_PMC_PEBS_ERRATUM, "PEBS unreliable on Core 2 06_0FH (errata AJ67/AJ68/AJ69/AJ106)"),
    ROW(DS_ERR_PMC_PEBS_UCODE, "Sandy Bridge microcode too old for PEBS (06_2AH < 0x28, 06_2DH < 0x618/0x70C)"),
    ROW(DS_ERR_PMC_NO_UMASK2, "event-select UMASK2 not enumerated by CPUID leaf 23H"),
    ROW(DS_ERR_PMC_NO_EQ, "event-select EQ bit not enumerated by CPUID leaf 23H"),
    ROW(DS_ERR_PMC_ANY_DEPRECATED, "AnyThread set but CPUID.0AH:EDX[15] deprecates it (perfmon v5+; Linux hides the any format there)"),
    ROW(DS_ERR_PMC_PEBS_EVENT_COUNTER, "this PEBS event is restricted to another counter (PREC_DIST: PMC1, SNB/IVB MEM_TRANS_RETIRED: PMC3)"),

    /* 300..349: NetBurst */
    ROW(DS_ERR_NB_NOT_NETBURST, "not a NetBurst (family 0FH) Intel processor"),
    ROW(DS_ERR_NB_BAD_EVENT, "unknown NetBurst event"),
    ROW(DS_ERR_NB_BAD_ESCR, "unknown ESCR or ESCR absent on this model"),
    ROW(DS_ERR_NB_BAD_COUNTER, "NetBurst counter index out of range (0..17)"),
    ROW(DS_ERR_NB_ESCR_EVENT, "event cannot be counted on this ESCR"),
    ROW(DS_ERR_NB_ESCR_COUNTER, "this ESCR cannot drive this counter"),
    ROW(DS_ERR_NB_ESCR_BUSY, "ESCR already in use"),
    ROW(DS_ERR_NB_COUNTER_BUSY, "counter already in use"),
    ROW(DS_ERR_NB_NO_FREE, "no free ESCR and counter pair for this event"),
    ROW(DS_ERR_NB_BAD_MASK, "event mask empty or has undefined bits"),
    ROW(DS_ERR_NB_BAD_THREAD, "logical thread invalid (thread 1 needs Hyper-Threading)"),
    ROW(DS_ERR_NB_BAD_FILTER, "threshold/tag out of range or no privilege level selected"),
    ROW(DS_ERR_NB_PEBS_COUNTER, "NetBurst PEBS only on IQ_COUNTER4 (IQ_COUNTER5 for logical CPU 1)"),
    ROW(DS_ERR_NB_PEBS_EVENT, "event is not PEBS-capable on NetBurst"),
    ROW(DS_ERR_NB_BAD_METRIC, "unknown replay-tagging metric"),
    ROW(DS_ERR_NB_MODEL, "event not available on this NetBurst model"),
    ROW(DS_ERR_NB_NOT_ALLOCATED, "counter not allocated"),
    ROW(DS_ERR_NB_MISMATCH, "ESCR and counter are allocated but not to each other"),

    /* 350..399: LBR */
    ROW(DS_ERR_LBR_UNKNOWN_MODEL, "DisplayFamily_DisplayModel not in the LBR table"),
    ROW(DS_ERR_LBR_BAD_FORMAT, "LBR format unknown or not valid for this model"),
    ROW(DS_ERR_LBR_BAD_TOS, "LBR top-of-stack value out of range"),
    ROW(DS_ERR_LBR_NO_SELECT, "model has no MSR_LBR_SELECT"),
    ROW(DS_ERR_LBR_NO_FREEZE, "FREEZE_LBRS_ON_PMI not available on NetBurst"),
    ROW(DS_ERR_LBR_BAD_SELECT, "LBR filter value has invalid bits"),
    ROW(DS_ERR_LBR_ARCH_DEPTH, "Arch LBR depth not reported or invalid"),
    ROW(DS_ERR_LBR_NOSPC, "output array smaller than the LBR stack depth"),
    ROW(DS_ERR_LBR_CALLSTACK_FREEZE, "LBR call-stack mode cannot be combined with FREEZE_LBRS_ON_PMI"),
    ROW(DS_ERR_LBR_ARCH_HIDDEN, "Arch LBR model but CPUID.(07H,0):EDX[19] is 0 (hidden, e.g. by a hypervisor)"),
    ROW(DS_ERR_LBR_FREEZE_ERRATUM, "FREEZE_LBRS_ON_PMI broken on Atom 06_1CH before stepping 10 (erratum)"),
    ROW(DS_ERR_LBR_FMT_UNKNOWN, "LBR format unknown: IA32_PERF_CAPABILITIES read faulted and the model row does not fix the format"),
    ROW(DS_ERR_LBR_BAD_DEPTH, "legacy LBR row depth is not 4, 8, 16 or 32"),
    /* 400..449: architectural PEBS */
    ROW(DS_ERR_APEBS_NOT_ENUMERATED, "architectural PEBS not enumerated (PERF_CAPABILITIES.PEBS_FMT != 0xF or CPUID.23H sub-leaves 4/5 absent)"),
    ROW(DS_ERR_APEBS_MASKS, "CPUID.(23H,5) PEBS/PDIST counter bitmap names counters that do not exist"),
    ROW(DS_ERR_APEBS_SIZE_CODE, "IA32_PEBS_BASE size code above 15 (buffer larger than 128 MiB)"),
    ROW(DS_ERR_APEBS_MEM_ALIGN, "architectural PEBS buffer pointer not 4 KiB aligned, or its range wraps the address space"),
    ROW(DS_ERR_APEBS_BASE_ALIGN, "architectural PEBS buffer physical address not 4 KiB aligned"),
    ROW(DS_ERR_APEBS_PHYS_ADDR, "architectural PEBS buffer physical range beyond MAXPHYADDR or wrapping"),
    ROW(DS_ERR_APEBS_THRESH_ALIGN, "architectural PEBS threshold not a multiple of 16 bytes"),
    ROW(DS_ERR_APEBS_THRESH_RANGE, "architectural PEBS threshold not below the buffer size"),
    ROW(DS_ERR_APEBS_NOT_SETUP, "ds_arch_pebs_setup() has not succeeded on this context"),
    ROW(DS_ERR_APEBS_INSTALLED, "architectural PEBS buffer already installed"),
    ROW(DS_ERR_APEBS_NOT_INSTALLED, "architectural PEBS buffer not installed in IA32_PEBS_BASE"),
    ROW(DS_ERR_APEBS_COUNTER, "counter not PEBS-capable per CPUID.(23H,5)"),
    ROW(DS_ERR_APEBS_GROUP, "record group not enumerated in CPUID.(23H,4):EBX"),
    ROW(DS_ERR_APEBS_CFG_RESERVED, "CFG_C group argument has bits outside the group fields"),
    ROW(DS_ERR_APEBS_REC_SHORT, "architectural PEBS record or fragment extends past the bytes given"),
    ROW(DS_ERR_APEBS_REC_SIZE, "architectural PEBS header names groups that do not fit its size"),
    ROW(DS_ERR_APEBS_NO_BASIC, "architectural PEBS record starts with a fragment without the basic group"),
    ROW(DS_ERR_APEBS_REC_ALIGN, "architectural PEBS fragment size not a multiple of 8 bytes"),
    ROW(DS_ERR_APEBS_DS_AREA, "PEBS buffer given to the DS area on an architectural-PEBS CPU: set it up with ds_arch_pebs_setup()"),
    ROW(DS_ERR_APEBS_PMI, "ds_pmi_config.apebs: buffer not installed, set up for another CPU, or no IA32_PERF_GLOBAL_STATUS"),
    ROW(DS_ERR_EVENT_UNKNOWN, "not a generic event"),
    ROW(DS_ERR_EVENT_UARCH, "microarchitecture not in the generic-event table"),
    ROW(DS_ERR_EVENT_NONE, "this microarchitecture has no such event"),
    ROW(DS_ERR_EVENT_UNAVAILABLE, "architectural event disabled by CPUID.0AH:EBX on this CPU"),
    ROW(DS_ERR_SESSION_STATE, "session call out of order (add after start, start twice, stop before start)"),
    ROW(DS_ERR_SESSION_NO_EVENT, "session request names no event (generic event or raw.set)"),
    ROW(DS_ERR_SESSION_BAD_MODE, "unknown session sample mode"),
    ROW(DS_ERR_SESSION_BAD_PERIOD, "sampling period 0 or beyond the counter's range"),
    ROW(DS_ERR_SESSION_NO_COUNTER, "no PEBS-capable counter left (or no counter left) for this request"),
    ROW(DS_ERR_SESSION_NOT_PRECISE, "event not precise on this microarchitecture (no PEBS for it)"),
    ROW(DS_ERR_SESSION_BUF_SMALL, "buffer too small for one record"),
    ROW(DS_ERR_SESSION_NO_LDLAT, "no load-latency facility for this CPU, PEBS format or event"),
    ROW(DS_ERR_SESSION_GROUPS, "record groups not available with this PEBS format or sampling mode"),
    ROW(DS_ERR_SESSION_BTS_TWICE, "one BTS request per session"),
    ROW(DS_ERR_SESSION_TOO_MANY, "too many requests in one session (DS_SESSION_MAX_REQ)"),
    ROW(DS_ERR_SESSION_NO_DS, "CPU lacks the DS/PEBS/BTS facility this request needs"),
    ROW(DS_ERR_SESSION_NO_SINK, "session config has no on_sample and no on_branch callback"),
    ROW(DS_ERR_SESSION_MEM, "session config gives bytes without a memory pointer"),
    ROW(DS_ERR_SESSION_LBR, "LBR snapshot requested without on_lbr, or LBRs unknown for this CPU"),
    ROW(DS_ERR_SESSION_BAD_RINGS, "request rings has unknown bits"),
    ROW(DS_ERR_SESSION_RAW, "raw event not usable on this CPU (NetBurst needs nb_event, others evsel)"),
    ROW(DS_ERR_SESSION_SAVE, "session would change more MSRs than it can save"),
    ROW(DS_ERR_SESSION_SPURIOUS, "PMI not caused by this session"),
    ROW(DS_ERR_SESSION_NO_CNTR_GROUP, "counters group asked where the PEBS format has none (format 6 with PEBS_BASELINE or arch PEBS)"),
    ROW(DS_ERR_SESSION_NO_METRICS, "metrics in the counters group need PERF_CAPABILITIES.PERF_METRICS and fixed counter 3"),
    ROW(DS_ERR_SESSION_NO_CALLBACK, "no callback for this request's samples (overflow samples need on_sample; PEBS records on_sample or on_pebs)"),
    ROW(DS_ERR_SESSION_MEM_OVERLAP, "session region overlaps the struct ds_session or the struct ds_cpu"),
    ROW(DS_ERR_SESSION_MEM_RANGE, "session region wraps, or lies beyond the CPU's linear-address width, 4 GiB (32-bit DS area) or MAXPHYADDR"),
    ROW(DS_ERR_SESSION_PDIST, "pdist (most precise) request needs DS_SAMPLE_PRECISE on architectural PEBS (CPUID.(23H,5) PDIST counters)"),
    ROW(DS_ERR_SESSION_NO_PMU, "CPU has neither architectural performance monitoring (CPUID 0AH version 0) nor DS (CPUID.01H:EDX[21]): no session request can run (e.g. QEMU qemu32)"),
    ROW(DS_ERR_SESSION_BAD_REQ, "request id is not one ds_session_add returned for this session"),
    ROW(DS_ERR_SESSION_NO_PERIOD, "request has no period to change (BTS or DS_COUNT)"),

};

static const struct ds_err_row *find(int err)
{
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        if (rows[i].value == err)
            return &rows[i];
    return 0;
}

const char *ds_strerror(int err)
{
    const struct ds_err_row *r = find(err);
    return r ? r->text : "unknown libds error";
}

const char *ds_errname(int err)
{
    const struct ds_err_row *r = find(err);
    return r ? r->name : "DS_ERR_?";
}

const char *ds__reason_text(int err)
{
    return err == DS_ERR_NO_PDCM ? "not enumerated (CPUID.01H:ECX.PDCM is 0)" : ds_strerror(err);
}
