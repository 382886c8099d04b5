/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ds_pebs_format_select (pebs.h): which PEBS the CPU has, the DS-area
 * formats 0-6, NetBurst's, or architectural PEBS (SDM Vol. 3B
 * "IA32_PERF_CAPABILITIES", "DS Save Area"; Linux intel_ds_init,
 * intel_pebs_init). The dispatch over every PEBS kind, so it sits above
 * both: it asks arch_pebs.c (ds_arch_pebs_detect), which uses the PEBS
 * record types of pebs.h (issue 26 item 5: pebs.c never calls arch_pebs.c).
 */
#include "util.h"
#include <ds/pebs.h>
#include <ds/arch_pebs.h>

#if DS_CONFIG_PEBS

/*
 * Architectural PEBS (PERF_CAPABILITIES.PEBS_FMT = 0xF, Linux
 * intel_pebs_init -> intel_arch_pebs_init, without the DTES64 / PEBS
 * feature checks of intel_ds_pebs_init): its own buffer MSRs, not the
 * DS save area, so neither CPUID.01H:EDX.DS, MISC_ENABLE nor the DS
 * layout decide it; ds_arch_pebs_detect (arch_pebs.h) does (CPUID.23H
 * sub-leaves 4 and 5, counter bitmaps), and its error is returned.
 */
static int select_arch(const struct ds_cpu *cpu, enum ds_pebs_fmt *out_fmt)
{
    struct ds_arch_pebs_caps ac;
    int e = ds_arch_pebs_detect(cpu, &ac);
    if (e)
        return e;
    *out_fmt = DS_PEBS_FMT_ARCH;
    return DS_OK;
}

/* NetBurst has no PERF_CAPABILITIES: the record follows the DS layout
 * (SDM "DS Save Area": 40-byte records in the 32-bit format, 144 bytes
 * in the 64-bit one). */
static int select_netburst(enum ds_layout layout, enum ds_pebs_fmt *out_fmt)
{
#if DS_CONFIG_NETBURST
    *out_fmt = layout == DS_LAYOUT_32 ? DS_PEBS_FMT_NB32 : DS_PEBS_FMT_NB64;
    return DS_OK;
#else
    (void)layout;
    *out_fmt = DS_PEBS_FMT_NONE;
    return DS_ERR_UNSUPPORTED; /* NetBurst records compiled out (ds/config.h) */
#endif
}

/* PERF_CAPABILITIES.PEBS_FMT 0-6 (SDM "IA32_PERF_CAPABILITIES", Linux
 * intel_ds_init); any other value -> DS_ERR_PEBS_FORMAT. */
static int select_caps_fmt(uint8_t pebs_format, enum ds_pebs_fmt *f)
{
    switch (pebs_format) {
    case 0: *f = DS_PEBS_FMT_0; break;
    case 1: *f = DS_PEBS_FMT_1; break;
    case 2: *f = DS_PEBS_FMT_2; break;
    case 3: *f = DS_PEBS_FMT_3; break;
    case 4: *f = DS_PEBS_FMT_4; break;
    case 5: *f = DS_PEBS_FMT_5; break;
    case 6: *f = DS_PEBS_FMT_6; break; /* Lunar Lake, Arrow Lake (Linux intel_ds_init case 6) */
    default: return DS_ERR_PEBS_FORMAT;
    }
    return DS_OK;
}

DS_COLD int ds_pebs_format_select(const struct ds_cpu *cpu, enum ds_layout layout, enum ds_pebs_fmt *out_fmt)
{
    if (!cpu || !out_fmt)
        return DS_ERR_NULL;
    *out_fmt = DS_PEBS_FMT_NONE; /* on every error (contract) */
    if (layout != DS_LAYOUT_32 && layout != DS_LAYOUT_64)
        return DS_ERR_INVAL;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    const struct ds_caps *c = &cpu->caps;
    if (c->vendor != DS_VENDOR_INTEL)
        return DS_ERR_NOT_INTEL;
    if (c->has_perf_caps && c->pebs_format == DS_APEBS_PEBS_FMT)
        return select_arch(cpu, out_fmt);
    if (!c->ds)
        return DS_ERR_NO_DS;
    if (!c->pebs_advertised) /* IA32_MISC_ENABLE not read: unknown, not "unavailable" */
        return c->has_misc_enable ? DS_ERR_PEBS_UNAVAILABLE : DS_ERR_MISC_ENABLE_UNREAD;
    if (c->netburst)
        return select_netburst(layout, out_fmt);
    if (!c->has_perf_caps) /* PDCM = 0: no such MSR; PDCM = 1: the read faulted */
        return c->pdcm ? DS_ERR_PEBS_CAPS_UNREAD : DS_ERR_NO_PDCM;
    enum ds_pebs_fmt f;
    int e = select_caps_fmt(c->pebs_format, &f);
    if (e)
        return e;
    /* Formats 0-6 only exist on DTES64 parts, which always use the 64-bit
     * layout (Core 2 and Atom use 64-bit records in every mode). */
    if (layout != DS_LAYOUT_64)
        return DS_ERR_LAYOUT;
    *out_fmt = f;
    return DS_OK;
}

#else /* !DS_CONFIG_PEBS: PEBS compiled out (ds/config.h) */

DS_COLD int ds_pebs_format_select(const struct ds_cpu *cpu, enum ds_layout layout, enum ds_pebs_fmt *out_fmt)
{
    (void)cpu;
    (void)layout;
    if (out_fmt)
        *out_fmt = DS_PEBS_FMT_NONE;
    return DS_ERR_UNSUPPORTED;
}

#endif /* DS_CONFIG_PEBS */
