/* SPDX-License-Identifier: BSD-2-Clause */
/* Error strings. One row per enum ds_err value; tests/host/test_err.c checks completeness. */
#include <ds/err.h>
#include "internal.h"

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
    /* 100..199: DS save area, BTS, PEBS, drain */

    /* 200..249: PMI helpers */

    /* 250..299: architectural / Core counters */

    /* 300..349: NetBurst */

    /* 350..399: LBR */

};

static const struct ds_err_row *find(int err)
{
    for (size_t i = 0; i < DS_ARRAY_SIZE(rows); i++)
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
