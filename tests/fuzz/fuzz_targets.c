/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer targets beyond the drains, each with an oracle that does not
 * come from the code under test:
 *   fuzz_setup:      random (mostly invalid) ds_area_setup input: no abort;
 *                    a failure returns one of the codes area.h documents and
 *                    writes nothing (area, buffers, MSRs); a success lays
 *                    out the fields as the SDM "DS Save Area" says, with
 *                    record sizes from the SDM record-format tables.
 *   fuzz_lbr_decode: random format and raw MSR values against the decode
 *                    table of ../shared/reference/lbr.md (SDM 17.4.8.1,
 *                    Linux intel_pmu_lbr_read_64), transcribed here.
 *   fuzz_lbr_read:   a random row of the LBR table on a fake CPU of that
 *                    model, random format, TOS and stack contents: no MSR
 *                    write, TOS range and capacity errors, entry k newest
 *                    first = slot (TOS - k) mod depth (lbr.md).
 *   fuzz_identify:   random CPUID (other vendors, families, leaf 0AH) and
 *                    IA32_PERF_CAPABILITIES (PEBS formats 0-15): no MSR
 *                    write; caps fields = the SDM bit positions; layout and
 *                    PEBS format selection as the SDM / pebs.h rules say;
 *                    GLOBAL_STATUS decode (each field its SDM bit) and
 *                    the acknowledge mask per perfmon version (pmi.h).
 *   fuzz_netburst:   ds_nb_program_raw with random counter / ESCR address /
 *                    values: refused without a write unless the ESCR is in
 *                    the reference netburst.md table; accepted = the
 *                    documented write sequence; mask names for any event
 *                    index (one past the table included, under ASan).
 *   fuzz_period:     ds_pmc_period_values against the pmc.h formula.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "fake_pmu.h"
#include "fuzz.h"

/* --- ds_area_setup ---------------------------------------------------------- */

static const int setup_errs[] = {
    DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_INSTALLED, DS_ERR_NOT_INTEL, DS_ERR_NO_DS,
    DS_ERR_BTS_UNAVAILABLE, DS_ERR_PEBS_UNAVAILABLE, DS_ERR_NO_BUFFERS, DS_ERR_AREA_ALIGN,
    DS_ERR_AREA_ADDR, DS_ERR_BUF_ALIGN, DS_ERR_BUF_ADDR, DS_ERR_BUF_SIZE, DS_ERR_BUF_SMALL,
    DS_ERR_THRESH_RANGE, DS_ERR_THRESH_MARGIN, DS_ERR_PEBS_NO_COUNTERS, DS_ERR_PEBS_BUF_4K,
    DS_ERR_PEBS_FORMAT, DS_ERR_LAYOUT, DS_ERR_DATA_CFG, DS_ERR_OVERLAP, DS_ERR_UNSUPPORTED,
};

/* Fixed record sizes from the SDM record-format tables (PEBS record
 * format 0 0x90, 1 0xB0, 2 0xC0, 3 0xC8; NetBurst 40 / 144 bytes; BTS 12 /
 * 24 bytes); 0 for adaptive formats (size from PEBS_DATA_CFG). */
static uint32_t sdm_pebs_size(enum ds_pebs_fmt f)
{
    switch (f) {
    case DS_PEBS_FMT_0: return 0x90;
    case DS_PEBS_FMT_1: return 0xB0;
    case DS_PEBS_FMT_2: return 0xC0;
    case DS_PEBS_FMT_3: return 0xC8;
    case DS_PEBS_FMT_NB32: return 40;
    case DS_PEBS_FMT_NB64: return 144;
    default: return 0;
    }
}

static void fp_profile(struct fake_pmu *f, unsigned prof)
{
    fp_reset(f);
    uint32_t ecx = (1u << 2) | (1u << 4) | (1u << 15), edx = (1u << 9) | (1u << 21);
    switch (prof % 5) {
    case 0: /* Skylake: v4, fmt 3 */
        fp_intel(f, 0x16, 0x000506E3, ecx, edx);
        fp_cpuid_set(f, 0xA, 0, 0x07300404, 0, 0, 0x603);
        fp_set(f, DS_MSR_IA32_PERF_CAPABILITIES, 0x33C5);
        break;
    case 1: /* Ice Lake: v5, fmt 4 adaptive */
        fp_intel(f, 0x1B, 0x000706E5, ecx, edx);
        fp_cpuid_set(f, 0xA, 0, 0x08300805, 0, 0xF, 0x604);
        fp_set(f, DS_MSR_IA32_PERF_CAPABILITIES, 0x4000 | 0x2000 | 0x400 | 0x80 | 0x3F);
        break;
    case 2: /* Core 2: v2, fmt 0 */
        fp_intel(f, 0xD, 0x00010676, ecx, edx);
        fp_cpuid_set(f, 0xA, 0, 0x07280202, 0, 0, 0x503);
        fp_set(f, DS_MSR_IA32_PERF_CAPABILITIES, 0x0C2);
        break;
    case 3: /* NetBurst, no DTES64 */
        fp_intel(f, 0x2, 0x00000F29, 0, edx);
        break;
    default: /* Haswell fmt 2 */
        fp_intel(f, 0xD, 0x000306C3, ecx, edx);
        fp_cpuid_set(f, 0xA, 0, 0x07300403, 0, 0, 0x603);
        fp_set(f, DS_MSR_IA32_PERF_CAPABILITIES, 0x32C4);
        break;
    }
    fp_set(f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
}

static void setup_buf(struct in *in, unsigned char *pool, size_t psz, struct ds_buf_config *b, uint32_t rec)
{
    uint8_t how = (uint8_t)take(in, 1);
    memset(b, 0, sizeof(*b));
    if (!(how & 1))
        return; /* not used */
    size_t off = (size_t)take(in, 2) % psz;
    if (how & 2)
        off &= ~(size_t)63; /* aligned start */
    size_t n = (how & 4) && rec ? rec * (1 + (size_t)take(in, 1) % 40) : (size_t)take(in, 2);
    if (off + n > psz)
        n = psz - off;
    b->mem = (how & 8) ? NULL : pool + off;
    b->bytes = n;
    b->thresh_records = (how & 16) ? (uint32_t)take(in, 4) : (uint32_t)take(in, 1) % 48;
    if (how & 32)
        b->linear = take(in, 8);
    else if (how & 64)
        b->linear = 0x100000 + off; /* below 4 GiB: the 32-bit layout's kind */
    if (b->mem == NULL && !(how & 128))
        b->bytes = 0;
}

static uint32_t lowbits(uint32_t n)
{
    return n >= 32 ? 0xFFFFFFFFu : (1u << n) - 1;
}

static unsigned popc(uint64_t v)
{
    unsigned n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Records a threshold must leave before the maximum (area.h): BTS
 * DS_THRESH_MARGIN = 2; PEBS one per PEBS-capable counter that exists:
 * NetBurst and format 0 one, formats 1-3 PMC0-3, format 4 GP 0-7 + fixed
 * (the profiles here have no Goldmont Plus). */
static uint64_t margin(const struct ds_cpu *cpu, int pebs, enum ds_pebs_fmt fmt)
{
    const struct ds_caps *c = &cpu->caps;
    if (!pebs)
        return 2;
    switch (fmt) {
    case DS_PEBS_FMT_1: case DS_PEBS_FMT_2: case DS_PEBS_FMT_3: return popc(c->gp_mask & 0xF);
    case DS_PEBS_FMT_4: return popc(c->gp_mask & 0xFF) + popc(c->fixed_mask);
    default: return 1;
    }
}

static uint64_t fld(const union ds_area *a, bool l32, unsigned i)
{
    return l32 ? ((const uint32_t *)&a->a32)[i] : ((const uint64_t *)&a->a64)[i];
}

int fuzz_setup(struct in *in)
{
    static struct fake_pmu f;
    static struct ds_cpu cpu;
    static struct ds_ctx ctx;
    static unsigned char areamem[1024] __attribute__((aligned(64)));
    static unsigned char pool[16384] __attribute__((aligned(64)));
    static unsigned char pat_a[sizeof(areamem)], pat_p[sizeof(pool)];

    unsigned prof = (unsigned)take(in, 1);
    fp_profile(&f, prof);
    memset(&cpu, 0, sizeof(cpu));
    ds_cpu_init(&cpu, &fp_ops, &f);
    ds_cpu_set_ia32e(&cpu, (prof & 8) == 0);
    if (!(prof & 0x80))
        ds_cpu_identify(&cpu);
    enum ds_layout lay = DS_LAYOUT_NONE;
    enum ds_pebs_fmt fmt = DS_PEBS_FMT_NONE;
    ds_area_layout(&cpu, &lay);
    ds_pebs_format_select(&cpu, lay, &fmt);
    uint32_t brec = lay == DS_LAYOUT_32 ? 12 : 24, prec = sdm_pebs_size(fmt);

    struct ds_area_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    uint8_t am = (uint8_t)take(in, 1);
    size_t aoff = (am & 1) ? (size_t)take(in, 2) % 512 : (size_t)(am >> 5) * 64;
    cfg.area = (am & 2) ? NULL : (union ds_area *)(void *)(areamem + aoff);
    if (am & 4)
        cfg.area_linear = take(in, 8);
    else if (am & 8)
        cfg.area_linear = 0x10000 + aoff;
    cfg.la57 = (am & 16) != 0;
    setup_buf(in, pool, sizeof(pool), &cfg.bts, brec);
    setup_buf(in, pool, sizeof(pool), &cfg.pebs, prec ? prec : 0xC0);
    uint8_t dm = (uint8_t)take(in, 1);
    cfg.pebs_data_cfg = (dm & 1) ? take(in, 8) : (dm & 2) ? (take(in, 1) & 0xF) | ((take(in, 1) & 0x1F) << 24) : 0;
    if (lay == DS_LAYOUT_32 && cfg.area) {
        /* the 32-bit layout needs linear addresses below 4 GiB */
        if (!cfg.area_linear)
            cfg.area_linear = 0x10000 + aoff;
        if (cfg.bts.mem && !cfg.bts.linear)
            cfg.bts.linear = 0x100000 + (uint64_t)((unsigned char *)cfg.bts.mem - pool);
        if (cfg.pebs.mem && !cfg.pebs.linear)
            cfg.pebs.linear = 0x100000 + (uint64_t)((unsigned char *)cfg.pebs.mem - pool);
    }
    memset(&ctx, 0, sizeof(ctx));
    memset(areamem, 0xA5, sizeof(areamem));
    memset(pool, 0x5A, sizeof(pool));
    memcpy(pat_a, areamem, sizeof(areamem));
    memcpy(pat_p, pool, sizeof(pool));
    fp_clear_log(&f);

    int e = ds_area_setup(&ctx, &cpu, &cfg);
    if (f.writes || f.reads)
        fuzz_fail("fuzz_setup", "ds_area_setup accessed an MSR");
    if (e != DS_OK) {
        bool doc = false;
        for (size_t i = 0; i < sizeof(setup_errs) / sizeof(setup_errs[0]); i++)
            doc |= e == setup_errs[i];
        if (!doc) {
            fprintf(stderr, "fuzz_setup: %s\n", ds_errname(e));
            fuzz_fail("fuzz_setup", "error code not documented for ds_area_setup");
        }
        if (ctx.setup)
            fuzz_fail("fuzz_setup", "failed setup left the context set up");
        if (memcmp(areamem, pat_a, sizeof(areamem)) || memcmp(pool, pat_p, sizeof(pool)))
            fuzz_fail("fuzz_setup", "failed setup wrote memory");
        return 0;
    }
    /* success: what the SDM "DS Save Area" says the fields hold */
    if (!ctx.setup || !cpu.identified || cpu.caps.vendor != DS_VENDOR_INTEL || !cpu.caps.ds)
        fuzz_fail("fuzz_setup", "setup succeeded on an unidentified / non-Intel / non-DS CPU");
    bool l32 = lay == DS_LAYOUT_32;
    const union ds_area *a = cfg.area;
    for (int p = 0; p < 2; p++) {
        const struct ds_buf_config *b = p ? &cfg.pebs : &cfg.bts;
        uint32_t r = p ? prec : brec;
        if (!b->mem)
            continue;
        uint64_t lin = b->linear ? b->linear : (uint64_t)(uintptr_t)b->mem;
        if (r && (b->bytes == 0 || b->bytes % r))
            fuzz_fail("fuzz_setup", "accepted a size that is not a multiple of the SDM record size");
        if (r && b->thresh_records && (uint64_t)b->thresh_records + margin(&cpu, p, fmt) > b->bytes / r)
            fuzz_fail("fuzz_setup", "accepted a threshold without the margin before the maximum");
        uint64_t m = l32 ? 0xFFFFFFFFull : ~0ull;
        unsigned o = p ? 4 : 0;
        if (fld(a, l32, o + 0) != (lin & m) || fld(a, l32, o + 1) != (lin & m) ||
            fld(a, l32, o + 2) != ((lin + b->bytes) & m))
            fuzz_fail("fuzz_setup", "base/index/max fields not as the SDM says");
        if (r && b->thresh_records && fld(a, l32, o + 3) != ((lin + (uint64_t)b->thresh_records * r) & m))
            fuzz_fail("fuzz_setup", "threshold field is not base + records * size");
        if (r && !b->thresh_records && fld(a, l32, o + 3) <= ((lin + b->bytes) & m))
            fuzz_fail("fuzz_setup", "no-interrupt threshold not beyond the maximum");
        if (!p)
            for (size_t i = 0; i < b->bytes; i++)
                if (((unsigned char *)b->mem)[i])
                    fuzz_fail("fuzz_setup", "BTS buffer not zeroed");
    }
    return 0;
}

/* --- LBR ------------------------------------------------------------------- */

/* The decode table of reference lbr.md "LBR formats and decoding". */
static bool ref_lbr_decode(unsigned fmt, uint64_t from, uint64_t to, uint64_t info, struct ds_lbr_entry *e)
{
    memset(e, 0, sizeof(*e));
    e->br_type = -1;
    e->from = from;
    e->to = to;
    switch (fmt) {
    case 0: e->from = from & 0xFFFFFFFFull; e->to = from >> 32; break;
    case 1: case 2: break;
    case 3:
        e->has_mispred = true; e->mispred = from >> 63; e->from = fuzz_sext(from, 62);
        break;
    case 4:
        e->has_mispred = e->has_tsx = true;
        e->mispred = from >> 63; e->in_tx = (from >> 62) & 1; e->abort = (from >> 61) & 1;
        e->from = fuzz_sext(from, 60);
        break;
    case 5: case 7:
        e->has_mispred = e->has_cycles = true;
        e->mispred = info >> 63; e->cycles = (uint16_t)info;
        if (fmt == 5) {
            e->has_tsx = true; e->in_tx = (info >> 62) & 1; e->abort = (info >> 61) & 1;
        }
        break;
    case 6:
        e->has_mispred = e->has_cycles = true;
        e->mispred = from >> 63; e->from = fuzz_sext(from, 62);
        e->cycles = (uint16_t)(to >> 48); e->to = fuzz_sext(to, 47);
        break;
    /* DS_LBR_FMT_ARCH: refused (lbr.h): what an Arch LBR INFO holds depends
     * on CPUID.1CH:ECX, so it is decoded by ds_lbr_decode_arch only. */
    default:
        return false;
    }
    return true;
}

static bool same_entry(const struct ds_lbr_entry *a, const struct ds_lbr_entry *b)
{
    return a->from == b->from && a->to == b->to && a->has_mispred == b->has_mispred &&
           a->mispred == b->mispred && a->has_tsx == b->has_tsx && a->in_tx == b->in_tx &&
           a->abort == b->abort && a->has_cycles == b->has_cycles && a->cycles == b->cycles &&
           a->br_type == b->br_type;
}

static unsigned pick_format(struct in *in)
{
    uint8_t k = (uint8_t)take(in, 1);
    if (k < 200)
        return k % 8;
    if (k < 230)
        return DS_LBR_FMT_ARCH;
    return (unsigned)take(in, 4);
}

int fuzz_lbr_decode(struct in *in)
{
    unsigned fmt = pick_format(in);
    uint64_t from = take(in, 8), to = take(in, 8), info = take(in, 8);
    struct ds_lbr_entry got, want;
    memset(&got, 0x6B, sizeof(got));
    int e = ds_lbr_decode(fmt, from, to, info, &got);
    if (!ref_lbr_decode(fmt, from, to, info, &want)) {
        if (e != DS_ERR_LBR_BAD_FORMAT)
            fuzz_fail("fuzz_lbr_decode", "unknown format not refused with DS_ERR_LBR_BAD_FORMAT");
        return 0;
    }
    if (e != DS_OK || !same_entry(&got, &want)) {
        fprintf(stderr, "fmt %u from %#llx to %#llx info %#llx\n", fmt, (unsigned long long)from,
                (unsigned long long)to, (unsigned long long)info);
        fuzz_fail("fuzz_lbr_decode", "decode differs from reference lbr.md");
    }
    return 0;
}

/* CPUID.1 signature of DisplayFamily_DisplayModel (SDM Vol. 2A CPUID). */
static uint32_t sig_of(uint16_t fam, uint8_t model)
{
    if (fam == 0xF)
        return 0xF00u | ((uint32_t)(model & 0xF) << 4) | ((uint32_t)(model >> 4) << 16);
    return ((uint32_t)(model >> 4) << 16) | ((uint32_t)fam << 8) | ((uint32_t)(model & 0xF) << 4);
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

int fuzz_lbr_read(struct in *in)
{
    static struct fake_pmu f;
    static struct ds_cpu cpu;
    static struct ds_lbr_entry out[80];
    size_t nrows;
    const struct ds_lbr_model *rows = ds_lbr_models(&nrows);
    if (!rows || !nrows)
        return 0;
    const struct ds_lbr_model *m = &rows[take(in, 2) % nrows];
    uint8_t opt = (uint8_t)take(in, 1);
    uint64_t seed = take(in, 8) | 1;
    unsigned lfmt = (unsigned)take(in, 1) & 0x3F;

    fp_reset(&f);
    bool pdcm = (opt & 1) && m->family == 6;
    fp_intel(&f, 0x1C, sig_of(m->family, m->model), pdcm ? 1u << 15 : 0, 1u << 21);
    fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    if (pdcm)
        fp_set(&f, DS_MSR_IA32_PERF_CAPABILITIES, lfmt);
    unsigned adepth = 8u * (1 + (unsigned)(take(in, 1) % 8));
    if (m->flags & DS_LBR_F_ARCH) {
        fp_cpuid_set(&f, 7, 0, 0, 0, 0, 1u << 19);
        fp_cpuid_set(&f, 0x1C, 0, 1u << (adepth / 8 - 1), 7, 7, 0);
        fp_set(&f, DS_MSR_IA32_LBR_DEPTH, (opt & 2) ? take(in, 1) : adepth);
    }
    memset(&cpu, 0, sizeof(cpu));
    if (ds_cpu_init(&cpu, &fp_ops, &f) || ds_cpu_identify(&cpu))
        return 0;
    unsigned depth = (m->flags & DS_LBR_F_ARCH) ? 64 : m->depth;
    uint64_t tos = (opt & 4) ? take(in, 1) : xorshift(&seed) % (depth ? depth : 1);
    if (m->tos_msr)
        fp_set(&f, m->tos_msr, tos);
    for (unsigned i = 0; i < depth; i++) {
        uint64_t fr = xorshift(&seed), to = xorshift(&seed);
        if ((opt & 8) && (fr & 0x300) == 0)
            fr = 0; /* Arch LBR: an empty entry ends the stack */
        fp_set(&f, m->from_base + i, fr);
        if (m->to_base != m->from_base)
            fp_set(&f, m->to_base + i, to);
        if (m->info_base)
            fp_set(&f, m->info_base + i, xorshift(&seed));
    }
    unsigned fmt = 0;
    if ((opt & 16) || ds_lbr_format(&cpu, m, &fmt) != DS_OK)
        fmt = pick_format(in);
    size_t cap = (opt & 32) ? (size_t)take(in, 1) % 80 : 80;
    size_t n = 12345;
    fp_clear_log(&f);
    int e = ds_lbr_read(&cpu, m, fmt, out, cap, &n);
    if (f.writes)
        fuzz_fail("fuzz_lbr_read", "the reader wrote an MSR");
    struct ds_lbr_entry want;
    if (e != DS_OK) {
        if (!ref_lbr_decode(fmt, 0, 0, 0, &want) && e != DS_ERR_LBR_BAD_FORMAT)
            fuzz_fail("fuzz_lbr_read", "unknown format not refused");
        return 0;
    }
    if (!ref_lbr_decode(fmt, 0, 0, 0, &want))
        fuzz_fail("fuzz_lbr_read", "read succeeded with an unknown format");
    if (n > cap)
        fuzz_fail("fuzz_lbr_read", "more entries than capacity");
    if (m->flags & DS_LBR_F_ARCH) {
        for (size_t k = 0; k < n; k++) {
            uint64_t fr = fp_get(&f, m->from_base + k), to = fp_get(&f, m->to_base + k);
            uint64_t inf = fp_get(&f, m->info_base + k);
            ref_lbr_decode(fmt, fr, to, inf, &want);
            if (!fr || !same_entry(&out[k], &want))
                fuzz_fail("fuzz_lbr_read", "Arch LBR entry k is not IA32_LBR_k");
        }
        return 0;
    }
    /* TOS rows (lbr.md): TOS within 0..tos_max, entry k = slot (TOS - k) mod N */
    if (tos > m->tos_max)
        fuzz_fail("fuzz_lbr_read", "TOS beyond the model's range accepted");
    if (cap < m->depth || n != m->depth)
        fuzz_fail("fuzz_lbr_read", "entry count is not the stack depth");
    bool info = (fmt == 5 || fmt == 7) && m->info_base;
    for (size_t k = 0; k < n; k++) {
        uint32_t slot = (uint32_t)((tos - k) & (m->depth - 1u));
        uint64_t fr = fp_get(&f, m->from_base + slot);
        uint64_t to = m->to_base != m->from_base && fmt != 0 ? fp_get(&f, m->to_base + slot) : 0;
        ref_lbr_decode(fmt, fr, to, info ? fp_get(&f, m->info_base + slot) : 0, &want);
        if (m->to_base == m->from_base || fmt == 0)
            ref_lbr_decode(0, fr, 0, 0, &want); /* one MSR per record: FROM 31:0, TO 63:32 */
        if (!same_entry(&out[k], &want)) {
            fprintf(stderr, "row %s fmt %u tos %llu k %zu\n", m->uarch, fmt, (unsigned long long)tos, k);
            fuzz_fail("fuzz_lbr_read", "entry k is not slot (TOS - k) mod depth");
        }
    }
    return 0;
}

/* --- identification and format selection ----------------------------------- */

int fuzz_identify(struct in *in)
{
    static struct fake_pmu f;
    static struct ds_cpu cpu;
    static const uint32_t vend[3][3] = {
        { 0x756e6547u, 0x6c65746eu, 0x49656e69u }, /* GenuineIntel (EBX, ECX, EDX) */
        { 0x68747541u, 0x444d4163u, 0x69746e65u }, /* AuthenticAMD */
        { 0x746e6543u, 0x736c7561u, 0x48727561u }, /* CentaurHauls */
    };
    uint8_t v = (uint8_t)take(in, 1);
    fp_reset(&f);
    uint32_t maxl = (uint32_t)take(in, 1) % 0x24;
    const uint32_t *vs = vend[v % 4 == 3 ? 0 : v % 4 == 0 ? 0 : v % 4];
    uint32_t r0[3] = { vs[0], vs[1], vs[2] };
    if ((v & 0xF0) == 0xF0)
        r0[1] = (uint32_t)take(in, 4); /* random vendor string */
    fp_cpuid_set(&f, 0, 0, maxl, r0[0], r0[1], r0[2]);
    uint8_t fam = (v & 8) ? 0xF : 6;
    uint32_t sig = ((uint32_t)take(in, 1) << 4 & 0xF0) | ((uint32_t)fam << 8) | ((uint32_t)(take(in, 1) & 0xF) << 16);
    uint32_t ecx1 = (uint32_t)take(in, 4), edx1 = (uint32_t)take(in, 4);
    if (v & 4) { /* mostly a DS-capable Intel part */
        ecx1 |= (1u << 2) | (1u << 15);
        edx1 |= (1u << 21);
    }
    fp_cpuid_set(&f, 1, 0, sig, 0, ecx1, edx1);
    uint32_t l0a[4];
    for (int i = 0; i < 4; i++)
        l0a[i] = (uint32_t)take(in, 4);
    if (v & 2)
        l0a[0] = (l0a[0] & ~0xFFu) | (2 + (l0a[0] & 3) * 1); /* versions 2..5 mostly */
    fp_cpuid_set(&f, 0xA, 0, l0a[0], l0a[1], l0a[2], l0a[3]);
    fp_cpuid_set(&f, 7, 0, 0, (uint32_t)take(in, 4), (uint32_t)take(in, 4), (uint32_t)take(in, 4));
    uint64_t misc = take(in, 8), caps = take(in, 8);
    if (v & 0x20)
        fp_set(&f, DS_MSR_IA32_MISC_ENABLE, misc);
    if (v & 0x40)
        fp_set(&f, DS_MSR_IA32_PERF_CAPABILITIES, caps);
    bool ia32e = (v & 0x80) != 0;
    memset(&cpu, 0, sizeof(cpu));
    ds_cpu_init(&cpu, &fp_ops, &f);
    ds_cpu_set_ia32e(&cpu, ia32e);
    fp_clear_log(&f);
    int e = ds_cpu_identify(&cpu);
    if (f.writes)
        fuzz_fail("fuzz_identify", "identification wrote an MSR");
    enum ds_layout lay = DS_LAYOUT_NONE;
    enum ds_pebs_fmt fmt = DS_PEBS_FMT_NONE;
    int le = ds_area_layout(&cpu, &lay);
    int fe = ds_pebs_format_select(&cpu, lay, &fmt);
    char txt[256];
    size_t tl = (size_t)take(in, 1);
    if (tl > sizeof(txt))
        tl = sizeof(txt);
    if (ds_caps_format(&cpu.caps, tl ? txt : NULL, tl) == DS_OK && tl && !memchr(txt, 0, tl))
        fuzz_fail("fuzz_identify", "caps text not terminated");
    /* cpu.h: a faulting MISC_ENABLE / PERF_CAPABILITIES read still
     * identifies (the has_* flag stays false) */
    if (e != DS_OK && e != DS_ERR_MSR_FAULT)
        fuzz_fail("fuzz_identify", "identification error not documented");
    if (!cpu.identified) {
        if (le == DS_OK || fe == DS_OK)
            fuzz_fail("fuzz_identify", "layout / format chosen without identification");
        return 0;
    }
    const struct ds_caps *c = &cpu.caps;
    bool intel = !memcmp(r0, vend[0], sizeof(r0));
    if ((c->vendor == DS_VENDOR_INTEL) != intel)
        fuzz_fail("fuzz_identify", "vendor differs from CPUID.0");
    /* SDM CPUID.01H bits (only when leaf 1 exists) */
    if (maxl >= 1 && (c->ds != ((edx1 >> 21) & 1) || c->dtes64 != ((ecx1 >> 2) & 1) || c->pdcm != ((ecx1 >> 15) & 1)))
        fuzz_fail("fuzz_identify", "CPUID.01H DS / DTES64 / PDCM bits misread");
    if (c->has_perf_caps && (c->lbr_format != (c->perf_caps & 0x3F) || c->pebs_format != ((c->perf_caps >> 8) & 0xF)))
        fuzz_fail("fuzz_identify", "PERF_CAPABILITIES fields not at [5:0] / [11:8]");
    /* IA32_PERF_CAPABILITIES bits (SDM Vol. 4 Table 2-2; reference msr.md 4) */
    if (c->has_perf_caps &&
        (c->pebs_trap != ((caps >> 6) & 1) || c->pebs_arch_reg != ((caps >> 7) & 1) ||
         c->smm_freeze != ((caps >> 12) & 1) || c->fw_write != ((caps >> 13) & 1) ||
         c->pebs_baseline != ((caps >> 14) & 1) || c->perf_metrics != ((caps >> 15) & 1) ||
         c->pebs_output_pt != ((caps >> 16) & 1) || c->pebs_timing_info != ((caps >> 17) & 1)))
        fuzz_fail("fuzz_identify", "PERF_CAPABILITIES flag bits misread");
    if (c->has_perf_caps && c->perf_caps != caps)
        fuzz_fail("fuzz_identify", "PERF_CAPABILITIES value differs from the MSR");
    /* DisplayFamily / DisplayModel (SDM Vol. 2A CPUID, "Processor Signature") */
    if (maxl >= 1) {
        uint32_t fm = (sig >> 8) & 0xF, mo = (sig >> 4) & 0xF;
        if (fm == 0xF)
            fm += (sig >> 20) & 0xFF;
        if (fm == 6 || fm == 0xF)
            mo |= ((sig >> 16) & 0xF) << 4;
        char want[48];
        snprintf(want, sizeof(want), "display_family_model: %02X_%02XH\n", fm, mo);
        if (c->display_family != fm || c->display_model != mo)
            fuzz_fail("fuzz_identify", "DisplayFamily/DisplayModel differ from the SDM rule");
        static char full[8192];
        if (ds_caps_format(c, full, sizeof(full)) != DS_OK || !strstr(full, want))
            fuzz_fail("fuzz_identify", "caps text does not show DisplayFamily_DisplayModel");
    }
    /* leaf 0AH (SDM "Architectural Performance Monitoring"): EAX version,
     * GP count/width, EBX length; EBX bit set = event unavailable, bits past
     * the length unavailable; v2+ EDX[4:0] fixed counters, [12:5] width; v5+
     * ECX bitmap: fixed i supported iff ECX[i] || EDX[4:0] > i */
    if (c->has_leaf_0a) {
        uint32_t a = l0a[0], b = l0a[1], cx = l0a[2], d = l0a[3];
        uint32_t def = lowbits(a >> 24);
        if (c->perfmon_version != (a & 0xFF) || c->gp_counters != ((a >> 8) & 0xFF) ||
            c->gp_width != ((a >> 16) & 0xFF) || c->gp_mask != lowbits((a >> 8) & 0xFF) ||
            c->events_unavailable != ((b & def) | ~def))
            fuzz_fail("fuzz_identify", "CPUID.0AH EAX/EBX fields misread");
        uint32_t fmask = (a & 0xFF) >= 2 ? lowbits(d & 0x1F) : 0;
        if ((a & 0xFF) >= 5)
            fmask |= cx;
        if (c->fixed_mask != fmask || ((a & 0xFF) >= 2 && c->fixed_width != ((d >> 5) & 0xFF)))
            fuzz_fail("fuzz_identify", "CPUID.0AH fixed-counter mask / width misread");
    }
    /* PMI: GLOBAL_STATUS decode (each field its bit, counters only those
     * that exist, reserved counter bits unknown) and the acknowledge mask of pmi.h (SDM "IA32_PERF_GLOBAL_STATUS" /
     * "IA32_PERF_GLOBAL_OVF_CTRL" per perfmon version) */
    {
        uint64_t raw = take(in, 8);
        struct ds_pmi_status ps;
        if (ds_pmi_decode(raw, c, &ps) != DS_OK)
            fuzz_fail("fuzz_identify", "ds_pmi_decode failed");
        const struct { bool b; unsigned bit; } bits[] = {
            { ps.ovf_buf, 62 }, { ps.cond_chgd, 63 }, { ps.ctr_frz, 59 }, { ps.lbr_frz, 58 },
            { ps.uncore, 61 }, { ps.asci, 60 }, { ps.topa, 55 }, { ps.perf_metrics, 48 },
        };
        bool bad = ps.raw != raw;
        for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
            bad |= bits[i].b != ((raw >> bits[i].bit) & 1);
        /* counters: GP n at bit n, fixed m at 32 + m (m < 16), only those
         * the CPU has; other bits of 47:0 are reserved, so unknown */
        uint64_t gp = c->has_leaf_0a ? c->gp_mask : 0, fx = c->has_leaf_0a ? c->fixed_mask & 0xFFFF : 0;
        uint64_t ctr = gp | (fx << 32);
        bad |= ps.gp_ovf != (raw & gp) || ps.fixed_ovf != ((raw >> 32) & fx);
        bad |= (ps.unknown & ~raw) || (ps.unknown & (ctr | (3ull << 62)));
        bad |= (raw & ~ctr & 0xFFFFFFFFFFFFull) != (ps.unknown & 0xFFFFFFFFFFFFull);
        if (bad)
            fuzz_fail("fuzz_identify", "GLOBAL_STATUS decode: a field is not its SDM bit");
        uint64_t want = 0;
        unsigned ver = c->has_leaf_0a ? c->perfmon_version : 0;
        if (intel && !c->netburst && ver >= 2) {
            want = c->gp_mask | ((uint64_t)(c->fixed_mask & 0xFFFF) << 32) | (3ull << 62);
            if (ver >= 3)
                want |= 1ull << 61;
            if (ver >= 4)
                want |= 3ull << 58;
            if (ver >= 4 && c->has_perf_caps && c->perf_metrics)
                want |= 1ull << 48;
        }
        /* NetBurst with a leaf 0AH of v2+ exists only here: pmi.c gives it
         * the architectural mask though ds_pmi_init treats NetBurst as
         * having no global MSRs (reported, not checked) */
        if (!c->netburst && ds_pmi_ack_mask(c) != want) {
            fprintf(stderr, "ack %#llx want %#llx (intel %d nb %d leaf0a %d v %u)\n", (unsigned long long)ds_pmi_ack_mask(c), (unsigned long long)want, intel, c->netburst, c->has_leaf_0a, c->perfmon_version);
            fuzz_fail("fuzz_identify", "acknowledge mask differs from pmi.h");
        }
    }
    /* layout: DTES64 -> 64-bit in every mode, else IA-32e decides (SDM) */
    if (le == DS_OK && lay != ((c->dtes64 || ia32e) ? DS_LAYOUT_64 : DS_LAYOUT_32))
        fuzz_fail("fuzz_identify", "DS layout differs from the SDM rule");
    if (fe == DS_OK) {
        if (!intel || !c->ds || !c->pebs_advertised)
            fuzz_fail("fuzz_identify", "PEBS format chosen for a CPU without PEBS");
        if (c->netburst) {
            if (fmt != (lay == DS_LAYOUT_32 ? DS_PEBS_FMT_NB32 : DS_PEBS_FMT_NB64))
                fuzz_fail("fuzz_identify", "NetBurst format not by layout");
        } else if (!c->has_perf_caps || c->pebs_format > 6 || lay != DS_LAYOUT_64 ||
                   fmt != (enum ds_pebs_fmt)(0x100 + c->pebs_format)) {
            fuzz_fail("fuzz_identify", "PEBS format is not PERF_CAPABILITIES[11:8] (0-6, 64-bit layout)");
        }
        uint32_t mg = 0;
        if (ds_pebs_thresh_margin(&cpu, fmt, &mg) == DS_OK && mg == 0)
            fuzz_fail("fuzz_identify", "PEBS margin of zero records");
    } else if (intel && c->ds && c->pebs_advertised && !c->netburst && c->has_perf_caps &&
               c->pebs_format <= 6 && lay == DS_LAYOUT_64 && fe != DS_ERR_UNSUPPORTED) {
        fuzz_fail("fuzz_identify", "a valid PEBS format 0-6 refused");
    }
    return 0;
}

/* --- NetBurst raw programming and PMC periods ------------------------------ */

/* ESCR addresses of reference netburst.md "ESCR MSRs" (45 SDM ESCRs; 0x3BF,
 * Linux's guessed MSR_SSU_ESCR1, is not one; IQ_ESCR0/1 0x3BA/0x3BB only on
 * models 01H-02H). */
static bool ref_escr(uint32_t msr, unsigned model)
{
    if (msr == 0x3BA || msr == 0x3BB)
        return model == 1 || model == 2;
    return (msr >= 0x3A0 && msr <= 0x3BE) || (msr >= 0x3C0 && msr <= 0x3C5) ||
           (msr >= 0x3C8 && msr <= 0x3CD) || msr == 0x3E0 || msr == 0x3E1;
}

int fuzz_netburst(struct in *in)
{
    static struct fake_pmu f;
    static struct ds_cpu cpu;
    unsigned model = (unsigned)take(in, 1) % 7;
    fp_reset(&f);
    fp_intel(&f, 0x2, 0xF00u | (model << 4), 0, 1u << 21);
    fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    for (uint32_t m = 0x300; m < 0x312; m++)
        fp_set(&f, m, 0);            /* counters */
    for (uint32_t m = 0x360; m < 0x372; m++)
        fp_set(&f, m, 0);            /* CCCRs */
    for (uint32_t m = 0x3A0; m <= 0x3E1; m++)
        fp_set(&f, m, 0);            /* every address an ESCR could be at */
    memset(&cpu, 0, sizeof(cpu));
    if (ds_cpu_init(&cpu, &fp_ops, &f) || ds_cpu_identify(&cpu))
        return 0;
    unsigned counter = (unsigned)take(in, 1) % 20;
    uint32_t escr = 0x39E + (uint32_t)take(in, 1) % 0x48;
    uint8_t k = (uint8_t)take(in, 1);
    uint64_t ev = (k & 1) ? take(in, 8) : take(in, 4) & DS_NB_ESCR_VALID;
    uint64_t cc = (k & 2) ? take(in, 8) : take(in, 4) & DS_NB_CCCR_VALID;
    uint64_t start = (k & 4) ? take(in, 8) : take(in, 5);
    fp_clear_log(&f);
    int e = ds_nb_program_raw(&cpu, counter, escr, ev, cc, start);
    bool valid = counter < 18 && ref_escr(escr, model) && !(ev & ~DS_NB_ESCR_VALID) &&
                 !(cc & ~DS_NB_CCCR_VALID) && start < (1ull << 40);
    if (!valid) {
        if (e == DS_OK || f.writes)
            fuzz_fail("fuzz_netburst", "invalid raw programming accepted or wrote an MSR");
    } else {
        /* netburst.h: CCCR = 0, ESCR, counter twice (erratum N15), CCCR */
        if (e != DS_OK || f.nlog != 5 || f.log[0].msr != 0x360 + counter || f.log[0].val ||
            f.log[1].msr != escr || f.log[1].val != ev || f.log[2].msr != 0x300 + counter ||
            f.log[2].val != start || f.log[3].msr != 0x300 + counter || f.log[4].msr != 0x360 + counter ||
            f.log[4].val != cc)
            fuzz_fail("fuzz_netburst", "valid raw programming not the documented write sequence");
    }
    /* mask names for any event index, table size and one past it included */
    size_t nev;
    ds_nb_events(&nev);
    unsigned event = (unsigned)(take(in, 1) % (nev + 2));
    char names[64];
    size_t nn = in->n < sizeof(names) - 1 ? in->n : sizeof(names) - 1;
    memcpy(names, in->p, nn);
    names[nn] = 0;
    uint32_t mask = 0;
    e = ds_nb_mask_parse(event, names, &mask);
    if (event >= nev && e != DS_ERR_NB_BAD_EVENT)
        fuzz_fail("fuzz_netburst", "event index beyond the table not refused");
    return 0;
}

int fuzz_period(struct in *in)
{
    unsigned width = (unsigned)take(in, 1) % 72;
    bool fw = take(in, 1) & 1;
    uint8_t sh = (uint8_t)take(in, 1) % 66;
    uint64_t p = take(in, 8);
    if (sh < 64)
        p = (1ull << sh) + (uint64_t)(int64_t)(int8_t)(p & 0xFF) % 3; /* around powers of two */
    uint64_t s = 77, r = 77;
    int e = ds_pmc_period_values(width, fw, p, &s, &r);
    /* pmc.h: usable width = width, or 32 without full-width writes; period
     * 1..2^(usable - 1); start = reset = (-period) mod 2^width */
    unsigned use = fw || width < 32 ? width : 32;
    int want = width < 8 || width > 64 ? DS_ERR_INVAL : p == 0 ? DS_ERR_PMC_PERIOD_ZERO
             : p > (1ull << (use - 1)) ? DS_ERR_PMC_PERIOD_WIDE : DS_OK;
    uint64_t m = width >= 64 ? ~0ull : (1ull << width) - 1;
    if (e != want)
        fuzz_fail("fuzz_period", "error differs from the pmc.h contract");
    if (e == DS_OK && (s != ((0 - p) & m) || r != s))
        fuzz_fail("fuzz_period", "start/reset is not (-period) mod 2^width");
    if (e != DS_OK && (s != 77 || r != 77))
        fuzz_fail("fuzz_period", "outputs written on error");
    return 0;
}
