/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * LBR stacks (SDM Vol. 3B "Last Branch, Interrupt, and Exception Recording";
 * reference lbr.md). Model rows: SDM Table "LBR Stack Size and TOS Pointer
 * Range" extended with the NetBurst layouts and the later cores that Linux
 * lbr.c/core.c, EDK2 and Xen list (sources per row in lbr.md).
 */
#include <ds/lbr.h>
#include "util.h"

#if DS_CONFIG_LBR

#define P   DS_LBR_F_PACKED
#define NB  DS_LBR_F_NETBURST
#define SEL DS_LBR_F_SELECT
#define CS  (DS_LBR_F_SELECT | DS_LBR_F_CALLSTACK)
#define ARC DS_LBR_F_ARCH
#define UNC DS_LBR_F_UNCONFIRMED
#define KNL DS_LBR_F_LIP_MISPRED
#define R(fam, mod, ua, d, f, t, i, tos, fl)                                                   \
    { .family = (fam), .model = (mod), .uarch = (ua), .depth = (d), .from_base = (f), .to_base = (t), \
      .info_base = (i), .tos_msr = (tos), .tos_max = (uint8_t)((d) ? (d) - 1 : 0), .flags = (fl) }

static const struct ds_lbr_model models[] = {
#if DS_CONFIG_NETBURST
    /* NetBurst, models 0-2: 4 packed records 0x1DB..0x1DE, TOS 0x1DA (SDM "LBR Stack" for Pentium 4) */
    R(0x0F, 0x00, "NetBurst (early)", 4, 0x1DB, 0x1DB, 0, 0x1DA, P | NB),
    R(0x0F, 0x01, "NetBurst (early)", 4, 0x1DB, 0x1DB, 0, 0x1DA, P | NB),
    R(0x0F, 0x02, "NetBurst (early)", 4, 0x1DB, 0x1DB, 0, 0x1DA, P | NB),
    /* NetBurst, model 3 and later: 16 entries 0x680/0x6C0, TOS 0x1DA */
    R(0x0F, 0x03, "NetBurst", 16, 0x680, 0x6C0, 0, 0x1DA, NB),
    R(0x0F, 0x04, "NetBurst", 16, 0x680, 0x6C0, 0, 0x1DA, NB),
    R(0x0F, 0x06, "NetBurst", 16, 0x680, 0x6C0, 0, 0x1DA, NB),
#endif
    /* Pentium M and Core Solo/Duo: 8 packed records at 0x40 (EDK2 only) */
    R(0x06, 0x0D, "Pentium M", 8, 0x40, 0x40, 0, 0x1C9, P | UNC),
    R(0x06, 0x0E, "Core Solo/Duo (Yonah)", 8, 0x40, 0x40, 0, 0x1C9, P | UNC),
    /* Core 2 */
    R(0x06, 0x0F, "Core 2 (Merom)", 4, 0x40, 0x60, 0, 0x1C9, 0),
    R(0x06, 0x16, "Core 2 (Merom-L)", 4, 0x40, 0x60, 0, 0x1C9, 0),
    R(0x06, 0x17, "Core 2 (Penryn)", 4, 0x40, 0x60, 0, 0x1C9, 0),
    R(0x06, 0x1D, "Core 2 (Dunnington)", 4, 0x40, 0x60, 0, 0x1C9, 0),
    /* Atom Bonnell/Saltwell */
    R(0x06, 0x1C, "Atom (Bonnell)", 8, 0x40, 0x60, 0, 0x1C9, 0),
    R(0x06, 0x26, "Atom (Bonnell)", 8, 0x40, 0x60, 0, 0x1C9, 0),
    R(0x06, 0x27, "Atom (Saltwell)", 8, 0x40, 0x60, 0, 0x1C9, 0),
    R(0x06, 0x35, "Atom (Saltwell)", 8, 0x40, 0x60, 0, 0x1C9, 0),
    R(0x06, 0x36, "Atom (Saltwell)", 8, 0x40, 0x60, 0, 0x1C9, 0),
    /* Silvermont / Airmont */
    R(0x06, 0x37, "Silvermont", 8, 0x40, 0x60, 0, 0x1C9, SEL),
    R(0x06, 0x4A, "Silvermont", 8, 0x40, 0x60, 0, 0x1C9, SEL),
    R(0x06, 0x4D, "Silvermont", 8, 0x40, 0x60, 0, 0x1C9, SEL),
    R(0x06, 0x5A, "Silvermont", 8, 0x40, 0x60, 0, 0x1C9, SEL),
    R(0x06, 0x4C, "Airmont", 8, 0x40, 0x60, 0, 0x1C9, SEL),
    R(0x06, 0x5D, "Silvermont", 8, 0x40, 0x60, 0, 0x1C9, SEL),
    /* Goldmont: no LBR_INFO (format 6 keeps cycles in TO[63:48]) */
    R(0x06, 0x5C, "Goldmont", 32, 0x680, 0x6C0, 0, 0x1C9, CS),
    R(0x06, 0x5F, "Goldmont", 32, 0x680, 0x6C0, 0, 0x1C9, CS),
    R(0x06, 0x7A, "Goldmont Plus", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0x86, "Tremont", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0x96, "Tremont", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0x9C, "Tremont", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    /* Nehalem, Westmere */
    R(0x06, 0x1A, "Nehalem", 16, 0x680, 0x6C0, 0, 0x1C9, SEL),
    R(0x06, 0x1E, "Nehalem", 16, 0x680, 0x6C0, 0, 0x1C9, SEL),
    R(0x06, 0x1F, "Nehalem", 16, 0x680, 0x6C0, 0, 0x1C9, SEL),
    R(0x06, 0x2E, "Nehalem", 16, 0x680, 0x6C0, 0, 0x1C9, SEL),
    R(0x06, 0x25, "Westmere", 16, 0x680, 0x6C0, 0, 0x1C9, SEL),
    R(0x06, 0x2C, "Westmere", 16, 0x680, 0x6C0, 0, 0x1C9, SEL),
    R(0x06, 0x2F, "Westmere", 16, 0x680, 0x6C0, 0, 0x1C9, SEL),
    /* Sandy Bridge, Ivy Bridge */
    R(0x06, 0x2A, "Sandy Bridge", 16, 0x680, 0x6C0, 0, 0x1C9, SEL),
    R(0x06, 0x2D, "Sandy Bridge", 16, 0x680, 0x6C0, 0, 0x1C9, SEL),
    R(0x06, 0x3A, "Ivy Bridge", 16, 0x680, 0x6C0, 0, 0x1C9, SEL),
    R(0x06, 0x3E, "Ivy Bridge", 16, 0x680, 0x6C0, 0, 0x1C9, SEL),
    /* Haswell, Broadwell (call-stack mode) */
    R(0x06, 0x3C, "Haswell", 16, 0x680, 0x6C0, 0, 0x1C9, CS),
    R(0x06, 0x3F, "Haswell", 16, 0x680, 0x6C0, 0, 0x1C9, CS),
    R(0x06, 0x45, "Haswell", 16, 0x680, 0x6C0, 0, 0x1C9, CS),
    R(0x06, 0x46, "Haswell", 16, 0x680, 0x6C0, 0, 0x1C9, CS),
    R(0x06, 0x3D, "Broadwell", 16, 0x680, 0x6C0, 0, 0x1C9, CS),
    R(0x06, 0x47, "Broadwell", 16, 0x680, 0x6C0, 0, 0x1C9, CS),
    R(0x06, 0x4F, "Broadwell", 16, 0x680, 0x6C0, 0, 0x1C9, CS),
    R(0x06, 0x56, "Broadwell", 16, 0x680, 0x6C0, 0, 0x1C9, CS),
    /* Skylake and successors with 32 entries and LBR_INFO */
    R(0x06, 0x4E, "Skylake", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0x5E, "Skylake", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0x55, "Skylake-SP/Cascade/Cooper Lake", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0x66, "Cannon Lake", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0x8E, "Kaby/Amber/Whiskey Lake", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0x9E, "Kaby/Coffee Lake", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0xA5, "Comet Lake", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0xA6, "Comet Lake", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0x6A, "Ice Lake-SP", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0x6C, "Ice Lake-D", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0x7D, "Ice Lake", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0x7E, "Ice Lake", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0x8C, "Tiger Lake", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0x8D, "Tiger Lake", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    R(0x06, 0xA7, "Rocket Lake", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS),
    /* Knights Landing / Mill */
    /* Knights Landing / Mill: format 1 reported, MISPRED in FROM[63] (Linux intel_pmu_lbr_init_knl) */
    R(0x06, 0x57, "Knights Landing", 8, 0x680, 0x6C0, 0, 0x1C9, SEL | KNL),
    R(0x06, 0x85, "Knights Mill", 8, 0x680, 0x6C0, 0, 0x1C9, SEL | KNL),
    /* Architectural LBR: depth from CPUID.1CH, entry 0 newest, no TOS */
    R(0x06, 0x8F, "Sapphire Rapids (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0x97, "Alder Lake (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0x9A, "Alder Lake-L (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    /* Issue 11: every later DisplayFamily_DisplayModel of Linux intel-family.h
     * (IFM(family, model), resync of Nov 2025). Linux intel_pmu_init gives none
     * of them a legacy lbr_init_*: their LBRs are Arch LBR
     * (intel_pmu_arch_lbr_init with X86_FEATURE_ARCH_LBR). The row says what
     * the model is; ds_lbr_cpu_model() still decides by CPUID.(07H,0):EDX[19]. */
    R(0x06, 0xB7, "Raptor Lake (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xBA, "Raptor Lake-P (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xBF, "Raptor Lake-S (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xAA, "Meteor Lake-L (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xAC, "Meteor Lake (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xB5, "Arrow Lake-U (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xC5, "Arrow Lake-H (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xC6, "Arrow Lake (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xBD, "Lunar Lake-M (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xCC, "Panther Lake-L (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xD5, "Wildcat Lake-L (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xCF, "Emerald Rapids (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xAD, "Granite Rapids-X (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xAE, "Granite Rapids-D (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xD7, "Bartlett Lake (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC | UNC),
    R(0x06, 0xBE, "Alder Lake-N, Gracemont (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xAF, "Sierra Forest, Crestmont (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xB6, "Grand Ridge, Crestmont (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x06, 0xDD, "Clearwater Forest, Darkmont (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    /* outside family 6: DisplayFamily 19 (13H) and 18 (12H) */
    R(0x13, 0x01, "Diamond Rapids (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x12, 0x01, "Nova Lake (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    R(0x12, 0x03, "Nova Lake-L (Arch LBR)", 0, 0x1500, 0x1600, 0x1200, 0, ARC),
    /* Legacy parts Linux perf has no case for (no LBR there): the layout of
     * their cores (Sunny Cove/Tremont: intel_pmu_lbr_init_skl's 32 entries with
     * LBR_INFO; Airmont: intel_pmu_lbr_init_slm's 8 at 0x40/0x60), unconfirmed. */
    R(0x06, 0x8A, "Lakefield (Sunny Cove/Tremont)", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS | UNC),
    R(0x06, 0x9D, "Ice Lake NNPI", 32, 0x680, 0x6C0, 0xDC0, 0x1C9, CS | UNC),
    R(0x06, 0x75, "Airmont NP (Lightning Mountain)", 8, 0x40, 0x60, 0, 0x1C9, SEL | UNC),
};
#undef R
#undef KNL

DS_COLD const struct ds_lbr_model *ds_lbr_models(size_t *out_n)
{
    if (out_n)
        *out_n = DS_ARRAY_SIZE(models);
    return models;
}

DS_COLD int ds_lbr_lookup(uint16_t family, uint8_t model, const struct ds_lbr_model **out)
{
    if (!out)
        return DS_ERR_NULL;
#if !DS_CONFIG_NETBURST
    if (family == 0x0F) {
        *out = NULL;
        return DS_ERR_UNSUPPORTED; /* NetBurst rows compiled out (ds/config.h) */
    }
#endif
    for (size_t i = 0; i < DS_ARRAY_SIZE(models); i++)
        if (models[i].family == family && models[i].model == model) {
            *out = &models[i];
            return DS_OK;
        }
    return DS_ERR_LBR_UNKNOWN_MODEL;
}

static uint64_t sext(uint64_t v, unsigned bits)
{
    /* sign-extend from bit (bits - 1) */
    unsigned sh = 64 - bits;
    return (uint64_t)((int64_t)(v << sh) >> sh);
}

/* Formats 3, 4 and 6 keep flags in the high bits of FROM (and, format 6,
 * cycles in TO): SDM "LBR Stack" MSR_LASTBRANCH_x_FROM_IP layouts, Linux
 * lbr.c intel_pmu_lbr_read_64. */
static void decode_flags_in_ip(unsigned format, uint64_t from, uint64_t to, struct ds_lbr_entry *e)
{
    e->has_mispred = true;
    e->mispred = (from >> 63) & 1;
    e->to = to;
    if (format == DS_LBR_FMT_EIP_FLAGS) {
        /* FROM bit 63 mispredict; address = bits 62:0 sign-extended */
        e->from = sext(from, 63);
    } else if (format == DS_LBR_FMT_EIP_FLAGS2) {
        /* FROM 63 mispredict, 62 IN_TX, 61 ABORT; address sign-extended from bit 60 */
        e->has_tsx = true;
        e->in_tx = (from >> 62) & 1;
        e->abort = (from >> 61) & 1;
        e->from = sext(from, 61);
    } else {
        /* DS_LBR_FMT_TIME (Goldmont): FROM bit 63 mispredict; TO 63:48 cycles, 47:0 address */
        e->has_cycles = true;
        e->from = sext(from, 63);
        e->cycles = (uint16_t)(to >> 48);
        e->to = sext(to, 48);
    }
}

/* Formats 5 and 7 keep flags in MSR_LBR_INFO_x (SDM "LBR Stack" LBR_INFO
 * layout); format 7 has no TSX bits (Linux lbr.c LBR_FORMAT_INFO2). */
static void decode_info_msr(unsigned format, uint64_t from, uint64_t to, uint64_t info,
                            struct ds_lbr_entry *e)
{
    e->from = from;
    e->to = to;
    e->has_mispred = e->has_cycles = true;
    e->mispred = (info & DS_LBR_INFO_MISPRED) != 0;
    e->cycles = (uint16_t)(info & DS_LBR_INFO_CYCLES);
    if (format == DS_LBR_FMT_INFO) {
        e->has_tsx = true;
        e->in_tx = (info & DS_LBR_INFO_IN_TX) != 0;
        e->abort = (info & DS_LBR_INFO_ABORT) != 0;
    }
}

int ds_lbr_decode(unsigned format, uint64_t from, uint64_t to, uint64_t info,
                  struct ds_lbr_entry *out)
{
    if (!out)
        return DS_ERR_NULL;
    struct ds_lbr_entry e = { 0 };
    e.br_type = -1;
    switch (format) {
    case DS_LBR_FMT_32:
        e.from = from & 0xFFFFFFFFull;
        e.to = from >> 32;
        break;
    case DS_LBR_FMT_LIP:
    case DS_LBR_FMT_EIP:
        e.from = from;
        e.to = to;
        break;
    case DS_LBR_FMT_EIP_FLAGS:
    case DS_LBR_FMT_EIP_FLAGS2:
    case DS_LBR_FMT_TIME:
        decode_flags_in_ip(format, from, to, &e);
        break;
    case DS_LBR_FMT_INFO:
    case DS_LBR_FMT_INFO2:
        decode_info_msr(format, from, to, info, &e);
        break;
    default: /* DS_LBR_FMT_ARCH included: ds_lbr_decode_arch */
        return DS_ERR_LBR_BAD_FORMAT;
    }
    *out = e;
    return DS_OK;
}

/* Knights Landing/Mill report LBR format 1 (LIP) but record MISPRED in FROM
 * bit 63: Linux intel_pmu_lbr_init_knl decodes them as EIP_FLAGS. */
static unsigned row_format(const struct ds_lbr_model *m, unsigned format)
{
    if ((m->flags & DS_LBR_F_LIP_MISPRED) && format == DS_LBR_FMT_LIP)
        return DS_LBR_FMT_EIP_FLAGS;
    return format;
}

/* Arch LBR INFO, gated field by field by CPUID.1CH:ECX (Linux lbr.c
 * intel_pmu_arch_lbr_init sets x86_lbr_mispred/cycles/type from ECX[0..2];
 * LBR_INFO_BR_CNTR_*: 2 bits per counter from bit 32). */
int ds_lbr_decode_arch(uint32_t ecx, uint64_t from, uint64_t to, uint64_t info, struct ds_lbr_entry *out)
{
    if (!out)
        return DS_ERR_NULL;
    struct ds_lbr_entry e = { 0 };
    e.from = from;
    e.to = to;
    e.has_tsx = true;
    e.in_tx = (info & DS_LBR_INFO_IN_TX) != 0;
    e.abort = (info & DS_LBR_INFO_ABORT) != 0;
    e.has_mispred = (ecx & DS_LBR_1C_ECX_MISPRED) != 0;
    e.mispred = e.has_mispred && (info & DS_LBR_INFO_MISPRED) != 0;
    e.has_cycles = (ecx & DS_LBR_1C_ECX_TIMED) && (info & DS_LBR_INFO_CYC_VALID);
    e.cycles = e.has_cycles ? (uint16_t)(info & DS_LBR_INFO_CYCLES) : 0;
    e.br_type = (ecx & DS_LBR_1C_ECX_BRTYPE) ? (int8_t)((info >> DS_LBR_INFO_BRTYPE_SHIFT) & 0xF) : -1;
    e.br_cntr_mask = (uint8_t)((ecx >> DS_LBR_1C_ECX_CNTR_SHIFT) & 0xF);
    for (unsigned i = 0; i < 4; i++)
        if (e.br_cntr_mask & (1u << i))
            e.br_cntr[i] = (uint8_t)((info >> (DS_LBR_INFO_BR_CNTR_SHIFT + 2 * i)) & 3);
    *out = e;
    return DS_OK;
}

DS_COLD int ds_lbr_format(const struct ds_cpu *cpu, const struct ds_lbr_model *m, unsigned *out_format)
{
    if (!cpu || !m || !out_format)
        return DS_ERR_NULL;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    if (cpu->caps.vendor != DS_VENDOR_INTEL)
        return DS_ERR_NOT_INTEL;
#if !DS_CONFIG_NETBURST
    if (m->flags & DS_LBR_F_NETBURST) {
        *out_format = 0;
        return DS_ERR_UNSUPPORTED; /* NetBurst layouts compiled out (ds/config.h) */
    }
#endif
    if (m->flags & DS_LBR_F_ARCH) {
        *out_format = DS_LBR_FMT_ARCH;
        return cpu->caps.arch_lbr ? DS_OK : DS_ERR_LBR_ARCH_HIDDEN;
    }
    if (m->flags & DS_LBR_F_PACKED) {
        *out_format = DS_LBR_FMT_32;
        return DS_OK;
    }
    if (cpu->caps.has_perf_caps) {
        if (cpu->caps.lbr_format > DS_LBR_FMT_INFO2)
            return DS_ERR_LBR_BAD_FORMAT;
        *out_format = row_format(m, cpu->caps.lbr_format);
        return DS_OK;
    }
    /* NetBurst rows fix the format (LIP); without PDCM the MSR does not exist
     * and the format is 32 (Linux intel_pmu_lbr_init_core: intel_cap stays 0 ->
     * LBR_FORMAT_32). PDCM set but the read faulted (a hypervisor): unknown. */
    if (!(m->flags & DS_LBR_F_NETBURST) && cpu->caps.pdcm) {
        *out_format = 0;
        return DS_ERR_LBR_FMT_UNKNOWN;
    }
    *out_format = (m->flags & DS_LBR_F_NETBURST) ? DS_LBR_FMT_LIP : DS_LBR_FMT_32;
    return DS_OK;
}

/* The generic Arch LBR descriptor: ds_lbr_cpu_model() returns it for a CPU that
 * enumerates Arch LBR (CPUID.(07H,0):EDX[19]) and whose DisplayFamily_
 * DisplayModel has no Arch row; it fits any such CPU (family 0 = any). */
static const struct ds_lbr_model arch_any = {
    .uarch = "Arch LBR (CPUID.(07H,0):EDX[19])", .from_base = DS_MSR_IA32_LBR_0_FROM_IP,
    .to_base = DS_MSR_IA32_LBR_0_TO_IP, .info_base = DS_MSR_IA32_LBR_0_INFO, .flags = DS_LBR_F_ARCH,
};

/* Arch LBR exists only where CPUID.(07H,0):EDX[19] says so (SDM Vol. 3B
 * "Architectural Last Branch Records"; Linux intel_pmu_init calls
 * intel_pmu_arch_lbr_init only with X86_FEATURE_ARCH_LBR): an Arch row on a
 * CPU without the bit (KVM hides it) must not reach IA32_LBR_* (#GP). */
static int check(const struct ds_cpu *cpu, const struct ds_lbr_model *m)
{
    if (!cpu || !m)
        return DS_ERR_NULL;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    if (cpu->caps.vendor != DS_VENDOR_INTEL)
        return DS_ERR_NOT_INTEL; /* every row is Intel's: AMD K8 is family 0FH too */
    if ((m->flags & DS_LBR_F_ARCH) && !cpu->caps.arch_lbr)
        return DS_ERR_LBR_ARCH_HIDDEN;
    bool any = m == &arch_any;
    if (!any && (cpu->caps.display_family != m->family || cpu->caps.display_model != m->model))
        return DS_ERR_INVAL;
#if !DS_CONFIG_NETBURST
    if (m->flags & DS_LBR_F_NETBURST)
        return DS_ERR_UNSUPPORTED; /* MSR_DEBUGCTLA handling compiled out (ds/config.h) */
#endif
    return DS_OK;
}

DS_COLD int ds_lbr_cpu_model(const struct ds_cpu *cpu, const struct ds_lbr_model **out)
{
    if (!cpu || !out)
        return DS_ERR_NULL;
    *out = NULL;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    if (cpu->caps.vendor != DS_VENDOR_INTEL)
        return DS_ERR_NOT_INTEL;
    const struct ds_lbr_model *m = NULL;
    int e = ds_lbr_lookup(cpu->caps.display_family, cpu->caps.display_model, &m);
    if (cpu->caps.arch_lbr) {
        *out = (e == DS_OK && (m->flags & DS_LBR_F_ARCH)) ? m : &arch_any;
        return DS_OK;
    }
    if (e)
        return e;
    if (m->flags & DS_LBR_F_ARCH)
        return DS_ERR_LBR_ARCH_HIDDEN; /* no legacy LBR on these models (Linux lbr.c has no init for them) */
    *out = m;
    return DS_OK;
}

/* Arch LBR maximum depth: 8 * fls(CPUID.1CH:EAX[7:0]) (Linux lbr.c); the
 * IA32_LBR_CTL bits the CPU implements into *out_ctl_ok: LBREn always,
 * OS/USR with CPL filtering (EBX[0]), branch types 22:16 with branch
 * filtering (EBX[1]), CALL_STACK with call-stack mode (EBX[2]) (reference
 * msr.md "IA32_LBR_CTL" and CPUID.1CH; Linux lbr.c drops the same bits from
 * lbr_ctl_mask). The others are reserved: writing them would #GP. */
static unsigned arch_max_depth(const struct ds_cpu *cpu, uint64_t *out_ctl_ok)
{
    const struct ds_caps *c = &cpu->caps;
    *out_ctl_ok = DS_LBR_CTL_LBREN;
    if (!c->has_leaf_1c)  /* read by ds_cpu_identify only with CPUID.(07H,0):EDX[19] */
        return 0;
    if (c->lbr_1c_ebx & (1u << 0))
        *out_ctl_ok |= DS_LBR_CTL_OS | DS_LBR_CTL_USR;
    if (c->lbr_1c_ebx & (1u << 1))
        *out_ctl_ok |= DS_LBR_CTL_BRANCHES;
    if (c->lbr_1c_ebx & (1u << 2))
        *out_ctl_ok |= DS_LBR_CTL_CALL_STACK;
    unsigned fls = 0;
    for (uint32_t v = c->lbr_1c_eax & 0xFF; v; v >>= 1)
        fls++;
    return 8 * fls;
}

/* IA32_DEBUGCTL.FREEZE_LBRS_ON_PMI (bit 11) exists only "if CPUID.01H:
 * ECX[15] = 1 && CPUID.0AH:EAX[7:0] > 1" (SDM MSR table; EDK2
 * ArchitecturalMsr.h): not on Pentium M, Yonah, or Core 2 Merom (no PDCM). */
static bool has_freeze_lbrs(const struct ds_caps *c)
{
    return c->pdcm && c->has_leaf_0a && c->perfmon_version >= 2;
}

/* Atom Bonnell 06_1CH before stepping 10: the LBRs cannot freeze on a PMI
 * (Linux lbr.c intel_pmu_lbr_init_atom: "only models starting at stepping 10
 * seems to have an operational LBR which can freeze on PMU interrupt"; Linux,
 * which always freezes, disables LBR there). libds refuses only the freeze. */
static bool atom_freeze_erratum(const struct ds_caps *c)
{
    return c->display_family == 0x06 && c->display_model == 0x1C && c->stepping < 10;
}

static int rmw(struct ds_cpu *cpu, uint32_t msr, uint64_t set, uint64_t clear)
{
    uint64_t v;
    if (ds_msr_read(cpu, msr, &v))
        return DS_ERR_MSR_FAULT;
    v = (v & ~clear) | set;
    return ds_msr_write(cpu, msr, v) ? DS_ERR_MSR_FAULT : DS_OK;
}

/* Arch LBR: IA32_LBR_DEPTH (clears the entries), IA32_LBR_CTL. FREEZE_LBRS_ON_PMI
 * is IA32_DEBUGCTL[11] here too; it is set or cleared on every enable so that a
 * stale freeze bit does not survive an enable without freeze. Call-stack mode
 * with the freeze is refused: Linux lbr.c __intel_pmu_lbr_enable clears the
 * freeze when the call-stack bit is set (a PMI near call/return corrupts the
 * stack). */
static int enable_arch(struct ds_cpu *cpu, const struct ds_lbr_config *cfg)
{
    uint64_t ctl_ok;
    unsigned depth = arch_max_depth(cpu, &ctl_ok);
    /* Default: everything the CPU can filter on enabled (all CPLs, all branch types). */
    uint64_t ctl = cfg->arch_ctl ? cfg->arch_ctl
                                 : (DS_LBR_CTL_LBREN | DS_LBR_CTL_OS | DS_LBR_CTL_USR | DS_LBR_CTL_BRANCHES) & ctl_ok;
    if ((ctl & ~DS_LBR_CTL_VALID) || (ctl & ~ctl_ok) || !(ctl & DS_LBR_CTL_LBREN))
        return DS_ERR_LBR_BAD_SELECT;
    if (cfg->use_select)
        return DS_ERR_LBR_NO_SELECT;
    if (cfg->freeze_on_pmi && !has_freeze_lbrs(&cpu->caps))
        return DS_ERR_LBR_NO_FREEZE;
    if (cfg->freeze_on_pmi && (ctl & DS_LBR_CTL_CALL_STACK))
        return DS_ERR_LBR_CALLSTACK_FREEZE;
    if (!depth)
        return DS_ERR_LBR_ARCH_DEPTH;
    uint64_t frz = cfg->freeze_on_pmi ? DS_DEBUGCTL_FREEZE_LBRS_ON_PMI : 0;
    if (rmw(cpu, DS_MSR_IA32_DEBUGCTL, frz, DS_DEBUGCTL_FREEZE_LBRS_ON_PMI & ~frz))
        return DS_ERR_MSR_FAULT;
    if (ds_msr_write(cpu, DS_MSR_IA32_LBR_DEPTH, depth) || ds_msr_write(cpu, DS_MSR_IA32_LBR_CTL, ctl))
        return DS_ERR_MSR_FAULT;
    return DS_OK;
}

/* Family 6 (and later) TOS layouts: MSR_LBR_SELECT, then IA32_DEBUGCTL.LBR with
 * FREEZE_LBRS_ON_PMI set or cleared. Call stack (LBR_SELECT[9]) with the freeze
 * is refused, as in enable_arch. */
static int enable_legacy(struct ds_cpu *cpu, const struct ds_lbr_model *m, const struct ds_lbr_config *cfg)
{
    if (cfg->use_select) {
        if (!(m->flags & DS_LBR_F_SELECT))
            return DS_ERR_LBR_NO_SELECT;
        uint64_t valid = (m->flags & DS_LBR_F_CALLSTACK) ? DS_LBR_SELECT_VALID
                                                         : (DS_LBR_SELECT_VALID & ~DS_LBR_SELECT_EN_CALLSTACK);
        if (cfg->select & ~valid)
            return DS_ERR_LBR_BAD_SELECT;
    }
    if (cfg->freeze_on_pmi && !has_freeze_lbrs(&cpu->caps))
        return DS_ERR_LBR_NO_FREEZE;
    if (cfg->freeze_on_pmi && atom_freeze_erratum(&cpu->caps))
        return DS_ERR_LBR_FREEZE_ERRATUM;
    if (cfg->freeze_on_pmi && cfg->use_select && (cfg->select & DS_LBR_SELECT_EN_CALLSTACK))
        return DS_ERR_LBR_CALLSTACK_FREEZE;
    if (cfg->freeze_on_pmi && !cfg->use_select && (m->flags & DS_LBR_F_CALLSTACK)) {
        /* MSR_LBR_SELECT left as programmed elsewhere: its call-stack bit counts too */
        uint64_t sel;
        if (ds_msr_read(cpu, DS_MSR_LBR_SELECT, &sel))
            return DS_ERR_MSR_FAULT;
        if (sel & DS_LBR_SELECT_EN_CALLSTACK)
            return DS_ERR_LBR_CALLSTACK_FREEZE;
    }
    if (cfg->use_select) {
        if (ds_msr_write(cpu, DS_MSR_LBR_SELECT, cfg->select))
            return DS_ERR_MSR_FAULT;
    }
    return rmw(cpu, DS_MSR_IA32_DEBUGCTL,
               DS_DEBUGCTL_LBR | (cfg->freeze_on_pmi ? DS_DEBUGCTL_FREEZE_LBRS_ON_PMI : 0),
               cfg->freeze_on_pmi ? 0 : DS_DEBUGCTL_FREEZE_LBRS_ON_PMI);
}

DS_COLD int ds_lbr_enable(struct ds_cpu *cpu, const struct ds_lbr_model *m, const struct ds_lbr_config *cfg)
{
    int e = check(cpu, m);
    if (e)
        return e;
    struct ds_lbr_config def = { 0 };
    if (!cfg)
        cfg = &def;
    if (m->flags & DS_LBR_F_ARCH)
        return enable_arch(cpu, cfg);
#if DS_CONFIG_NETBURST
    if (m->flags & DS_LBR_F_NETBURST) {
        if (cfg->freeze_on_pmi)
            return DS_ERR_LBR_NO_FREEZE;
        if (cfg->use_select)
            return DS_ERR_LBR_NO_SELECT;
        return rmw(cpu, DS_MSR_IA32_DEBUGCTL, DS_NB_DEBUGCTLA_LBR, 0);
    }
#endif
    return enable_legacy(cpu, m, cfg);
}

DS_COLD int ds_lbr_disable(struct ds_cpu *cpu, const struct ds_lbr_model *m)
{
    int e = check(cpu, m);
    if (e)
        return e;
    if (m->flags & DS_LBR_F_ARCH)
        return ds_msr_write(cpu, DS_MSR_IA32_LBR_CTL, 0) ? DS_ERR_MSR_FAULT : DS_OK;
#if DS_CONFIG_NETBURST
    if (m->flags & DS_LBR_F_NETBURST)
        return rmw(cpu, DS_MSR_IA32_DEBUGCTL, 0, DS_NB_DEBUGCTLA_LBR);
#endif
    return rmw(cpu, DS_MSR_IA32_DEBUGCTL, 0, DS_DEBUGCTL_LBR | DS_DEBUGCTL_FREEZE_LBRS_ON_PMI);
}

int ds_lbr_unfreeze(struct ds_cpu *cpu, const struct ds_lbr_model *m)
{
    int e = check(cpu, m);
    if (e)
        return e;
    if (m->flags & DS_LBR_F_NETBURST)
        return DS_ERR_LBR_NO_FREEZE;
    /* SDM "Freezing LBR and Performance Counters on PMI": v4+ records the
     * freeze in GLOBAL_STATUS.LBR_Frz (58), cleared through STATUS_RESET;
     * before v4 the CPU cleared DEBUGCTL.LBR. */
    if (cpu->caps.perfmon_version >= 4)
        return ds_msr_write(cpu, DS_MSR_IA32_PERF_GLOBAL_STATUS_RESET, 1ull << 58) ? DS_ERR_MSR_FAULT
                                                                                  : DS_OK;
    return rmw(cpu, DS_MSR_IA32_DEBUGCTL, DS_DEBUGCTL_LBR, 0);
}

/* Arch LBR (SDM "Architectural Last Branch Records"): IA32_LBR_DEPTH entries,
 * entry 0 newest, decoded with ds_lbr_decode_arch. */
static int read_arch(struct ds_cpu *cpu, const struct ds_lbr_model *m, struct ds_lbr_entry *out,
                     size_t cap, size_t *out_n)
{
    uint64_t depth, from, to, info;
    if (ds_msr_read(cpu, DS_MSR_IA32_LBR_DEPTH, &depth))
        return DS_ERR_MSR_FAULT;
    if (depth == 0 || depth > 64 || (depth & 7))
        return DS_ERR_LBR_ARCH_DEPTH;
    if (cap < depth)
        return DS_ERR_LBR_NOSPC;
    size_t n = 0;
    for (unsigned i = 0; i < depth; i++) {
        if (ds_msr_read(cpu, m->from_base + i, &from))
            return DS_ERR_MSR_FAULT;
        if (!from)
            break; /* entry 0 is newest; the first empty entry ends the stack */
        if (ds_msr_read(cpu, m->to_base + i, &to) || ds_msr_read(cpu, m->info_base + i, &info))
            return DS_ERR_MSR_FAULT;
        (void)ds_lbr_decode_arch(cpu->caps.lbr_1c_ecx, from, to, info, &out[n++]);
    }
    *out_n = n;
    return DS_OK;
}

/* Legacy LBR stack (SDM "Last Branch Recording"): m->depth entries read
 * newest first from the top-of-stack index (Linux lbr.c intel_pmu_lbr_read_64). */
static int read_legacy(struct ds_cpu *cpu, const struct ds_lbr_model *m, unsigned format,
                       struct ds_lbr_entry *out, size_t cap, size_t *out_n)
{
    uint64_t from, to = 0, info = 0, tos;
    if (cap < m->depth)
        return DS_ERR_LBR_NOSPC;
    if (ds_msr_read(cpu, m->tos_msr, &tos))
        return DS_ERR_MSR_FAULT;
    if (tos > m->tos_max)
        return DS_ERR_LBR_BAD_TOS;
    bool one_msr = format == DS_LBR_FMT_32;
    bool has_info = (format == DS_LBR_FMT_INFO || format == DS_LBR_FMT_INFO2) && m->info_base;
    for (unsigned k = 0; k < m->depth; k++) {
        unsigned idx = (unsigned)(tos - k) & (m->depth - 1u);
        if (ds_msr_read(cpu, m->from_base + idx, &from))
            return DS_ERR_MSR_FAULT;
        if (!one_msr && ds_msr_read(cpu, m->to_base + idx, &to))
            return DS_ERR_MSR_FAULT;
        if (has_info && ds_msr_read(cpu, m->info_base + idx, &info))
            return DS_ERR_MSR_FAULT;
        (void)ds_lbr_decode(format, from, to, info, &out[k]);
    }
    *out_n = m->depth;
    return DS_OK;
}

int ds_lbr_read(struct ds_cpu *cpu, const struct ds_lbr_model *m, unsigned format,
                struct ds_lbr_entry *out, size_t cap, size_t *out_n)
{
    int e = check(cpu, m);
    if (e)
        return e;
    if (!out || !out_n)
        return DS_ERR_NULL;
    *out_n = 0;
    bool arch = (m->flags & DS_LBR_F_ARCH) != 0;
    if (arch != (format == DS_LBR_FMT_ARCH) || (format > DS_LBR_FMT_INFO2 && !arch))
        return DS_ERR_LBR_BAD_FORMAT;
    /* A packed layout holds 32-bit FROM/TO in one MSR; only format 0 decodes it. */
    if ((m->flags & DS_LBR_F_PACKED) && format != DS_LBR_FMT_32)
        return DS_ERR_LBR_BAD_FORMAT;
    /* legacy stacks are 4, 8, 16 or 32 deep (SDM "LBR Stack" per model;
     * Linux lbr_nr), entry k at (TOS - k) & (depth - 1); an Arch LBR
     * depth is IA32_LBR_DEPTH's, checked by read_arch */
    if (!arch && m->depth != 4 && m->depth != 8 && m->depth != 16 && m->depth != 32)
        return DS_ERR_LBR_BAD_DEPTH;
    if (arch)
        return read_arch(cpu, m, out, cap, out_n);
    return read_legacy(cpu, m, row_format(m, format), out, cap, out_n);
}

#else /* !DS_CONFIG_LBR: LBR stacks compiled out (ds/config.h) */

DS_COLD const struct ds_lbr_model *ds_lbr_models(size_t *out_n)
{
    if (out_n)
        *out_n = 0;
    return NULL;
}

DS_COLD int ds_lbr_lookup(uint16_t family, uint8_t model, const struct ds_lbr_model **out)
{
    (void)family;
    (void)model;
    if (out)
        *out = NULL;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_lbr_cpu_model(const struct ds_cpu *cpu, const struct ds_lbr_model **out)
{
    (void)cpu;
    if (out)
        *out = NULL;
    return DS_ERR_UNSUPPORTED;
}

int ds_lbr_decode(unsigned format, uint64_t from_raw, uint64_t to_raw, uint64_t info_raw,
                  struct ds_lbr_entry *out)
{
    (void)format;
    (void)from_raw;
    (void)to_raw;
    (void)info_raw;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

int ds_lbr_decode_arch(uint32_t cpuid_1c_ecx, uint64_t from_raw, uint64_t to_raw, uint64_t info_raw,
                       struct ds_lbr_entry *out)
{
    (void)cpuid_1c_ecx;
    (void)from_raw;
    (void)to_raw;
    (void)info_raw;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_lbr_format(const struct ds_cpu *cpu, const struct ds_lbr_model *m, unsigned *out_format)
{
    (void)cpu;
    (void)m;
    if (out_format)
        *out_format = 0;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_lbr_enable(struct ds_cpu *cpu, const struct ds_lbr_model *m, const struct ds_lbr_config *cfg)
{
    (void)cpu;
    (void)m;
    (void)cfg;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_lbr_disable(struct ds_cpu *cpu, const struct ds_lbr_model *m)
{
    (void)cpu;
    (void)m;
    return DS_ERR_UNSUPPORTED;
}

int ds_lbr_unfreeze(struct ds_cpu *cpu, const struct ds_lbr_model *m)
{
    (void)cpu;
    (void)m;
    return DS_ERR_UNSUPPORTED;
}

int ds_lbr_read(struct ds_cpu *cpu, const struct ds_lbr_model *m, unsigned format,
                struct ds_lbr_entry *out, size_t cap, size_t *out_n)
{
    (void)cpu;
    (void)m;
    (void)format;
    (void)out;
    (void)cap;
    if (out_n)
        *out_n = 0;
    return DS_ERR_UNSUPPORTED;
}

#endif /* DS_CONFIG_LBR */
