/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PEBS: format choice, record sizes, decoder, drain (SDM Vol. 3B "Precise
 * Event Based Sampling (PEBS)" per microarchitecture, "Adaptive PEBS";
 * reference pebs-records.md).
 */
#include <ds/pebs.h>
#include <ds/arch_pebs.h>
#include "internal.h"
#include "pebs_int.h"

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

int ds_pebs_format_select(const struct ds_cpu *cpu, enum ds_layout layout, enum ds_pebs_fmt *out_fmt)
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

static uint32_t popcnt32(uint32_t v)
{
    uint32_t n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Basic group + meminfo, GPR, XMM and LBR groups of @groups_and_lbr (the
 * counters group, format 6, is sized separately). */
static uint32_t adaptive_size(uint64_t groups_and_lbr)
{
    uint32_t s = (uint32_t)sizeof(struct ds_pebs_basic);
    if (groups_and_lbr & DS_PEBS_DATA_CFG_MEMINFO)
        s += (uint32_t)sizeof(struct ds_pebs_meminfo);
    if (groups_and_lbr & DS_PEBS_DATA_CFG_GPRS)
        s += (uint32_t)sizeof(struct ds_pebs_gprs);
    if (groups_and_lbr & DS_PEBS_DATA_CFG_XMMS)
        s += (uint32_t)sizeof(struct ds_pebs_xmms);
    if (groups_and_lbr & DS_PEBS_DATA_CFG_LBRS)
        s += (uint32_t)sizeof(struct ds_pebs_lbr_entry) *
             (uint32_t)(((groups_and_lbr & DS_PEBS_DATA_CFG_LBR_MASK) >> DS_PEBS_DATA_CFG_LBR_SHIFT) + 1);
    return s;
}

/* Counters group size (format 6): header + one quadword per counter + 2 with metrics. */
static uint32_t cntr_group_size(uint32_t gp, uint32_t fixed, bool metrics)
{
    return (uint32_t)sizeof(struct ds_pebs_cntr_hdr) + 8u * (popcnt32(gp) + popcnt32(fixed)) + (metrics ? 16u : 0u);
}

/* Record size of a fixed-size format (NetBurst, 0-3), else 0. Inline: the
 * drain checks it on every PMI (issue 10 item 21). */
static inline uint32_t fixed_size(enum ds_pebs_fmt fmt)
{
    switch (fmt) {
#if DS_CONFIG_NETBURST
    case DS_PEBS_FMT_NB32: return sizeof(struct ds_pebs_nb32);
    case DS_PEBS_FMT_NB64: return sizeof(struct ds_pebs_nb64);
#endif
    case DS_PEBS_FMT_0: return sizeof(struct ds_pebs_fmt0);
    case DS_PEBS_FMT_1: return sizeof(struct ds_pebs_fmt1);
    case DS_PEBS_FMT_2: return sizeof(struct ds_pebs_fmt2);
    case DS_PEBS_FMT_3: return sizeof(struct ds_pebs_fmt3);
    default: return 0;
    }
}

uint32_t ds_pebs_record_size(enum ds_pebs_fmt fmt, uint64_t data_cfg)
{
    switch (fmt) {
    case DS_PEBS_FMT_4:
    case DS_PEBS_FMT_5:
        if (data_cfg & ~DS_PEBS_DATA_CFG_VALID)
            return 0;
        return adaptive_size(data_cfg);
    case DS_PEBS_FMT_6: {
        if (data_cfg & ~DS_PEBS_DATA_CFG_VALID6)
            return 0;
        uint32_t sz = adaptive_size(data_cfg);
        if (data_cfg & (DS_PEBS_DATA_CFG_CNTRS | DS_PEBS_DATA_CFG_METRICS))
            sz += cntr_group_size((uint32_t)((data_cfg & DS_PEBS_DATA_CFG_GP_MASK) >> DS_PEBS_DATA_CFG_GP_SHIFT),
                                  (uint32_t)((data_cfg & DS_PEBS_DATA_CFG_FIX_MASK) >> DS_PEBS_DATA_CFG_FIX_SHIFT),
                                  (data_cfg & DS_PEBS_DATA_CFG_METRICS) != 0);
        return sz;
    }
    default:
        return fixed_size(fmt);
    }
}

/*
 * Every field zero, by explicit stores: no per-byte loop and no memset()
 * call a freestanding build would have to provide. The drain clears its
 * one sample once per drain, not per record: each record then writes every
 * field its format can carry (the others stay zero).
 * clear_rest: all but flags, ip and the 16 GPRs, which every 64-bit
 * fixed-size record (NetBurst 64-bit, formats 0-3) writes (fixed_body):
 * the fixed drain skips those 18 stores.
 */
static inline __attribute__((always_inline)) void clear_rest(struct ds_pebs_sample *s)
{
    s->fmt = DS_PEBS_FMT_NONE;
    s->present = 0;
    s->size = 0;
    s->ip_is_next = false;
    s->eventing_ip = 0;
    s->counters = 0;
    s->data_addr = 0;
    s->data_source = 0;
    s->latency = 0;
    s->tsx = 0;
    s->tsc = 0;
    s->header = 0;
    s->retire_latency = 0;
    s->lbr_count = 0;
    s->instr_latency = 0;
    s->cache_latency = 0;
    s->cntr_gp_mask = 0;
    s->cntr_fixed_mask = 0;
    /* Unrolled: a loop here became "rep stosq", one instruction per word. */
    uint64_t *c = s->cntr_gp, *x = s->cntr_fixed;
    c[0] = 0, c[1] = 0, c[2] = 0, c[3] = 0, c[4] = 0, c[5] = 0, c[6] = 0, c[7] = 0;
    c[8] = 0, c[9] = 0, c[10] = 0, c[11] = 0, c[12] = 0, c[13] = 0, c[14] = 0, c[15] = 0;
    x[0] = 0, x[1] = 0, x[2] = 0, x[3] = 0, x[4] = 0, x[5] = 0, x[6] = 0, x[7] = 0;
    s->topdown_slots = 0;
    s->perf_metrics = 0;
    s->xmm = NULL;
    s->lbr = NULL;
    s->ssp = 0;
    s->fragments = 0;
    s->xstate = 0;
    s->ymmh = NULL;
    s->opmask = NULL;
    s->zmmh = NULL;
    s->h16zmm = NULL;
}

static void clear_sample(struct ds_pebs_sample *s)
{
    uint64_t *g = s->gpr;
    s->ip = 0;
    s->flags = 0;
    g[0] = 0, g[1] = 0, g[2] = 0, g[3] = 0, g[4] = 0, g[5] = 0, g[6] = 0, g[7] = 0;
    g[8] = 0, g[9] = 0, g[10] = 0, g[11] = 0, g[12] = 0, g[13] = 0, g[14] = 0, g[15] = 0;
    clear_rest(s);
}

/* The present bits of a fixed-size format (NetBurst, 0-3). */
static uint32_t fixed_present(enum ds_pebs_fmt fmt)
{
    uint32_t v = DS_SAMPLE_IP | DS_SAMPLE_FLAGS | DS_SAMPLE_GPRS;
    switch (fmt) {
    case DS_PEBS_FMT_NB32: return v | DS_SAMPLE_GPRS32;
    case DS_PEBS_FMT_1: return v | DS_SAMPLE_MEM | DS_SAMPLE_STATUS;
    case DS_PEBS_FMT_2: return v | DS_SAMPLE_MEM | DS_SAMPLE_STATUS | DS_SAMPLE_EVENTING_IP | DS_SAMPLE_TSX;
    case DS_PEBS_FMT_3:
        return v | DS_SAMPLE_MEM | DS_SAMPLE_APPLICABLE | DS_SAMPLE_EVENTING_IP | DS_SAMPLE_TSX | DS_SAMPLE_TSC;
    default: return v;
    }
}

/* The per-drain constant part of a fixed-format sample (after clear_sample). */
static void fixed_meta(enum ds_pebs_fmt fmt, uint32_t size, bool trap, struct ds_pebs_sample *s)
{
    s->fmt = fmt;
    s->size = size;
    s->present = fixed_present(fmt);
    /* NetBurst PEBS is trap-like: IP after the instruction */
    s->ip_is_next = fmt == DS_PEBS_FMT_NB32 || fmt == DS_PEBS_FMT_NB64 ? true : trap;
}

/*
 * The record fields of a fixed-size format: every field the format
 * carries, nothing else. @nb32 is a constant where this is inlined (two
 * copies: the 32-bit NetBurst record and the 64-bit block formats).
 * Reads [p, p + record size of fmt).
 */
static inline __attribute__((always_inline)) void fixed_body(bool nb32, enum ds_pebs_fmt fmt, const unsigned char *p,
                                                             struct ds_pebs_sample *s)
{
    uint64_t *g = s->gpr;
    if (nb32) {
        /* EFLAGS, EIP, EAX, EBX, ECX, EDX, ESI, EDI, EBP, ESP */
        s->flags = ds__ld32(p + 0x00);
        s->ip = ds__ld32(p + 0x04);
        g[DS_GPR_RAX] = ds__ld32(p + 0x08);
        g[DS_GPR_RBX] = ds__ld32(p + 0x0C);
        g[DS_GPR_RCX] = ds__ld32(p + 0x10);
        g[DS_GPR_RDX] = ds__ld32(p + 0x14);
        g[DS_GPR_RSI] = ds__ld32(p + 0x18);
        g[DS_GPR_RDI] = ds__ld32(p + 0x1C);
        g[DS_GPR_RBP] = ds__ld32(p + 0x20);
        g[DS_GPR_RSP] = ds__ld32(p + 0x24);
        return;
    }
    /* The 18-quadword block of NetBurst 64-bit and formats 0-3:
     * RFLAGS, RIP, RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP, R8..R15. */
    s->flags = ds__ld64(p + 0x00);
    s->ip = ds__ld64(p + 0x08);
    g[DS_GPR_RAX] = ds__ld64(p + 0x10);
    g[DS_GPR_RBX] = ds__ld64(p + 0x18);
    g[DS_GPR_RCX] = ds__ld64(p + 0x20);
    g[DS_GPR_RDX] = ds__ld64(p + 0x28);
    g[DS_GPR_RSI] = ds__ld64(p + 0x30);
    g[DS_GPR_RDI] = ds__ld64(p + 0x38);
    g[DS_GPR_RBP] = ds__ld64(p + 0x40);
    g[DS_GPR_RSP] = ds__ld64(p + 0x48);
    g[DS_GPR_R8] = ds__ld64(p + 0x50);
    g[DS_GPR_R9] = ds__ld64(p + 0x58);
    g[DS_GPR_R10] = ds__ld64(p + 0x60);
    g[DS_GPR_R11] = ds__ld64(p + 0x68);
    g[DS_GPR_R12] = ds__ld64(p + 0x70);
    g[DS_GPR_R13] = ds__ld64(p + 0x78);
    g[DS_GPR_R14] = ds__ld64(p + 0x80);
    g[DS_GPR_R15] = ds__ld64(p + 0x88);
    if (fmt == DS_PEBS_FMT_NB64 || fmt == DS_PEBS_FMT_0)
        return;
    /* fmt 1..3 */
    s->counters = ds__ld64(p + 0x90);
    s->data_addr = ds__ld64(p + 0x98);
    s->data_source = ds__ld64(p + 0xA0);
    s->latency = ds__ld64(p + 0xA8);
    if (fmt == DS_PEBS_FMT_1)
        return;
    s->eventing_ip = ds__ld64(p + 0xB0);
    s->tsx = ds__ld64(p + 0xB8);
    if (fmt == DS_PEBS_FMT_2)
        return;
    s->tsc = ds__ld64(p + 0xC0);
}

/*
 * The per-record walk of a fixed format: decode in place into the one
 * sample @s (cleared, fixed_meta set), call the sink. No division, no
 * per-record validation (the caller guarantees n whole records of
 * rsz >= the format's size at @p), no per-record call but the sink's.
 * Returns how many the sink took.
 */
static inline __attribute__((always_inline)) uint32_t walk_fixed(bool nb32, enum ds_pebs_fmt fmt,
                                                                  const unsigned char *p, uint32_t n, uint32_t rsz,
                                                                  struct ds_pebs_sample *s, ds_pebs_sink sink,
                                                                  void *arg)
{
    uint32_t taken = 0;
    for (uint32_t i = 0; i < n; i++, p += rsz) {
        fixed_body(nb32, fmt, p, s);
        taken += sink(arg, s) == 0;
    }
    return taken;
}

/*
 * How an adaptive record is decoded (the facts the record does not carry):
 * which header group bits exist (format 6 adds the counters group), whether
 * header bits 47:32 hold a retire latency, whether the meminfo latency is
 * split. From the CPU (drain, ds_pebs_decode_cpu) or defaults (ds_pebs_decode).
 */
#define DS__RL_NEVER   0u /* no timed PEBS: retire latency not recorded */
#define DS__RL_ALWAYS  1u /* timed PEBS: bits 47:32 are the retire latency */
#define DS__RL_NONZERO 2u /* CPU unknown: reported when non-zero */
struct ds__adopt {
    uint64_t known;       /* header group bits that exist (with the LBR count) */
    unsigned rl;          /* DS__RL_* */
    bool lat_split;
};

static void adaptive_opts(enum ds_pebs_fmt fmt, unsigned rl, bool lat_split, struct ds__adopt *o)
{
    o->known = 0xFull | DS_PEBS_DATA_CFG_LBR_MASK;
    if (fmt == DS_PEBS_FMT_6)
        o->known |= DS_PEBS_DATA_CFG_CNTRS | DS_PEBS_DATA_CFG_METRICS;
    o->rl = rl;
    o->lat_split = lat_split;
}

/* The present bits that depend only on the groups and the options. */
static uint32_t adaptive_present(uint64_t groups, const struct ds__adopt *o)
{
    uint32_t v = DS_SAMPLE_IP | DS_SAMPLE_EVENTING_IP | DS_SAMPLE_APPLICABLE | DS_SAMPLE_TSC;
    if (o->rl == DS__RL_ALWAYS)
        v |= DS_SAMPLE_RETIRE_LAT;
    if (groups & DS_PEBS_DATA_CFG_MEMINFO)
        v |= DS_SAMPLE_MEM | DS_SAMPLE_TSX | (o->lat_split ? DS_SAMPLE_LAT_SPLIT : 0);
    if (groups & DS_PEBS_DATA_CFG_GPRS)
        v |= DS_SAMPLE_FLAGS | DS_SAMPLE_GPRS;
    if (groups & DS_PEBS_DATA_CFG_XMMS)
        v |= DS_SAMPLE_XMM;
    if (groups & DS_PEBS_DATA_CFG_LBRS)
        v |= DS_SAMPLE_LBR;
    return v;
}

/*
 * The fields of the basic, meminfo, GPR, XMM and LBR groups of one record
 * whose header @hdr was validated (groups @groups at their offsets). Writes
 * every field those groups carry; nothing else. @groups is a constant where
 * this is inlined for the basic-only fast run.
 */
static inline __attribute__((always_inline)) void adaptive_fields(const unsigned char *p, uint64_t hdr,
                                                                  uint64_t groups, const struct ds__adopt *o,
                                                                  uint32_t present, struct ds_pebs_sample *s)
{
    s->header = hdr;
    s->ip = ds__ld64(p + 0x08); /* the basic group's IP is the eventing IP */
    s->eventing_ip = s->ip;
    s->counters = ds__ld64(p + 0x10);
    s->tsc = ds__ld64(p + 0x18);
    /* Header bits 47:32: retire latency on timed-PEBS parts (PERF_CAPABILITIES[17],
     * Linux pebs_basic.retire_latency); meaningless otherwise. */
    if (o->rl == DS__RL_NEVER) {
        s->present = present;
    } else {
        uint32_t rl = (uint32_t)((hdr >> DS_PEBS_HDR_RETIRE_LAT_SHIFT) & 0xFFFF);
        s->retire_latency = rl;
        s->present = (o->rl == DS__RL_NONZERO && rl) ? present | DS_SAMPLE_RETIRE_LAT : present;
    }
    const unsigned char *q = p + sizeof(struct ds_pebs_basic);
    if (groups & DS_PEBS_DATA_CFG_MEMINFO) {
        s->data_addr = ds__ld64(q + 0x00);
        s->data_source = ds__ld64(q + 0x08);
        uint64_t lat = ds__ld64(q + 0x10);
        s->latency = lat;
        if (o->lat_split) {
            s->instr_latency = (uint32_t)(lat & 0xFFFF);
            s->cache_latency = (uint32_t)((lat >> 32) & 0xFFFF);
        }
        s->tsx = ds__ld64(q + 0x18);
        q += sizeof(struct ds_pebs_meminfo);
    }
    if (groups & DS_PEBS_DATA_CFG_GPRS) {
        uint64_t *g = s->gpr;
        /* GPR group order: RFLAGS, RIP, RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8..R15
         * = encoding order after RIP. */
        s->flags = ds__ld64(q);
        g[0] = ds__ld64(q + 0x10), g[1] = ds__ld64(q + 0x18), g[2] = ds__ld64(q + 0x20);
        g[3] = ds__ld64(q + 0x28), g[4] = ds__ld64(q + 0x30), g[5] = ds__ld64(q + 0x38);
        g[6] = ds__ld64(q + 0x40), g[7] = ds__ld64(q + 0x48), g[8] = ds__ld64(q + 0x50);
        g[9] = ds__ld64(q + 0x58), g[10] = ds__ld64(q + 0x60), g[11] = ds__ld64(q + 0x68);
        g[12] = ds__ld64(q + 0x70), g[13] = ds__ld64(q + 0x78), g[14] = ds__ld64(q + 0x80);
        g[15] = ds__ld64(q + 0x88);
        q += sizeof(struct ds_pebs_gprs);
    }
    if (groups & DS_PEBS_DATA_CFG_XMMS) {
        s->xmm = (const struct ds_pebs_xmms *)(const void *)q;
        q += sizeof(struct ds_pebs_xmms);
    }
    if (groups & DS_PEBS_DATA_CFG_LBRS)
        s->lbr = (const struct ds_pebs_lbr_entry *)(const void *)q;
}

/* adaptive_body's header key: the header, retire latency masked out. */
#define DS__HDR_KEY_MASK (~(0xFFFFull << DS_PEBS_HDR_RETIRE_LAT_SHIFT))
#define DS__NO_HDR (~0ull) /* bits 23:6 set: never a valid header */
#define DS__CNTR_GROUPS (DS_PEBS_DATA_CFG_CNTRS | DS_PEBS_DATA_CFG_METRICS)
/* The format 6 counters group's own header (struct ds_pebs_cntr_hdr). */
struct ds__cntr {
    uint32_t gp, fixed;
    bool metrics;
};

/*
 * Format 6 counters group after the LBR group: its size comes from its own
 * header (Linux setup_pebs_adaptive_sample_data). Checks header @hdr (size
 * field @size) against it and reads it into @c.
 */
static inline __attribute__((always_inline)) int cntr_check(const unsigned char *p, size_t avail, uint64_t hdr,
                                                            uint32_t size, uint64_t groups,
                                                            const struct ds__adopt *o, struct ds__cntr *c)
{
    if ((hdr & 0x00000000FFFFFFFFull & ~o->known) != 0)
        return DS_ERR_REC_SIZE;
    uint32_t base = adaptive_size(groups);
    if (size < base + sizeof(struct ds_pebs_cntr_hdr) || avail < base + sizeof(struct ds_pebs_cntr_hdr)) {
        if (size > avail)
            return DS_ERR_REC_SHORT;
        return DS_ERR_REC_SIZE;
    }
    c->gp = ds__ld32(p + base);
    c->fixed = ds__ld32(p + base + 4);
    c->metrics = ds__ld32(p + base + 8) == DS_PEBS_CNTR_METRICS;
    /* DATA_CFG can name GP 0-15 and fixed 0-7 only. */
    if ((c->gp >> 16) || (c->fixed >> 8) || size != base + cntr_group_size(c->gp, c->fixed, c->metrics))
        return DS_ERR_REC_SIZE;
    return DS_OK;
}

/*
 * Validate header @hdr (size field @size, groups @groups) of the record at
 * @p with @avail bytes left; see adaptive_body for *@vkey. Fills @c when
 * the counters group is present.
 */
static inline __attribute__((always_inline)) int adaptive_check(const unsigned char *p, size_t avail, uint64_t hdr,
                                                                uint32_t size, uint64_t groups,
                                                                const struct ds__adopt *o, uint64_t *vkey,
                                                                struct ds__cntr *c)
{
    if (groups & DS__CNTR_GROUPS) {
        int e = cntr_check(p, avail, hdr, size, groups, o, c);
        if (e)
            return e;
        *vkey = DS__NO_HDR;
    } else if ((hdr & DS__HDR_KEY_MASK) != *vkey) {
        /* Header bits 23:4 (23:6 on format 6) would be groups libds does not
         * know: their size is unknown. */
        if ((hdr & 0x0000000000FFFFF0ull) & ~o->known)
            return DS_ERR_REC_SIZE;
        if (size != adaptive_size(groups))
            return DS_ERR_REC_SIZE;
        *vkey = hdr & DS__HDR_KEY_MASK;
    }
    if (size > avail)
        return DS_ERR_REC_SHORT;
    /* The sample points into the record for the XMM and LBR groups: typed
     * pointers must be aligned for the caller's natural access (the drain's
     * records always are: 8-byte aligned buffer, sizes multiples of 8). */
    if ((groups & (DS_PEBS_DATA_CFG_XMMS | DS_PEBS_DATA_CFG_LBRS)) && ((uintptr_t)p & 7u))
        return DS_ERR_REC_ALIGN;
    return DS_OK;
}

/* Clear what the previous record in @s carried (s->present) and the one
 * with groups @groups and counters group header @c (all 0 without the
 * group) does not; reset the LBR fields. */
static inline __attribute__((always_inline)) void adaptive_clear(uint64_t groups, const struct ds__cntr *c,
                                                                 struct ds_pebs_sample *s)
{
    uint32_t prev = s->present;
    if (!(groups & DS_PEBS_DATA_CFG_MEMINFO) && (prev & DS_SAMPLE_MEM)) {
        s->data_addr = 0, s->data_source = 0, s->latency = 0, s->tsx = 0;
        s->instr_latency = 0, s->cache_latency = 0;
    }
    if (!(groups & DS_PEBS_DATA_CFG_GPRS) && (prev & DS_SAMPLE_GPRS)) {
        uint64_t *g = s->gpr;
        s->flags = 0;
        g[0] = 0, g[1] = 0, g[2] = 0, g[3] = 0, g[4] = 0, g[5] = 0, g[6] = 0, g[7] = 0;
        g[8] = 0, g[9] = 0, g[10] = 0, g[11] = 0, g[12] = 0, g[13] = 0, g[14] = 0, g[15] = 0;
    }
    if (!(groups & DS_PEBS_DATA_CFG_XMMS))
        s->xmm = NULL;
    s->lbr = NULL;
    s->lbr_count = 0;
    if (groups & DS_PEBS_DATA_CFG_LBRS)
        s->lbr_count = (uint32_t)((groups & DS_PEBS_DATA_CFG_LBR_MASK) >> DS_PEBS_DATA_CFG_LBR_SHIFT) + 1;
    /* Counter slots the previous record set and this one (@c) does not:
     * the set bits only, no loop over absent counters. */
    if (prev & DS_SAMPLE_CNTRS) {
        for (uint32_t m = s->cntr_gp_mask & ~c->gp; m; m &= m - 1)
            s->cntr_gp[__builtin_ctz(m)] = 0;
        for (uint32_t m = s->cntr_fixed_mask & ~c->fixed; m; m &= m - 1)
            s->cntr_fixed[__builtin_ctz(m)] = 0;
        s->cntr_gp_mask = 0, s->cntr_fixed_mask = 0;
    }
    if ((prev & DS_SAMPLE_METRICS) && !c->metrics)
        s->topdown_slots = 0, s->perf_metrics = 0;
}

/* The counters group's values at @q (after its header @c), in counter
 * order, GP then fixed, then the metrics pair (Linux
 * setup_pebs_adaptive_sample_data). */
static inline __attribute__((always_inline)) void cntr_fields(const unsigned char *q, const struct ds__cntr *c,
                                                              struct ds_pebs_sample *s)
{
    s->cntr_gp_mask = c->gp;
    s->cntr_fixed_mask = c->fixed;
    for (uint32_t m = c->gp; m; m &= m - 1, q += 8)
        s->cntr_gp[__builtin_ctz(m)] = ds__ld64(q);
    for (uint32_t m = c->fixed; m; m &= m - 1, q += 8)
        s->cntr_fixed[__builtin_ctz(m)] = ds__ld64(q);
    s->present |= DS_SAMPLE_CNTRS;
    if (c->metrics) {
        s->topdown_slots = ds__ld64(q);
        s->perf_metrics = ds__ld64(q + 8);
        s->present |= DS_SAMPLE_METRICS;
    }
}

/*
 * Validate and decode one adaptive record into @s, which holds either a
 * cleared sample or the previous record of the same drain (s->fmt and
 * s->ip_is_next already set): every field a group can carry is written,
 * absent groups' fields are zeroed if the previous record had them. On
 * error @s is untouched. *@vkey: the last header (retire latency masked
 * out) whose group bits and size field were checked consistent; a record
 * with the same key skips that check (a drain's records usually share
 * one). Records with the counters group (format 6) are checked every time
 * (their size also depends on the group's own header) and leave *@vkey at
 * DS__NO_HDR. Start with DS__NO_HDR, which no valid header equals.
 */
static int adaptive_body(const unsigned char *p, size_t avail, struct ds_pebs_sample *s, uint64_t *vkey,
                         const struct ds__adopt *o)
{
    if (avail < sizeof(struct ds_pebs_basic))
        return DS_ERR_REC_SHORT;
    uint64_t hdr = ds__ld64(p);
    uint32_t size = (uint32_t)(hdr >> DS_PEBS_HDR_SIZE_SHIFT);
    uint64_t groups = hdr & o->known;
    if (!(groups & DS_PEBS_DATA_CFG_LBRS))
        groups &= ~DS_PEBS_DATA_CFG_LBR_MASK; /* the LBR count is meaningless without the group */
    struct ds__cntr c = { 0, 0, false };
    int e = adaptive_check(p, avail, hdr, size, groups, o, vkey, &c);
    if (e)
        return e;
    adaptive_clear(groups, &c, s); /* reads the previous s->present: before adaptive_fields */
    s->size = size;
    adaptive_fields(p, hdr, groups, o, adaptive_present(groups, o), s);
    if (groups & DS__CNTR_GROUPS)
        cntr_fields(p + adaptive_size(groups) + sizeof(struct ds_pebs_cntr_hdr), &c, s);
    return DS_OK;
}

/*
 * Records after a validated one whose header (retire latency aside) is the
 * same carry the same groups at the same offsets: only the values change.
 * Decode them with no validation beyond the key compare and the bounds,
 * and no clearing (every field they carry is rewritten; fields of absent
 * groups are already zero). Stops at the first other header, or when fewer
 * than @size bytes remain (the caller's validating path then takes over).
 * @groups is a constant where inlined. Returns the records walked; *@taken
 * gets those the sink took; *@pp advances past them.
 */
static inline __attribute__((always_inline)) uint32_t run_same(const unsigned char **pp, const unsigned char *end,
                                                               uint64_t key, uint32_t size, uint64_t groups,
                                                               const struct ds__adopt *o, struct ds_pebs_sample *s,
                                                               ds_pebs_sink sink, void *arg, uint64_t *taken)
{
    const unsigned char *p = *pp;
    uint32_t n = 0, t = 0;
    uint32_t present = s->present & ~(o->rl == DS__RL_NONZERO ? DS_SAMPLE_RETIRE_LAT : 0u);
    while ((size_t)(end - p) >= size) {
        uint64_t hdr = ds__ld64(p);
        if ((hdr & DS__HDR_KEY_MASK) != key)
            break;
        adaptive_fields(p, hdr, groups, o, present, s);
        t += sink(arg, s) == 0;
        p += size;
        n++;
    }
    *pp = p;
    *taken += t;
    return n;
}

/*
 * run_same for records with the counters group (format 6): after a
 * validated record decoded into @s (header key @key, size @size), records
 * with the same header (retire latency aside) and the same counters-group
 * header (GP and fixed bitmaps = s's masks, metrics word naming metrics or
 * not as s's did) have the same groups, counters and size; they are
 * decoded without validation or clearing (every field they carry is
 * rewritten: the same counter slots). Stops at the first other record.
 * @groups: the basic to LBR groups of @key (a constant where inlined for
 * basic + counters). As run_same otherwise.
 */
static inline __attribute__((always_inline)) uint32_t run_same_cntr(const unsigned char **pp,
                                                                    const unsigned char *end, uint64_t key,
                                                                    uint32_t size, uint64_t groups,
                                                                    const struct ds__adopt *o,
                                                                    struct ds_pebs_sample *s, ds_pebs_sink sink,
                                                                    void *arg, uint64_t *taken)
{
    uint32_t base = adaptive_size(groups);
    const struct ds__cntr c = { s->cntr_gp_mask, s->cntr_fixed_mask, (s->present & DS_SAMPLE_METRICS) != 0 };
    uint64_t cw = (uint64_t)c.fixed << 32 | c.gp;
    uint32_t present = s->present & ~(o->rl == DS__RL_NONZERO ? DS_SAMPLE_RETIRE_LAT : 0u);
    const unsigned char *p = *pp;
    uint32_t n = 0, t = 0;
    while ((size_t)(end - p) >= size) {
        uint64_t hdr = ds__ld64(p);
        if ((hdr & DS__HDR_KEY_MASK) != key || ds__ld64(p + base) != cw ||
            (ds__ld32(p + base + 8) == DS_PEBS_CNTR_METRICS) != c.metrics)
            break;
        adaptive_fields(p, hdr, groups, o, present, s);
        cntr_fields(p + base + sizeof(struct ds_pebs_cntr_hdr), &c, s);
        t += sink(arg, s) == 0;
        p += size;
        n++;
    }
    *pp = p;
    *taken += t;
    return n;
}

/*
 * After a validated record decoded into @s (or, at a drain's start, the
 * last record of the previous drain into ds_pmi's scratch sample, which
 * was validated then): the records at *@pp with its header run through
 * run_same / run_same_cntr, the basic-only cases specialised. Returns the
 * records walked.
 */
static inline __attribute__((always_inline)) uint32_t fast_run(const unsigned char **pp, const unsigned char *end,
                                                               const struct ds__adopt *o, struct ds_pebs_sample *s,
                                                               ds_pebs_sink sink, void *arg, uint64_t *taken)
{
    uint64_t key = s->header & DS__HDR_KEY_MASK;
    uint64_t g = key & (0xFull | DS_PEBS_DATA_CFG_LBR_MASK);
    if (!(g & DS_PEBS_DATA_CFG_LBRS))
        g &= ~DS_PEBS_DATA_CFG_LBR_MASK;
    if (s->present & DS_SAMPLE_CNTRS) {
        if (g == 0)
            return run_same_cntr(pp, end, key, s->size, 0, o, s, sink, arg, taken);
        return run_same_cntr(pp, end, key, s->size, g, o, s, sink, arg, taken);
    }
    if (key & DS__CNTR_GROUPS)
        return 0; /* the group's bits without its values: only the validating path */
    if (g == 0)
        return run_same(pp, end, key, s->size, 0, o, s, sink, arg, taken);
    return run_same(pp, end, key, s->size, key & (0xFull | DS_PEBS_DATA_CFG_LBR_MASK), o, s, sink, arg, taken);
}

static int decode_adaptive(enum ds_pebs_fmt fmt, const unsigned char *p, size_t avail, const struct ds__adopt *o,
                           struct ds_pebs_sample *out)
{
    out->fmt = fmt;
    out->ip_is_next = false; /* the basic group's IP is the eventing IP */
    uint64_t vkey = DS__NO_HDR;
    int e = adaptive_body(p, avail, out, &vkey, o);
    if (e)
        clear_sample(out);
    return e;
}

int ds_pebs_decode(enum ds_pebs_fmt fmt, const void *rec, size_t avail, bool pebs_trap,
                   struct ds_pebs_sample *out)
{
    const unsigned char *p = rec;
    if (!rec || !out)
        return DS_ERR_NULL;
    clear_sample(out);
    if (ds_pebs_fmt_adaptive(fmt)) {
        struct ds__adopt o;
        adaptive_opts(fmt, DS__RL_NONZERO, false, &o);
        return decode_adaptive(fmt, p, avail, &o, out);
    }
#if !DS_CONFIG_NETBURST
    if (fmt == DS_PEBS_FMT_NB32 || fmt == DS_PEBS_FMT_NB64)
        return DS_ERR_UNSUPPORTED; /* NetBurst records compiled out (ds/config.h) */
#endif
    uint32_t size = ds_pebs_record_size(fmt, 0);
    if (!size)
        return DS_ERR_PEBS_FORMAT;
    if (avail < size)
        return DS_ERR_REC_SHORT;
    fixed_meta(fmt, size, pebs_trap, out);
    if (fmt == DS_PEBS_FMT_NB32)
        fixed_body(true, fmt, p, out);
    else
        fixed_body(false, fmt, p, out);
    return DS_OK;
}

bool ds_pebs_latency_split(const struct ds_cpu *cpu)
{
    /* Linux intel_pmu_init: models with PMU_FL_INSTR_LATENCY (see pebs.h). */
    static const uint8_t fam6[] = {
        0x8F, 0xCF, 0xAD, 0xAE,             /* SPR, EMR, GNR-X, GNR-D */
        0x97, 0x9A, 0xB7, 0xBA, 0xBF,       /* ADL, ADL-L, RPL, RPL-P, RPL-S */
        0xBE, 0xAF, 0xB6,                   /* ADL-N (Gracemont), SRF, GRR (Crestmont) */
        0xAA, 0xAC, 0xBD, 0xC5, 0xC6, 0xB5, /* MTL, MTL, LNL, ARL-H/S/U */
        0xCC, 0xD5, 0xDD,                   /* PTL, WCL (with PTL in Linux), CWF */
    };
    if (!cpu || !cpu->identified || cpu->caps.vendor != DS_VENDOR_INTEL || cpu->caps.display_family != 6)
        return false;
    for (unsigned i = 0; i < sizeof(fam6); i++)
        if (cpu->caps.display_model == fam6[i])
            return true;
    return false;
}

int ds_pebs_decode_cpu(const struct ds_cpu *cpu, enum ds_pebs_fmt fmt, const void *rec, size_t avail,
                       struct ds_pebs_sample *out)
{
    if (!cpu || !rec || !out)
        return DS_ERR_NULL;
    if (!cpu->identified) {
        clear_sample(out);
        return DS_ERR_NOT_IDENTIFIED;
    }
    if (!ds_pebs_fmt_adaptive(fmt))
        return ds_pebs_decode(fmt, rec, avail, cpu->caps.pebs_trap, out);
    struct ds__adopt o;
    clear_sample(out);
    adaptive_opts(fmt, cpu->caps.pebs_timing_info ? DS__RL_ALWAYS : DS__RL_NEVER, ds_pebs_latency_split(cpu), &o);
    return decode_adaptive(fmt, rec, avail, &o, out);
}

static bool one_bit(uint64_t v)
{
    return v && !(v & (v - 1));
}

int ds_pebs_attribute(const struct ds_pebs_sample *s, uint64_t pebs_enabled, uint64_t *out)
{
    if (!s || !out)
        return DS_ERR_NULL;
    *out = 0;
    switch (s->fmt) {
    case DS_PEBS_FMT_0:
        *out = 1; /* Core 2 / Atom: PEBS only on IA32_PMC0 */
        return DS_OK;
#if DS_CONFIG_NETBURST
    case DS_PEBS_FMT_NB32:
    case DS_PEBS_FMT_NB64:
        *out = pebs_enabled; /* one PEBS counter (IQ_COUNTER4/5) */
        return DS_OK;
#else
    case DS_PEBS_FMT_NB32:
    case DS_PEBS_FMT_NB64:
        return DS_ERR_UNSUPPORTED;
#endif
    case DS_PEBS_FMT_1:
    case DS_PEBS_FMT_2: {
        uint64_t c = s->counters & pebs_enabled;
        if (!c && one_bit(pebs_enabled))
            c = pebs_enabled;
        *out = c;
        return one_bit(c) ? DS_OK : DS_ERR_PEBS_AMBIGUOUS;
    }
    case DS_PEBS_FMT_3:
    case DS_PEBS_FMT_4:
    case DS_PEBS_FMT_5:
    case DS_PEBS_FMT_6:
        *out = s->counters & pebs_enabled;
        return DS_OK;
    default:
        return DS_ERR_PEBS_FORMAT;
    }
}

/* --- drain ------------------------------------------------------------------ */

/* One out-of-line frame per PMI: the span, the sample set-up and the walk
 * are inlined here (issue 10 item 21). */
/* The sample a fixed-format walk decodes into: zero but for the fields
 * the format's records write (fixed_body), per-drain fields set. */
static void fixed_prep(const struct ds_ctx *ctx, struct ds_pebs_sample *s)
{
    enum ds_pebs_fmt fmt = ctx->pebs_fmt;
    if (fmt == DS_PEBS_FMT_NB32)
        clear_sample(s); /* 32-bit record: GPRs 8-15 stay zero */
    else
        clear_rest(s); /* fixed_body writes flags, ip, GPRs per record */
    fixed_meta(fmt, fixed_size(fmt), ctx->pebs_trap, s);
}

/* The fixed-format key of ds_pmi's scratch sample: what fixed_prep depends
 * on (format, trap-like IP), never 0. */
static uint32_t fixed_key(const struct ds_ctx *ctx)
{
    return 0x80000000u | ((uint32_t)ctx->pebs_trap << 16) | ((uint32_t)ctx->pebs_fmt & 0xFFFFu);
}

/* Drain a fixed-size format (NetBurst, 0-3) into @s. @key NULL: @s was
 * prepared by fixed_prep for this context; else @s is prepared here
 * unless *@key says it was (ds__pebs_drain_pmi). */
static void drain_fixed_into(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st,
                             struct ds_pebs_sample *s, uint32_t *key)
{
    const struct ds_buf_state *b = &ctx->pebs;
    enum ds_pebs_fmt fmt = ctx->pebs_fmt;
    uint64_t idx;
    if (key && *key != fixed_key(ctx)) {
        fixed_prep(ctx, s);
        *key = fixed_key(ctx);
    }
    uint32_t n = ds__drain_span_inl(ctx, true, st, &idx);
    uint32_t rsz = b->rec_size;
    uint32_t size = s->size;

    if (n && (!size || rsz < size)) {
        /* Configured size shorter than the format's record (a corrupted
         * context): decoding would read past each record; all are corrupt. */
        st->lost_corrupt += n;
    } else if (n) {
        /* One walk per format, @fmt a constant in each: fixed_body's
         * format tests fold away (and nothing format-wise stays live
         * across the sink call). */
        const unsigned char *m = b->mem;
        uint32_t taken;
        switch (fmt) {
        case DS_PEBS_FMT_NB32: taken = walk_fixed(true, DS_PEBS_FMT_NB32, m, n, rsz, s, sink, arg); break;
        case DS_PEBS_FMT_1: taken = walk_fixed(false, DS_PEBS_FMT_1, m, n, rsz, s, sink, arg); break;
        case DS_PEBS_FMT_2: taken = walk_fixed(false, DS_PEBS_FMT_2, m, n, rsz, s, sink, arg); break;
        case DS_PEBS_FMT_3: taken = walk_fixed(false, DS_PEBS_FMT_3, m, n, rsz, s, sink, arg); break;
        default: taken = walk_fixed(false, DS_PEBS_FMT_0, m, n, rsz, s, sink, arg); break; /* NB64, 0 */
        }
        st->records += taken;
        st->lost_rejected += n - taken;
    }
    ds__drain_finish_inl(ctx, true, idx, st);
}

static void drain_fixed(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st)
{
    struct ds_pebs_sample s;
    fixed_prep(ctx, &s);
    drain_fixed_into(ctx, sink, arg, st, &s, NULL);
}

/*
 * The bytes of the adaptive buffer the index claims, at most the buffer:
 * an index past the maximum counts the excess (rounded up to whole records
 * of the configured size) as lost beyond it; one at the maximum is "full".
 */
static inline __attribute__((always_inline)) size_t adaptive_claimed(const struct ds_buf_state *b, uint64_t idx,
                                                                     struct ds_drain_stats *st)
{
    uint64_t claimed = idx - b->linear;
    if (claimed > b->bytes) {
        uint64_t excess = claimed - b->bytes;
        uint64_t rem;
        uint64_t n = ds__div_rec(excess, b->rec_size, &rem) + (rem ? 1 : 0);
        st->anomalies |= DS_DRAIN_INDEX_PAST_MAX;
        st->lost_beyond += n;
        st->present += n;
    } else if (claimed == b->bytes) {
        st->anomalies |= DS_DRAIN_FULL;
    }
    return (size_t)(claimed < b->bytes ? claimed : b->bytes);
}

/*
 * Walk [p, end) by the records' own (validated) size fields into @s (the
 * sample prepared for the drain), handing each to @sink; counts into @st.
 */
static inline __attribute__((always_inline)) void walk_adaptive(const unsigned char *p, const unsigned char *end,
                                                                struct ds_pebs_sample *s, const struct ds__adopt *o,
                                                                ds_pebs_sink sink, void *arg,
                                                                struct ds_drain_stats *st)
{
    uint64_t walked = 0, taken = 0, vkey = DS__NO_HDR;
    bool corrupt = false;
    if (s->present) /* ds_pmi's scratch: the previous drain's last, validated record */
        walked += fast_run(&p, end, o, s, sink, arg, &taken);
    while (p < end) {
        walked++;
        if (adaptive_body(p, (size_t)(end - p), s, &vkey, o) != DS_OK) {
            /* The size field cannot be trusted: the rest is one lost record. */
            if ((size_t)(end - p) < sizeof(struct ds_pebs_basic))
                st->anomalies |= DS_DRAIN_INDEX_MISALIGNED;
            else
                st->anomalies |= DS_DRAIN_SIZE_LIE;
            st->lost_corrupt++;
            corrupt = true;
            break;
        }
        taken += sink(arg, s) == 0;
        p += s->size;
        /* The records that follow with the same header: the fast run. */
        walked += fast_run(&p, end, o, s, sink, arg, &taken);
    }
    st->present += walked;
    st->records += taken;
    st->lost_rejected += walked - taken - (corrupt ? 1 : 0);
}

/* The key of ds_pmi's scratch sample after an adaptive drain of @ctx
 * (pebs_int.h): format and the options adaptive_fields depends on. */
static uint32_t adaptive_key(const struct ds_ctx *ctx)
{
    return DS__SCRATCH_ADAPTIVE | ((uint32_t)ctx->pebs_fmt & 0xFFu) << 8 | (uint32_t)ctx->pebs_timed << 1 |
           (uint32_t)ctx->pebs_lat_split;
}

/* Drain an adaptive format into @s: a cleared sample (or a previous
 * adaptive drain's, *@key naming this context's adaptive_key) is kept as
 * it is; else it is cleared here. */
static void drain_adaptive(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st,
                           struct ds_pebs_sample *s, uint32_t *key)
{
    const struct ds_buf_state *b = &ctx->pebs;
    uint64_t idx = ds__area_get(ctx, true, DS__INDEX);

    ds__drain_check_fields(ctx, true, st);
    if (idx < b->linear) {
        st->anomalies |= DS_DRAIN_INDEX_BELOW_BASE;
        ds__drain_finish(ctx, true, idx, st);
        return;
    }
    size_t len = adaptive_claimed(b, idx, st);
    struct ds__adopt o;
    adaptive_opts(ctx->pebs_fmt, ctx->pebs_timed ? DS__RL_ALWAYS : DS__RL_NEVER, ctx->pebs_lat_split, &o);
    if (*key != adaptive_key(ctx)) {
        clear_sample(s);
        s->fmt = ctx->pebs_fmt;
        s->ip_is_next = false; /* the basic group's IP is the eventing IP */
        *key = adaptive_key(ctx);
    }
    walk_adaptive(b->mem, b->mem + len, s, &o, sink, arg, st);
    /* The race check needs fixed sizes: use the configured record size. */
    ds__drain_finish(ctx, true, idx, st);
}

/* ds_pebs_drain's walk without its argument checks, added into @st (not
 * cleared): ds_pmi_handle drains straight into its result (issue 10 item 21:
 * no ds__zero, copy-out and add per PMI). @ctx set up with a PEBS buffer. */
void ds__pebs_drain_add(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st)
{
    DS_ASSERT(ctx->setup && ctx->pebs.mem);
    DS_ASSERT(ctx->pebs.rec_size == ds_pebs_record_size(ctx->pebs_fmt, ctx->pebs_data_cfg));
    if (ds_pebs_fmt_adaptive(ctx->pebs_fmt)) {
        struct ds_pebs_sample s;
        uint32_t key = 0;
        drain_adaptive(ctx, sink, arg, st, &s, &key);
    } else {
        drain_fixed(ctx, sink, arg, st);
    }
}

void ds__pebs_drain_pmi(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st,
                        struct ds_pebs_sample *scratch, uint32_t *key)
{
    DS_ASSERT(ctx->setup && ctx->pebs.mem);
    DS_ASSERT(ctx->pebs.rec_size == ds_pebs_record_size(ctx->pebs_fmt, ctx->pebs_data_cfg));
    if (ds_pebs_fmt_adaptive(ctx->pebs_fmt))
        drain_adaptive(ctx, sink, arg, st, scratch, key); /* no sample in this frame (issue 29 item 3) */
    else
        drain_fixed_into(ctx, sink, arg, st, scratch, key);
}

int ds_pebs_drain(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *out)
{
    struct ds_drain_stats local, *st = out ? out : &local;
    if (!ctx || !sink)
        return DS_ERR_NULL;
    if (!ctx->setup)
        return DS_ERR_NOT_SETUP;
    if (!ctx->pebs.mem)
        return DS_ERR_NO_PEBS_BUFFER;
    ds__stats_clear(st);
    ds__pebs_drain_add(ctx, sink, arg, st);
    return DS_OK;
}

struct pebs_arr {
    struct ds_pebs_sample *arr;
    size_t cap, n;
};

static int arr_sink(void *arg, const struct ds_pebs_sample *s)
{
    struct pebs_arr *a = arg;
    if (a->n >= a->cap)
        return 1;
    a->arr[a->n++] = *s;
    return 0;
}

int ds_pebs_drain_array(struct ds_ctx *ctx, struct ds_pebs_sample *arr, size_t cap, size_t *out_n,
                        struct ds_drain_stats *out)
{
    if (!out_n || (!arr && cap))
        return DS_ERR_NULL;
    struct pebs_arr a = { arr, cap, 0 };
    int e = ds_pebs_drain(ctx, arr_sink, &a, out);
    *out_n = a.n;
    return e;
}

int ds_pebs_pending(const struct ds_ctx *ctx, uint64_t *out_records)
{
    if (!ctx || !out_records)
        return DS_ERR_NULL;
    if (!ctx->setup)
        return DS_ERR_NOT_SETUP;
    if (!ctx->pebs.mem)
        return DS_ERR_NO_PEBS_BUFFER;
    uint64_t idx = ds__area_get(ctx, true, DS__INDEX);
    if (idx < ctx->pebs.linear)
        *out_records = 0;
    else
        *out_records = ds__div_rec(idx - ctx->pebs.linear, ctx->pebs.rec_size, NULL);
    return DS_OK;
}

#else /* !DS_CONFIG_PEBS: PEBS compiled out (ds/config.h) */

int ds_pebs_format_select(const struct ds_cpu *cpu, enum ds_layout layout, enum ds_pebs_fmt *out_fmt)
{
    (void)cpu;
    (void)layout;
    if (out_fmt)
        *out_fmt = DS_PEBS_FMT_NONE;
    return DS_ERR_UNSUPPORTED;
}

uint32_t ds_pebs_record_size(enum ds_pebs_fmt fmt, uint64_t data_cfg)
{
    (void)fmt;
    (void)data_cfg;
    return 0; /* "unknown format": no record is decodable */
}

int ds_pebs_decode(enum ds_pebs_fmt fmt, const void *rec, size_t avail, bool pebs_trap,
                   struct ds_pebs_sample *out)
{
    (void)fmt;
    (void)rec;
    (void)avail;
    (void)pebs_trap;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

int ds_pebs_decode_cpu(const struct ds_cpu *cpu, enum ds_pebs_fmt fmt, const void *rec, size_t avail,
                       struct ds_pebs_sample *out)
{
    (void)cpu;
    (void)fmt;
    (void)rec;
    (void)avail;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

bool ds_pebs_latency_split(const struct ds_cpu *cpu)
{
    (void)cpu;
    return false;
}

int ds_pebs_attribute(const struct ds_pebs_sample *s, uint64_t pebs_enabled, uint64_t *out)
{
    (void)s;
    (void)pebs_enabled;
    if (out)
        *out = 0;
    return DS_ERR_UNSUPPORTED;
}

int ds_pebs_drain(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *out)
{
    (void)ctx;
    (void)sink;
    (void)arg;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

int ds_pebs_drain_array(struct ds_ctx *ctx, struct ds_pebs_sample *arr, size_t cap, size_t *out_n,
                        struct ds_drain_stats *out)
{
    (void)ctx;
    (void)arr;
    (void)cap;
    if (out_n)
        *out_n = 0;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

int ds_pebs_pending(const struct ds_ctx *ctx, uint64_t *out_records)
{
    (void)ctx;
    if (out_records)
        *out_records = 0;
    return DS_ERR_UNSUPPORTED;
}

#endif /* DS_CONFIG_PEBS */
