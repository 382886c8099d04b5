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
    /* core: next free value 16 */

    /* --- 100..199: DS save area, BTS, PEBS, drain ------------------------ */
    /* (area.h / bts.h / pebs.h add their codes here) */

    /* --- 200..249: PMI helpers ------------------------------------------ */

    /* --- 250..299: architectural / Core counters ------------------------- */

    /* --- 300..349: NetBurst ---------------------------------------------- */

    /* --- 350..399: LBR --------------------------------------------------- */

    DS_ERR__LAST /* one past the highest value; not an error code */
};

/* A short English description of @err; never NULL. NMI-safe (reads a table). */
const char *ds_strerror(int err);

/* The enumerator's name ("DS_ERR_INVAL"), or "DS_ERR_?" if unknown. NMI-safe. */
const char *ds_errname(int err);

#ifdef __cplusplus
}
#endif

#endif /* DS_ERR_H */
