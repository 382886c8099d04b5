/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libds error codes.
 *
 * Every fallible libds call returns enum ds_err. Values are explicit and are
 * never reused or renumbered; each facility owns a range so that a code tells
 * where it came from:
 *
 *   0          success
 *   1..99      generic and core (arguments, MSR access, CPU identification)
 *   100..199   DS save area, BTS and PEBS buffers, drain (area.h, bts.h, pebs.h)
 *   200..249   PMI helpers (pmi.h)
 *   250..299   architectural / Core counters (pmc.h)
 *   300..349   NetBurst ESCR/CCCR (netburst.h)
 *   350..399   LBR (lbr.h)
 *   400..449   architectural PEBS (arch_pebs.h)
 *   450..479   generic events (event.h)
 *   480..529   sessions (session.h)
 *
 * ds_strerror() returns a fixed, non-NULL English sentence for every value,
 * including values it does not know ("unknown libds error").
 */
#ifndef DS_ERR_H
#define DS_ERR_H

#ifdef __cplusplus
extern "C" {
#endif

enum ds_err {
    DS_OK = 0,

    /* --- 1..99: generic and core --------------------------------------- */
    DS_ERR_INVAL = 1,            /* an argument is out of its documented range */
    DS_ERR_NULL = 2,             /* a required pointer argument is NULL */
    DS_ERR_UNSUPPORTED = 3,      /* the CPU or format is not one libds knows */
    DS_ERR_MSR_FAULT = 4,        /* an MSR access raised #GP (reported by the backend) */
    DS_ERR_NO_MSR = 5,           /* the MSR is not known to exist on this CPU; not accessed */
    DS_ERR_NOT_INTEL = 6,        /* CPUID vendor is not GenuineIntel */
    DS_ERR_NO_DS = 7,            /* CPUID.01H:EDX.DS = 0 */
    DS_ERR_BTS_UNAVAILABLE = 8,  /* IA32_MISC_ENABLE[11] BTS_UNAVAILABLE = 1 */
    DS_ERR_PEBS_UNAVAILABLE = 9, /* IA32_MISC_ENABLE[12] PEBS_UNAVAILABLE = 1 */
    DS_ERR_NO_PERFMON = 10,      /* no usable performance monitoring (MISC_ENABLE[7] = 0, no leaf 0AH) */
    DS_ERR_NOT_WORKING = 11,     /* advertised, but the functional probe found it inert */
    DS_ERR_NO_PDCM = 12,         /* IA32_PERF_CAPABILITIES absent (CPUID.01H:ECX.PDCM = 0) */
    DS_ERR_NOT_IDENTIFIED = 13,  /* struct ds_cpu used before ds_cpu_identify() */
    DS_ERR_NO_CPUID = 14,        /* the CPUID backend reported no CPUID instruction */
    DS_ERR_BUFSZ = 15,           /* an output text buffer is too small (output truncated, NUL-terminated) */
    DS_ERR_NOT_GIVEN = 16,       /* an optional argument was not given: what needs it was not done */
    /* core: next free value 17 */

    /* --- 100..199: DS save area, BTS, PEBS, drain ------------------------ */
    DS_ERR_AREA_ALIGN = 100, /* DS area pointer or linear address not naturally aligned */
    DS_ERR_AREA_ADDR = 101, /* DS area linear address non-canonical or not 32-bit for the 32-bit layout */
    DS_ERR_BUF_ALIGN = 102, /* BTS/PEBS buffer pointer or linear address misaligned */
    DS_ERR_BUF_ADDR = 103, /* BTS/PEBS buffer linear range non-canonical, wrapping, or not 32-bit */
    DS_ERR_BUF_SIZE = 104, /* buffer size not a non-zero multiple of the record size */
    DS_ERR_BUF_SMALL = 105, /* buffer holds too few records for the threshold margin */
    DS_ERR_THRESH_RANGE = 106, /* interrupt threshold outside the buffer */
    DS_ERR_THRESH_MARGIN = 107, /* threshold not DS_THRESH_MARGIN records short of the maximum */
    DS_ERR_PEBS_FORMAT = 108, /* PEBS record format unknown to libds */
    DS_ERR_RESET_WIDTH = 109, /* PEBS counter-reset value wider than the counter */
    DS_ERR_RESET_SLOT = 110, /* no counter-reset slot for that counter in this format/CPU */
    DS_ERR_NO_BUFFERS = 111, /* neither a BTS nor a PEBS buffer was given */
    DS_ERR_NOT_SETUP = 112, /* struct ds_ctx used before ds_area_setup() succeeded */
    DS_ERR_INSTALLED = 113, /* operation needs the DS area uninstalled (or installed twice) */
    DS_ERR_NOT_INSTALLED = 114, /* operation needs the DS area installed in IA32_DS_AREA */
    DS_ERR_NO_BTS_BUFFER = 115, /* BTS operation on a context without a BTS buffer */
    DS_ERR_NO_PEBS_BUFFER = 116, /* PEBS operation on a context without a PEBS buffer */
    DS_ERR_NO_DSCPL = 117, /* BTS_OFF_OS/BTS_OFF_USR requested without CPUID DS-CPL */
    DS_ERR_BTS_MODE = 118, /* BTS interrupt mode requested but no BTS threshold configured */
    DS_ERR_DS_BUSY = 119, /* BTS or PEBS is active (someone else owns the DS); not touched */
    DS_ERR_DATA_CFG = 120, /* adaptive PEBS data configuration invalid for this CPU */
    DS_ERR_LAYOUT = 121, /* PEBS record format impossible with this DS layout */
    DS_ERR_REC_SHORT = 122, /* record bytes fewer than the record format needs */
    DS_ERR_REC_SIZE = 123, /* adaptive PEBS record header size field is inconsistent */
    DS_ERR_OVERLAP = 124, /* DS area, BTS and PEBS buffers overlap */
    DS_ERR_BAD_FLAGS = 125, /* unknown flag bits */
    DS_ERR_PEBS_AMBIGUOUS = 126, /* fmt 1-2 status snapshot names several PEBS counters */
    DS_ERR_PEBS_NO_COUNTERS = 127, /* PEBS buffer but none of the format's PEBS counters exists (CPUID) */
    DS_ERR_PEBS_BUF_4K = 128, /* PEBS format 0 (Core 2/Atom) buffer above 4 KiB: WRMSR GLOBAL_CTRL hangs */
    DS_ERR_REC_ALIGN = 129, /* adaptive record with XMM/LBR groups not 8-byte aligned */
    DS_ERR_MISC_ENABLE_UNREAD = 130, /* BTS/PEBS availability unknown: IA32_MISC_ENABLE not read (caps.misc_enable_err) */
    DS_ERR_PEBS_CAPS_UNREAD = 131, /* PEBS format unknown: PDCM set, IA32_PERF_CAPABILITIES read faulted */
    /* DS/BTS/PEBS: next free value 132 */

    /* --- 200..249: PMI helpers ------------------------------------------ */
    DS_ERR_PMI_FREEZE_MODE = 200, /* freeze mode not supported by this perfmon version */
    DS_ERR_PMI_CTRL_MASK = 201, /* GLOBAL_CTRL / PEBS counter mask names counters the CPU lacks */
    DS_ERR_PMI_NOT_INIT = 202, /* struct ds_pmi used before ds_pmi_init() succeeded */
    DS_ERR_PMI_HOOK = 203, /* the counter-overflow hook reported an error */
    DS_ERR_PMI_STORM = 204, /* GLOBAL_STATUS still set after DS_PMI_MAX_PASSES: PMU stopped */
    DS_ERR_PMI_LBR_BUF = 205, /* PMI LBR snapshot step without a buffer (cfg.lbr.buf NULL or cap 0) */
    DS_ERR_PMI_CTX_CPU = 206, /* ds_pmi_init: the DS context was set up for another struct ds_cpu */
    DS_ERR_PMI_LVT_VECTOR = 207, /* ds_lvt_pc_value: fixed vector outside 32..255, or NMI with a vector */
    /* PMI: next free value 208 */

    /* --- 250..299: architectural / Core counters ------------------------- */
    DS_ERR_PMC_NO_ARCH = 250,        /* no architectural perfmon (CPUID leaf 0AH version 0) */
    DS_ERR_PMC_BAD_COUNTER = 251,    /* GP counter index >= CPUID.0AH:EAX[15:8] */
    DS_ERR_PMC_BAD_FIXED = 252,      /* fixed counter absent (index/EDX[4:0]/ECX bitmap, or perfmon v1) */
    DS_ERR_PMC_PERIOD_ZERO = 253,    /* sampling period 0 */
    DS_ERR_PMC_PERIOD_WIDE = 254,    /* period does not fit the counter (> 2^(width-1), or > 2^31 without full-width writes) */
    DS_ERR_PMC_RESERVED = 255,       /* a reserved or unsupported bit is set in EVTSEL/FIXED_CTR_CTRL/GLOBAL_CTRL/DATA_CFG */
    DS_ERR_PMC_VALUE_WIDE = 256,     /* counter value not writable (wider than the counter, or not a sign-extended 32-bit value without FW_WRITE) */
    DS_ERR_PMC_PEBS_COUNTER = 257,   /* PEBS not possible on this counter (Core 2/Atom: PMC0 only; NHM..: PMC0-3) */
    DS_ERR_PMC_PEBS_EVENT = 258,     /* event is not a PEBS-capable at-retirement event of this model */
    DS_ERR_PMC_PEBS_INT = 259,       /* EVTSEL.INT set on a PEBS counter (SDM: do not set INT) */
    DS_ERR_PMC_NO_LDLAT = 260,       /* no load-latency PEBS: format 0, or an adaptive core without a known LL event */
    DS_ERR_PMC_LDLAT_RANGE = 261,    /* load-latency threshold outside 3..0xFFFF */
    DS_ERR_PMC_NO_ADAPTIVE = 262,    /* adaptive PEBS needs PEBS format >= 4 and PERF_CAPABILITIES.PEBS_BASELINE */
    DS_ERR_PMC_NO_PEBS_FMT = 263,    /* PEBS format unknown to libds or PEBS not advertised */
    DS_ERR_PMC_NETBURST = 264,       /* NetBurst CPU: use netburst.h (no PERFEVTSEL/PMC MSRs) */
    DS_ERR_PMC_NO_GLOBAL = 265,      /* perfmon v1: no IA32_PERF_GLOBAL_* MSRs */
    DS_ERR_PMC_PEBS_PMC0_ONLY = 266, /* PEBS only on IA32_PMC0 on this microarchitecture (Silvermont/Airmont/Goldmont/KNL/KNM, SDM 18.6.1.1, 18.7.1) */
    DS_ERR_PMC_PEBS_NO_FIXED = 267,  /* fixed-counter PEBS needs adaptive PEBS (fmt 4+ with baseline) or Goldmont Plus extended PEBS */
    DS_ERR_PMC_PEBS_ERRATUM = 268,   /* PEBS refused: Core 2 Merom/Clovertown 06_0FH errata AJ67/68/69/106 (override: DS_PMC_PEBS_ALLOW_ERRATA) */
    DS_ERR_PMC_PEBS_UCODE = 269,     /* PEBS refused: Sandy Bridge microcode older than Linux pebs_ucodes (IA32_BIOS_SIGN_ID) */
    DS_ERR_PMC_NO_UMASK2 = 270,      /* EVTSEL.UMASK2 [47:40] set but CPUID.(23H,0):EBX[0] does not enumerate it */
    DS_ERR_PMC_NO_EQ = 271,          /* EVTSEL.EQ [36] set but CPUID.(23H,0):EBX[1] does not enumerate it */
    DS_ERR_PMC_PEBS_EVENT_COUNTER = 272, /* this PEBS event only on another counter (PREC_DIST: PMC1; formats 1-3 load latency: PMC3 to Broadwell; pmc.h ds_pmc_pebs_event_counters) */
    DS_ERR_PMC_ANY_DEPRECATED = 273, /* AnyThread (EVTSEL bit 21 / FIXED_CTR_CTRL ANY) set where CPUID.0AH:EDX[15] deprecates it (v5+) */
    /* pmc: next free value 274 */

    /* --- 300..349: NetBurst ---------------------------------------------- */
    DS_ERR_NB_NOT_NETBURST = 300,    /* CPU is not DisplayFamily 0FH Intel */
    DS_ERR_NB_BAD_EVENT = 301,       /* unknown event index */
    DS_ERR_NB_BAD_ESCR = 302,        /* unknown ESCR index, or the ESCR does not exist on this model (IQ_ESCR0/1) */
    DS_ERR_NB_BAD_COUNTER = 303,     /* counter index >= 18 */
    DS_ERR_NB_ESCR_EVENT = 304,      /* the event cannot be counted on that ESCR */
    DS_ERR_NB_ESCR_COUNTER = 305,    /* that ESCR cannot drive that counter */
    DS_ERR_NB_ESCR_BUSY = 306,       /* ESCR already allocated */
    DS_ERR_NB_COUNTER_BUSY = 307,    /* counter already allocated */
    DS_ERR_NB_NO_FREE = 308,         /* no free ESCR + counter pair for the event */
    DS_ERR_NB_BAD_MASK = 309,        /* event mask empty or has bits the event does not define */
    DS_ERR_NB_BAD_THREAD = 310,      /* thread 1 requested without Hyper-Threading, or thread > 1 */
    DS_ERR_NB_BAD_FILTER = 311,      /* threshold > 15, tag value > 15, or no privilege level selected */
    DS_ERR_NB_PEBS_COUNTER = 312,    /* PEBS only on IQ_COUNTER4 (thread 0) / IQ_COUNTER5 (thread 1 with HT) */
    DS_ERR_NB_PEBS_EVENT = 313,      /* event is not PEBS-capable (front_end/execution/replay_event) */
    DS_ERR_NB_BAD_METRIC = 314,      /* unknown replay-tagging metric */
    DS_ERR_NB_MODEL = 315,           /* event not available on this model (instr_completed: models 3, 4, 6) */
    DS_ERR_NB_NOT_ALLOCATED = 316,   /* releasing or re-arming a counter the allocator does not hold */
    DS_ERR_NB_MISMATCH = 317,        /* release: the assignment's ESCR and counter are allocated, but not as one pair */
    /* NetBurst: next free value 317 */

    /* --- 350..399: LBR --------------------------------------------------- */
    DS_ERR_LBR_UNKNOWN_MODEL = 350,  /* DisplayFamily_DisplayModel not in the LBR table (never guessed) */
    DS_ERR_LBR_BAD_FORMAT = 351,     /* LBR format not 0..7 (or Arch LBR on a non-Arch row) */
    DS_ERR_LBR_BAD_TOS = 352,        /* TOS MSR returned a value outside the model's range */
    DS_ERR_LBR_NO_SELECT = 353,      /* MSR_LBR_SELECT filtering requested on a model without it */
    DS_ERR_LBR_NO_FREEZE = 354,      /* FREEZE_LBRS_ON_PMI requested on NetBurst (MSR_DEBUGCTLA has no such bit) */
    DS_ERR_LBR_BAD_SELECT = 355,     /* LBR_SELECT / LBR_CTL value has bits outside the valid mask */
    DS_ERR_LBR_ARCH_DEPTH = 356,     /* Arch LBR: CPUID.1CH reports no depth, or IA32_LBR_DEPTH invalid */
    DS_ERR_LBR_NOSPC = 357,          /* output array smaller than the model's stack depth */
    DS_ERR_LBR_CALLSTACK_FREEZE = 358, /* call-stack mode with FREEZE_LBRS_ON_PMI (TOS corruption; Linux clears the freeze) */
    DS_ERR_LBR_ARCH_HIDDEN = 359,    /* Arch LBR row but CPUID.(07H,0):EDX[19] = 0 (e.g. a VM hides it): MSRs not touched */
    DS_ERR_LBR_FREEZE_ERRATUM = 360, /* FREEZE_LBRS_ON_PMI on Atom 06_1CH stepping < 10 (erratum; Linux disables LBR there) */
    DS_ERR_LBR_FMT_UNKNOWN = 361,    /* LBR format unknown: IA32_PERF_CAPABILITIES faulted, the model row does not fix it */
    DS_ERR_LBR_BAD_DEPTH = 362,      /* legacy LBR row depth not 4, 8, 16 or 32 (a caller-built row) */
    /* LBR: next free value 363 */

    /* --- 400..449: architectural PEBS (arch_pebs.h) ---------------------- */
    DS_ERR_APEBS_NOT_ENUMERATED = 400, /* PERF_CAPABILITIES.PEBS_FMT != 0xF or CPUID.23H.0:EAX[4]/[5] clear */
    DS_ERR_APEBS_MASKS = 401,        /* CPUID.(23H,5) PEBS/PDIST bitmap names counters that do not exist */
    DS_ERR_APEBS_SIZE_CODE = 402,    /* IA32_PEBS_BASE size code above 15 (buffer > 128 MiB) */
    DS_ERR_APEBS_MEM_ALIGN = 403,    /* buffer pointer not 4 KiB aligned, or its range wraps */
    DS_ERR_APEBS_BASE_ALIGN = 404,   /* buffer physical address not 4 KiB aligned */
    DS_ERR_APEBS_PHYS_ADDR = 405,    /* buffer physical range beyond MAXPHYADDR (or wrapping) */
    DS_ERR_APEBS_THRESH_ALIGN = 406, /* threshold not a multiple of 16 bytes */
    DS_ERR_APEBS_THRESH_RANGE = 407, /* threshold not below the buffer size */
    DS_ERR_APEBS_NOT_SETUP = 408,    /* struct ds_arch_pebs used before ds_arch_pebs_setup() succeeded */
    DS_ERR_APEBS_INSTALLED = 409,    /* buffer already installed */
    DS_ERR_APEBS_NOT_INSTALLED = 410, /* operation needs the buffer installed in IA32_PEBS_BASE */
    DS_ERR_APEBS_COUNTER = 411,      /* counter not PEBS-capable per CPUID.(23H,5) */
    DS_ERR_APEBS_GROUP = 412,        /* CFG_C group not enumerated in CPUID.(23H,4):EBX */
    DS_ERR_APEBS_CFG_RESERVED = 413, /* CFG_C group argument has bits outside the group fields */
    DS_ERR_APEBS_REC_SHORT = 414,    /* record header/fragment/continuation extends past the bytes given */
    DS_ERR_APEBS_REC_SIZE = 415,     /* the groups a header names do not fit its size field */
    DS_ERR_APEBS_NO_BASIC = 416,     /* first fragment of a record without the basic group */
    DS_ERR_APEBS_REC_ALIGN = 417,    /* fragment size not a multiple of 8 bytes */
    DS_ERR_APEBS_DS_AREA = 418,      /* DS-area PEBS buffer on an architectural-PEBS CPU (use arch_pebs.h) */
    DS_ERR_APEBS_PMI = 419,          /* ds_pmi_config.apebs not installed, of another CPU, or no global MSRs */
    /* arch PEBS: next free value 420 */

    /* --- 450..479: generic events (event.h) ------------------------------ */
    DS_ERR_EVENT_UNKNOWN = 450,      /* not a generic event (enum ds_event) */
    DS_ERR_EVENT_UARCH = 451,        /* family/model (or hybrid core type) not in the generic-event table */
    DS_ERR_EVENT_NONE = 452,         /* this microarchitecture has no such event */
    DS_ERR_EVENT_UNAVAILABLE = 453,  /* architectural event disabled in CPUID.0AH:EBX */
    /* events: next free value 454 */

    /* --- 480..529: sessions (session.h) ---------------------------------- */
    DS_ERR_SESSION_STATE = 480, /* call out of order: add after start, start twice, stop before start, ... */
    DS_ERR_SESSION_NO_EVENT = 481, /* request names neither a generic event nor a raw event */
    DS_ERR_SESSION_BAD_MODE = 482, /* unknown enum ds_sample_mode */
    DS_ERR_SESSION_BAD_PERIOD = 483, /* period 0, or beyond the counter (width, 2^31 arch-PEBS reload) */
    DS_ERR_SESSION_NO_COUNTER = 484, /* no (PEBS-capable) counter left for the request */
    DS_ERR_SESSION_NOT_PRECISE = 485, /* event not precise (no PEBS) on this microarchitecture */
    DS_ERR_SESSION_BUF_SMALL = 486, /* region too small for one record of each buffer */
    DS_ERR_SESSION_NO_LDLAT = 487, /* load-latency threshold where the CPU/format/event has none */
    DS_ERR_SESSION_GROUPS = 488, /* record groups the PEBS format (or overflow sampling) cannot give */
    DS_ERR_SESSION_BTS_TWICE = 489, /* a second BTS request (one per session) */
    DS_ERR_SESSION_TOO_MANY = 490, /* more than DS_SESSION_MAX_REQ requests */
    DS_ERR_SESSION_NO_DS = 491, /* precise sampling / BTS needs DS, PEBS or BTS the CPU lacks */
    DS_ERR_SESSION_NO_SINK = 492, /* config has neither on_sample nor on_branch */
    DS_ERR_SESSION_MEM = 493, /* config bytes given without mem */
    DS_ERR_SESSION_LBR = 494, /* LBR snapshot asked without on_lbr, or no LBR row for the CPU */
    DS_ERR_SESSION_BAD_RINGS = 495, /* rings has bits other than DS_RING_KERNEL|DS_RING_USER */
    DS_ERR_SESSION_RAW = 496, /* raw event not usable on this CPU (NetBurst needs nb_event, family 6 evsel) */
    DS_ERR_SESSION_SAVE = 497, /* more MSRs to save than DS_SESSION_MAX_SAVED */
    DS_ERR_SESSION_SPURIOUS = 498, /* PMI was not the session's (pass it on) */
    DS_ERR_SESSION_NO_CNTR_GROUP = 499, /* DS_GROUP_CNTR/METRICS where the PEBS format has no counters group */
    DS_ERR_SESSION_NO_METRICS = 500, /* DS_GROUP_METRICS without PERF_METRICS or fixed counter 3 */
    DS_ERR_SESSION_NO_CALLBACK = 501, /* request's samples have no callback (overflow: on_sample; PEBS: on_sample or on_pebs) */
    DS_ERR_SESSION_MEM_OVERLAP = 502, /* config region overlaps the struct ds_session or the struct ds_cpu */
    DS_ERR_SESSION_MEM_RANGE = 503, /* region wraps, or is beyond the linear-address width / 4 GiB (32-bit DS) / MAXPHYADDR */
    DS_ERR_SESSION_PDIST = 504, /* ds_request.pdist without DS_SAMPLE_PRECISE or without architectural PEBS */
    DS_ERR_SESSION_NO_PMU = 505, /* init: neither architectural perfmon (CPUID 0AH version 0) nor DS (e.g. QEMU qemu32) */
    DS_ERR_SESSION_BAD_REQ = 506, /* request id not one ds_session_add returned for this session */
    DS_ERR_SESSION_NO_PERIOD = 507, /* ds_session_set_period on a BTS or DS_COUNT request (no period) */
    /* 508 was DS_ERR_SESSION_PERIOD_NB: a running NetBurst request takes a new period now */
    /* sessions: next free value 509 */

    DS_ERR__LAST /* one past the highest value; not an error code */
};

/* A short English description of @err; never NULL. No error return.
 * MSRs: none. NMI-safe: yes (reads a table). */
const char *ds_strerror(int err);

/* The enumerator's name ("DS_ERR_INVAL"), or "DS_ERR_?" if unknown. No error
 * return. MSRs: none. NMI-safe: yes (reads a table). */
const char *ds_errname(int err);

#ifdef __cplusplus
}
#endif

#endif /* DS_ERR_H */
