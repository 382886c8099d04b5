/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Architectural PEBS (ds/arch_pebs.h): detection on the real Panther Lake
 * CPUID words, buffer setup and the BASE/INDEX MSRs, CFG_C programming, the
 * record decoder (every group, fragments, bounds) and the drain.
 *
 * Expectations are independent of libds:
 *  - CPUID words copied from ../shared/cpuid/
 *    GenuineIntel00C06C3_PantherLakeL_01_CPUID.txt (logical CPU #0, Cougar
 *    Cove P-core; logical CPU #4, Darkmont E-core) and decoded by hand;
 *  - records are built by the byte-level encoder below, transcribed from
 *    the Linux structs (arch/x86/include/asm/perf_event.h struct
 *    arch_pebs_header, arch_pebs_basic, arch_pebs_aux, arch_pebs_gprs,
 *    arch_pebs_xer_header + pebs_xmm, arch_pebs_lbr_header + lbr_entry,
 *    arch_pebs_cntr_header), with its own bit constants (not DS_APEBS_*);
 *  - MSR numbers and field positions from Linux msr-index.h and union
 *    arch_pebs_index, written here as literals.
 */
#include "check.h"
#include "fake_cpu.h"
#include <ds/ds.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* --- Encoder (Linux struct arch_pebs_header bit fields, own constants) ----- */
#define E_CONT    (1ull << 31)
#define E_MODE64  (1ull << 30)
#define E_CNTR(x) ((uint64_t)(x) << 35) /* cntr:5 at bit 35 */
#define E_LBR(x)  ((uint64_t)(x) << 40) /* lbr:2 at bit 40 */
#define E_XMM     (1ull << 49)
#define E_YMMH    (1ull << 50)
#define E_OPMASK  (1ull << 53)
#define E_ZMMH    (1ull << 54)
#define E_H16ZMM  (1ull << 55)
#define E_VEC     (E_XMM | E_YMMH | E_OPMASK | E_ZMMH | E_H16ZMM)
#define E_GPR     (1ull << 61)
#define E_AUX     (1ull << 62)
#define E_BASIC   (1ull << 63)

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* What one record carries; the encoder lays it out. */
struct spec {
    uint64_t ip, applicable, tsc;
    uint16_t retire;
    int retire_valid;
    uint64_t addr, aux, lat, tsx;
    uint64_t flags, regs[16], ssp;
    uint64_t xmm[32];
    uint64_t ymmh[32], opmask[8], zmmh[64], h16zmm[128]; /* Linux struct arch_pebs_ymmh/_opmask/_zmmh/_h16zmm */
    uint64_t xstate;
    unsigned lbr_sel;        /* header lbr field */
    uint64_t lbr_depth;      /* lbr header depth (used with sel 3) */
    unsigned nlbr;           /* entries actually emitted */
    uint32_t cgp, cfx, cmet; /* counters group header */
    unsigned ncvals;
    uint64_t cvals[48];
};

static void spec_init(struct spec *s, uint64_t seed)
{
    memset(s, 0, sizeof(*s));
    s->ip = 0xFFFFFFFF81000000ull + seed * 0x10;
    s->applicable = 1ull << (seed % 8);
    s->tsc = 0x1000000ull * (seed + 1);
    s->retire = (uint16_t)(100 + seed);
    s->retire_valid = 1;
    s->addr = 0x7F0000001000ull + seed;
    s->aux = 0x11 + seed;
    s->lat = (0x0222ull << 32) | 0x0111 | (seed << 16);
    s->tsx = 0x5A5A + seed;
    s->flags = 0x246;
    for (int i = 0; i < 16; i++)
        s->regs[i] = 0x1000 * (seed + 1) + (uint64_t)i;
    s->ssp = 0xFFFF880000F00000ull + seed;
    for (int i = 0; i < 32; i++)
        s->xmm[i] = 0xAB00000000000000ull | (seed << 8) | (uint64_t)i;
    for (int i = 0; i < 32; i++)
        s->ymmh[i] = 0xBC00000000000000ull | (seed << 8) | (uint64_t)i;
    for (int i = 0; i < 8; i++)
        s->opmask[i] = 0xCD00000000000000ull | (seed << 8) | (uint64_t)i;
    for (int i = 0; i < 64; i++)
        s->zmmh[i] = 0xDE00000000000000ull | (seed << 8) | (uint64_t)i;
    for (int i = 0; i < 128; i++)
        s->h16zmm[i] = 0xEF00000000000000ull | (seed << 8) | (uint64_t)i;
    s->xstate = 0x2;
}

/* Emit one fragment at p with the groups in @hdr_bits (plus @pad extra bytes
 * counted in the size field). Returns its size. Offsets: Linux struct order
 * header, basic, aux, gprs, xer+xmm, lbr header+entries, cntr header+values. */
static size_t frag(unsigned char *p, const struct spec *s, uint64_t hdr_bits, size_t pad)
{
    size_t at = 16;
    if (hdr_bits & E_BASIC) {
        put64(p + at, s->ip);
        put64(p + at + 8, s->applicable);
        put64(p + at + 16, s->tsc);
        put64(p + at + 24, (uint64_t)s->retire | ((uint64_t)(s->retire_valid != 0) << 16) | (0x7ull << 20));
        put64(p + at + 32, 0xEEEEEEEEull); /* reserved */
        put64(p + at + 40, 0xEEEEEEEEull);
        at += 48;
    }
    if (hdr_bits & E_AUX) {
        put64(p + at, s->addr);
        for (int i = 1; i <= 4; i++)
            put64(p + at + 8 * i, 0xDDDDDDDDull); /* rsvd..rsvd4 */
        put64(p + at + 40, s->aux);
        put64(p + at + 48, s->lat);
        put64(p + at + 56, s->tsx);
        at += 64;
    }
    if (hdr_bits & E_GPR) {
        put64(p + at, s->flags);
        put64(p + at + 8, s->ip + 1); /* GPR-group ip: not the eventing ip */
        for (int i = 0; i < 16; i++)
            put64(p + at + 16 + 8 * i, s->regs[i]);
        put64(p + at + 144, s->ssp);
        put64(p + at + 152, 0xCCCCCCCCull);
        at += 160;
    }
    if (hdr_bits & E_VEC) { /* XER header, then XMM, YMMH, OPMASK, ZMMH, H16ZMM as present */
        put64(p + at, s->xstate);
        put64(p + at + 8, 0);
        at += 16;
        if (hdr_bits & E_XMM)
            for (int i = 0; i < 32; i++, at += 8)
                put64(p + at, s->xmm[i]);
        if (hdr_bits & E_YMMH)
            for (int i = 0; i < 32; i++, at += 8)
                put64(p + at, s->ymmh[i]);
        if (hdr_bits & E_OPMASK)
            for (int i = 0; i < 8; i++, at += 8)
                put64(p + at, s->opmask[i]);
        if (hdr_bits & E_ZMMH)
            for (int i = 0; i < 64; i++, at += 8)
                put64(p + at, s->zmmh[i]);
        if (hdr_bits & E_H16ZMM)
            for (int i = 0; i < 128; i++, at += 8)
                put64(p + at, s->h16zmm[i]);
    }
    if (hdr_bits & E_LBR(3)) {
        put64(p + at, 0);
        put64(p + at + 8, 0x7F000F); /* ctl */
        put64(p + at + 16, s->lbr_depth);
        put64(p + at + 24, 0x111);
        put64(p + at + 32, 0x222);
        put64(p + at + 40, 0x333);
        at += 48;
        for (unsigned i = 0; i < s->nlbr; i++) {
            put64(p + at, 0x400000 + i);
            put64(p + at + 8, 0x500000 + i);
            put64(p + at + 16, 0x600000 + i);
            at += 24;
        }
    }
    if (hdr_bits & E_CNTR(0x1F)) {
        put32(p + at, s->cgp);
        put32(p + at + 4, s->cfx);
        put32(p + at + 8, s->cmet);
        put32(p + at + 12, 0);
        at += 16;
        for (unsigned i = 0; i < s->ncvals; i++, at += 8)
            put64(p + at, s->cvals[i]);
    }
    size_t size = at + pad;
    for (size_t i = at; i < size; i++)
        p[i] = 0xFE;
    put64(p, hdr_bits | (uint64_t)size);
    put64(p + 8, 0); /* rsvd6 */
    return size;
}

/* --- Panther Lake fake CPU (CPUID words from the dump) -------------------- */

static void ptl(struct fake_cpu *f, int ecore)
{
    memset(f, 0, sizeof(*f));
    /* GenuineIntel00C06C3_PantherLakeL_01_CPUID.txt, CPU #0 (P) / #4 (E) */
    fake_set_cpuid(f, 0, 0, 0x00000028, 0x756E6547, 0x6C65746E, 0x49656E69);
    fake_set_cpuid(f, 1, 0, 0x000C06C3, ecore ? 0x40800800 : 0x00800800, 0x7FFAFBFF, 0xBFEBFBFF);
    fake_set_cpuid(f, 0xA, 0, 0x0D300806, 0x00000280, 0x00000007, 0x00008603);
    fake_set_cpuid(f, 0x1A, 0, ecore ? 0x20000004 : 0x40000004, 0, 0, 0);
    fake_set_cpuid(f, 0x23, 0, ecore ? 0x3F : 0x3B, 3, ecore ? 8 : 0, 0);
    fake_set_cpuid(f, 0x23, 1, ecore ? 0xFF : 0x3FF, ecore ? 0x77 : 0xF, 0, 0);
    fake_set_cpuid(f, 0x23, 4, 0, ecore ? 0x60060338 : 0x60060378, 0, 0);
    fake_set_cpuid(f, 0x23, 5, ecore ? 0xFF : 0x3FF, 3, ecore ? 0x77 : 0xF, 1);
    fake_set_cpuid(f, 0x80000000u, 0, 0x80000008u, 0, 0, 0);
    fake_set_cpuid(f, 0x80000008u, 0, 0x0000302E, 0x00000200, 0, 0);
    /* MSR values are not in the dump: PERF_CAPABILITIES is constructed with
     * PEBS_FMT = 0xF (Linux intel_pebs_init) and LBR format 0x3F (Arch LBR). */
    fake_set_msr(f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fake_set_msr(f, DS_MSR_IA32_PERF_CAPABILITIES, 0xF00 | 0x3F);
    fake_set_msr(f, 0x3F4, 0); /* IA32_PEBS_BASE */
    fake_set_msr(f, 0x3F5, 0); /* IA32_PEBS_INDEX */
    for (unsigned i = 0; i < 10; i++)
        fake_set_msr(f, 0x1903 + 4 * i, 0); /* IA32_PMC_GPi_CFG_C */
    for (unsigned i = 0; i < 7; i++)
        fake_set_msr(f, 0x1983 + 4 * i, 0); /* IA32_PMC_FXi_CFG_C */
}

static void set_cpuid_word(struct fake_cpu *f, uint32_t leaf, uint32_t sub, int reg, uint32_t v)
{
    for (int i = 0; i < f->nleaves; i++)
        if (f->leaves[i].leaf == leaf && f->leaves[i].sub == sub)
            f->leaves[i].r[reg] = v;
}

static int ident(struct fake_cpu *f, struct ds_cpu *cpu)
{
    ds_cpu_init(cpu, &fake_ops, f);
    return ds_cpu_identify(cpu);
}

static void test_detect_ptl(void)
{
    for (int e = 0; e < 2; e++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        struct ds_arch_pebs_caps c;
        ptl(&f, e);
        CHECK_EQ(ident(&f, &cpu), DS_OK, "identify");
        unsigned r0 = f.reads;
        CHECK_EQ(ds_arch_pebs_detect(&cpu, &c), DS_OK, "PTL %s: arch PEBS", e ? "E" : "P");
        CHECK_EQ(f.reads, r0, "detect reads no MSR");
        /* 23H.4 EBX 60060378 (P) / 60060338 (E): bits 3-6 (P) or 3-5 (E), 8-9, 17-18, 29-30 */
        CHECK_EQ(c.cfg_c_caps, (e ? 0x60060338ull : 0x60060378ull) << 32, "caps = EBX << 32");
        CHECK(c.cfg_c_caps & (1ull << 62) && c.cfg_c_caps & (1ull << 61) && c.cfg_c_caps & (1ull << 49),
              "AUX, GPR, XMM enumerated");
        CHECK_EQ((c.cfg_c_caps >> 40) & 3, 3, "LBR field enumerated");
        CHECK_EQ(!!(c.cfg_c_caps & (1ull << 38)), !e, "METRICS only on the P-core");
        CHECK_EQ(c.gp_mask, e ? 0xFFu : 0x3FFu, "23H.5 EAX");
        CHECK_EQ(c.pdist_gp_mask, 3, "23H.5 EBX");
        CHECK_EQ(c.fixed_mask, e ? 0x77u : 0xFu, "23H.5 ECX");
        CHECK_EQ(c.pdist_fixed_mask, 1, "23H.5 EDX");
        CHECK_EQ(c.phys_bits, 46, "80000008H EAX[7:0] = 0x2E");
    }
}

static void test_detect_errors(void)
{
    struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_arch_pebs_caps c;

    CHECK_EQ(ds_arch_pebs_detect(NULL, &c), DS_ERR_NULL, "NULL cpu");
    ptl(&f, 0);
    ds_cpu_init(&cpu, &fake_ops, &f);
    CHECK_EQ(ds_arch_pebs_detect(&cpu, NULL), DS_ERR_NULL, "NULL out");
    CHECK_EQ(ds_arch_pebs_detect(&cpu, &c), DS_ERR_NOT_IDENTIFIED, "not identified");

    /* PEBS_FMT 6 (Lunar Lake): not architectural */
    ptl(&f, 0);
    fake_set_msr(&f, DS_MSR_IA32_PERF_CAPABILITIES, 0x600 | 0x3F);
    ident(&f, &cpu);
    CHECK_EQ(ds_arch_pebs_detect(&cpu, &c), DS_ERR_APEBS_NOT_ENUMERATED, "PEBS_FMT 6");
    CHECK_EQ(c.gp_mask | c.fixed_mask | c.cfg_c_caps, 0, "out zeroed on error");

    /* only sub-leaf 4 (EAX bit 5 clear): Linux requires both */
    ptl(&f, 0);
    set_cpuid_word(&f, 0x23, 0, 0, 0x1B);
    ident(&f, &cpu);
    CHECK_EQ(ds_arch_pebs_detect(&cpu, &c), DS_ERR_APEBS_NOT_ENUMERATED, "23H.0 EAX[5] clear");
    ptl(&f, 0);
    set_cpuid_word(&f, 0x23, 0, 0, 0x2B);
    ident(&f, &cpu);
    CHECK_EQ(ds_arch_pebs_detect(&cpu, &c), DS_ERR_APEBS_NOT_ENUMERATED, "23H.0 EAX[4] clear");

    /* sub-leaf 5 bitmaps must be subsets of the counters (23H.1) */
    ptl(&f, 0);
    set_cpuid_word(&f, 0x23, 5, 0, 0x7FF);
    ident(&f, &cpu);
    CHECK_EQ(ds_arch_pebs_detect(&cpu, &c), DS_ERR_APEBS_MASKS, "PEBS GP 10 does not exist");
    ptl(&f, 1);
    set_cpuid_word(&f, 0x23, 5, 3, 0x8); /* PDIST fixed 3: E-core has 0x77 */
    ident(&f, &cpu);
    CHECK_EQ(ds_arch_pebs_detect(&cpu, &c), DS_ERR_APEBS_MASKS, "PDIST fixed 3 does not exist on the E-core");
    ptl(&f, 1);
    set_cpuid_word(&f, 0x23, 5, 2, 0xF7); /* PEBS fixed 7 */
    ident(&f, &cpu);
    CHECK_EQ(ds_arch_pebs_detect(&cpu, &c), DS_ERR_APEBS_MASKS, "PEBS fixed 7 does not exist");

    /* no PDCM: no PERF_CAPABILITIES */
    ptl(&f, 0);
    set_cpuid_word(&f, 1, 0, 2, 0x7FFAFBFF & ~(1u << 15));
    ident(&f, &cpu);
    CHECK_EQ(ds_arch_pebs_detect(&cpu, &c), DS_ERR_NO_PDCM, "no PDCM");

    /* no 80000008H: MAXPHYADDR 36 with PAE (01H EDX bit 6 set in the dump) */
    ptl(&f, 0);
    set_cpuid_word(&f, 0x80000000u, 0, 0, 0x80000004u);
    ident(&f, &cpu);
    CHECK_EQ(ds_arch_pebs_detect(&cpu, &c), DS_OK, "detect");
    CHECK_EQ(c.phys_bits, 36, "no 80000008H: 36");
}

/* --- Format selection (pebs.h: the one place libds chooses a PEBS format) ---- */

static void test_format_select(void)
{
    struct fake_cpu f;
    struct ds_cpu cpu;
    enum ds_pebs_fmt fmt;
    for (int e = 0; e < 2; e++) {
        for (int lay = 0; lay < 2; lay++) {
            ptl(&f, e);
            ident(&f, &cpu);
            fmt = DS_PEBS_FMT_NONE;
            CHECK_EQ(ds_pebs_format_select(&cpu, lay ? DS_LAYOUT_32 : DS_LAYOUT_64, &fmt), DS_OK,
                     "PTL %s layout %d", e ? "E" : "P", lay);
            CHECK_EQ(fmt, DS_PEBS_FMT_ARCH, "PTL %s: architectural", e ? "E" : "P");
        }
    }
    /* Linux intel_pebs_init takes the arch path on PEBS_FMT 0xF alone:
     * DS (CPUID.01H:EDX[21]) and MISC_ENABLE[12] are DS-PEBS conditions. */
    ptl(&f, 0);
    set_cpuid_word(&f, 1, 0, 3, 0xBFEBFBFF & ~(1u << 21));
    ident(&f, &cpu);
    CHECK_EQ(ds_pebs_format_select(&cpu, DS_LAYOUT_64, &fmt), DS_OK, "no DS bit");
    CHECK_EQ(fmt, DS_PEBS_FMT_ARCH, "no DS bit: still architectural");
    ptl(&f, 1);
    fake_set_msr(&f, DS_MSR_IA32_MISC_ENABLE, (1u << 7) | (1u << 12));
    ident(&f, &cpu);
    CHECK_EQ(ds_pebs_format_select(&cpu, DS_LAYOUT_64, &fmt), DS_OK, "MISC_ENABLE PEBS_UNAVAILABLE");
    CHECK_EQ(fmt, DS_PEBS_FMT_ARCH, "PEBS_UNAVAILABLE: still architectural");
    /* PEBS_FMT 0xF but the detection fails: its error, no format */
    ptl(&f, 0);
    set_cpuid_word(&f, 0x23, 0, 0, 0x2B);
    ident(&f, &cpu);
    fmt = DS_PEBS_FMT_NONE;
    CHECK_EQ(ds_pebs_format_select(&cpu, DS_LAYOUT_64, &fmt), DS_ERR_APEBS_NOT_ENUMERATED, "23H.0 EAX[4] clear");
    CHECK_EQ(fmt, DS_PEBS_FMT_NONE, "no format on error");
    ptl(&f, 0);
    set_cpuid_word(&f, 0x23, 5, 0, 0x7FF);
    ident(&f, &cpu);
    CHECK_EQ(ds_pebs_format_select(&cpu, DS_LAYOUT_64, &fmt), DS_ERR_APEBS_MASKS, "bad 23H.5 bitmap");
    /* PTL with PERF_CAPABILITIES PEBS_FMT 6 (what Lunar Lake reports): legacy */
    ptl(&f, 0);
    fake_set_msr(&f, DS_MSR_IA32_PERF_CAPABILITIES, 0x600 | 0x3F);
    ident(&f, &cpu);
    CHECK_EQ(ds_pebs_format_select(&cpu, DS_LAYOUT_64, &fmt), DS_OK, "PEBS_FMT 6");
    CHECK_EQ(fmt, DS_PEBS_FMT_6, "PEBS_FMT 6 stays adaptive format 6");
    /* Skylake (PEBS_FMT 3) and Ice Lake (PEBS_FMT 4) keep their formats */
    fake_skylake_pmu(&f);
    ident(&f, &cpu);
    CHECK_EQ(ds_pebs_format_select(&cpu, DS_LAYOUT_64, &fmt), DS_OK, "Skylake");
    CHECK_EQ(fmt, DS_PEBS_FMT_3, "Skylake: format 3");
    fake_icelake(&f);
    ident(&f, &cpu);
    CHECK_EQ(ds_pebs_format_select(&cpu, DS_LAYOUT_64, &fmt), DS_OK, "Ice Lake");
    CHECK_EQ(fmt, DS_PEBS_FMT_4, "Ice Lake: format 4");

    /* The DS area refuses a PEBS buffer on the arch-PEBS CPU (records
     * would never land there), and still takes BTS. */
    static union ds_area area;
    static unsigned char pebs[48 * 16] __attribute__((aligned(64)));
    static unsigned char bts[24 * 64] __attribute__((aligned(64)));
    struct ds_ctx ctx;
    struct ds_area_config c;
    memset(&ctx, 0, sizeof(ctx));
    memset(&c, 0, sizeof(c));
    ptl(&f, 0);
    ident(&f, &cpu);
    c.area = &area;
    c.pebs.mem = pebs;
    c.pebs.bytes = sizeof(pebs);
    CHECK_EQ(ds_area_setup(&ctx, &cpu, &c), DS_ERR_APEBS_DS_AREA, "DS-area PEBS buffer on PTL");
    CHECK(!ctx.setup, "not set up");
    c.pebs.mem = NULL;
    c.pebs.bytes = 0;
    c.bts.mem = bts;
    c.bts.bytes = sizeof(bts);
    CHECK_EQ(ds_area_setup(&ctx, &cpu, &c), DS_OK, "BTS alone on PTL");
}

/* --- Setup, install, enable --------------------------------------------------- */

static unsigned char buf8k[8192] __attribute__((aligned(4096)));

static struct ds_arch_pebs_config cfg_of(void *mem, uint64_t phys, unsigned code, uint64_t thresh)
{
    struct ds_arch_pebs_config c;
    c.mem = mem;
    c.phys = phys;
    c.size_code = code;
    c.thresh = thresh;
    return c;
}

/* Bad-input table: every setup validation and its code. */
static void test_setup_table(void)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_arch_pebs ap;
    ptl(&f, 0);
    ident(&f, &cpu);
    void *pg = (void *)(uintptr_t)0x40000000u; /* never dereferenced by setup */
    const uint64_t top46 = 1ull << 46;
    struct {
        struct ds_arch_pebs_config c;
        int want;
        const char *what;
    } t[] = {
        { cfg_of(pg, 0x100000, 0, 0), DS_OK, "4 KiB, default threshold" },
        { cfg_of(pg, 0x100000, 15, 0), DS_OK, "size code 15 (128 MiB)" },
        { cfg_of(pg, 0x100000, 16, 0), DS_ERR_APEBS_SIZE_CODE, "size code 16" },
        { cfg_of((void *)(uintptr_t)0x40000800u, 0x100000, 0, 0), DS_ERR_APEBS_MEM_ALIGN, "pointer not 4 KiB aligned" },
        { cfg_of((void *)(uintptr_t)0x40000010u, 0x100000, 0, 0), DS_ERR_APEBS_MEM_ALIGN, "pointer 16-byte aligned only" },
        { cfg_of(pg, 0x100800, 0, 0), DS_ERR_APEBS_BASE_ALIGN, "physical not 4 KiB aligned" },
        { cfg_of(pg, 0x100008, 0, 0), DS_ERR_APEBS_BASE_ALIGN, "physical low bits (would alias the size code)" },
        /* bit 0 alone (blind seed 9931: `PAGE - 1` -> `PAGE - 2` survived) */
        { cfg_of(pg, 0x100001, 0, 0), DS_ERR_APEBS_BASE_ALIGN, "physical bit 0 set" },
        { cfg_of((void *)(uintptr_t)0x40000001u, 0x100000, 0, 0), DS_ERR_APEBS_MEM_ALIGN, "pointer bit 0 set" },
        { cfg_of(pg, top46 - 4096, 0, 0), DS_OK, "last page below MAXPHYADDR 46" },
        { cfg_of(pg, top46 - 4096, 1, 0), DS_ERR_APEBS_PHYS_ADDR, "8 KiB crossing 2^46" },
        { cfg_of(pg, top46, 0, 0), DS_ERR_APEBS_PHYS_ADDR, "at 2^46" },
        { cfg_of(pg, ~0xFFFull, 0, 0), DS_ERR_APEBS_PHYS_ADDR, "top of 64-bit space" },
        { cfg_of(pg, 0x100000, 1, 8), DS_ERR_APEBS_THRESH_ALIGN, "threshold 8" },
        { cfg_of(pg, 0x100000, 1, 8200), DS_ERR_APEBS_THRESH_ALIGN, "threshold 8200" },
        { cfg_of(pg, 0x100000, 1, 8192), DS_ERR_APEBS_THRESH_RANGE, "threshold = buffer size" },
        { cfg_of(pg, 0x100000, 1, 8192 + 16), DS_ERR_APEBS_THRESH_RANGE, "threshold beyond the buffer" },
        { cfg_of(pg, 0x100000, 1, 8192 - 16), DS_OK, "threshold one unit short" },
        { cfg_of(pg, 0x100000, 1, 16), DS_OK, "threshold 16 (a PMI per record)" },
        { cfg_of(NULL, 0x100000, 0, 0), DS_ERR_NULL, "NULL mem" },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        memset(&ap, 0x55, sizeof(ap));
        int e = ds_arch_pebs_setup(&ap, &cpu, &t[i].c);
        CHECK_EQ(e, t[i].want, "setup: %s", t[i].what);
        CHECK_EQ(ap.setup, e == DS_OK, "setup flag: %s", t[i].what);
    }
    CHECK_EQ(f.writes, 0, "setup writes no MSR");

    struct ds_arch_pebs_config c = cfg_of(pg, 0x100000, 4, 0);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_OK, "64 KiB");
    CHECK_EQ(ap.bytes, 65536, "4 KiB << 4");
    CHECK_EQ(ap.thresh, 65536 - 4096, "default: one page short (ARCH_PEBS_THRESH_MULTI)");
    CHECK_EQ(ap.base_msr, 0x100004, "BASE = phys | 4");
    c = cfg_of(pg, 0x100000, 0, 0);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_OK, "4 KiB");
    CHECK_EQ(ap.thresh, 16, "4 KiB default: 16 (ARCH_PEBS_THRESH_SINGLE)");
    CHECK_EQ(ds_arch_pebs_setup(NULL, &cpu, &c), DS_ERR_NULL, "NULL ap");
    CHECK_EQ(ds_arch_pebs_setup(&ap, NULL, &c), DS_ERR_NULL, "NULL cpu");
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, NULL), DS_ERR_NULL, "NULL cfg");

    /* a CPU without arch PEBS: the detection error */
    ptl(&f, 0);
    fake_set_msr(&f, DS_MSR_IA32_PERF_CAPABILITIES, 0x500);
    ident(&f, &cpu);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_ERR_APEBS_NOT_ENUMERATED, "fmt 5 CPU");
}

/*
 * IA32_PEBS_BASE size-code width. No source reachable here documents the
 * field: the Intel ISE chapter is not available, and the Linux series
 * defines no size mask (msr-index.h has MSR_IA32_PEBS_BASE 0x3f4,
 * ARCH_PEBS_OFFSET_MASK 0x7fffff, ARCH_PEBS_INDEX_WR_SHIFT 4 only; ds.c
 * init_arch_pebs_on_cpu writes virt_to_phys(buf) | PEBS_BUFFER_SHIFT,
 * "Buffer Size = 4KB * 2^SIZE"; KVM stores the MSR unchecked). The bound is
 * derived from what IS documented: the write offset is 23 bits
 * (ARCH_PEBS_OFFSET_MASK) of 16-byte units, so a buffer can hold at most
 * (0x7fffff + 1) * 16 bytes = 128 MiB = 4 KiB << 15. Computed here from the
 * transcribed constants, not from DS_APEBS_*: the largest code is accepted
 * (and written to BASE bits 3:0 with bits 11:4 clear), the next refused.
 */
static void test_size_code_width(void)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_arch_pebs ap;
    ptl(&f, 0);
    ident(&f, &cpu);
    const uint64_t offset_mask = 0x7fffff, wr_shift = 4; /* Linux msr-index.h */
    const uint64_t max_bytes = (offset_mask + 1) << wr_shift;
    unsigned max_code = 0;
    while ((4096ull << (max_code + 1)) <= max_bytes)
        max_code++;
    CHECK_EQ(max_bytes, 128ull << 20, "INDEX addresses 128 MiB");
    CHECK_EQ(max_code, 15, "largest size code whose buffer INDEX can address");
    void *pg = (void *)(uintptr_t)0x40000000u; /* never dereferenced by setup/install */
    const uint64_t phys = 1ull << 40;
    struct ds_arch_pebs_config c = cfg_of(pg, phys, max_code, 0);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_OK, "size code %u (maximum)", max_code);
    CHECK_EQ(ap.bytes, max_bytes, "4 KiB << %u bytes", max_code);
    /* the last 16-byte unit of the buffer is still an INDEX offset */
    CHECK_EQ(((ap.bytes - 16) >> wr_shift) & ~offset_mask, 0, "last unit addressable");
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_OK, "install at the maximum");
    CHECK_EQ(fake_get_msr(&f, 0x3F4), phys | max_code, "BASE = phys | code");
    CHECK_EQ(fake_get_msr(&f, 0x3F4) & 0xFF0, 0, "BASE bits 11:4 clear");
    /* maximum at the top of MAXPHYADDR 46: fits exactly, one page higher not */
    c = cfg_of(pg, (1ull << 46) - max_bytes, max_code, 0);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_OK, "128 MiB ending at 2^46");
    c = cfg_of(pg, (1ull << 46) - max_bytes + 4096, max_code, 0);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_ERR_APEBS_PHYS_ADDR, "128 MiB crossing 2^46");
    const unsigned bad[] = { max_code + 1, 0x1F, 0xFF, 63, 64, 0xFFFFFFFFu };
    unsigned w = f.writes;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        c = cfg_of(pg, phys, bad[i], 0);
        CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_ERR_APEBS_SIZE_CODE, "size code %u refused", bad[i]);
        CHECK(!ap.setup, "size code %u: not set up", bad[i]);
    }
    CHECK_EQ(f.writes, w, "refused codes write no MSR");
}

static void test_install_enable(void)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_arch_pebs ap;
    ptl(&f, 0);
    ident(&f, &cpu);
    struct ds_arch_pebs_config c = cfg_of(buf8k, 0x2000000, 1, 4096);

    CHECK_EQ(ds_arch_pebs_install(NULL), DS_ERR_NULL, "NULL");
    memset(&ap, 0, sizeof(ap));
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_ERR_APEBS_NOT_SETUP, "install before setup");
    CHECK_EQ(ds_arch_pebs_enable(&ap), DS_ERR_APEBS_NOT_INSTALLED, "enable before install");
    CHECK_EQ(f.writes, 0, "nothing written");

    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_OK, "setup");
    /* INDEX write faults: not installed, BASE written back to 0 */
    f.fault_on_write = 0x3F5;
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_ERR_MSR_FAULT, "INDEX fault");
    CHECK(!ap.installed, "not installed");
    CHECK_EQ(fake_get_msr(&f, 0x3F4), 0, "BASE restored to 0");
    f.fault_on_write = 0;

    fake_set_msr(&f, 0x3F5, 0xFFFFFFFFFFFFFFFFull);
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_OK, "install");
    CHECK_EQ(fake_get_msr(&f, 0x3F4), 0x2000001, "BASE = phys | size code 1");
    /* threshold 4096 bytes = 256 units at [58:36]; offset 0, FULL 0, EN 0 */
    CHECK_EQ(fake_get_msr(&f, 0x3F5), 256ull << 36, "INDEX = threshold only");
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_ERR_APEBS_INSTALLED, "twice");

    /* enable keeps offset and FULL, sets EN, clears reserved bits */
    fake_set_msr(&f, 0x3F5, (5ull << 4) | (1ull << 31) | 0xF | (0x1Full << 59) | (7ull << 36));
    CHECK_EQ(ds_arch_pebs_enable(&ap), DS_OK, "enable");
    CHECK_EQ(fake_get_msr(&f, 0x3F5), (5ull << 4) | (1ull << 31) | (1ull << 32) | (256ull << 36),
             "EN set, offset/FULL kept, threshold from setup, reserved cleared");
    CHECK_EQ(ds_arch_pebs_disable(&ap), DS_OK, "disable");
    CHECK_EQ(fake_get_msr(&f, 0x3F5), (5ull << 4) | (1ull << 31) | (256ull << 36), "EN cleared");
    f.fault_on_read = 0x3F5;
    unsigned w = f.writes;
    CHECK_EQ(ds_arch_pebs_enable(&ap), DS_ERR_MSR_FAULT, "INDEX read fault");
    CHECK_EQ(f.writes, w, "no write after a read fault");
    f.fault_on_read = 0;

    CHECK_EQ(ds_arch_pebs_enable(&ap), DS_OK, "enable again");
    CHECK_EQ(ds_arch_pebs_uninstall(&ap), DS_OK, "uninstall");
    CHECK_EQ(fake_get_msr(&f, 0x3F4), 0, "BASE 0");
    CHECK_EQ(fake_get_msr(&f, 0x3F5) & (1ull << 32), 0, "EN 0");
    CHECK(!ap.installed, "uninstalled");
    CHECK_EQ(ds_arch_pebs_uninstall(&ap), DS_ERR_APEBS_NOT_INSTALLED, "uninstall twice");
}

/* --- CFG_C ----------------------------------------------------------------------- */

static void test_cfg_c(void)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_arch_pebs ap;
    uint64_t v = 0;

    CHECK_EQ(ds_arch_pebs_cfg_c_msr(DS_CTR_GP, 0), 0x1903, "GP0 CFG_C");
    CHECK_EQ(ds_arch_pebs_cfg_c_msr(DS_CTR_GP, 9), 0x1927, "GP9 CFG_C");
    CHECK_EQ(ds_arch_pebs_cfg_c_msr(DS_CTR_FIXED, 0), 0x1983, "FX0 CFG_C");
    CHECK_EQ(ds_arch_pebs_cfg_c_msr(DS_CTR_FIXED, 3), 0x198F, "FX3 CFG_C");
    CHECK_EQ(ds_arch_pebs_cfg_c_msr(DS_CTR_GP, 32), 0, "index 32");
    CHECK_EQ(ds_arch_pebs_cfg_c_msr((enum ds_ctr_kind)0, 0), 0, "bad kind");

    for (int e = 0; e < 2; e++) {
        ptl(&f, e);
        ident(&f, &cpu);
        struct ds_arch_pebs_config c = cfg_of(buf8k, 0x2000000, 1, 0);
        memset(&ap, 0, sizeof(ap));
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 0, 0, 0), DS_ERR_APEBS_NOT_SETUP, "before setup");
        CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_OK, "setup");
        /* AUX [62], GPR [61], XMM [49], LBR [41:40] = 3, counters group [38:35] */
        uint64_t g = (1ull << 62) | (1ull << 61) | (1ull << 49) | (3ull << 40) | (1ull << 35) | (1ull << 36) |
                     (1ull << 37);
        unsigned w = f.writes;
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 1, 0xFFFF0000u, g), DS_OK, "GP1 all groups");
        CHECK_EQ(fake_writes_to(&f, 0x1907, &v), 1, "one write to GP1 CFG_C (0x1903 + 4)");
        CHECK_EQ(v, (1ull << 63) | g | 0xFFFF0000u, "EN | groups | reload");
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 1, 0, (1ull << 38)), e ? DS_ERR_APEBS_GROUP : DS_OK,
                 "METRICS: P-core only (23H.4 EBX bit 6)");
        unsigned w1 = f.writes;
        w1 = f.writes;
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 0, 0, (1ull << 49) | (1ull << 50)), DS_OK,
                 "XMM + YMMH: enumerated (23H.4 EBX bits 17, 18)");
        CHECK_EQ(fake_get_msr(&f, 0x1903), (1ull << 63) | (1ull << 50) | (1ull << 49), "CFG_C XMM | YMMH | EN");
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 0, 0, 1ull << 53), DS_ERR_APEBS_GROUP,
                 "OPMASK: not enumerated on PTL");
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 0, 0, 1ull << 54), DS_ERR_APEBS_GROUP,
                 "ZMMH: not enumerated on PTL");
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 0, 0, 1ull << 55), DS_ERR_APEBS_GROUP,
                 "H16ZMM: not enumerated on PTL");
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 0, 0, 1ull << 51), DS_ERR_APEBS_CFG_RESERVED,
                 "bit 51 (ARCH_PEBS_VECR_EXT range, no group)");
        CHECK_EQ(f.writes, w1 + 1, "only XMM + YMMH written");
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 0, 0, 1ull << 63), DS_ERR_APEBS_CFG_RESERVED, "EN");
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 0, 0, 1ull << 32), DS_ERR_APEBS_CFG_RESERVED, "bit 32");
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 0, 0, 1ull << 39), DS_ERR_APEBS_CFG_RESERVED, "bit 39");
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 0, 0, 0xFF), DS_ERR_APEBS_CFG_RESERVED, "reload in groups");
        unsigned top = e ? 8 : 10;
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, top - 1, 0, 0), DS_OK, "last PEBS GP");
        w1 = f.writes;
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, top, 0, 0), DS_ERR_APEBS_COUNTER, "GP %u", top);
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 32, 0, 0), DS_ERR_APEBS_COUNTER, "GP 32");
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_FIXED, 3, 0, 0), e ? DS_ERR_APEBS_COUNTER : DS_OK,
                 "fixed 3: P 0xF yes, E 0x77 no");
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_FIXED, 4, 0, 0), e ? DS_OK : DS_ERR_APEBS_COUNTER,
                 "fixed 4: E 0x77 yes, P 0xF no");
        CHECK_EQ(ds_arch_pebs_counter_enable(&ap, (enum ds_ctr_kind)7, 0, 0, 0), DS_ERR_INVAL, "kind");
        CHECK_EQ(f.writes, w1 + 1, "only the valid fixed counter was written");
        CHECK_EQ(ds_arch_pebs_counter_disable(&ap, DS_CTR_GP, 1), DS_OK, "disable");
        CHECK_EQ(fake_get_msr(&f, 0x1907), 0, "CFG_C = 0");
        CHECK_EQ(ds_arch_pebs_counter_disable(&ap, DS_CTR_GP, top), DS_ERR_APEBS_COUNTER, "disable non-PEBS");
        (void)w;
    }
}

/* --- Decoder ------------------------------------------------------------------------ */

static void check_basic(const struct ds_pebs_sample *s, const struct spec *r, const char *what)
{
    CHECK_EQ(s->fmt, DS_PEBS_FMT_ARCH, "%s fmt", what);
    CHECK_EQ(s->ip, r->ip, "%s ip", what);
    CHECK_EQ(s->eventing_ip, r->ip, "%s eventing ip", what);
    CHECK_EQ(s->counters, r->applicable, "%s applicable", what);
    CHECK_EQ(s->tsc, r->tsc, "%s tsc", what);
    CHECK_EQ(s->retire_latency, r->retire_valid ? r->retire : 0, "%s retire", what);
    CHECK_EQ(!!(s->present & DS_SAMPLE_RETIRE_LAT), !!r->retire_valid, "%s retire valid", what);
}

static void test_decode_groups(void)
{
    static unsigned char b[8192] __attribute__((aligned(16)));
    struct spec r;
    struct ds_pebs_sample s;
    uint32_t used;

    /* basic only, retire latency not valid */
    spec_init(&r, 1);
    r.retire_valid = 0;
    size_t n = frag(b, &r, E_BASIC | E_MODE64, 0);
    CHECK_EQ(n, 64, "header + basic");
    CHECK_EQ(ds_arch_pebs_decode(b, n, &s, &used), DS_OK, "basic");
    CHECK_EQ(used, 64, "consumed");
    check_basic(&s, &r, "basic");
    CHECK_EQ(s.present & (DS_SAMPLE_MEM | DS_SAMPLE_GPRS | DS_SAMPLE_XMM | DS_SAMPLE_LBR | DS_SAMPLE_CNTRS), 0,
             "no other group");
    CHECK_EQ(s.header, E_BASIC | E_MODE64 | 64, "raw header");
    CHECK_EQ(s.fragments, 1, "one fragment");
    CHECK_EQ(s.size, 64, "size");

    /* every group: LBR with 8 entries (sel 1), counters GP {0,3} fixed {1} + metrics */
    spec_init(&r, 2);
    r.lbr_sel = 1;
    r.nlbr = 8;
    r.cgp = 0x9;
    r.cfx = 0x2;
    r.cmet = 3;
    r.ncvals = 5;
    for (int i = 0; i < 5; i++)
        r.cvals[i] = 0xC0 + (uint64_t)i;
    uint64_t all = E_BASIC | E_AUX | E_GPR | E_XMM | E_LBR(1) | E_CNTR(7) | E_MODE64;
    n = frag(b, &r, all, 0);
    CHECK_EQ(n, 16 + 48 + 64 + 160 + 16 + 256 + 48 + 8 * 24 + 16 + 5 * 8, "layout size");
    CHECK_EQ(ds_arch_pebs_decode(b, n, &s, &used), DS_OK, "all groups");
    check_basic(&s, &r, "all");
    CHECK_EQ(s.data_addr, r.addr, "aux address");
    CHECK_EQ(s.data_source, r.aux, "aux aux");
    CHECK_EQ(s.latency, r.lat, "latency raw");
    CHECK_EQ(s.instr_latency, r.lat & 0xFFFF, "instr latency [15:0]");
    CHECK_EQ(s.cache_latency, (r.lat >> 32) & 0xFFFF, "cache latency [47:32]");
    CHECK_EQ(s.tsx, r.tsx, "tsx");
    CHECK_EQ(s.flags, r.flags, "flags");
    for (int i = 0; i < 16; i++)
        CHECK_EQ(s.gpr[i], r.regs[i], "gpr %d (encoding order)", i);
    CHECK_EQ(s.ssp, r.ssp, "ssp");
    CHECK(s.xmm != NULL && s.xmm->xmm[0] == r.xmm[0] && s.xmm->xmm[31] == r.xmm[31], "xmm after the XER header");
    CHECK_EQ(s.lbr_count, 8, "LBR_NUM_8");
    CHECK(s.lbr && s.lbr[0].from == 0x400000 && s.lbr[7].info == 0x600007, "LBR entries after the LBR header");
    CHECK_EQ(s.cntr_gp_mask, 0x9, "cntr gp");
    CHECK_EQ(s.cntr_fixed_mask, 0x2, "cntr fixed");
    CHECK_EQ(s.cntr_gp[0], 0xC0, "gp0 value");
    CHECK_EQ(s.cntr_gp[3], 0xC1, "gp3 value");
    CHECK_EQ(s.cntr_fixed[1], 0xC2, "fixed1 value");
    CHECK_EQ(s.topdown_slots, 0xC3, "slots");
    CHECK_EQ(s.perf_metrics, 0xC4, "metrics");
    uint32_t want = DS_SAMPLE_IP | DS_SAMPLE_EVENTING_IP | DS_SAMPLE_APPLICABLE | DS_SAMPLE_TSC | DS_SAMPLE_RETIRE_LAT |
                    DS_SAMPLE_MEM | DS_SAMPLE_TSX | DS_SAMPLE_LAT_SPLIT | DS_SAMPLE_FLAGS | DS_SAMPLE_GPRS |
                    DS_SAMPLE_SSP | DS_SAMPLE_XMM | DS_SAMPLE_LBR | DS_SAMPLE_CNTRS | DS_SAMPLE_METRICS;
    CHECK_EQ(s.present, want, "present bits");

    /* the next decode into the same sample clears every group it lacks */
    spec_init(&r, 6);
    n = frag(b, &r, E_BASIC, 0);
    CHECK_EQ(ds_arch_pebs_decode(b, n, &s, &used), DS_OK, "basic after all");
    CHECK(s.xmm == NULL && s.lbr == NULL && s.lbr_count == 0, "xmm/lbr cleared");
    CHECK(s.ssp == 0 && s.flags == 0 && s.gpr[15] == 0 && s.data_addr == 0 && s.latency == 0, "gprs/aux cleared");
    CHECK(s.cntr_gp_mask == 0 && s.cntr_gp[3] == 0 && s.cntr_fixed[1] == 0 && s.perf_metrics == 0, "counters cleared");
    CHECK_EQ(s.present & ~(DS_SAMPLE_IP | DS_SAMPLE_EVENTING_IP | DS_SAMPLE_APPLICABLE | DS_SAMPLE_TSC |
                           DS_SAMPLE_RETIRE_LAT), 0, "present: basic only");

    /* LBR sel 2 = 16 entries; sel 3 = depth from the LBR header */
    spec_init(&r, 3);
    r.nlbr = 16;
    n = frag(b, &r, E_BASIC | E_LBR(2), 0);
    CHECK_EQ(ds_arch_pebs_decode(b, n, &s, &used), DS_OK, "LBR 16");
    CHECK_EQ(s.lbr_count, 16, "16 entries");
    r.nlbr = 5;
    r.lbr_depth = 5;
    n = frag(b, &r, E_BASIC | E_LBR(3), 0);
    CHECK_EQ(ds_arch_pebs_decode(b, n, &s, &used), DS_OK, "LBR var");
    CHECK_EQ(s.lbr_count, 5, "depth 5");
    CHECK_EQ(s.lbr[4].to, 0x500004, "entry 4");

    /* oversized header: the walk follows the size field, padding ignored */
    spec_init(&r, 4);
    n = frag(b, &r, E_BASIC, 32);
    CHECK_EQ(ds_arch_pebs_decode(b, n, &s, &used), DS_OK, "padded");
    CHECK_EQ(used, 96, "consumed = size field");

}

/* Vector-register group: the XER header and the parts the header names,
 * in the order XMM, YMMH, OPMASK, ZMMH, H16ZMM (Linux vector series
 * setup_arch_pebs_sample_data), LBR and counters after them. */
static void test_decode_vecr(void)
{
    static unsigned char b[8192] __attribute__((aligned(16)));
    struct spec r;
    struct ds_pebs_sample s;
    uint32_t used;
    const uint32_t sizes[5] = { 256, 256, 64, 512, 1024 }; /* Linux struct arch_pebs_xmm .. _h16zmm */
    const uint64_t bits[5] = { E_XMM, E_YMMH, E_OPMASK, E_ZMMH, E_H16ZMM };
    /* every subset of the five parts, with LBR(8) and a counters group after */
    for (unsigned m = 1; m < 32; m++) {
        spec_init(&r, 10 + m);
        r.xstate = 0xE6 + m;
        r.lbr_sel = 1;
        r.nlbr = 8;
        r.cgp = 0x1;
        r.ncvals = 1;
        r.cvals[0] = 0x77 + m;
        uint64_t h = E_BASIC | E_LBR(1) | E_CNTR(3);
        size_t want = 16 + 48 + 16 + 48 + 8 * 24 + 16 + 8;
        for (unsigned i = 0; i < 5; i++)
            if (m & (1u << i)) {
                h |= bits[i];
                want += sizes[i];
            }
        size_t n = frag(b, &r, h, 0);
        CHECK_EQ(n, want, "parts 0x%x: layout size", m);
        CHECK_EQ(ds_arch_pebs_decode(b, n, &s, &used), DS_OK, "parts 0x%x", m);
        CHECK_EQ(s.xstate, r.xstate, "parts 0x%x: xstate", m);
        CHECK_EQ(!!(s.present & DS_SAMPLE_XMM), !!(m & 1), "parts 0x%x: XMM present", m);
        CHECK_EQ(!!(s.present & DS_SAMPLE_YMMH), !!(m & 2), "parts 0x%x: YMMH present", m);
        CHECK_EQ(!!(s.present & DS_SAMPLE_OPMASK), !!(m & 4), "parts 0x%x: OPMASK present", m);
        CHECK_EQ(!!(s.present & DS_SAMPLE_ZMMH), !!(m & 8), "parts 0x%x: ZMMH present", m);
        CHECK_EQ(!!(s.present & DS_SAMPLE_H16ZMM), !!(m & 16), "parts 0x%x: H16ZMM present", m);
        CHECK((m & 1) ? s.xmm && s.xmm->xmm[0] == r.xmm[0] && s.xmm->xmm[31] == r.xmm[31] : !s.xmm,
              "parts 0x%x: xmm", m);
        CHECK((m & 2) ? s.ymmh && s.ymmh[0] == r.ymmh[0] && s.ymmh[31] == r.ymmh[31] : !s.ymmh, "parts 0x%x: ymmh", m);
        CHECK((m & 4) ? s.opmask && s.opmask[0] == r.opmask[0] && s.opmask[7] == r.opmask[7] : !s.opmask,
              "parts 0x%x: opmask", m);
        CHECK((m & 8) ? s.zmmh && s.zmmh[0] == r.zmmh[0] && s.zmmh[63] == r.zmmh[63] : !s.zmmh, "parts 0x%x: zmmh", m);
        CHECK((m & 16) ? s.h16zmm && s.h16zmm[0] == r.h16zmm[0] && s.h16zmm[127] == r.h16zmm[127] : !s.h16zmm,
              "parts 0x%x: h16zmm", m);
        CHECK(s.lbr_count == 8 && s.lbr && s.lbr[7].info == 0x600007, "parts 0x%x: LBR after the vector parts", m);
        CHECK(s.cntr_gp_mask == 1 && s.cntr_gp[0] == 0x77 + m, "parts 0x%x: counters after LBR", m);
        /* one byte short of the vector group: refused, nothing read outside */
        uint64_t v = get64(b);
        size_t vend = 16 + 48 + 16 + (want - (16 + 48 + 16 + 48 + 8 * 24 + 16 + 8));
        put64(b, (v & ~0xFFFFull) | (uint64_t)(vend - 8));
        CHECK_EQ(ds_arch_pebs_decode(b, vend - 8, &s, &used), DS_ERR_APEBS_REC_SIZE, "parts 0x%x: short", m);
        put64(b, (v & ~0xFFFFull) | (uint64_t)vend);
        CHECK_EQ(ds_arch_pebs_decode(b, vend, &s, &used), DS_ERR_APEBS_REC_SIZE, "parts 0x%x: LBR missing", m);
    }
    /* XER header alone does not fit: the size ends inside it */
    spec_init(&r, 40);
    size_t n = frag(b, &r, E_BASIC | E_YMMH, 0);
    put64(b, E_BASIC | E_YMMH | (16 + 48 + 8));
    CHECK_EQ(ds_arch_pebs_decode(b, n, &s, &used), DS_ERR_APEBS_REC_SIZE, "XER cut");
    /* the parts clear: a later record without them leaves no stale pointer */
    n = frag(b, &r, E_BASIC | E_YMMH | E_H16ZMM, 0);
    CHECK_EQ(ds_arch_pebs_decode(b, n, &s, &used), DS_OK, "YMMH + H16ZMM");
    n = frag(b, &r, E_BASIC, 0);
    CHECK_EQ(ds_arch_pebs_decode(b, n, &s, &used), DS_OK, "basic after");
    CHECK(!s.ymmh && !s.h16zmm && !s.xstate && !(s.present & (DS_SAMPLE_YMMH | DS_SAMPLE_H16ZMM)), "cleared");
    /* vector parts in the second fragment (its own XER header) */
    spec_init(&r, 41);
    size_t n0 = frag(b, &r, E_BASIC | E_CONT, 0);
    size_t n1 = frag(b + n0, &r, E_YMMH | E_OPMASK, 0);
    CHECK_EQ(ds_arch_pebs_decode(b, n0 + n1, &s, &used), DS_OK, "fragmented");
    CHECK(s.fragments == 2 && s.ymmh && s.ymmh[5] == r.ymmh[5] && s.opmask && s.opmask[3] == r.opmask[3],
          "YMMH/OPMASK from the second fragment");
    /* a misaligned record start is refused, not read unaligned */
    n = frag(b + 8, &r, E_BASIC | E_ZMMH, 0);
    CHECK_EQ(ds_arch_pebs_decode(b + 8, n, &s, &used), DS_OK, "8-byte aligned start");
    memmove(b + 4, b + 8, n);
    CHECK_EQ(ds_arch_pebs_decode(b + 4, n, &s, &used), DS_ERR_APEBS_REC_ALIGN, "4-byte aligned start");
    /* the DS-area decoders clear the new fields too (no stale pointer from a poisoned sample) */
    memset(b, 0, 0x90);
    memset(&s, 0xA5, sizeof(s));
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_0, b, 0x90, true, &s), DS_OK, "format 0 record");
    CHECK(!s.ymmh && !s.opmask && !s.zmmh && !s.h16zmm && !s.xstate, "format 0: vector views NULL, xstate 0");
}

static void test_decode_fragments(void)
{
    static unsigned char b[4096] __attribute__((aligned(16)));
    struct spec r;
    struct ds_pebs_sample s;
    uint32_t used;

    /* basic+aux (CONT) | gpr (CONT) | xmm */
    spec_init(&r, 7);
    size_t a = frag(b, &r, E_BASIC | E_AUX | E_CONT, 0);
    size_t c = frag(b + a, &r, E_GPR | E_CONT, 0);
    size_t d = frag(b + a + c, &r, E_XMM, 0);
    size_t n = a + c + d;
    spec_init(&r, 8); /* a following record */
    size_t n2 = frag(b + n, &r, E_BASIC, 0);
    CHECK_EQ(ds_arch_pebs_decode(b, n + n2, &s, &used), DS_OK, "3 fragments");
    CHECK_EQ(used, n, "consumed = the three fragments, not the next record");
    CHECK_EQ(s.fragments, 3, "fragments");
    CHECK_EQ(s.size, n, "size");
    spec_init(&r, 7);
    check_basic(&s, &r, "frag");
    CHECK_EQ(s.data_addr, r.addr, "aux from fragment 1");
    CHECK_EQ(s.gpr[DS_GPR_R15], r.regs[15], "gprs from fragment 2");
    CHECK(s.xmm && s.xmm->xmm[5] == r.xmm[5], "xmm from fragment 3");

    /* null fragment (size only) continues the record */
    a = frag(b, &r, E_BASIC, 0);
    put64(b, E_BASIC | E_CONT | a);
    put64(b + a, 16); /* null fragment: bits 63:16 zero */
    put64(b + a + 8, 0);
    c = frag(b + a + 16, &r, E_GPR, 0);
    CHECK_EQ(ds_arch_pebs_decode(b, a + 16 + c, &s, &used), DS_OK, "null fragment");
    CHECK_EQ(s.fragments, 3, "basic, null, gpr");
    CHECK_EQ(used, a + 16 + c, "all three");
    CHECK(s.present & DS_SAMPLE_GPRS, "gprs after the null fragment");

    /* CONT on the last bytes: the continuation is missing */
    a = frag(b, &r, E_BASIC | E_CONT, 0);
    CHECK_EQ(ds_arch_pebs_decode(b, a, &s, &used), DS_ERR_APEBS_REC_SHORT, "continuation absent");
    CHECK_EQ(used, 0, "nothing consumed");

    /* orphan: first fragment without basic; consumed is that fragment alone
     * (Linux skips it, its CONT is not followed) */
    a = frag(b, &r, E_GPR | E_CONT, 0);
    c = frag(b + a, &r, E_AUX, 0);
    CHECK_EQ(ds_arch_pebs_decode(b, a + c, &s, &used), DS_ERR_APEBS_NO_BASIC, "orphan");
    CHECK_EQ(used, a, "orphan fragment alone");
}

/* Truncated and lying headers: never read outside the bytes given (ASan
 * build: the record sits at the very end of a heap block). */
static void test_decode_bounds(void)
{
    struct spec r;
    struct ds_pebs_sample s;
    uint32_t used;
    unsigned char tmp[1024];
    spec_init(&r, 9);

    struct {
        uint64_t bits;
        size_t pad;
        int64_t size_override; /* -1: keep */
        size_t avail_cut;      /* bytes removed from the end */
        int want;
        const char *what;
    } t[] = {
        { E_BASIC, 0, -1, 0, DS_OK, "whole" },
        { E_BASIC, 0, -1, 1, DS_ERR_APEBS_REC_SHORT, "one byte short" },
        { E_BASIC, 0, -1, 64 - 8, DS_ERR_APEBS_REC_SHORT, "8 bytes: header truncated" },
        { E_BASIC, 0, 0, 0, DS_ERR_APEBS_REC_SHORT, "size 0" },
        { E_BASIC, 0, 8, 0, DS_ERR_APEBS_REC_SHORT, "size 8 < header" },
        { E_BASIC, 0, 4096, 0, DS_ERR_APEBS_REC_SHORT, "size beyond the bytes" },
        { E_BASIC, 0, 60, 0, DS_ERR_APEBS_REC_ALIGN, "size 60" },
        { E_BASIC, 0, 16, 0, DS_ERR_APEBS_REC_SIZE, "basic does not fit size 16" },
        { E_BASIC | E_GPR, 0, 64, 0, DS_ERR_APEBS_REC_SIZE, "gpr does not fit" },
        { E_BASIC | E_XMM, 0, 64 + 16 + 248, 0, DS_ERR_APEBS_REC_SIZE, "xmm 8 bytes short" },
        { E_BASIC | E_LBR(1), 0, 64 + 48 + 7 * 24, 0, DS_ERR_APEBS_REC_SIZE, "LBR 8 entries, room for 7" },
        { E_BASIC | E_CNTR(1), 0, 64 + 8, 0, DS_ERR_APEBS_REC_SIZE, "counters header does not fit" },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        r.nlbr = 8;
        size_t n = frag(tmp, &r, t[i].bits, t[i].pad);
        if (t[i].size_override >= 0) /* the bytes stay n long whatever the size claims */
            put64(tmp, t[i].bits | (uint64_t)t[i].size_override);
        size_t avail = n - t[i].avail_cut;
        unsigned char *heap = malloc(avail ? avail : 1);
        memcpy(heap, tmp, avail);
        int e = ds_arch_pebs_decode(heap, avail, &s, &used);
        CHECK_EQ(e, t[i].want, "bounds: %s", t[i].what);
        free(heap);
    }

    /* LBR depth (var) claims 2^40 entries; counters masks claim 64 values */
    r.nlbr = 2;
    r.lbr_depth = 1ull << 40;
    size_t n = frag(tmp, &r, E_BASIC | E_LBR(3), 0);
    CHECK_EQ(ds_arch_pebs_decode(tmp, n, &s, &used), DS_ERR_APEBS_REC_SIZE, "huge LBR depth");
    r.cgp = 0xFFFFFFFF;
    r.cfx = 0xFFFFFFFF;
    r.ncvals = 2;
    n = frag(tmp, &r, E_BASIC | E_CNTR(3), 0);
    CHECK_EQ(ds_arch_pebs_decode(tmp, n, &s, &used), DS_ERR_APEBS_REC_SIZE, "counter masks beyond the fragment");
    CHECK_EQ(ds_arch_pebs_decode(NULL, 64, &s, &used), DS_ERR_NULL, "NULL rec");
    CHECK_EQ(ds_arch_pebs_decode(tmp, 64, NULL, &used), DS_ERR_NULL, "NULL out");
    CHECK_EQ(ds_arch_pebs_decode(tmp, 0, &s, NULL), DS_ERR_APEBS_REC_SHORT, "0 bytes");

    /* random bytes at the end of a heap block: never past it (ASan) */
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int it = 0; it < 20000; it++) {
        size_t avail = 16 + (size_t)(x % 600);
        unsigned char *heap = malloc(avail);
        for (size_t i = 0; i < avail; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            heap[i] = (unsigned char)x;
        }
        /* plausible size fields half of the time */
        if (it & 1)
            put64(heap, (get64(heap) & ~0xFFFFull) | ((x % (avail + 64)) & ~7ull));
        int e = ds_arch_pebs_decode(heap, avail, &s, &used);
        CHECK(used <= avail, "consumed within the bytes (it %d)", it);
        (void)e;
        free(heap);
    }
}

/* --- Drain ------------------------------------------------------------------------------ */

static void check_invariant(const struct ds_drain_stats *st, const char *what)
{
    CHECK_EQ(st->present, st->records + st->lost_beyond + st->lost_corrupt + st->lost_rejected + st->lost_race,
             "%s: present == records + lost", what);
}

static int race_reads;
static uint64_t race_second;
static int race_read(void *ctx, uint32_t msr, uint64_t *out)
{
    int e = fake_read(ctx, msr, out);
    if (!e && msr == 0x3F5 && ++race_reads == 2)
        *out = race_second;
    return e;
}
static const struct ds_msr_ops race_ops = { race_read, fake_write, fake_cpuid };

#define IDX_EN (1ull << 32)
#define IDX_FULL (1ull << 31)
#define IDX_THRESH(units) ((uint64_t)(units) << 36)

/* Three records: A basic+gpr, B in three fragments, C basic+LBR(8). */
static size_t fill3(unsigned char *b)
{
    struct spec r;
    size_t n = 0;
    spec_init(&r, 20);
    n += frag(b + n, &r, E_BASIC | E_GPR, 0);
    spec_init(&r, 21);
    n += frag(b + n, &r, E_BASIC | E_CONT, 0);
    n += frag(b + n, &r, E_AUX | E_CONT, 0);
    n += frag(b + n, &r, E_XMM, 0);
    spec_init(&r, 22);
    r.nlbr = 8;
    n += frag(b + n, &r, E_BASIC | E_LBR(1), 0);
    return n;
}

static void test_drain(void)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_arch_pebs ap;
    struct ds_drain_stats st;
    struct ds_pebs_sample arr[200];
    size_t n;
    uint64_t v = 0;
    unsigned char *mem = aligned_alloc(4096, 8192); /* ASan: reads past 8 KiB are caught */
    const uint64_t thr = IDX_THRESH(256);

    ptl(&f, 0);
    ident(&f, &cpu);
    struct ds_arch_pebs_config c = cfg_of(mem, 0x3000000, 1, 4096);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_OK, "setup");
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 200, &n, &st), DS_ERR_APEBS_NOT_INSTALLED, "not installed");
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_OK, "install");
    CHECK_EQ(ds_arch_pebs_drain(&ap, NULL, NULL, &st), DS_ERR_NULL, "NULL sink");
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, NULL, 1, &n, &st), DS_ERR_NULL, "NULL arr with cap");

    /* empty: no write */
    fake_set_msr(&f, 0x3F5, IDX_EN | thr);
    unsigned w = f.writes;
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 200, &n, &st), DS_OK, "empty");
    CHECK_EQ(n + st.present, 0, "nothing");
    CHECK_EQ(f.writes, w, "INDEX not written when empty");

    /* three records */
    memset(mem, 0, 8192);
    size_t bytes = fill3(mem);
    CHECK_EQ(bytes % 16, 0, "records end on a 16-byte unit");
    fake_set_msr(&f, 0x3F5, (bytes << 0) | IDX_EN | thr | 0x5); /* wr [26:4] = bytes / 16, junk in 3:0 */
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 200, &n, &st), DS_OK, "drain");
    CHECK_EQ(n, 3, "three samples");
    CHECK_EQ(st.records, 3, "records");
    CHECK_EQ(st.present, 3, "present");
    CHECK_EQ(st.anomalies, 0, "clean");
    check_invariant(&st, "three");
    CHECK_EQ(fake_writes_to(&f, 0x3F5, &v) > 0, 1, "INDEX written");
    CHECK_EQ(v, IDX_EN | thr, "reset: offset 0, FULL 0, EN and threshold kept, reserved 0");
    struct spec r;
    spec_init(&r, 20);
    CHECK_EQ(arr[0].ip, r.ip, "A ip");
    CHECK_EQ(arr[0].gpr[DS_GPR_RCX], r.regs[1], "A rcx");
    spec_init(&r, 21);
    CHECK_EQ(arr[1].ip, r.ip, "B ip");
    CHECK_EQ(arr[1].fragments, 3, "B fragments");
    CHECK_EQ(arr[1].data_addr, r.addr, "B aux");
    CHECK(arr[1].xmm && arr[1].xmm->xmm[2] == r.xmm[2], "B xmm");
    spec_init(&r, 22);
    CHECK_EQ(arr[2].lbr_count, 8, "C lbr");
    CHECK_EQ(arr[2].tsc, r.tsc, "C tsc");
    CHECK(arr[2].gpr[DS_GPR_RCX] == 0 && arr[2].xmm == NULL && arr[2].data_addr == 0,
          "C carries nothing of A's or B's groups");

    /* FULL: reported and cleared; EN 0 kept as 0 */
    fake_set_msr(&f, 0x3F5, bytes | IDX_FULL | thr);
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 200, &n, &st), DS_OK, "full");
    CHECK(st.anomalies & DS_DRAIN_FULL, "FULL reported");
    CHECK_EQ(st.records, 3, "records");
    CHECK_EQ(fake_get_msr(&f, 0x3F5), thr, "FULL cleared, EN stays 0");
    /* FULL with offset 0 still resets */
    fake_set_msr(&f, 0x3F5, IDX_FULL | IDX_EN | thr);
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 200, &n, &st), DS_OK, "full, empty");
    CHECK_EQ(fake_get_msr(&f, 0x3F5), IDX_EN | thr, "FULL cleared");
    check_invariant(&st, "full empty");

    /* sink refuses: array of 1 */
    fake_set_msr(&f, 0x3F5, bytes | IDX_EN | thr);
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 1, &n, &st), DS_OK, "cap 1");
    CHECK_EQ(n, 1, "one taken");
    CHECK_EQ(st.lost_rejected, 2, "two rejected");
    check_invariant(&st, "rejected");

    /* write offset past the buffer: the buffer tiled with 128 basic records */
    for (unsigned i = 0; i < 128; i++) {
        spec_init(&r, i);
        frag(mem + 64 * i, &r, E_BASIC, 0);
    }
    fake_set_msr(&f, 0x3F5, (8192ull + 64) | IDX_EN | thr);
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 200, &n, &st), DS_OK, "past");
    CHECK_EQ(st.records, 128, "the buffer's records");
    CHECK_EQ(st.lost_beyond, 1, "beyond: at least one");
    CHECK(st.anomalies & DS_DRAIN_INDEX_PAST_MAX, "anomaly");
    check_invariant(&st, "past");
    CHECK_EQ(arr[127].ip, r.ip, "last record at the buffer end");
    /* the maximum offset the field holds */
    fake_set_msr(&f, 0x3F5, (0x7FFFFFull << 4) | IDX_EN | thr);
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 200, &n, &st), DS_OK, "max offset");
    CHECK_EQ(st.records, 128, "bounded by the buffer");
    check_invariant(&st, "max offset");

    /* corrupt tail: two records, then a header claiming 0x7FF0 bytes */
    memset(mem, 0, 8192);
    spec_init(&r, 30);
    size_t k = frag(mem, &r, E_BASIC, 0);
    k += frag(mem + k, &r, E_BASIC | E_AUX, 0);
    put64(mem + k, E_BASIC | 0x7FF0);
    fake_set_msr(&f, 0x3F5, (k + 256) | IDX_EN | thr);
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 200, &n, &st), DS_OK, "corrupt");
    CHECK_EQ(st.records, 2, "two good");
    CHECK_EQ(st.lost_corrupt, 1, "one corrupt");
    CHECK(st.anomalies & DS_DRAIN_SIZE_LIE, "size lie");
    check_invariant(&st, "corrupt");

    /* two fragments without basic (the first with CONT), then a good record:
     * each is skipped alone (Linux), one lost_corrupt each */
    memset(mem, 0, 8192);
    k = frag(mem, &r, E_GPR | E_CONT, 0);
    k += frag(mem + k, &r, E_AUX, 0);
    k += frag(mem + k, &r, E_BASIC, 0);
    fake_set_msr(&f, 0x3F5, k | IDX_EN | thr);
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 200, &n, &st), DS_OK, "orphan");
    CHECK_EQ(st.records, 1, "good one");
    CHECK_EQ(st.lost_corrupt, 2, "one per orphan fragment");
    CHECK(st.anomalies & DS_DRAIN_APEBS_ORPHAN, "orphan anomaly");
    check_invariant(&st, "orphan");

    /* a record arrives between the first INDEX read and the reset */
    memset(mem, 0, 8192);
    bytes = fill3(mem);
    spec_init(&r, 40);
    size_t late = frag(mem + bytes, &r, E_BASIC, 0);
    struct ds_cpu rcpu;
    ds_cpu_init(&rcpu, &race_ops, &f);
    ds_cpu_identify(&rcpu);
    struct ds_arch_pebs rap;
    CHECK_EQ(ds_arch_pebs_setup(&rap, &rcpu, &c), DS_OK, "setup (race)");
    CHECK_EQ(ds_arch_pebs_install(&rap), DS_OK, "install (race)");
    fake_set_msr(&f, 0x3F5, bytes | IDX_EN | thr);
    race_second = (bytes + late) | IDX_EN | thr;
    race_reads = 0;
    CHECK_EQ(ds_arch_pebs_drain_array(&rap, arr, 200, &n, &st), DS_OK, "race");
    CHECK_EQ(st.records, 3, "three delivered");
    CHECK_EQ(st.lost_race, 1, "the late one counted");
    CHECK(st.anomalies & DS_DRAIN_RACE, "race anomaly");
    check_invariant(&st, "race");

    /* records written meanwhile are counted as record() would walk them:
     * an orphan fragment (skipped alone), a good record, one whose AUX
     * group lies past its size (REC_SIZE: counted, the walk ends), a good
     * one not reached: 3 lost to the race */
    memset(mem, 0, 8192);
    bytes = fill3(mem);
    late = frag(mem + bytes, &r, E_AUX, 0);
    late += frag(mem + bytes + late, &r, E_BASIC, 0);
    size_t bad = bytes + late;
    late += frag(mem + bad, &r, E_BASIC, 0);
    put64(mem + bad, get64(mem + bad) | E_AUX);
    late += frag(mem + bytes + late, &r, E_BASIC, 0);
    fake_set_msr(&f, 0x3F5, bytes | IDX_EN | thr);
    race_second = (bytes + late) | IDX_EN | thr;
    race_reads = 0;
    CHECK_EQ(ds_arch_pebs_drain_array(&rap, arr, 200, &n, &st), DS_OK, "race, bad records");
    CHECK_EQ(st.records, 3, "three delivered (race, bad records)");
    CHECK_EQ(st.lost_race, 3, "orphan, good, bad counted; the walk ends at the bad one");
    check_invariant(&st, "race, bad records");

    /* INDEX read fault: nothing walked, nothing written */
    f.fault_on_read = 0x3F5;
    w = f.writes;
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 200, &n, &st), DS_ERR_MSR_FAULT, "read fault");
    CHECK_EQ(n + st.present, 0, "nothing");
    CHECK_EQ(f.writes, w, "no write");
    f.fault_on_read = 0;
    free(mem);
}

/* --- Shared PMI handler: IA32_PERF_GLOBAL_STATUS bit 54 (pmi.h cfg.apebs) ---- */

static unsigned pmi_arch_samples;
static int pmi_sink(void *a, const struct ds_pebs_sample *s)
{
    (void)a;
    pmi_arch_samples += s->fmt == DS_PEBS_FMT_ARCH;
    return 0;
}

/* Linux handle_pmi_common: "Arch PEBS sets bit 54 in the global status
 * register": test_and_clear bit 54, drain_pebs. */
static void test_pmi_bit54(void)
{
    static struct fake_cpu f, g;
    struct ds_cpu cpu, other;
    struct ds_arch_pebs ap;
    struct ds_pmi pmi;
    struct ds_pmi_result res;
    struct ds_pmi_config pc;
    unsigned char *mem = aligned_alloc(4096, 8192);
    const uint64_t st54 = 1ull << 54;

    ptl(&f, 0);
    fake_set_msr(&f, 0x38E, 0); /* IA32_PERF_GLOBAL_STATUS */
    fake_set_msr(&f, 0x38F, 0); /* IA32_PERF_GLOBAL_CTRL */
    fake_set_msr(&f, 0x390, 0); /* IA32_PERF_GLOBAL_STATUS_RESET */
    ident(&f, &cpu);
    struct ds_arch_pebs_config c = cfg_of(mem, 0x3000000, 1, 4096);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_OK, "setup");
    memset(&pc, 0, sizeof(pc));
    pc.pebs_sink = pmi_sink;
    pc.apebs = &ap;
    CHECK_EQ(ds_pmi_init(&pmi, &cpu, NULL, &pc), DS_ERR_APEBS_PMI, "buffer not installed");
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_OK, "install");
    ptl(&g, 1);
    ident(&g, &other);
    CHECK_EQ(ds_pmi_init(&pmi, &other, NULL, &pc), DS_ERR_APEBS_PMI, "state of another CPU");
    CHECK_EQ(ds_pmi_init(&pmi, &cpu, NULL, &pc), DS_OK, "init");

    /* threshold (bit 54) and a PMC0 overflow in one PMI */
    memset(mem, 0, 8192);
    size_t bytes = fill3(mem);
    fake_set_msr(&f, 0x3F5, bytes | IDX_EN | IDX_THRESH(1));
    fake_set_msr(&f, 0x38E, st54 | 1);
    pmi_arch_samples = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &res), DS_OK, "handle");
    CHECK(res.pebs_drained && res.handled, "drained, handled");
    CHECK_EQ(res.pebs.records, 3, "three records");
    CHECK_EQ(res.pebs.present, 3, "present");
    CHECK_EQ(pmi_arch_samples, 3, "architectural samples to the sink");
    CHECK_EQ(res.acked, st54 | 1, "bits 54 and 0 acknowledged");
    CHECK_EQ(res.unacked, 0, "nothing left unacked");
    CHECK_EQ(fake_get_msr(&f, 0x38E), 0, "GLOBAL_STATUS clear");
    CHECK_EQ(fake_get_msr(&f, 0x3F5), IDX_EN | IDX_THRESH(1), "INDEX reset: offset 0, EN and threshold kept");

    /* bit 54 alone, empty buffer: acknowledged, nothing delivered */
    fake_set_msr(&f, 0x38E, st54);
    CHECK_EQ(ds_pmi_handle(&pmi, &res), DS_OK, "empty");
    CHECK(res.acked == st54 && res.pebs.present == 0, "bit 54 acked, no record");

    /* without cfg.apebs bit 54 is not this handler's: left set, reported */
    pc.apebs = NULL;
    CHECK_EQ(ds_pmi_init(&pmi, &cpu, NULL, &pc), DS_OK, "init without apebs");
    fake_set_msr(&f, 0x3F5, bytes | IDX_EN);
    fake_set_msr(&f, 0x38E, st54);
    CHECK_EQ(ds_pmi_handle(&pmi, &res), DS_OK, "handle without apebs");
    CHECK(!res.pebs_drained && (res.unacked & st54) && !(res.acked & st54), "bit 54 unacked, not drained");
    CHECK_EQ(fake_get_msr(&f, 0x38E), st54, "bit 54 still set");
    free(mem);
}

/*
 * Issue 10 test strength (exact boundary): with metrics (header dword 2 = 3,
 * Linux INTEL_CNTR_METRICS) the counters group carries two more values,
 * slots and PERF_METRICS. A group holding the counter values and only one of
 * the two (the record ends there) is refused, not read past its end; with
 * both it decodes.
 */
static void test_cntr_metrics_boundary(void)
{
    static unsigned char b[1024] __attribute__((aligned(16)));
    struct spec r;
    struct ds_pebs_sample s;
    uint32_t used;
    spec_init(&r, 8);
    r.cgp = 0x1;
    r.cfx = 0;
    r.cmet = 3;
    r.cvals[0] = 0xA0, r.cvals[1] = 0xA1, r.cvals[2] = 0xA2;
    r.ncvals = 3; /* GP0, slots, metrics */
    size_t n = frag(b, &r, E_BASIC | E_CNTR(3) | E_MODE64, 0);
    CHECK_EQ(ds_arch_pebs_decode(b, n, &s, &used), DS_OK, "GP0 + 2 metrics values");
    CHECK(s.cntr_gp[0] == 0xA0 && s.topdown_slots == 0xA1 && s.perf_metrics == 0xA2, "values in place");
    r.ncvals = 2; /* PERF_METRICS missing */
    n = frag(b, &r, E_BASIC | E_CNTR(3) | E_MODE64, 0);
    CHECK_EQ(ds_arch_pebs_decode(b, n, &s, &used), DS_ERR_APEBS_REC_SIZE, "one metrics value short: refused");
}

/* MAXPHYADDR at every boundary of phys_bits (issue 10 "Test strength", mutant
 * arch_pebs.c:34 32 -> 31 survived). Expectations: SDM Vol. 2A CPUID
 * 80000008H:EAX[7:0]; without that leaf 36 with PAE (01H:EDX[6]) else 32 (SDM
 * Vol. 3A "Physical Address Width"); a maximum extended leaf outside
 * 8000xxxxH means no extended leaves (Linux get_cpu_cap: (eax & 0xffff0000)
 * == 0x80000000); 52 is the architectural maximum. */
static void test_phys_bits_boundaries(void)
{
    static const struct { uint32_t maxext, eax8; int pae; unsigned want; const char *what; } t[] = {
        {0x80000004u, 0x2E, 0, 32, "no 80000008H, no PAE: 32"},
        {0x80000004u, 0x2E, 1, 36, "no 80000008H, PAE: 36"},
        {0x80000007u, 0x2E, 1, 36, "max ext 80000007H: 80000008H not read"},
        {0x80000008u, 0x27, 1, 39, "max ext exactly 80000008H: EAX[7:0] 39"},
        {0x8000FFFFu, 0x27, 0, 39, "max ext 8000FFFFH: still an extended range"},
        {0x80010000u, 0x27, 0, 32, "max ext 80010000H: not a leaf count, 32"},
        {0x00000000u, 0x27, 1, 36, "max ext 0: 36"},
        {0x80000008u, 0x00, 0, 32, "80000008H EAX[7:0] 0: fallback 32"},
        {0x80000008u, 0x3100, 1, 36, "only EAX[15:8] set: EAX[7:0] 0, fallback 36"},
        {0x80000008u, 0x20, 0, 32, "EAX[7:0] 32"},
        {0x80000008u, 0x34, 0, 52, "EAX[7:0] 52: kept"},
        {0x80000008u, 0x33, 0, 51, "EAX[7:0] 51: kept"},
        {0x80000008u, 0x35, 0, 52, "EAX[7:0] 53: capped at 52"},
        {0x80000008u, 0xFF, 0, 52, "EAX[7:0] 255: capped at 52"},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        struct ds_arch_pebs_caps c;
        ptl(&f, 0);
        set_cpuid_word(&f, 0x80000000u, 0, 0, t[i].maxext);
        set_cpuid_word(&f, 0x80000008u, 0, 0, t[i].eax8);
        set_cpuid_word(&f, 1, 0, 3, t[i].pae ? 0xBFEBFBFFu : 0xBFEBFBFFu & ~(1u << 6));
        CHECK_EQ(ident(&f, &cpu), DS_OK, "identify");
        CHECK_EQ(ds_arch_pebs_detect(&cpu, &c), DS_OK, "%s: detect", t[i].what);
        CHECK_EQ(c.phys_bits, t[i].want, "%s", t[i].what);
    }
}

/* Exact fits and odd field values (mutants arch_pebs.c:292 `room <
 * DS_APEBS_CNTR_HDR_BYTES` -> `<=` and :271 cache latency mask 0xFFFF ->
 * 0xFFFE survived): a counters group that is only its 16-byte header (no GP,
 * fixed or metrics values; Linux struct arch_pebs_cntr_header) ending the
 * fragment decodes with empty masks; the aux latency splits into
 * instruction [15:0] and cache [47:32] latency (ds/arch_pebs.h), with every
 * other bit set to show they are dropped. */
static void test_exact_fit_and_odd_fields(void)
{
    static unsigned char b[1024] __attribute__((aligned(16)));
    struct spec r;
    struct ds_pebs_sample s;
    uint32_t used;
    spec_init(&r, 3);
    r.cgp = 0, r.cfx = 0, r.cmet = 0, r.ncvals = 0;
    size_t n = frag(b, &r, E_BASIC | E_CNTR(3) | E_MODE64, 0);
    CHECK_EQ(n, 16 + 48 + 16, "header + basic + counters header");
    CHECK_EQ(ds_arch_pebs_decode(b, n, &s, &used), DS_OK, "counters header alone fits exactly");
    CHECK_EQ(used, n, "whole fragment used");
    CHECK(s.cntr_gp_mask == 0 && s.cntr_fixed_mask == 0 && (s.present & DS_SAMPLE_CNTRS), "empty counters group");
    CHECK_EQ(ds_arch_pebs_decode(b, n - 8, &s, &used) != DS_OK, 1, "8 bytes short: refused");
    spec_init(&r, 3);
    r.lat = 0xFFFF8001FFFF1235ull;
    n = frag(b, &r, E_BASIC | E_AUX | E_MODE64, 0);
    CHECK_EQ(ds_arch_pebs_decode(b, n, &s, &used), DS_OK, "aux");
    CHECK_EQ(s.latency, 0xFFFF8001FFFF1235ull, "raw latency");
    CHECK_EQ(s.instr_latency, 0x1235, "instruction latency [15:0]");
    CHECK_EQ(s.cache_latency, 0x8001, "cache latency [47:32]");
}

/* A record's LBR entries must be 8-byte aligned in memory (ds/arch_pebs.h:
 * lbr points into the record, DS_ERR_APEBS_REC_ALIGN otherwise): a record
 * at +4 is refused, at +8 (aligned, address bit 3 set) and +16 decoded
 * (mutant arch_pebs.c:419 `& 7u` -> `& 8u` and the guard removal
 * survived). A final fragment of exactly 16 bytes (header only, not null:
 * MODE64 set) that ends @avail completes its record (mutant arch_pebs.c:457
 * `avail - at < DS_APEBS_HDR_BYTES` -> `<=` survived). */
static void test_lbr_align_and_last_fragment(void)
{
    static unsigned char b[2048] __attribute__((aligned(16)));
    struct spec r;
    struct ds_pebs_sample s;
    uint32_t used;
    static const struct { unsigned off; int want; } t[] = { { 4, DS_ERR_APEBS_REC_ALIGN }, { 8, DS_OK },
                                                            { 12, DS_ERR_APEBS_REC_ALIGN }, { 16, DS_OK } };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        spec_init(&r, 4);
        r.nlbr = 16;
        memset(b, 0, sizeof(b));
        size_t n = frag(b + t[i].off, &r, E_BASIC | E_LBR(2) | E_MODE64, 0);
        CHECK_EQ(ds_arch_pebs_decode(b + t[i].off, n, &s, &used), t[i].want, "LBR record at +%u", t[i].off);
        if (t[i].want == DS_OK)
            CHECK(s.lbr_count == 16 && s.lbr[15].to == 0x50000F, "LBR entries at +%u", t[i].off);
    }
    spec_init(&r, 5);
    memset(b, 0, sizeof(b));
    size_t n1 = frag(b, &r, E_BASIC | E_CONT | E_MODE64, 0);
    put64(b + n1, 16 | E_MODE64);
    put64(b + n1 + 8, 0);
    CHECK_EQ(ds_arch_pebs_decode(b, n1 + 16, &s, &used), DS_OK, "16-byte last fragment ending avail");
    CHECK_EQ(used, n1 + 16, "both fragments used");
    CHECK_EQ(s.fragments, 2, "two fragments");
    CHECK_EQ(ds_arch_pebs_decode(b, n1 + 8, &s, &used), DS_ERR_APEBS_REC_SHORT, "last fragment cut: short");
}

/* A fragment size with only bit 0 below 8 set is misaligned too (mutant
 * arch_pebs.c:463 `sz & 7u` -> `& 6u` survived); @out_consumed may be NULL
 * on success, and is 0 after an error other than DS_ERR_APEBS_NO_BASIC
 * (ds/arch_pebs.h; mutant arch_pebs.c:495 `&&` -> `||` survived). */
static void test_size_bit0_and_consumed(void)
{
    static unsigned char b[512] __attribute__((aligned(16)));
    struct spec r;
    struct ds_pebs_sample s;
    uint32_t used;
    spec_init(&r, 6);
    memset(b, 0, sizeof(b));
    size_t n = frag(b, &r, E_BASIC | E_MODE64, 0);
    CHECK_EQ(ds_arch_pebs_decode(b, n, &s, NULL), DS_OK, "NULL out_consumed");
    CHECK_EQ(s.ip, r.ip, "decoded");
    put64(b, (get64(b) & ~0xFFFFull) | (n + 1)); /* size 65: bit 0 */
    used = 0xDEAD;
    CHECK_EQ(ds_arch_pebs_decode(b, sizeof(b), &s, &used), DS_ERR_APEBS_REC_ALIGN, "size %zu", n + 1);
    CHECK_EQ(used, 0, "nothing consumed on error");
    put64(b, (get64(b) & ~0xFFFFull) | (n + 4)); /* bit 2 */
    CHECK_EQ(ds_arch_pebs_decode(b, sizeof(b), &s, &used), DS_ERR_APEBS_REC_ALIGN, "size %zu", n + 4);
    put64(b, (get64(b) & ~0xFFFFull) | (n + 8));
    CHECK_EQ(ds_arch_pebs_decode(b, sizeof(b), &s, &used), DS_OK, "size %zu: padded record", n + 8);
    CHECK_EQ(used, n + 8, "padded size consumed");
}

/* A CPU not identified (caps still Panther Lake) and an arch-PEBS state
 * whose setup flag is clear are refused before any MSR access
 * (ds/arch_pebs.h: DS_ERR_NOT_IDENTIFIED, DS_ERR_APEBS_NOT_SETUP). */
static void test_not_setup_refusals(void)
{
    struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_arch_pebs_caps c;
    struct ds_arch_pebs ap;
    ptl(&f, 0);
    CHECK_EQ(ident(&f, &cpu), DS_OK, "identify");
    struct ds_arch_pebs_config cfg = cfg_of(buf8k, 0x100000, 1, 0);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &cfg), DS_OK, "setup");
    ap.setup = false;
    unsigned w0 = f.writes, r0 = f.reads;
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_ERR_APEBS_NOT_SETUP, "install");
    CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 0, 0, 0), DS_ERR_APEBS_NOT_SETUP, "counter enable");
    CHECK_EQ(ds_arch_pebs_counter_disable(&ap, DS_CTR_GP, 0), DS_ERR_APEBS_NOT_SETUP, "counter disable");
    CHECK(f.writes == w0 && f.reads == r0, "no MSR access");
    cpu.identified = false;
    CHECK_EQ(ds_arch_pebs_detect(&cpu, &c), DS_ERR_NOT_IDENTIFIED, "detect");
    CHECK_EQ(c.gp_mask, 0, "detect: out zeroed");
}

/* A write offset exactly at the buffer size is a full buffer, not one past
 * it (reference: IA32_PEBS_INDEX[26:4] is the next write offset in 16-byte
 * units, so an offset equal to the size means every byte holds records and
 * none were lost beyond; Linux intel_pmu_drain_arch_pebs walks base ..
 * base + offset): 8192 bytes tiled with 128 basic records, offset 8192 ->
 * 128 records, nothing beyond, no INDEX_PAST_MAX; offset 8192 + 16 -> one
 * lost beyond it. Mutant arch_pebs.c `claimed > ap->bytes` -> `>=`. */
static void test_drain_exact_fill(void)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_arch_pebs ap;
    struct ds_drain_stats st;
    static struct ds_pebs_sample arr[200];
    size_t n;
    unsigned char *mem = aligned_alloc(4096, 8192);
    const uint64_t thr = IDX_THRESH(256);
    struct spec r;

    ptl(&f, 0);
    ident(&f, &cpu);
    struct ds_arch_pebs_config c = cfg_of(mem, 0x3000000, 1, 4096);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_OK, "setup");
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_OK, "install");
    for (unsigned i = 0; i < 128; i++) {
        spec_init(&r, 100 + i);
        CHECK_EQ(frag(mem + 64 * i, &r, E_BASIC, 0), 64, "basic record: 64 bytes");
    }
    static const struct { uint64_t idx; uint64_t beyond; bool past; const char *what; } t[] = {
        { 8192, 0, false, "offset = size" },
        { 8192 | IDX_FULL, 0, false, "offset = size, FULL" },
        { 8192 + 16, 1, true, "offset = size + 16" },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        fake_set_msr(&f, 0x3F5, t[i].idx | IDX_EN | thr);
        CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 200, &n, &st), DS_OK, "%s: drain", t[i].what);
        CHECK_EQ(n, 128, "%s: every record of the buffer", t[i].what);
        CHECK_EQ(st.records, 128, "%s: records", t[i].what);
        CHECK_EQ(st.lost_beyond, t[i].beyond, "%s: lost beyond", t[i].what);
        CHECK_EQ(st.present, 128 + t[i].beyond, "%s: present", t[i].what);
        CHECK_EQ(!!(st.anomalies & DS_DRAIN_INDEX_PAST_MAX), t[i].past, "%s: INDEX_PAST_MAX", t[i].what);
        CHECK_EQ(!!(st.anomalies & DS_DRAIN_FULL), !!(t[i].idx & IDX_FULL), "%s: FULL", t[i].what);
        spec_init(&r, 100 + 127);
        CHECK_EQ(arr[127].ip, r.ip, "%s: last record at the buffer end", t[i].what);
        check_invariant(&st, t[i].what);
        CHECK_EQ(fake_get_msr(&f, 0x3F5), IDX_EN | thr, "%s: INDEX reset", t[i].what);
    }
    free(mem);
}

/* Consecutive records of one layout: the first is validated and decoded,
 * the rest take the drain's same-layout fast path (arch_pebs.c run_same),
 * which must still read each record's own basic group (Linux struct
 * arch_pebs_basic: ip, applicable counters, tsc, retire latency [15:0] with
 * its valid bit 16): all 16 latency bits, a latency of 0 with valid set
 * (recorded), a latency with valid clear (not recorded: 0, no RETIRE_LAT).
 * Mutant run_same `r & 0xFFFF` -> `r & 0x10000` (sample seed 20261127). */
static void test_run_same_per_record_basic(void)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_arch_pebs ap;
    struct ds_drain_stats st;
    static struct ds_pebs_sample arr[16];
    size_t n, k = 0;
    unsigned char *mem = aligned_alloc(4096, 4096);
    static const struct { uint16_t lat; int valid; } t[] = {
        { 0x0101, 1 }, { 0xFFFF, 1 }, { 0x8001, 1 }, { 0, 1 }, { 0x1234, 0 }, { 0x7FFE, 1 }, { 1, 1 },
    };
    const size_t nt = sizeof(t) / sizeof(t[0]);
    struct spec r;

    ptl(&f, 0);
    ident(&f, &cpu);
    struct ds_arch_pebs_config c = cfg_of(mem, 0x3000000, 0, 0);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_OK, "setup");
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_OK, "install");
    memset(mem, 0, 4096);
    for (size_t i = 0; i < nt; i++) {
        spec_init(&r, 60 + i);
        r.retire = t[i].lat;
        r.retire_valid = t[i].valid;
        k += frag(mem + k, &r, E_BASIC, 0);
    }
    fake_set_msr(&f, 0x3F5, k | IDX_EN | IDX_THRESH(256));
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 16, &n, &st), DS_OK, "drain");
    CHECK_EQ(n, nt, "every record");
    CHECK_EQ(st.anomalies, 0, "clean");
    for (size_t i = 0; i < nt && i < n; i++) {
        spec_init(&r, 60 + i);
        CHECK_EQ(arr[i].ip, r.ip, "record %zu ip", i);
        CHECK_EQ(arr[i].counters, r.applicable, "record %zu applicable counters", i);
        CHECK_EQ(arr[i].tsc, r.tsc, "record %zu tsc", i);
        CHECK_EQ(arr[i].retire_latency, t[i].valid ? t[i].lat : 0u, "record %zu retire latency", i);
        CHECK_EQ(!!(arr[i].present & DS_SAMPLE_RETIRE_LAT), t[i].valid, "record %zu RETIRE_LAT", i);
    }
    free(mem);
}

/* Every field of two samples (ds/pebs.h struct ds_pebs_sample), one check each. */
static void check_same_sample(const struct ds_pebs_sample *a, const struct ds_pebs_sample *b, const char *what)
{
    CHECK(a->fmt == b->fmt && a->present == b->present && a->size == b->size && a->ip_is_next == b->ip_is_next,
          "%s: fmt, present, size", what);
    CHECK(a->ip == b->ip && a->eventing_ip == b->eventing_ip && a->counters == b->counters && a->tsc == b->tsc &&
              a->header == b->header && a->retire_latency == b->retire_latency && a->fragments == b->fragments,
          "%s: basic", what);
    CHECK(a->data_addr == b->data_addr && a->data_source == b->data_source && a->latency == b->latency &&
              a->instr_latency == b->instr_latency && a->cache_latency == b->cache_latency && a->tsx == b->tsx,
          "%s: aux", what);
    CHECK(a->flags == b->flags && a->ssp == b->ssp, "%s: flags, ssp", what);
    for (int i = 0; i < DS_GPR__COUNT; i++)
        CHECK_EQ(a->gpr[i], b->gpr[i], "%s: gpr %d", what, i);
    CHECK(a->xstate == b->xstate && a->xmm == b->xmm && a->ymmh == b->ymmh && a->opmask == b->opmask &&
              a->zmmh == b->zmmh && a->h16zmm == b->h16zmm,
          "%s: vector groups", what);
    CHECK(a->lbr == b->lbr && a->lbr_count == b->lbr_count, "%s: LBR", what);
    CHECK(a->cntr_gp_mask == b->cntr_gp_mask && a->cntr_fixed_mask == b->cntr_fixed_mask &&
              a->topdown_slots == b->topdown_slots && a->perf_metrics == b->perf_metrics,
          "%s: counters group", what);
    for (int i = 0; i < 16; i++)
        CHECK_EQ(a->cntr_gp[i], b->cntr_gp[i], "%s: cntr_gp %d", what, i);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(a->cntr_fixed[i], b->cntr_fixed[i], "%s: cntr_fixed %d", what, i);
}

/* A drain decodes every record into one sample, zeroing only what the
 * previous record carried (arch_pebs.c clear_prev): a basic-only record
 * after one with every group (aux, all 16 GPRs, XMM, LBR, counters GP
 * {0,3} fixed {1} + metrics) must come out exactly as the same record
 * decoded alone into a fresh sample. Mutant clear_prev `g[14] = 0` ->
 * `g[15] = 0` (sample seed 20261127). */
static void test_drain_clears_previous_groups(void)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_arch_pebs ap;
    struct ds_drain_stats st;
    static struct ds_pebs_sample arr[4], alone;
    size_t n;
    uint32_t used;
    unsigned char *mem = aligned_alloc(4096, 4096);
    struct spec r;

    ptl(&f, 0);
    ident(&f, &cpu);
    struct ds_arch_pebs_config c = cfg_of(mem, 0x3000000, 0, 0);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_OK, "setup");
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_OK, "install");
    memset(mem, 0, 4096);
    spec_init(&r, 2);
    r.nlbr = 8;
    r.cgp = 0x9;
    r.cfx = 0x2;
    r.cmet = 3;
    r.ncvals = 5;
    for (int i = 0; i < 5; i++)
        r.cvals[i] = 0xC0 + (uint64_t)i;
    size_t k = frag(mem, &r, E_BASIC | E_AUX | E_GPR | E_XMM | E_LBR(1) | E_CNTR(7), 8); /* 864: 16-byte units */
    spec_init(&r, 3);
    size_t kb = frag(mem + k, &r, E_BASIC, 0);
    fake_set_msr(&f, 0x3F5, (k + kb) | IDX_EN | IDX_THRESH(256));
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 4, &n, &st), DS_OK, "drain");
    CHECK_EQ(n, 2, "two records");
    CHECK_EQ(arr[0].present & DS_SAMPLE_GPRS, DS_SAMPLE_GPRS, "first record carries the GPRs");
    CHECK_EQ(ds_arch_pebs_decode(mem + k, kb, &alone, &used), DS_OK, "second record alone");
    check_same_sample(&arr[1], &alone, "basic record after every group");
    free(mem);
}

/* The virtual range [mem, mem + size) may end exactly at the top of the
 * address space but not wrap past it (ds/arch_pebs.h: DS_ERR_APEBS_MEM_ALIGN
 * for a range that wraps). Setup only records the pointer, so addresses in
 * the last pages are safe to pass: the last 4 KiB page with size code 0 and
 * the last 8 KiB with size code 1 are accepted; the last page with 8 KiB
 * wraps. Mutant arch_pebs.c `bytes - 1 > UINTPTR_MAX - m` -> `>=` / `bytes - 0`. */
static void test_mem_top_of_address_space(void)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_arch_pebs ap;
    ptl(&f, 0);
    ident(&f, &cpu);
    static const struct { uintptr_t from_top; unsigned code; int rc; } t[] = {
        { 4096, 0, DS_OK }, { 8192, 1, DS_OK }, { 4096, 1, DS_ERR_APEBS_MEM_ALIGN },
        { 8192, 2, DS_ERR_APEBS_MEM_ALIGN },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        void *mem = (void *)(UINTPTR_MAX - t[i].from_top + 1);
        struct ds_arch_pebs_config c = cfg_of(mem, 0x100000, t[i].code, 0);
        CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), t[i].rc, "last %u bytes, size code %u",
                 (unsigned)t[i].from_top, t[i].code);
        CHECK_EQ(ap.setup, t[i].rc == DS_OK, "setup flag (%zu)", i);
    }
}

/* Issue 25 item 3: a first fragment without the basic group is skipped
 * alone, as Linux intel_pmu_drain_arch_pebs does ("1st fragment or single
 * record must have basic group": at += header->size; continue), whatever its
 * CONT bit says; the fragment after it starts a record. A leading null
 * fragment (bits 63:16 zero) therefore never swallows the complete record
 * behind it. Before the fix the null fragment and the record were walked as
 * one orphan chain and the record was lost. */
static void test_orphan_fragment_skipped_alone(void)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_arch_pebs ap;
    struct ds_drain_stats st;
    static struct ds_pebs_sample arr[8];
    struct ds_pebs_sample s;
    struct spec r;
    size_t n;
    uint32_t used = 0;
    unsigned char *mem = aligned_alloc(4096, 4096);
    memset(mem, 0, 4096);
    spec_init(&r, 71);
    put64(mem, 16); /* null fragment: size 16, bits 63:16 zero */
    size_t a = 16 + frag(mem + 16, &r, E_BASIC | E_AUX, 0);
    CHECK_EQ(ds_arch_pebs_decode(mem, a, &s, &used), DS_ERR_APEBS_NO_BASIC, "leading null fragment");
    CHECK_EQ(used, 16, "only the null fragment consumed");
    CHECK_EQ(ds_arch_pebs_decode(mem + 16, a - 16, &s, &used), DS_OK, "the record behind it");
    check_basic(&s, &r, "after null");

    /* CONT orphan: skipped alone too; its CONT is not followed */
    spec_init(&r, 72);
    size_t b = frag(mem + a, &r, E_GPR | E_CONT, 0);
    size_t c = frag(mem + a + b, &r, E_BASIC, 0);
    CHECK_EQ(ds_arch_pebs_decode(mem + a, b + c, &s, &used), DS_ERR_APEBS_NO_BASIC, "CONT orphan");
    CHECK_EQ(used, b, "only the CONT orphan consumed");

    ptl(&f, 0);
    ident(&f, &cpu);
    struct ds_arch_pebs_config cf = cfg_of(mem, 0x3000000, 0, 256);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &cf), DS_OK, "setup");
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_OK, "install");
    fake_set_msr(&f, 0x3F5, (a + b + c) | IDX_EN | IDX_THRESH(256));
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 8, &n, &st), DS_OK, "drain");
    CHECK_EQ(n, 2, "both complete records delivered");
    CHECK_EQ(st.records, 2, "records");
    CHECK_EQ(st.lost_corrupt, 2, "the null fragment and the CONT orphan");
    CHECK(st.anomalies & DS_DRAIN_APEBS_ORPHAN, "orphan anomaly");
    spec_init(&r, 71);
    CHECK_EQ(arr[0].ip, r.ip, "first record");
    CHECK_EQ(arr[0].data_addr, r.addr, "first record's aux");
    spec_init(&r, 72);
    CHECK_EQ(arr[1].ip, r.ip, "second record");
    check_invariant(&st, "orphans");
    free(mem);
}

/* Issue 25 item 4: ds_probe on an architectural-PEBS CPU never touches
 * IA32_PEBS_ENABLE (3F1H, absent there: Linux "perf/x86/intel: Initialize
 * architectural PEBS"; the fake faults on it, being unmapped). The DS area
 * item checks BTS alone; the arch_pebs item reads IA32_PEBS_INDEX (busy
 * with EN, a fault names 0x3F5) and hold-tests IA32_PEBS_BASE. Before the
 * fix: "ds_area: fault (IA32_PEBS_ENABLE (0x3F1) ...)". */
static void test_probe_arch_pebs(void)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_probe_result pr;
    char txt[1024];
    ptl(&f, 0);
    fake_set_msr(&f, DS_MSR_IA32_DEBUGCTL, 0);
    fake_set_msr(&f, DS_MSR_IA32_DS_AREA, 0);
    fake_set_msr(&f, DS_MSR_IA32_PERFEVTSEL0, 0);
    fake_set_msr(&f, DS_MSR_IA32_PMC0, 0);
    fake_set_msr(&f, DS_MSR_IA32_A_PMC0, 0);
    fake_set_msr(&f, 0x3F4, 0x5000 | 1);
    ident(&f, &cpu);
    f.faults = 0;
    f.nlog = 0;
    CHECK_EQ(ds_probe(&cpu, NULL, &pr), DS_OK, "probe");
    CHECK_EQ(f.faults, 0, "no MSR fault (3F1H untouched)");
    CHECK_EQ(pr.ds_area.verdict, DS_PROBE_WORKING, "ds_area working");
    CHECK_EQ(pr.arch_pebs.verdict, DS_PROBE_WORKING, "arch_pebs working");
    CHECK_EQ(pr.arch_pebs.msr, 0x3F4, "IA32_PEBS_BASE tested");
    CHECK(pr.arch_pebs.restored, "restored");
    CHECK_EQ(fake_get_msr(&f, 0x3F4), 0x5000 | 1, "prior BASE back");
    CHECK_EQ(pr.arch_pebs.wrote & 0xFFF, 0, "pattern: 4 KiB aligned, size code 0");
    for (unsigned i = 0; i < f.nlog; i++)
        CHECK(f.log[i].msr != 0x3F1 && f.log[i].msr != 0x3F5, "no write to 0x%X", f.log[i].msr);
    CHECK_EQ(ds_probe_format(&pr, txt, sizeof txt), DS_OK, "text");
    CHECK(strstr(txt, "ds_area: working (") && strstr(txt, "arch_pebs: working ("), "text: %s", txt);

    fake_set_msr(&f, 0x3F5, IDX_EN);
    f.nlog = 0;
    CHECK_EQ(ds_probe(&cpu, NULL, &pr), DS_OK, "probe, arch-PEBS on");
    CHECK_EQ(pr.arch_pebs.verdict, DS_PROBE_BUSY, "INDEX.EN: busy");
    CHECK_EQ(pr.arch_pebs.msr, 0x3F5, "busy names INDEX");
    CHECK_EQ(pr.ds_area.verdict, DS_PROBE_WORKING, "DS area still free");
    for (unsigned i = 0; i < f.nlog; i++)
        CHECK(f.log[i].msr != 0x3F4, "BASE not written while busy");
    CHECK_EQ(ds_probe_format(&pr, txt, sizeof txt), DS_OK, "text busy");
    CHECK(strstr(txt, "arch_pebs: busy (IA32_PEBS_INDEX (0x3F5): "), "text busy: %s", txt);

    fake_set_msr(&f, 0x3F5, 0);
    f.fault_on_read = 0x3F5;
    CHECK_EQ(ds_probe(&cpu, NULL, &pr), DS_OK, "probe, INDEX faults");
    CHECK_EQ(pr.arch_pebs.verdict, DS_PROBE_FAULT, "INDEX fault");
    CHECK_EQ(pr.arch_pebs.msr, 0x3F5, "fault names INDEX");
    f.fault_on_read = 0;
    f.fault_on_write = 0x3F4;
    CHECK_EQ(ds_probe(&cpu, NULL, &pr), DS_OK, "probe, BASE write faults");
    CHECK_EQ(pr.arch_pebs.verdict, DS_PROBE_FAULT, "BASE fault");
    CHECK_EQ(pr.arch_pebs.msr, 0x3F4, "fault names BASE");
    f.fault_on_write = 0;

    /* PEBS_FMT 0xF without the 23H sub-leaves: not enumerated, nothing of
     * arch-PEBS touched, and still no 3F1H (Linux intel_pebs_init keys the
     * DS-area PEBS path on the format) */
    set_cpuid_word(&f, 0x23, 0, 0, 0x3);
    ident(&f, &cpu);
    f.faults = 0;
    CHECK_EQ(ds_probe(&cpu, NULL, &pr), DS_OK, "probe, 23H.4/5 absent");
    CHECK_EQ(pr.arch_pebs.verdict, DS_PROBE_NOT_ADVERTISED, "not enumerated");
    CHECK_EQ(pr.arch_pebs.reason, DS_ERR_APEBS_NOT_ENUMERATED, "reason");
    CHECK_EQ(pr.ds_area.verdict, DS_PROBE_WORKING, "ds_area working without 3F1H");
    CHECK_EQ(f.faults, 0, "no fault");
}

/* A same-layout run (arch_pebs.c run_same) holds only while the counters
 * group header is the same too: two records with one record header (same
 * groups, same size) but different GP bitmaps (counters group: GP bitmap
 * dword, fixed bitmap dword, then one value per set bit, SDM Vol. 3B
 * 20.6.2.3; Linux arch_pebs_cntr_header) put their second value in different
 * counters (96-byte records: WR_OFFSET counts 16-byte units) (mutant run_same `!= l->cw` -> `==`, sample seed 20261128). */
static void test_run_same_counters_header(void)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    struct ds_arch_pebs ap;
    struct ds_drain_stats st;
    static struct ds_pebs_sample arr[8];
    size_t n, k = 0;
    unsigned char *mem = aligned_alloc(4096, 4096);
    static const uint32_t gp[] = { 0x3, 0x3, 0x5, 0x5, 0x3 };
    const size_t nt = sizeof(gp) / sizeof(gp[0]);
    struct spec r;

    ptl(&f, 0);
    ident(&f, &cpu);
    struct ds_arch_pebs_config c = cfg_of(mem, 0x3000000, 0, 0);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &cpu, &c), DS_OK, "setup");
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_OK, "install");
    memset(mem, 0, 4096);
    for (size_t i = 0; i < nt; i++) {
        spec_init(&r, 70 + i);
        r.cgp = gp[i];
        r.ncvals = 2;
        r.cvals[0] = 0xC000 + i;
        r.cvals[1] = 0xD000 + i;
        k += frag(mem + k, &r, E_BASIC | E_CNTR(1), 0);
    }
    fake_set_msr(&f, 0x3F5, k | IDX_EN | IDX_THRESH(256));
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 8, &n, &st), DS_OK, "drain");
    CHECK_EQ(n, nt, "every record");
    CHECK_EQ(st.anomalies, 0, "clean");
    for (size_t i = 0; i < nt && i < n; i++) {
        unsigned g = gp[i] == 0x3 ? 1 : 2, o = 3 - g;
        CHECK_EQ(arr[i].cntr_gp_mask, gp[i], "record %zu GP bitmap", i);
        CHECK_EQ(arr[i].cntr_gp[0], 0xC000 + i, "record %zu first value in GP0", i);
        CHECK_EQ(arr[i].cntr_gp[g], 0xD000 + i, "record %zu second value in GP%u", i, g);
        CHECK_EQ(arr[i].cntr_gp[o], 0, "record %zu nothing in GP%u", i, o);
    }
    free(mem);
}

/* Records ending exactly where readable memory ends (a PROT_NONE page
 * after): a first fragment whose CONT promises a continuation that is not
 * there, and avail 0..15, are refused DS_ERR_APEBS_REC_SHORT without a read
 * past @avail (ds/arch_pebs.h "never reading outside [rec, rec + avail)";
 * mutant arch_pebs.c record() guard `avail - at < DS_APEBS_HDR_BYTES`
 * removed, sample seed 20261128, read the next header past the end). */
static void test_decode_no_read_past_avail(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    unsigned char *m = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED, "mmap");
    if (m == MAP_FAILED)
        return;
    CHECK_EQ(mprotect(m + pg, (size_t)pg, PROT_NONE), 0, "guard page");
    struct spec r;
    struct ds_pebs_sample s;
    uint32_t used;
    spec_init(&r, 8);
    unsigned char tmp[256];
    size_t n = frag(tmp, &r, E_BASIC | E_CONT | E_MODE64, 0);
    unsigned char *end = m + pg;
    memcpy(end - n, tmp, n);
    CHECK_EQ(ds_arch_pebs_decode(end - n, n, &s, &used), DS_ERR_APEBS_REC_SHORT, "continuation absent");
    for (unsigned a = 0; a < 16; a++) {
        memset(end - 16, 0, 16);
        if (a >= 8)
            put64(end - a, E_BASIC | 64);
        CHECK_EQ(ds_arch_pebs_decode(end - a, a, &s, &used), DS_ERR_APEBS_REC_SHORT, "avail %u", a);
    }
    munmap(m, 2 * (size_t)pg);
}

int main(void)
{
    test_detect_ptl();
    test_detect_errors();
    test_format_select();
    test_setup_table();
    test_size_code_width();
    test_install_enable();
    test_cfg_c();
    test_decode_groups();
    test_decode_vecr();
    test_decode_fragments();
    test_decode_bounds();
    test_drain();
    test_pmi_bit54();
    test_cntr_metrics_boundary();
    test_phys_bits_boundaries();
    test_exact_fit_and_odd_fields();
    test_lbr_align_and_last_fragment();
    test_size_bit0_and_consumed();
    test_not_setup_refusals();
    test_drain_exact_fill();
    test_run_same_per_record_basic();
    test_drain_clears_previous_groups();
    test_mem_top_of_address_space();
    test_orphan_fragment_skipped_alone();
    test_probe_arch_pebs();
    test_run_same_counters_header();
    test_decode_no_read_past_avail();
    return check_summary();
}
