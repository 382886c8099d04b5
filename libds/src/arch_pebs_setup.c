/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Architectural PEBS setup: detection (CPUID.23H), IA32_PEBS_BASE/INDEX
 * install/enable/uninstall and the counters' IA32_PMC_*_CFG_C. The record
 * decoder and the drains are in arch_pebs.c (split from it: issue 26's
 * ~1,000 lines). Facts and their sources: ds/arch_pebs.h (Linux "arch-PEBS
 * enabling for Intel platforms": perf_event.h, msr-index.h,
 * events/intel/ds.c and core.c; KVM vmx/pmu_intel.c).
 */
#include <ds/arch_pebs.h>
#include "util.h"
#include "cpu_int.h"

#if DS_CONFIG_PEBS
static uint8_t phys_bits(const struct ds_cpu *cpu)
{
    uint32_t r[4];
    uint32_t bits = 0;
    ds_cpuid(cpu, 0x80000000u, 0, r);
    if (r[0] >= 0x80000008u && r[0] <= 0x8000FFFFu) {
        ds_cpuid(cpu, 0x80000008u, 0, r);
        bits = r[0] & 0xFFu;
    }
    if (!bits)
        bits = (cpu->caps.cpuid1_edx & (1u << 6)) ? 36u : 32u; /* CPUID.01H:EDX.PAE */
    return (uint8_t)(bits > 52u ? 52u : bits);
}

DS_COLD int ds_arch_pebs_detect(const struct ds_cpu *cpu, struct ds_arch_pebs_caps *out)
{
    if (!cpu || !out)
        return DS_ERR_NULL;
    ds__zero(out, sizeof(*out));
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    const struct ds_caps *c = &cpu->caps;
    if (c->vendor != DS_VENDOR_INTEL)
        return DS_ERR_NOT_INTEL;
    if (!c->has_perf_caps)
        return DS_ERR_NO_PDCM;
    /* Linux intel_pebs_init: PEBS_FMT 0xF selects arch-PEBS; update_pmu_cap:
     * sub-leaves 4 and 5 must both be enumerated. */
    const uint32_t both = DS_LEAF23_SUB_PEBS_CAPS | DS_LEAF23_SUB_PEBS_CNTRS;
    if (c->pebs_format != DS_APEBS_PEBS_FMT || !c->has_leaf_23 || (c->leaf23_subleaves & both) != both)
        return DS_ERR_APEBS_NOT_ENUMERATED;
    /* update_pmu_cap: WARN_ON((pebs_mask | pdists_mask) & ~cntrs_mask) -> no arch-PEBS */
    if (((c->arch_pebs_gp_mask | c->arch_pdist_gp_mask) & ~c->gp_mask) ||
        ((c->arch_pebs_fixed_mask | c->arch_pdist_fixed_mask) & ~c->fixed_mask))
        return DS_ERR_APEBS_MASKS;
    out->cfg_c_caps = (uint64_t)c->arch_pebs_caps << 32;
    out->gp_mask = c->arch_pebs_gp_mask;
    out->pdist_gp_mask = c->arch_pdist_gp_mask;
    out->fixed_mask = c->arch_pebs_fixed_mask;
    out->pdist_fixed_mask = c->arch_pdist_fixed_mask;
    out->phys_bits = phys_bits(cpu);
    return DS_OK;
}

/* --- Buffer --------------------------------------------------------------------- */

/* The largest buffer is the one IA32_PEBS_INDEX's write offset can address
 * (ds/arch_pebs.h: the BASE size-code width is not documented). */
_Static_assert(((uint64_t)DS_APEBS_PAGE << DS_APEBS_SIZE_CODE_MAX) ==
                   ((DS_APEBS_INDEX_WR_MASK >> DS_APEBS_INDEX_WR_SHIFT) + 1) * DS_APEBS_UNIT,
               "size code maximum = INDEX write-offset reach");

/* Buffer checks of ds_arch_pebs_setup (after detection). */
static int check_buffer(const struct ds_arch_pebs_config *cfg, uint8_t pbits, uint64_t *out_bytes,
                        uint64_t *out_thresh)
{
    if (cfg->size_code > DS_APEBS_SIZE_CODE_MAX)
        return DS_ERR_APEBS_SIZE_CODE;
    uint64_t bytes = (uint64_t)DS_APEBS_PAGE << cfg->size_code;
    uintptr_t m = (uintptr_t)cfg->mem;
    if ((m & (DS_APEBS_PAGE - 1)) || bytes - 1 > (uint64_t)(UINTPTR_MAX - m))
        return DS_ERR_APEBS_MEM_ALIGN;
    if (cfg->phys & (DS_APEBS_PAGE - 1))
        return DS_ERR_APEBS_BASE_ALIGN;
    uint64_t lim = 1ull << pbits; /* pbits <= 52 */
    if (cfg->phys >= lim || bytes > lim - cfg->phys)
        return DS_ERR_APEBS_PHYS_ADDR;
    uint64_t t = cfg->thresh;
    if (!t) /* Linux ARCH_PEBS_THRESH_MULTI / ARCH_PEBS_THRESH_SINGLE (intel_ds.h) */
        t = bytes > DS_APEBS_PAGE ? bytes - DS_APEBS_PAGE : DS_APEBS_UNIT;
    if (t % DS_APEBS_UNIT)
        return DS_ERR_APEBS_THRESH_ALIGN;
    if (t >= bytes)
        return DS_ERR_APEBS_THRESH_RANGE;
    *out_bytes = bytes;
    *out_thresh = t;
    return DS_OK;
}

DS_COLD int ds_arch_pebs_setup(struct ds_arch_pebs *ap, const struct ds_cpu *cpu, const struct ds_arch_pebs_config *cfg)
{
    if (!ap)
        return DS_ERR_NULL;
    ds__zero(ap, sizeof(*ap));
    if (!cpu || !cfg || !cfg->mem)
        return DS_ERR_NULL;
    struct ds_arch_pebs_caps caps;
    int e = ds_arch_pebs_detect(cpu, &caps);
    if (e)
        return e;
    uint64_t bytes, thresh;
    e = check_buffer(cfg, caps.phys_bits, &bytes, &thresh);
    if (e)
        return e;
    ap->cpu = cpu;
    ap->caps = caps;
    ap->mem = cfg->mem;
    ap->phys = cfg->phys;
    ap->bytes = bytes;
    ap->base_msr = cfg->phys | cfg->size_code; /* Linux init_arch_pebs_on_cpu */
    ap->thresh = thresh;
    ap->setup = true;
    return DS_OK;
}

static uint64_t thresh_field(const struct ds_arch_pebs *ap)
{
    return ((ap->thresh / DS_APEBS_UNIT) << DS_APEBS_INDEX_THRESH_SHIFT) & DS_APEBS_INDEX_THRESH_MASK;
}

DS_COLD int ds_arch_pebs_install(struct ds_arch_pebs *ap)
{
    if (!ap)
        return DS_ERR_NULL;
    if (!ap->setup)
        return DS_ERR_APEBS_NOT_SETUP;
    if (ap->installed)
        return DS_ERR_APEBS_INSTALLED;
    int e = ds_msr_write(ap->cpu, DS_MSR_IA32_PEBS_BASE, ap->base_msr);
    if (e)
        return e;
    e = ds_msr_write(ap->cpu, DS_MSR_IA32_PEBS_INDEX, thresh_field(ap)); /* offset 0, FULL 0, EN 0 */
    if (e) {
        (void)ds_msr_write(ap->cpu, DS_MSR_IA32_PEBS_BASE, 0);
        return e;
    }
    ap->installed = true;
    return DS_OK;
}

static int set_en(struct ds_arch_pebs *ap, bool en)
{
    if (!ap)
        return DS_ERR_NULL;
    if (!ap->installed)
        return DS_ERR_APEBS_NOT_INSTALLED;
    uint64_t v;
    int e = ds_msr_read(ap->cpu, DS_MSR_IA32_PEBS_INDEX, &v);
    if (e)
        return e;
    v = (v & (DS_APEBS_INDEX_WR_MASK | DS_APEBS_INDEX_FULL)) | thresh_field(ap) | (en ? DS_APEBS_INDEX_EN : 0);
    return ds_msr_write(ap->cpu, DS_MSR_IA32_PEBS_INDEX, v);
}

int ds_arch_pebs_enable(struct ds_arch_pebs *ap)
{
    return set_en(ap, true);
}

int ds_arch_pebs_disable(struct ds_arch_pebs *ap)
{
    return set_en(ap, false);
}

DS_COLD int ds_arch_pebs_uninstall(struct ds_arch_pebs *ap)
{
    int e = set_en(ap, false);
    if (e)
        return e;
    e = ds_msr_write(ap->cpu, DS_MSR_IA32_PEBS_BASE, 0);
    if (e)
        return e;
    ap->installed = false;
    return DS_OK;
}

/* --- CFG_C -------------------------------------------------------------------------- */

uint32_t ds_arch_pebs_cfg_c_msr(enum ds_ctr_kind kind, uint32_t index)
{
    if (index >= 32)
        return 0;
    if (kind == DS_CTR_GP)
        return DS_MSR_IA32_PMC_GP0_CFG_C + DS_MSR_PMC_V6_STEP * index;
    if (kind == DS_CTR_FIXED)
        return DS_MSR_IA32_PMC_FX0_CFG_C + DS_MSR_PMC_V6_STEP * index;
    return 0;
}

static int counter_msr(const struct ds_arch_pebs *ap, enum ds_ctr_kind kind, uint32_t index, uint32_t *msr)
{
    if (!ap)
        return DS_ERR_NULL;
    if (!ap->setup)
        return DS_ERR_APEBS_NOT_SETUP;
    if (kind != DS_CTR_GP && kind != DS_CTR_FIXED)
        return DS_ERR_INVAL;
    uint32_t m = kind == DS_CTR_GP ? ap->caps.gp_mask : ap->caps.fixed_mask;
    if (index >= 32 || !((m >> index) & 1u))
        return DS_ERR_APEBS_COUNTER;
    *msr = ds_arch_pebs_cfg_c_msr(kind, index);
    return DS_OK;
}

DS_COLD int ds_arch_pebs_counter_enable(struct ds_arch_pebs *ap, enum ds_ctr_kind kind, uint32_t index, uint32_t reload,
                                uint64_t groups)
{
    uint32_t msr;
    int e = counter_msr(ap, kind, index, &msr);
    if (e)
        return e;
    if (groups & ~DS_APEBS_CFG_GROUPS)
        return DS_ERR_APEBS_CFG_RESERVED;
    if (groups & ~ap->caps.cfg_c_caps)
        return DS_ERR_APEBS_GROUP;
    return ds_msr_write(ap->cpu, msr, DS_APEBS_CFG_EN | groups | reload);
}

DS_COLD int ds_arch_pebs_counter_disable(struct ds_arch_pebs *ap, enum ds_ctr_kind kind, uint32_t index)
{
    uint32_t msr;
    int e = counter_msr(ap, kind, index, &msr);
    if (e)
        return e;
    return ds_msr_write(ap->cpu, msr, 0);
}

/* A counting member of a counters group: CFG_C = CNTR_ALLOW, no EN, no
 * reload (Linux intel_pmu_enable_event_ext: ext = ARCH_PEBS_CNTR_ALLOW for
 * a non-precise event of a PEBS counter group, written to every member). */
DS_COLD int ds_arch_pebs_counter_allow(struct ds_arch_pebs *ap, enum ds_ctr_kind kind, uint32_t index, bool allow)
{
    uint32_t msr;
    int e = counter_msr(ap, kind, index, &msr);
    if (e)
        return e;
    if (allow && !(ap->caps.cfg_c_caps & DS_APEBS_CFG_CNTR_ALLOW))
        return DS_ERR_APEBS_GROUP;
    return ds_msr_write(ap->cpu, msr, allow ? DS_APEBS_CFG_CNTR_ALLOW : 0);
}

#else /* !DS_CONFIG_PEBS: compiled out (ds/config.h) */

int ds_arch_pebs_detect(const struct ds_cpu *cpu, struct ds_arch_pebs_caps *out)
{
    (void)cpu;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

int ds_arch_pebs_setup(struct ds_arch_pebs *ap, const struct ds_cpu *cpu, const struct ds_arch_pebs_config *cfg)
{
    (void)cpu;
    (void)cfg;
    if (ap)
        ds__zero(ap, sizeof(*ap));
    return DS_ERR_UNSUPPORTED;
}

int ds_arch_pebs_install(struct ds_arch_pebs *ap)
{
    (void)ap;
    return DS_ERR_UNSUPPORTED;
}

int ds_arch_pebs_enable(struct ds_arch_pebs *ap)
{
    (void)ap;
    return DS_ERR_UNSUPPORTED;
}

int ds_arch_pebs_disable(struct ds_arch_pebs *ap)
{
    (void)ap;
    return DS_ERR_UNSUPPORTED;
}

int ds_arch_pebs_uninstall(struct ds_arch_pebs *ap)
{
    (void)ap;
    return DS_ERR_UNSUPPORTED;
}

uint32_t ds_arch_pebs_cfg_c_msr(enum ds_ctr_kind kind, uint32_t index)
{
    (void)kind;
    (void)index;
    return 0;
}

int ds_arch_pebs_counter_enable(struct ds_arch_pebs *ap, enum ds_ctr_kind kind, uint32_t index, uint32_t reload,
                                uint64_t groups)
{
    (void)ap;
    (void)kind;
    (void)index;
    (void)reload;
    (void)groups;
    return DS_ERR_UNSUPPORTED;
}

int ds_arch_pebs_counter_disable(struct ds_arch_pebs *ap, enum ds_ctr_kind kind, uint32_t index)
{
    (void)ap;
    (void)kind;
    (void)index;
    return DS_ERR_UNSUPPORTED;
}

int ds_arch_pebs_counter_allow(struct ds_arch_pebs *ap, enum ds_ctr_kind kind, uint32_t index, bool allow)
{
    (void)ap;
    (void)kind;
    (void)index;
    (void)allow;
    return DS_ERR_UNSUPPORTED;
}

#endif /* DS_CONFIG_PEBS */
