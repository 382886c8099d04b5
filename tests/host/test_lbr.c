/* SPDX-License-Identifier: BSD-2-Clause */
/* LBR model table (every row of reference lbr.md), format decoding, reader, enable. */
#include "check.h"
#include "fake_pmu.h"
#include "fault_sweep.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* reference lbr.md "Stack size and MSR bases" (typed from the reference) */

/* Field-wise comparison: struct ds_lbr_entry has padding, which memcmp would compare too. */
static bool lbr_entry_eq(const struct ds_lbr_entry *a, const struct ds_lbr_entry *b)
{
    return a->from == b->from && a->to == b->to && a->has_mispred == b->has_mispred &&
           a->mispred == b->mispred && a->has_tsx == b->has_tsx && a->in_tx == b->in_tx &&
           a->abort == b->abort && a->has_cycles == b->has_cycles && a->cycles == b->cycles &&
           a->br_type == b->br_type && a->br_cntr_mask == b->br_cntr_mask && a->br_cntr[0] == b->br_cntr[0] &&
           a->br_cntr[1] == b->br_cntr[1] && a->br_cntr[2] == b->br_cntr[2] && a->br_cntr[3] == b->br_cntr[3];
}

static const struct { uint16_t fam; uint8_t model; uint8_t depth; uint32_t from, to, info, tos; } ref[] = {
    {0x0F, 0x00, 4, 0x1DB, 0x1DB, 0, 0x1DA}, {0x0F, 0x01, 4, 0x1DB, 0x1DB, 0, 0x1DA},
    {0x0F, 0x02, 4, 0x1DB, 0x1DB, 0, 0x1DA},
    {0x0F, 0x03, 16, 0x680, 0x6C0, 0, 0x1DA}, {0x0F, 0x04, 16, 0x680, 0x6C0, 0, 0x1DA},
    {0x0F, 0x06, 16, 0x680, 0x6C0, 0, 0x1DA},
    {0x06, 0x0D, 8, 0x40, 0x40, 0, 0x1C9}, {0x06, 0x0E, 8, 0x40, 0x40, 0, 0x1C9},
    {0x06, 0x0F, 4, 0x40, 0x60, 0, 0x1C9}, {0x06, 0x16, 4, 0x40, 0x60, 0, 0x1C9},
    {0x06, 0x17, 4, 0x40, 0x60, 0, 0x1C9}, {0x06, 0x1D, 4, 0x40, 0x60, 0, 0x1C9},
    {0x06, 0x1C, 8, 0x40, 0x60, 0, 0x1C9}, {0x06, 0x26, 8, 0x40, 0x60, 0, 0x1C9},
    {0x06, 0x27, 8, 0x40, 0x60, 0, 0x1C9}, {0x06, 0x35, 8, 0x40, 0x60, 0, 0x1C9},
    {0x06, 0x36, 8, 0x40, 0x60, 0, 0x1C9},
    {0x06, 0x37, 8, 0x40, 0x60, 0, 0x1C9}, {0x06, 0x4A, 8, 0x40, 0x60, 0, 0x1C9},
    {0x06, 0x4D, 8, 0x40, 0x60, 0, 0x1C9}, {0x06, 0x5A, 8, 0x40, 0x60, 0, 0x1C9},
    {0x06, 0x4C, 8, 0x40, 0x60, 0, 0x1C9}, {0x06, 0x5D, 8, 0x40, 0x60, 0, 0x1C9},
    {0x06, 0x5C, 32, 0x680, 0x6C0, 0, 0x1C9}, {0x06, 0x5F, 32, 0x680, 0x6C0, 0, 0x1C9},
    {0x06, 0x7A, 32, 0x680, 0x6C0, 0xDC0, 0x1C9},
    {0x06, 0x86, 32, 0x680, 0x6C0, 0xDC0, 0x1C9}, {0x06, 0x96, 32, 0x680, 0x6C0, 0xDC0, 0x1C9},
    {0x06, 0x9C, 32, 0x680, 0x6C0, 0xDC0, 0x1C9},
    {0x06, 0x1A, 16, 0x680, 0x6C0, 0, 0x1C9}, {0x06, 0x1E, 16, 0x680, 0x6C0, 0, 0x1C9},
    {0x06, 0x1F, 16, 0x680, 0x6C0, 0, 0x1C9}, {0x06, 0x2E, 16, 0x680, 0x6C0, 0, 0x1C9},
    {0x06, 0x25, 16, 0x680, 0x6C0, 0, 0x1C9}, {0x06, 0x2C, 16, 0x680, 0x6C0, 0, 0x1C9},
    {0x06, 0x2F, 16, 0x680, 0x6C0, 0, 0x1C9},
    {0x06, 0x2A, 16, 0x680, 0x6C0, 0, 0x1C9}, {0x06, 0x2D, 16, 0x680, 0x6C0, 0, 0x1C9},
    {0x06, 0x3A, 16, 0x680, 0x6C0, 0, 0x1C9}, {0x06, 0x3E, 16, 0x680, 0x6C0, 0, 0x1C9},
    {0x06, 0x3C, 16, 0x680, 0x6C0, 0, 0x1C9}, {0x06, 0x3F, 16, 0x680, 0x6C0, 0, 0x1C9},
    {0x06, 0x45, 16, 0x680, 0x6C0, 0, 0x1C9}, {0x06, 0x46, 16, 0x680, 0x6C0, 0, 0x1C9},
    {0x06, 0x3D, 16, 0x680, 0x6C0, 0, 0x1C9}, {0x06, 0x47, 16, 0x680, 0x6C0, 0, 0x1C9},
    {0x06, 0x4F, 16, 0x680, 0x6C0, 0, 0x1C9}, {0x06, 0x56, 16, 0x680, 0x6C0, 0, 0x1C9},
    {0x06, 0x4E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9}, {0x06, 0x5E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9},
    {0x06, 0x55, 32, 0x680, 0x6C0, 0xDC0, 0x1C9}, {0x06, 0x66, 32, 0x680, 0x6C0, 0xDC0, 0x1C9},
    {0x06, 0x8E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9}, {0x06, 0x9E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9},
    {0x06, 0xA5, 32, 0x680, 0x6C0, 0xDC0, 0x1C9}, {0x06, 0xA6, 32, 0x680, 0x6C0, 0xDC0, 0x1C9},
    {0x06, 0x6A, 32, 0x680, 0x6C0, 0xDC0, 0x1C9}, {0x06, 0x6C, 32, 0x680, 0x6C0, 0xDC0, 0x1C9},
    {0x06, 0x7D, 32, 0x680, 0x6C0, 0xDC0, 0x1C9}, {0x06, 0x7E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9},
    {0x06, 0x8C, 32, 0x680, 0x6C0, 0xDC0, 0x1C9}, {0x06, 0x8D, 32, 0x680, 0x6C0, 0xDC0, 0x1C9},
    {0x06, 0xA7, 32, 0x680, 0x6C0, 0xDC0, 0x1C9},
    {0x06, 0x57, 8, 0x680, 0x6C0, 0, 0x1C9}, {0x06, 0x85, 8, 0x680, 0x6C0, 0, 0x1C9},
    {0x06, 0x8F, 0, 0x1500, 0x1600, 0x1200, 0}, {0x06, 0x97, 0, 0x1500, 0x1600, 0x1200, 0},
    {0x06, 0x9A, 0, 0x1500, 0x1600, 0x1200, 0},
    /* Issue 11, typed from Linux arch/x86/include/asm/intel-family.h (IFM(family,
     * model); Xen resync of Nov 2025) and arch/x86/events/intel/core.c
     * intel_pmu_init (no legacy intel_pmu_lbr_init_* for these: Arch LBR):
     * RAPTORLAKE B7/BA/BF, METEORLAKE(_L) AC/AA, ARROWLAKE(_H,_U) C6/C5/B5,
     * LUNARLAKE_M BD, PANTHERLAKE_L CC, WILDCATLAKE_L D5, EMERALDRAPIDS_X CF,
     * GRANITERAPIDS_X/D AD/AE, BARTLETTLAKE D7, ATOM_GRACEMONT BE,
     * ATOM_CRESTMONT_X AF, ATOM_CRESTMONT B6, ATOM_DARKMONT_X DD,
     * DIAMONDRAPIDS_X IFM(19, 0x01), NOVALAKE(_L) IFM(18, 0x01/0x03). */
    {0x06, 0xB7, 0, 0x1500, 0x1600, 0x1200, 0}, {0x06, 0xBA, 0, 0x1500, 0x1600, 0x1200, 0},
    {0x06, 0xBF, 0, 0x1500, 0x1600, 0x1200, 0}, {0x06, 0xAA, 0, 0x1500, 0x1600, 0x1200, 0},
    {0x06, 0xAC, 0, 0x1500, 0x1600, 0x1200, 0}, {0x06, 0xB5, 0, 0x1500, 0x1600, 0x1200, 0},
    {0x06, 0xC5, 0, 0x1500, 0x1600, 0x1200, 0}, {0x06, 0xC6, 0, 0x1500, 0x1600, 0x1200, 0},
    {0x06, 0xBD, 0, 0x1500, 0x1600, 0x1200, 0}, {0x06, 0xCC, 0, 0x1500, 0x1600, 0x1200, 0},
    {0x06, 0xD5, 0, 0x1500, 0x1600, 0x1200, 0}, {0x06, 0xCF, 0, 0x1500, 0x1600, 0x1200, 0},
    {0x06, 0xAD, 0, 0x1500, 0x1600, 0x1200, 0}, {0x06, 0xAE, 0, 0x1500, 0x1600, 0x1200, 0},
    {0x06, 0xD7, 0, 0x1500, 0x1600, 0x1200, 0}, {0x06, 0xBE, 0, 0x1500, 0x1600, 0x1200, 0},
    {0x06, 0xAF, 0, 0x1500, 0x1600, 0x1200, 0}, {0x06, 0xB6, 0, 0x1500, 0x1600, 0x1200, 0},
    {0x06, 0xDD, 0, 0x1500, 0x1600, 0x1200, 0},
    {0x13, 0x01, 0, 0x1500, 0x1600, 0x1200, 0},
    {0x12, 0x01, 0, 0x1500, 0x1600, 0x1200, 0}, {0x12, 0x03, 0, 0x1500, 0x1600, 0x1200, 0},
    /* LAKEFIELD 8A, ICELAKE_NNPI 9D (Sunny Cove: the Skylake layout of
     * intel_pmu_lbr_init_skl), ATOM_AIRMONT_NP 75 (Airmont: SDM Table 17-4 row of
     * 06_4CH, intel_pmu_lbr_init_slm) */
    {0x06, 0x8A, 32, 0x680, 0x6C0, 0xDC0, 0x1C9}, {0x06, 0x9D, 32, 0x680, 0x6C0, 0xDC0, 0x1C9},
    {0x06, 0x75, 8, 0x40, 0x60, 0, 0x1C9},
};

static void test_table(void)
{
    size_t n;
    const struct ds_lbr_model *all = ds_lbr_models(&n);
    CHECK_EQ(n, N(ref), "one table row per reference row");
    for (size_t i = 0; i < N(ref); i++) {
        const struct ds_lbr_model *m;
        CHECK_EQ(ds_lbr_lookup(ref[i].fam, ref[i].model, &m), DS_OK, "%02X_%02XH", ref[i].fam, ref[i].model);
        CHECK(m->depth == ref[i].depth && m->from_base == ref[i].from && m->to_base == ref[i].to &&
              m->info_base == ref[i].info && m->tos_msr == ref[i].tos,
              "%02X_%02XH layout", ref[i].fam, ref[i].model);
        if (ref[i].depth)
            CHECK_EQ(m->tos_max, ref[i].depth - 1, "TOS range");
        CHECK(!!(m->flags & DS_LBR_F_ARCH) == (ref[i].depth == 0), "Arch LBR rows marked");
        CHECK(!!(m->flags & DS_LBR_F_PACKED) == (ref[i].from == ref[i].to && ref[i].depth), "packed rows marked");
        CHECK(!!(m->flags & DS_LBR_F_NETBURST) == (ref[i].fam == 0xF), "NetBurst rows marked");
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            CHECK(all[i].family != all[j].family || all[i].model != all[j].model, "no duplicate key");
    const struct ds_lbr_model *m;
    static const struct { uint16_t f; uint8_t m; } unknown[] = {
        {0x06, 0x09}, {0x06, 0xFF}, {0x0F, 0x05}, {0x05, 0x02}, {0x06, 0x01}, {0x19, 0x01}, {0x06, 0xAB},
        {0x13, 0x02}, {0x12, 0x02}, {0x13, 0x00}, {0x12, 0x00}, {0x06, 0x03} };
    for (size_t i = 0; i < N(unknown); i++)
        CHECK_EQ(ds_lbr_lookup(unknown[i].f, unknown[i].m, &m), DS_ERR_LBR_UNKNOWN_MODEL,
                 "%02X_%02XH unknown, never guessed", unknown[i].f, unknown[i].m);
    CHECK_EQ(ds_lbr_lookup(6, 0x5E, NULL), DS_ERR_NULL, "null");
}

static void test_decode(void)
{
    struct ds_lbr_entry e;
    CHECK_EQ(ds_lbr_decode(0, 0x8765432112345678ull, 0, 0, &e), DS_OK, "fmt 0");
    CHECK(e.from == 0x12345678 && e.to == 0x87654321 && !e.has_mispred, "fmt 0 packed split");
    CHECK_EQ(ds_lbr_decode(1, 0xFFFFFFFF81000000ull, 0x401000, 0, &e), DS_OK, "fmt 1");
    CHECK(e.from == 0xFFFFFFFF81000000ull && e.to == 0x401000, "fmt 1 as is");
    CHECK_EQ(ds_lbr_decode(2, 5, 6, 0, &e), DS_OK, "fmt 2");
    CHECK(e.from == 5 && e.to == 6, "fmt 2 as is");
    /* fmt 3: bit 63 mispredict, address sign-extended from bit 62 */
    CHECK_EQ(ds_lbr_decode(3, (1ull << 63) | 0x00007FFF81000000ull, 0x401000, 0, &e), DS_OK, "fmt 3");
    CHECK(e.has_mispred && e.mispred && e.from == 0x00007FFF81000000ull, "fmt 3 mispred, positive addr");
    CHECK_EQ(ds_lbr_decode(3, 0x7FFFFFFF81000000ull, 0, 0, &e), DS_OK, "fmt 3 kernel");
    CHECK(!e.mispred && e.from == 0xFFFFFFFF81000000ull, "fmt 3 sign extension from bit 62");
    /* fmt 4: 63 mispred, 62 IN_TX, 61 ABORT, sign extension from bit 60 */
    CHECK_EQ(ds_lbr_decode(4, (1ull << 62) | (1ull << 61) | 0x1FFFFFFF81000000ull, 7, 0, &e), DS_OK, "fmt 4");
    CHECK(e.has_tsx && e.in_tx && e.abort && !e.mispred && e.from == 0xFFFFFFFF81000000ull && e.to == 7,
          "fmt 4 TSX flags, sign extension from bit 60");
    CHECK_EQ(ds_lbr_decode(4, (1ull << 63) | 0x401000, 7, 0, &e), DS_OK, "fmt 4 user");
    CHECK(e.mispred && !e.in_tx && !e.abort && e.from == 0x401000, "fmt 4 mispred user");
    /* fmt 5: LBR_INFO */
    CHECK_EQ(ds_lbr_decode(5, 0xFFFFFFFF81000000ull, 0x401000, (1ull << 63) | (1ull << 61) | 1234, &e), DS_OK, "fmt 5");
    CHECK(e.mispred && !e.in_tx && e.abort && e.has_cycles && e.cycles == 1234 &&
          e.from == 0xFFFFFFFF81000000ull, "fmt 5 info");
    /* fmt 6: FROM bit 63 mispred; TO cycles 63:48, address 47:0 sign-extended */
    CHECK_EQ(ds_lbr_decode(6, (1ull << 63) | 0x7FFFFFFF81000000ull, (0x0321ull << 48) | 0xFFFF81000010ull, 0, &e),
             DS_OK, "fmt 6");
    CHECK(e.mispred && e.from == 0xFFFFFFFF81000000ull && e.cycles == 0x321 && e.has_cycles &&
          e.to == 0xFFFFFFFF81000010ull, "fmt 6 cycles and TO sign extension");
    CHECK_EQ(ds_lbr_decode(6, 0x401000, (5ull << 48) | 0x401020, 0, &e), DS_OK, "fmt 6 user");
    CHECK(!e.mispred && e.to == 0x401020 && e.cycles == 5, "fmt 6 user addr");
    /* fmt 7: LBR_INFO without TSX */
    CHECK_EQ(ds_lbr_decode(7, 1, 2, (1ull << 63) | (1ull << 62) | 77, &e), DS_OK, "fmt 7");
    CHECK(e.mispred && !e.has_tsx && !e.in_tx && e.cycles == 77, "fmt 7 no TSX");
    /* Arch LBR INFO */
    CHECK_EQ(ds_lbr_decode_arch(7, 1, 2, (1ull << 60) | (5ull << 56) | 99, &e), DS_OK, "arch");
    CHECK(e.has_cycles && e.cycles == 99 && e.br_type == 5 && !e.mispred, "arch info");
    CHECK_EQ(ds_lbr_decode_arch(7, 1, 2, 99, &e), DS_OK, "arch no cyc");
    CHECK(!e.has_cycles && e.cycles == 0, "cycle count only when CYC_CNT_VALID");
    CHECK_EQ(ds_lbr_decode(DS_LBR_FMT_ARCH, 1, 2, 99, &e), DS_ERR_LBR_BAD_FORMAT,
             "Arch INFO depends on CPUID.1CH:ECX: ds_lbr_decode_arch");
    CHECK_EQ(ds_lbr_decode_arch(7, 1, 2, 99, NULL), DS_ERR_NULL, "arch null");
    CHECK_EQ(ds_lbr_decode(8, 0, 0, 0, &e), DS_ERR_LBR_BAD_FORMAT, "fmt 8");
    CHECK_EQ(ds_lbr_decode(0x3F, 0, 0, 0, &e), DS_ERR_LBR_BAD_FORMAT, "fmt 63");
    CHECK_EQ(ds_lbr_decode(1, 0, 0, 0, NULL), DS_ERR_NULL, "null");
}

/* CPUID.01H:EAX for a DisplayFamily_DisplayModel (SDM Vol. 2A CPUID: family
 * field 0FH plus extended family [27:20] from DisplayFamily 0FH on; extended
 * model [19:16] for family fields 06H and 0FH) */
static uint32_t sig_of(uint16_t fam, uint8_t model)
{
    uint32_t f = fam >= 0xF ? 0xF : fam, ext = fam >= 0xF ? fam - 0xFu : 0;
    return (ext << 20) | (f << 8) | ((model & 0xFu) << 4) | ((uint32_t)(model >> 4) << 16);
}

static void lbr_cpu(struct fake_pmu *f, struct ds_cpu *cpu, const struct ds_lbr_model *m, unsigned perfmon_v,
                    bool pdcm, unsigned lbr_fmt)
{
    fp_reset(f);
    fp_intel(f, 0x1C, sig_of(m->family, m->model), pdcm ? 1u << 15 : 0, 1u << 21);
    if (perfmon_v)
        fp_cpuid_set(f, 0xA, 0, 0x07300400 | perfmon_v, 0, 0, 0x603);
    if (m->flags & DS_LBR_F_ARCH)
        fp_cpuid_set(f, 7, 0, 0, 0, 0, 1u << 19); /* CPUID.(07H,0):EDX[19]: Arch LBR */
    fp_cpuid_set(f, 0x1C, 0, 0x80, 0x7, 0x7, 0); /* Arch LBR: depth 64; CPL, branch, call-stack filtering;
                                                  * mispredict, timed LBR, branch type recorded */
    fp_set(f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    if (pdcm)
        fp_set(f, DS_MSR_IA32_PERF_CAPABILITIES, lbr_fmt);
    fp_set(f, DS_MSR_IA32_DEBUGCTL, 0);
    fp_set(f, DS_MSR_IA32_PERF_GLOBAL_STATUS_RESET, 0);
    if (m->flags & DS_LBR_F_SELECT)
        fp_set(f, DS_MSR_LBR_SELECT, 0);
    if (m->tos_msr)
        fp_set(f, m->tos_msr, 0);
    if (m->flags & DS_LBR_F_ARCH) {
        fp_set(f, DS_MSR_IA32_LBR_CTL, 0);
        fp_set(f, DS_MSR_IA32_LBR_DEPTH, 0);
    }
    unsigned depth = m->depth ? m->depth : 64;
    for (unsigned i = 0; i < depth; i++) {
        /* distinct, recognisable raw values per slot */
        fp_set(f, m->from_base + i, 0x00007F0000001000ull + i * 0x10 + (i % 3 == 1 ? 1ull << 63 : 0));
        if (m->to_base != m->from_base)
            fp_set(f, m->to_base + i, 0x00007F0000100000ull + i * 0x10);
        if (m->info_base)
            fp_set(f, m->info_base + i, (i & 1 ? 1ull << 63 : 0) | (1ull << 60) | (100 + i));
    }
    CHECK_EQ(fp_identify(f, cpu), DS_OK, "identify %02X_%02XH", m->family, m->model);
}

/* What lbr_cpu's slot @idx must decode to in format @fmt, written from the SDM
 * record formats (Vol. 3B "LBR Stack" format table; reference lbr.md), not
 * from ds_lbr_decode: FROM = 0x7F0000001000 + 16 idx with bit 63 set when
 * idx % 3 == 1, TO = 0x7F0000100000 + 16 idx, INFO (rows with one) bit 63 on
 * odd slots, cycles 100 + idx. */
static struct ds_lbr_entry expect_slot(unsigned fmt, const struct ds_lbr_model *m, unsigned idx)
{
    uint64_t addr = 0x00007F0000001000ull + idx * 0x10, to = 0x00007F0000100000ull + idx * 0x10;
    bool bit63 = idx % 3 == 1;
    struct ds_lbr_entry e = { 0 };
    e.br_type = -1;
    e.to = to;
    switch (fmt) {
    case 0: /* one MSR: FROM 31:0, TO 63:32 */
        e.from = addr & 0xFFFFFFFFull;
        e.to = 0x7F00u | (bit63 ? 0x80000000u : 0);
        break;
    case 1: case 2: /* addresses as is */
        e.from = addr | (bit63 ? 1ull << 63 : 0);
        break;
    case 3: case 4: case 6: /* FROM[63] mispredict (4: 62 IN_TX, 61 ABORT; 6: TO[63:48] cycles = 0) */
        e.from = addr;
        e.has_mispred = true;
        e.mispred = bit63;
        e.has_tsx = fmt == 4;
        e.has_cycles = fmt == 6;
        break;
    case 5: case 7: /* LBR_INFO: 63 mispredict, 15:0 cycles (5: TSX 62/61) */
        e.from = addr | (bit63 ? 1ull << 63 : 0);
        e.has_mispred = e.has_cycles = true;
        e.has_tsx = fmt == 5;
        if (m->info_base) {
            e.mispred = idx & 1;
            e.cycles = (uint16_t)(100 + idx);
        }
        break;
    }
    return e;
}

/* Knights Landing 06_57H / Knights Mill 06_85H report format 1 (LIP) but keep
 * MISPRED in FROM bit 63 (Linux lbr.c intel_pmu_lbr_init_knl: "Knights
 * Landing does have MISPREDICT bit", lbr_format LIP -> EIP_FLAGS). */
static unsigned knl_fmt(const struct ds_lbr_model *m, unsigned fmt)
{
    bool knl = m->family == 0x06 && (m->model == 0x57 || m->model == 0x85);
    return knl && fmt == 1 ? 3 : fmt;
}

/* For every row: the reader returns the entries newest first for several TOS values. */
static void test_reader_every_row(void)
{
    size_t n;
    const struct ds_lbr_model *rows = ds_lbr_models(&n);
    struct ds_lbr_entry out[64], want;
    size_t got;
    for (size_t r = 0; r < n; r++) {
        const struct ds_lbr_model *m = &rows[r];
        struct fake_pmu f;
        struct ds_cpu cpu;
        if (m->flags & DS_LBR_F_ARCH) {
            lbr_cpu(&f, &cpu, m, 5, true, 5);
            for (unsigned valid = 0; valid <= 32; valid += 8) {
                fp_set(&f, DS_MSR_IA32_LBR_DEPTH, 32);
                for (unsigned i = 0; i < 32; i++)
                    fp_set(&f, m->from_base + i, i < valid ? 0x401000 + i : 0);
                CHECK_EQ(ds_lbr_read(&cpu, m, DS_LBR_FMT_ARCH, out, 64, &got), DS_OK, "arch read");
                CHECK_EQ(got, valid, "arch stops at first empty entry");
                for (unsigned k = 0; k < got; k++) {
                    ds_lbr_decode_arch(7, fp_get(&f, m->from_base + k), fp_get(&f, m->to_base + k),
                                  fp_get(&f, m->info_base + k), &want);
                    CHECK(lbr_entry_eq(&out[k], &want) && out[k].from == 0x401000 + k,
                          "arch entry %u newest first", k);
                }
            }
            fp_set(&f, DS_MSR_IA32_LBR_DEPTH, 12);
            CHECK_EQ(ds_lbr_read(&cpu, m, DS_LBR_FMT_ARCH, out, 64, &got), DS_ERR_LBR_ARCH_DEPTH, "bad depth");
            fp_set(&f, DS_MSR_IA32_LBR_DEPTH, 32);
            CHECK_EQ(ds_lbr_read(&cpu, m, DS_LBR_FMT_ARCH, out, 16, &got), DS_ERR_LBR_NOSPC, "cap < depth");
            CHECK_EQ(ds_lbr_read(&cpu, m, 5, out, 64, &got), DS_ERR_LBR_BAD_FORMAT, "non-arch fmt on arch row");
            continue;
        }
        for (unsigned fmt = 0; fmt <= 7; fmt++) {
            bool packed = m->flags & DS_LBR_F_PACKED;
            lbr_cpu(&f, &cpu, m, m->family == 6 ? 2 : 0, true, fmt);
            unsigned df;
            CHECK_EQ(ds_lbr_format(&cpu, m, &df), DS_OK, "format");
            unsigned eff = knl_fmt(m, fmt);
            CHECK_EQ(df, packed ? 0 : eff, "format from PERF_CAPABILITIES");
            unsigned tos_values[3] = { 0, 1u % m->depth, m->depth - 1u };
            for (unsigned t = 0; t < 3; t++) {
                unsigned tos = tos_values[t];
                fp_set(&f, m->tos_msr, tos);
                fp_clear_log(&f);
                int rc = ds_lbr_read(&cpu, m, fmt, out, 64, &got);
                if (packed && fmt != 0) {
                    CHECK_EQ(rc, DS_ERR_LBR_BAD_FORMAT, "packed rows decode only format 0");
                    continue;
                }
                CHECK_EQ(rc, DS_OK, "%02X_%02XH fmt %u read", m->family, m->model, fmt);
                CHECK_EQ(got, m->depth, "all entries");
                for (unsigned k = 0; k < m->depth; k++) {
                    unsigned idx = (tos + m->depth - k) % m->depth;
                    want = expect_slot(eff, m, idx);
                    CHECK(lbr_entry_eq(&out[k], &want), "%02X_%02XH fmt %u tos %u entry %u is slot %u",
                          m->family, m->model, fmt, tos, k, idx);
                }
                unsigned per = fmt == 0 ? 1 : 2 + (((fmt == 5 || fmt == 7) && m->info_base) ? 1 : 0);
                CHECK_EQ(f.reads, 1 + per * m->depth, "MSR reads: TOS + entries");
                CHECK_EQ(f.writes, 0, "reader writes nothing");
            }
            fp_set(&f, m->tos_msr, m->depth);
            CHECK_EQ(ds_lbr_read(&cpu, m, packed ? 0 : fmt, out, 64, &got), DS_ERR_LBR_BAD_TOS, "TOS out of range");
            CHECK_EQ(ds_lbr_read(&cpu, m, packed ? 0 : fmt, out, m->depth - 1, &got), DS_ERR_LBR_NOSPC, "cap");
        }
        CHECK_EQ(ds_lbr_read(&cpu, m, DS_LBR_FMT_ARCH, out, 64, &got), DS_ERR_LBR_BAD_FORMAT, "arch fmt on TOS row");
        CHECK_EQ(ds_lbr_read(&cpu, m, 8, out, 64, &got), DS_ERR_LBR_BAD_FORMAT, "fmt 8");
    }
    /* the row must be the CPU's own */
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *skl, *hsw;
    ds_lbr_lookup(6, 0x5E, &skl);
    ds_lbr_lookup(6, 0x3C, &hsw);
    lbr_cpu(&f, &cpu, skl, 4, true, 5);
    CHECK_EQ(ds_lbr_read(&cpu, hsw, 4, out, 64, &got), DS_ERR_INVAL, "row of another model");
    CHECK_EQ(ds_lbr_read(&cpu, skl, 5, NULL, 64, &got), DS_ERR_NULL, "null out");
}

/* Issue 10 item 7: a Knights Landing/Mill FROM with bit 63 set decodes as a
 * mispredicted branch at the address in bits 62:0 (sign-extended). */
static void test_knl_mispred(void)
{
    static const uint8_t knl[] = { 0x57, 0x85 };
    for (unsigned i = 0; i < N(knl); i++) {
        struct fake_pmu f;
        struct ds_cpu cpu;
        const struct ds_lbr_model *m;
        CHECK_EQ(ds_lbr_lookup(6, knl[i], &m), DS_OK, "06_%02XH", knl[i]);
        lbr_cpu(&f, &cpu, m, 3, true, 1 /* PERF_CAPABILITIES[5:0] = LIP */);
        unsigned fmt = 99;
        CHECK_EQ(ds_lbr_format(&cpu, m, &fmt), DS_OK, "format");
        CHECK_EQ(fmt, 3, "06_%02XH: format 1 decoded as EIP_FLAGS", knl[i]);
        fp_set(&f, DS_MSR_LASTBRANCH_TOS, 2);
        fp_set(&f, 0x680 + 2, (1ull << 63) | 0x401000);      /* newest: mispredicted, user */
        fp_set(&f, 0x6C0 + 2, 0x401800);
        fp_set(&f, 0x680 + 1, 0x7FFFFFFF81000000ull);       /* predicted, kernel half */
        struct ds_lbr_entry out[8];
        size_t n = 0;
        /* both the format ds_lbr_format gives and the raw PERF_CAPABILITIES value */
        for (unsigned pass = 0; pass < 2; pass++) {
            CHECK_EQ(ds_lbr_read(&cpu, m, pass ? 1 : fmt, out, 8, &n), DS_OK, "read");
            CHECK_EQ(n, 8, "depth 8");
            CHECK(out[0].has_mispred && out[0].mispred, "06_%02XH pass %u: FROM[63] is MISPRED", knl[i], pass);
            CHECK_EQ(out[0].from, 0x401000, "06_%02XH pass %u: address without bit 63", knl[i], pass);
            CHECK_EQ(out[0].to, 0x401800, "TO as is");
            CHECK(out[1].has_mispred && !out[1].mispred, "predicted branch");
            CHECK_EQ(out[1].from, 0xFFFFFFFF81000000ull, "sign-extended from bit 62");
        }
    }
    /* Not on other rows reporting format 1: Nehalem keeps FROM as is */
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *m;
    ds_lbr_lookup(6, 0x1A, &m);
    lbr_cpu(&f, &cpu, m, 3, true, 1);
    unsigned fmt = 99;
    CHECK_EQ(ds_lbr_format(&cpu, m, &fmt), DS_OK, "nhm format");
    CHECK_EQ(fmt, 1, "Nehalem reporting LIP stays LIP");
}

/* Issue 10 item 8: call-stack mode with FREEZE_LBRS_ON_PMI is refused (Linux
 * lbr.c __intel_pmu_lbr_enable: "LBR callstack does not work well with
 * FREEZE_LBRS_ON_PMI", it clears the freeze), on the LBR_SELECT[9] rows and with
 * IA32_LBR_CTL[3] (CALL_STACK) on Arch LBR; and an enable without freeze
 * clears a stale DEBUGCTL[11] on both kinds of rows. */
static void test_callstack_freeze(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *m;
    ds_lbr_lookup(6, 0x5E, &m);  /* Skylake: LBR_SELECT[9] valid */
    lbr_cpu(&f, &cpu, m, 4, true, 5);
    struct ds_lbr_config cs = { .freeze_on_pmi = true, .use_select = true, .select = DS_LBR_SELECT_EN_CALLSTACK };
    CHECK_EQ(ds_lbr_enable(&cpu, m, &cs), DS_ERR_LBR_CALLSTACK_FREEZE, "SKL call stack + freeze");
    CHECK_EQ(f.nlog, 0, "refused before any MSR access");
    cs.select = DS_LBR_SELECT_JCC;  /* bit 2 only: no call stack */
    CHECK_EQ(ds_lbr_enable(&cpu, m, &cs), DS_OK, "freeze without call stack");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), 0x801, "LBR | FREEZE_LBRS_ON_PMI");
    /* clearing path: call stack without freeze over the stale freeze bit (plus an unrelated bit) */
    fp_set(&f, DS_MSR_IA32_DEBUGCTL, (1ull << 11) | (1ull << 6));
    cs.freeze_on_pmi = false;
    cs.select = DS_LBR_SELECT_EN_CALLSTACK;
    CHECK_EQ(ds_lbr_enable(&cpu, m, &cs), DS_OK, "call stack without freeze");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), (1ull << 6) | 1, "stale FREEZE cleared, bit 6 kept");
    CHECK_EQ(fp_get(&f, DS_MSR_LBR_SELECT), 0x200, "LBR_SELECT call stack");
    fp_set(&f, DS_MSR_IA32_DEBUGCTL, 1ull << 11);
    CHECK_EQ(ds_lbr_enable(&cpu, m, NULL), DS_OK, "defaults over stale freeze");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), 1, "legacy: stale FREEZE_LBRS_ON_PMI cleared");
    /* freeze without use_select over an LBR_SELECT already in call-stack mode */
    fp_set(&f, DS_MSR_LBR_SELECT, DS_LBR_SELECT_EN_CALLSTACK | DS_LBR_SELECT_CPL_EQ_0);
    fp_set(&f, DS_MSR_IA32_DEBUGCTL, 0);
    struct ds_lbr_config fz = { .freeze_on_pmi = true };
    fp_clear_log(&f);
    CHECK_EQ(ds_lbr_enable(&cpu, m, &fz), DS_ERR_LBR_CALLSTACK_FREEZE, "stale LBR_SELECT[9] + freeze");
    CHECK_EQ(f.writes, 0, "nothing written");
    fp_set(&f, DS_MSR_LBR_SELECT, DS_LBR_SELECT_CPL_EQ_0);
    CHECK_EQ(ds_lbr_enable(&cpu, m, &fz), DS_OK, "LBR_SELECT without call stack + freeze");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), 0x801, "LBR | FREEZE");
    CHECK_EQ(fp_get(&f, DS_MSR_LBR_SELECT), DS_LBR_SELECT_CPL_EQ_0, "LBR_SELECT untouched");

    ds_lbr_lookup(6, 0x97, &m);  /* Arch LBR row */
    lbr_cpu(&f, &cpu, m, 5, true, 0);
    struct ds_lbr_config ac = { .freeze_on_pmi = true,
                                .arch_ctl = DS_LBR_CTL_LBREN | DS_LBR_CTL_CALL_STACK | DS_LBR_CTL_USR };
    CHECK_EQ(ds_lbr_enable(&cpu, m, &ac), DS_ERR_LBR_CALLSTACK_FREEZE, "Arch call stack + freeze");
    CHECK_EQ(f.nlog, 0, "refused before any MSR access");
    ac.arch_ctl = DS_LBR_CTL_LBREN | DS_LBR_CTL_USR;
    CHECK_EQ(ds_lbr_enable(&cpu, m, &ac), DS_OK, "Arch freeze without call stack");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), 1ull << 11, "Arch: DEBUGCTL[11] set");
    fp_set(&f, DS_MSR_IA32_DEBUGCTL, (1ull << 11) | (1ull << 14));
    ac.freeze_on_pmi = false;
    ac.arch_ctl |= DS_LBR_CTL_CALL_STACK;
    CHECK_EQ(ds_lbr_enable(&cpu, m, &ac), DS_OK, "Arch call stack without freeze");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), 1ull << 14, "Arch: stale FREEZE_LBRS_ON_PMI cleared, bit 14 kept");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_CTL), 0xD, "LBR_CTL LBREn|USR|CALL_STACK");
    fp_set(&f, DS_MSR_IA32_DEBUGCTL, 1ull << 11);
    CHECK_EQ(ds_lbr_enable(&cpu, m, NULL), DS_OK, "Arch defaults over stale freeze");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), 0, "Arch: stale freeze cleared by default enable");
}

/* Issue 10 item 17 / issue 11: Arch LBR exists only with CPUID.(07H,0):EDX[19]
 * (SDM Vol. 2A CPUID leaf 07H EDX bit 19 "Arch LBR"; Linux intel_pmu_init
 * calls intel_pmu_arch_lbr_init only for X86_FEATURE_ARCH_LBR). On the Arch
 * LBR models with the bit clear (KVM hides it) leaf 1CH may still answer, the
 * IA32_LBR_* MSRs #GP (the fake faults on every MSR it does not hold), and
 * libds must refuse before touching any MSR. */
static void test_arch_hidden(void)
{
    static const uint8_t arch_models[] = { 0x8F, 0x97, 0x9A };
    struct ds_lbr_entry out[64];
    size_t got;
    for (unsigned i = 0; i < N(arch_models); i++) {
        struct fake_pmu f;
        struct ds_cpu cpu;
        const struct ds_lbr_model *m, *cm = (const struct ds_lbr_model *)&f;
        CHECK_EQ(ds_lbr_lookup(6, arch_models[i], &m), DS_OK, "06_%02XH row", arch_models[i]);
        fp_reset(&f);
        fp_intel(&f, 0x1C, sig_of(6, arch_models[i]), 1u << 15, 1u << 21);
        fp_cpuid_set(&f, 0xA, 0, 0x07300805, 0, 0xF, 0x604);
        fp_cpuid_set(&f, 7, 0, 0, 0, 0, 0);              /* EDX[19] = 0 */
        fp_cpuid_set(&f, 0x1C, 0, 0x80, 0x7, 0x7, 0);    /* leaf 1CH filled in anyway */
        fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
        fp_set(&f, DS_MSR_IA32_PERF_CAPABILITIES, 0x3F);
        fp_set(&f, DS_MSR_IA32_DEBUGCTL, 0);
        CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify");
        CHECK(!cpu.caps.arch_lbr, "no Arch LBR enumerated");
        unsigned fmt = 99;
        CHECK_EQ(ds_lbr_cpu_model(&cpu, &cm), DS_ERR_LBR_ARCH_HIDDEN, "06_%02XH: Arch model, bit hidden", arch_models[i]);
        CHECK(cm == NULL, "no row on error");
        CHECK_EQ(ds_lbr_format(&cpu, m, &fmt), DS_ERR_LBR_ARCH_HIDDEN, "format");
        CHECK_EQ(ds_lbr_enable(&cpu, m, NULL), DS_ERR_LBR_ARCH_HIDDEN, "enable");
        CHECK_EQ(ds_lbr_disable(&cpu, m), DS_ERR_LBR_ARCH_HIDDEN, "disable");
        CHECK_EQ(ds_lbr_unfreeze(&cpu, m), DS_ERR_LBR_ARCH_HIDDEN, "unfreeze");
        CHECK_EQ(ds_lbr_read(&cpu, m, DS_LBR_FMT_ARCH, out, 64, &got), DS_ERR_LBR_ARCH_HIDDEN, "read");
        CHECK_EQ(f.reads + f.writes, 0, "06_%02XH: no MSR touched", arch_models[i]);
        /* the same CPU with the bit set: its own row, and it works */
        for (int l = 0; l < f.nleaves; l++)
            if (f.leaves[l].leaf == 7)
                f.leaves[l].r[3] = 1u << 19;
        fp_set(&f, DS_MSR_IA32_LBR_DEPTH, 0);
        fp_set(&f, DS_MSR_IA32_LBR_CTL, 0);
        CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify");
        CHECK_EQ(ds_lbr_cpu_model(&cpu, &cm), DS_OK, "Arch enumerated");
        CHECK(cm == m, "06_%02XH: the model's Arch row", arch_models[i]);
        CHECK_EQ(ds_lbr_enable(&cpu, m, NULL), DS_OK, "enable");
        CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_DEPTH), 64, "depth from leaf 1CH");
    }
    /* A model without a row (06_FEH) or with a legacy row (06_5EH) that
     * enumerates Arch LBR: CPUID decides, the generic Arch descriptor. */
    static const uint8_t others[] = { 0xFE, 0x5E };
    for (unsigned i = 0; i < N(others); i++) {
        struct fake_pmu f;
        struct ds_cpu cpu;
        const struct ds_lbr_model *cm;
        fp_reset(&f);
        fp_intel(&f, 0x1C, sig_of(6, others[i]), 1u << 15, 1u << 21);
        fp_cpuid_set(&f, 0xA, 0, 0x07300805, 0, 0xF, 0x604);
        fp_cpuid_set(&f, 7, 0, 0, 0, 0, 1u << 19);
        fp_cpuid_set(&f, 0x1C, 0, 0x08, 0, 0, 0);        /* depth 32 only, no filtering */
        fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
        fp_set(&f, DS_MSR_IA32_PERF_CAPABILITIES, 0x3F);
        fp_set(&f, DS_MSR_IA32_DEBUGCTL, 0);
        fp_set(&f, DS_MSR_IA32_LBR_DEPTH, 0);
        fp_set(&f, DS_MSR_IA32_LBR_CTL, 0);
        for (unsigned k = 0; k < 32; k++) {
            fp_set(&f, 0x1500 + k, k < 3 ? 0x401000 + 16 * k : 0);
            fp_set(&f, 0x1600 + k, 0x402000 + k);
            fp_set(&f, 0x1200 + k, 0);
        }
        CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify");
        CHECK_EQ(ds_lbr_cpu_model(&cpu, &cm), DS_OK, "06_%02XH Arch by CPUID", others[i]);
        CHECK(cm && (cm->flags & DS_LBR_F_ARCH) && cm->from_base == 0x1500 && cm->to_base == 0x1600 &&
              cm->info_base == 0x1200 && cm->tos_msr == 0, "generic Arch descriptor");
        CHECK_EQ(ds_lbr_enable(&cpu, cm, NULL), DS_OK, "enable");
        CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_DEPTH), 32, "8 * fls(0x08)");
        CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_CTL), 1, "LBREn only: no filtering enumerated");
        CHECK_EQ(ds_lbr_read(&cpu, cm, DS_LBR_FMT_ARCH, out, 64, &got), DS_OK, "read");
        CHECK(got == 3 && out[2].from == 0x401020 && out[0].to == 0x402000, "3 entries, entry 0 newest");
        /* the generic descriptor on a CPU without the bit */
        for (int l = 0; l < f.nleaves; l++)
            if (f.leaves[l].leaf == 7)
                f.leaves[l].r[3] = 0;
        CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify");
        CHECK_EQ(ds_lbr_read(&cpu, cm, DS_LBR_FMT_ARCH, out, 64, &got), DS_ERR_LBR_ARCH_HIDDEN, "generic, hidden");
        CHECK_EQ(f.reads, 0, "nothing read");
    }
}

/* Issue 10 item 14: AMD K8 (AuthenticAMD, signature 0xF4A from the real dump
 * ../shared/cpuid/AuthenticAMD0000F4A_K8_Clawhammer_CPUID.txt: DisplayFamily
 * 0FH, model 04H, which is a NetBurst row) gets DS_ERR_NOT_INTEL from every
 * ds_lbr_* call that takes the CPU, before any MSR is touched. */
static void test_not_intel(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *nb, *cm = (const struct ds_lbr_model *)&f;
    struct ds_lbr_entry out[64];
    size_t got;
    unsigned fmt;
    fp_reset(&f);
    /* CPUID.0: max leaf 1, "AuthenticAMD" in EBX, EDX, ECX */
    fp_cpuid_set(&f, 0, 0, 1, 0x68747541u, 0x444D4163u, 0x69746E65u);
    fp_cpuid_set(&f, 1, 0, 0x00000F4A, 0, 0, (1u << 5) | (1u << 21));
    fp_set(&f, DS_MSR_IA32_DEBUGCTL, 0);
    fp_set(&f, DS_MSR_NB_LASTBRANCH_TOS, 0);
    CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify K8");
    CHECK(cpu.caps.vendor == DS_VENDOR_AMD && cpu.caps.display_family == 0x0F && cpu.caps.display_model == 0x04,
          "K8 is DisplayFamily_DisplayModel 0F_04H");
    CHECK_EQ(ds_lbr_lookup(0x0F, 0x04, &nb), DS_OK, "0F_04H is a NetBurst row (pure table query)");
    CHECK_EQ(ds_lbr_cpu_model(&cpu, &cm), DS_ERR_NOT_INTEL, "cpu model");
    CHECK(cm == NULL, "no row");
    CHECK_EQ(ds_lbr_format(&cpu, nb, &fmt), DS_ERR_NOT_INTEL, "format");
    struct ds_lbr_config cfg = { 0 };
    CHECK_EQ(ds_lbr_enable(&cpu, nb, &cfg), DS_ERR_NOT_INTEL, "enable");
    CHECK_EQ(ds_lbr_disable(&cpu, nb), DS_ERR_NOT_INTEL, "disable");
    CHECK_EQ(ds_lbr_unfreeze(&cpu, nb), DS_ERR_NOT_INTEL, "unfreeze");
    CHECK_EQ(ds_lbr_read(&cpu, nb, DS_LBR_FMT_LIP, out, 64, &got), DS_ERR_NOT_INTEL, "read");
    CHECK_EQ(f.reads + f.writes, 0, "no MSR touched on K8");
    /* an AMD CPU with Arch LBR's CPUID bit pattern: still not Intel */
    f.leaves[0].r[0] = 0x1C; /* CPUID.0 max leaf */
    fp_cpuid_set(&f, 7, 0, 0, 0, 0, 1u << 19);
    CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify");
    CHECK_EQ(ds_lbr_cpu_model(&cpu, &cm), DS_ERR_NOT_INTEL, "no Arch LBR descriptor for AMD");
}

/* Issue 10 item 12 / issue 11: Arch LBR INFO fields exist only where
 * CPUID.1CH:ECX says the CPU records them (Linux perf_event.h union
 * cpuid28_ecx: bit 0 lbr_mispred, 1 lbr_timed_lbr, 2 lbr_br_type, 19:16
 * lbr_counters; lbr.c intel_pmu_arch_lbr_init enables the decode of each only
 * with its bit). Branch counters: INFO bits 32+2i..33+2i for GP counter i
 * (Linux msr-index.h LBR_INFO_BR_CNTR_OFFSET 32, _BITS 2, _NUM 4). */
static void test_arch_info_gating(void)
{
    /* every field set in the raw INFO: MISPRED, IN_TX, CYC_CNT_VALID, type 5, cycles 99,
     * counters 0..3 = 3, 1, 2, 3 (bits 39:32 = 0b11_10_01_11) */
    const uint64_t info = (1ull << 63) | (1ull << 62) | (1ull << 60) | (5ull << 56) | (0xE7ull << 32) | 99;
    static const struct {
        uint32_t ecx;
        bool mis, cyc;
        int8_t type;
        uint8_t mask, c[4];
    } want[] = {
        { 0x0, false, false, -1, 0x0, { 0, 0, 0, 0 } },
        { 0x1, true, false, -1, 0x0, { 0, 0, 0, 0 } },
        { 0x2, false, true, -1, 0x0, { 0, 0, 0, 0 } },
        { 0x4, false, false, 5, 0x0, { 0, 0, 0, 0 } },
        { 0x7, true, true, 5, 0x0, { 0, 0, 0, 0 } },
        { 0x1u << 16, false, false, -1, 0x1, { 3, 0, 0, 0 } },
        { 0x5u << 16, false, false, -1, 0x5, { 3, 0, 2, 0 } },
        { 0xFu << 16 | 0x7, true, true, 5, 0xF, { 3, 1, 2, 3 } },
        { 0x8u << 16, false, false, -1, 0x8, { 0, 0, 0, 3 } },
        { 0xFFFFFFF8u, false, false, -1, 0xF, { 3, 1, 2, 3 } }, /* reserved bits ignored */
    };
    for (unsigned i = 0; i < N(want); i++) {
        struct ds_lbr_entry e;
        CHECK_EQ(ds_lbr_decode_arch(want[i].ecx, 0x401000, 0x402000, info, &e), DS_OK, "decode");
        CHECK(e.from == 0x401000 && e.to == 0x402000 && e.in_tx && !e.abort, "addresses, TSX bits");
        CHECK(e.has_mispred == want[i].mis && e.mispred == want[i].mis, "ECX %#x: mispredict", want[i].ecx);
        CHECK(e.has_cycles == want[i].cyc && e.cycles == (want[i].cyc ? 99 : 0), "ECX %#x: cycles", want[i].ecx);
        CHECK_EQ(e.br_type, want[i].type, "ECX %#x: branch type", want[i].ecx);
        CHECK_EQ(e.br_cntr_mask, want[i].mask, "ECX %#x: counters logged", want[i].ecx);
        for (unsigned c = 0; c < 4; c++)
            CHECK_EQ(e.br_cntr[c], want[i].c[c], "ECX %#x: counter %u", want[i].ecx, c);
    }
    /* timed LBR enumerated but CYC_CNT_VALID clear: no cycle count */
    struct ds_lbr_entry e;
    ds_lbr_decode_arch(0x2, 1, 2, 1234, &e);
    CHECK(!e.has_cycles && e.cycles == 0, "CYC_CNT_VALID clear");

    /* through ds_lbr_read: a CPU whose leaf 1CH ECX is 0 records none of them */
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *m;
    ds_lbr_lookup(6, 0x8F, &m);
    lbr_cpu(&f, &cpu, m, 5, true, 0);
    for (int l = 0; l < f.nleaves; l++)
        if (f.leaves[l].leaf == 0x1C)
            f.leaves[l].r[2] = 0;
    CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify");
    fp_set(&f, DS_MSR_IA32_LBR_DEPTH, 8);
    fp_set(&f, 0x1501, 0);
    fp_set(&f, 0x1200, info);
    struct ds_lbr_entry out[64];
    size_t got;
    CHECK_EQ(ds_lbr_read(&cpu, m, DS_LBR_FMT_ARCH, out, 64, &got), DS_OK, "read");
    CHECK_EQ(got, 1, "one entry");
    CHECK(!out[0].has_mispred && !out[0].mispred && !out[0].has_cycles && out[0].cycles == 0 &&
          out[0].br_type == -1 && out[0].br_cntr_mask == 0, "ECX = 0: nothing recorded");
    for (int l = 0; l < f.nleaves; l++)
        if (f.leaves[l].leaf == 0x1C)
            f.leaves[l].r[2] = 0x30007;   /* counters 0 and 1 */
    CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify");
    CHECK_EQ(ds_lbr_read(&cpu, m, DS_LBR_FMT_ARCH, out, 64, &got), DS_OK, "read");
    CHECK(out[0].has_mispred && out[0].mispred && out[0].has_cycles && out[0].cycles == 99 &&
          out[0].br_type == 5 && out[0].br_cntr_mask == 3 && out[0].br_cntr[0] == 3 && out[0].br_cntr[1] == 1 &&
          out[0].br_cntr[2] == 0, "ECX = 0x30007: all recorded, counters 0 and 1");
}

/* Issue 11: parts outside family 6 (family field 0FH + extended family: SDM
 * Vol. 2A CPUID DisplayFamily rule) identify as their own rows, typed here as
 * raw CPUID.01H:EAX: Diamond Rapids 0x00400F10 (19_01), Nova Lake 0x00300F10
 * (18_01) and 0x00300F30 (18_03). */
static void test_new_families(void)
{
    static const struct { uint32_t sig; uint16_t fam; uint8_t model; } p[] = {
        { 0x00400F10, 0x13, 0x01 }, { 0x00300F10, 0x12, 0x01 }, { 0x00300F30, 0x12, 0x03 } };
    for (unsigned i = 0; i < N(p); i++) {
        for (unsigned arch = 0; arch < 2; arch++) {
            struct fake_pmu f;
            struct ds_cpu cpu;
            const struct ds_lbr_model *cm;
            fp_reset(&f);
            fp_intel(&f, 0x1C, p[i].sig, 0, 1u << 21);
            fp_cpuid_set(&f, 7, 0, 0, 0, 0, arch ? 1u << 19 : 0);
            fp_cpuid_set(&f, 0x1C, 0, 0x80, 0x7, 0x7, 0);
            fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
            CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify");
            CHECK(cpu.caps.display_family == p[i].fam && cpu.caps.display_model == p[i].model, "%X_%02XH",
                  p[i].fam, p[i].model);
            int e = ds_lbr_cpu_model(&cpu, &cm);
            if (!arch) {
                CHECK_EQ(e, DS_ERR_LBR_ARCH_HIDDEN, "%X_%02XH without EDX[19]", p[i].fam, p[i].model);
                continue;
            }
            CHECK_EQ(e, DS_OK, "%X_%02XH with EDX[19]", p[i].fam, p[i].model);
            CHECK(cm && cm->family == p[i].fam && cm->model == p[i].model && (cm->flags & DS_LBR_F_ARCH),
                  "its own Arch row");
        }
    }
}

/* Issue 10 item 11 (LBR part): Atom 06_1CH (Bonnell, Linux model 28) before
 * stepping 10 cannot freeze LBRs on a PMI (Linux lbr.c intel_pmu_lbr_init_atom:
 * x86_model == 28 && x86_stepping < 10 -> "LBR disabled due to erratum"). */
static void test_atom_freeze_erratum(void)
{
    static const struct { uint8_t model, stepping; int want; } c[] = {
        { 0x1C, 0, DS_ERR_LBR_FREEZE_ERRATUM }, { 0x1C, 2, DS_ERR_LBR_FREEZE_ERRATUM },
        { 0x1C, 9, DS_ERR_LBR_FREEZE_ERRATUM }, { 0x1C, 10, DS_OK }, { 0x1C, 15, DS_OK },
        { 0x26, 1, DS_OK }, { 0x36, 1, DS_OK },   /* other Bonnell/Saltwell models: no such rule */
    };
    for (unsigned i = 0; i < N(c); i++) {
        struct fake_pmu f;
        struct ds_cpu cpu;
        const struct ds_lbr_model *m;
        CHECK_EQ(ds_lbr_lookup(6, c[i].model, &m), DS_OK, "row");
        fp_reset(&f);
        /* CPUID.01H:EAX typed directly: family 6, model [7:4] + ext model [19:16], stepping [3:0] */
        uint32_t sig = 0x600u | ((uint32_t)(c[i].model >> 4) << 16) | ((c[i].model & 0xFu) << 4) | c[i].stepping;
        fp_intel(&f, 0xA, sig, 1u << 15, 1u << 21);
        fp_cpuid_set(&f, 0xA, 0, 0x07280203, 0, 0, 0x603);  /* perfmon v3 */
        fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
        fp_set(&f, DS_MSR_IA32_PERF_CAPABILITIES, 0);
        fp_set(&f, DS_MSR_IA32_DEBUGCTL, 0);
        CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify");
        struct ds_lbr_config fr = { .freeze_on_pmi = true };
        CHECK_EQ(ds_lbr_enable(&cpu, m, &fr), c[i].want, "06_%02XH stepping %u: freeze", c[i].model, c[i].stepping);
        if (c[i].want) {
            CHECK_EQ(f.nlog, 0, "refused before any MSR access");
            /* LBR without the freeze is allowed and clears a stale freeze bit */
            fp_set(&f, DS_MSR_IA32_DEBUGCTL, 1ull << 11);
            CHECK_EQ(ds_lbr_enable(&cpu, m, NULL), DS_OK, "without freeze");
            CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), 1, "LBR on, stale freeze cleared");
        } else {
            CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), 0x801, "LBR | FREEZE_LBRS_ON_PMI");
        }
    }
}

/* Real silicon (issue 11): CPUID words of logical CPU #0 (and the first E-core
 * where it differs) typed from the dumps in ../shared/cpuid/ (file name's
 * part in the comment; leaf 0 EAX, 01H EAX, (07H,0) EDX, 1CH EAX/EBX/ECX).
 * Expected LBR source independently: legacy depth from SDM Table 17-4 / the
 * Linux lbr_init_* of the model, Arch LBR when EDX[19] is set, its depth
 * 8 * (highest set bit of 1CH:EAX[7:0] + 1) per the SDM leaf 1CH definition. */
static void test_real_cpuid(void)
{
    static const struct {
        const char *part;
        uint32_t max, sig, edx7, a1c, b1c, c1c;
        uint16_t fam;
        uint8_t model, depth; /* depth 0: Arch LBR (then 32 from 1CH:EAX = 0x..0B) */
    } d[] = {
        { "Merom/Conroe", 0xA, 0x000006F6, 0, 0, 0, 0, 0x06, 0x0F, 4 },
        { "P4_Northwood", 0x2, 0x00000F24, 0, 0, 0, 0, 0x0F, 0x02, 4 },
        { "P4_CedarMill", 0x6, 0x00000F65, 0, 0, 0, 0, 0x0F, 0x06, 16 },
        { "Penryn", 0xA, 0x00010676, 0, 0, 0, 0, 0x06, 0x17, 4 },
        { "Nehalem", 0xB, 0x000106A1, 0, 0, 0, 0, 0x06, 0x1A, 16 },
        { "SandyBridge", 0xD, 0x000206A7, 0, 0, 0, 0, 0x06, 0x2A, 16 },
        { "Silvermont", 0xB, 0x00030678, 0, 0, 0, 0, 0x06, 0x37, 8 },
        { "Haswell", 0xD, 0x000306C3, 0, 0, 0, 0, 0x06, 0x3C, 16 },
        { "BroadwellE", 0x14, 0x000406F1, 0, 0, 0, 0, 0x06, 0x4F, 16 },
        { "SkylakeX", 0x16, 0x00050654, 0, 0, 0, 0, 0x06, 0x55, 32 },
        { "KnightsLanding", 0xD, 0x00050671, 0x04000000, 0, 0, 0, 0x06, 0x57, 8 },
        { "Goldmont", 0x15, 0x000506C9, 0, 0, 0, 0, 0x06, 0x5C, 32 },
        { "Skylake", 0x16, 0x000506E3, 0, 0, 0, 0, 0x06, 0x5E, 32 },
        { "ICX", 0x1B, 0x000606A6, 0xBC040412, 0, 0, 0, 0x06, 0x6A, 32 },
        { "GoldmontPlus", 0x18, 0x000706A8, 0xAC000400, 0, 0, 0, 0x06, 0x7A, 32 },
        { "JasperLake", 0x1B, 0x000906C0, 0xFC000400, 0, 0, 0, 0x06, 0x9C, 32 },
        { "SapphireRapids", 0x20, 0x000806F8, 0xFFDD4430, 0x4000000B, 7, 7, 0x06, 0x8F, 0 },
        { "AlderLake", 0x20, 0x00090672, 0xFC984510, 0x4000000B, 7, 7, 0x06, 0x97, 0 },
        { "MeteorLake P", 0x23, 0x000A06A4, 0xFC18C410, 0x4000000B, 7, 7, 0x06, 0xAA, 0 },
        { "MeteorLake E", 0x23, 0x000A06A4, 0xFC18C410, 0xC000000B, 7, 7, 0x06, 0xAA, 0 },
        { "LunarLake P", 0x23, 0x000B06D1, 0xFC1CC430, 0x4000000B, 7, 0xF0007, 0x06, 0xBD, 0 },
        { "LunarLake E", 0x23, 0x000B06D1, 0xFC1CC430, 0xC000000B, 7, 0xF0007, 0x06, 0xBD, 0 },
        { "ArrowLake P", 0x23, 0x000C0662, 0xFC18C430, 0x4000000B, 7, 0xF0007, 0x06, 0xC6, 0 },
        { "PantherLakeL P", 0x28, 0x000C06C3, 0xFC18C430, 0x4000000B, 7, 0xF0007, 0x06, 0xCC, 0 },
        { "EmeraldRapids", 0x20, 0x000C06F2, 0xFFDD4432, 0x4000000B, 7, 7, 0x06, 0xCF, 0 },
    };
    for (unsigned i = 0; i < N(d); i++) {
        struct fake_pmu f;
        struct ds_cpu cpu;
        const struct ds_lbr_model *m = NULL;
        fp_reset(&f);
        fp_intel(&f, d[i].max, d[i].sig, 0, 1u << 21);
        if (d[i].max >= 7)
            fp_cpuid_set(&f, 7, 0, 0, 0, 0, d[i].edx7);
        if (d[i].max >= 0x1C)
            fp_cpuid_set(&f, 0x1C, 0, d[i].a1c, d[i].b1c, d[i].c1c, 0);
        fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
        fp_set(&f, DS_MSR_IA32_DEBUGCTL, 0);
        fp_set(&f, DS_MSR_IA32_LBR_DEPTH, 0);
        fp_set(&f, DS_MSR_IA32_LBR_CTL, 0);
        CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "%s: identify", d[i].part);
        CHECK_EQ(ds_lbr_cpu_model(&cpu, &m), DS_OK, "%s: LBR source", d[i].part);
        if (!m)
            continue;
        CHECK(m->family == d[i].fam && m->model == d[i].model, "%s: row %02X_%02XH", d[i].part, d[i].fam,
              d[i].model);
        CHECK_EQ(!!(m->flags & DS_LBR_F_ARCH), d[i].depth == 0, "%s: Arch LBR iff EDX[19]", d[i].part);
        if (d[i].depth) {
            CHECK_EQ(m->depth, d[i].depth, "%s: legacy depth", d[i].part);
            continue;
        }
        CHECK_EQ(ds_lbr_enable(&cpu, m, NULL), DS_OK, "%s: enable", d[i].part);
        CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_DEPTH), 32, "%s: depth 32 from 1CH:EAX[7:0] = 0x0B", d[i].part);
        CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_CTL), 0x7F0007, "%s: LBREn|OS|USR|all branch types", d[i].part);
        /* one entry: branch counters logged exactly where 1CH:ECX[19:16] says */
        fp_set(&f, DS_MSR_IA32_LBR_DEPTH, 32);
        fp_set(&f, 0x1500, 0x401000);
        fp_set(&f, 0x1600, 0x402000);
        fp_set(&f, 0x1200, (1ull << 63) | (0xE4ull << 32));
        fp_set(&f, 0x1501, 0);
        struct ds_lbr_entry out[64];
        size_t got = 0;
        CHECK_EQ(ds_lbr_read(&cpu, m, DS_LBR_FMT_ARCH, out, 64, &got), DS_OK, "%s: read", d[i].part);
        CHECK(got == 1 && out[0].has_mispred && out[0].mispred, "%s: one mispredicted entry", d[i].part);
        bool cntr = d[i].c1c & 0xF0000;
        CHECK_EQ(out[0].br_cntr_mask, cntr ? 0xF : 0, "%s: counters logged", d[i].part);
        CHECK(!cntr || (out[0].br_cntr[0] == 0 && out[0].br_cntr[1] == 1 && out[0].br_cntr[2] == 2 &&
                        out[0].br_cntr[3] == 3), "%s: INFO[39:32] = 0xE4", d[i].part);
    }
}

static void test_enable(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *m;
    /* Skylake: select, freeze, v4 unfreeze (call stack with freeze: test_callstack_freeze) */
    ds_lbr_lookup(6, 0x5E, &m);
    lbr_cpu(&f, &cpu, m, 4, true, 5);
    fp_set(&f, DS_MSR_IA32_DEBUGCTL, 1u << 6);
    struct ds_lbr_config cfg = { .freeze_on_pmi = true, .use_select = true,
                                 .select = DS_LBR_SELECT_CPL_EQ_0 | DS_LBR_SELECT_FAR_BRANCH };
    CHECK_EQ(ds_lbr_enable(&cpu, m, &cfg), DS_OK, "enable");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), (1u << 6) | 1u | (1u << 11), "DEBUGCTL LBR|FREEZE, other bits kept");
    CHECK_EQ(fp_get(&f, DS_MSR_LBR_SELECT), 0x101, "LBR_SELECT");
    fp_clear_log(&f);
    CHECK_EQ(ds_lbr_unfreeze(&cpu, m), DS_OK, "unfreeze v4");
    CHECK(f.nlog == 1 && f.log[0].msr == 0x390 && f.log[0].val == (1ull << 58), "v4: STATUS_RESET bit 58");
    cfg.select = 1u << 10;
    CHECK_EQ(ds_lbr_enable(&cpu, m, &cfg), DS_ERR_LBR_BAD_SELECT, "select bit 10");
    CHECK_EQ(ds_lbr_disable(&cpu, m), DS_OK, "disable");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), 1u << 6, "disabled, other bits kept");
    /* Nehalem: select without call stack; v3 unfreeze sets DEBUGCTL.LBR */
    ds_lbr_lookup(6, 0x1A, &m);
    lbr_cpu(&f, &cpu, m, 3, true, 3);
    cfg.select = DS_LBR_SELECT_EN_CALLSTACK;
    CHECK_EQ(ds_lbr_enable(&cpu, m, &cfg), DS_ERR_LBR_BAD_SELECT, "no call stack before Haswell");
    CHECK_EQ(ds_lbr_unfreeze(&cpu, m), DS_OK, "unfreeze v3");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), 1, "v3: DEBUGCTL.LBR set again");
    /* Core 2: no LBR_SELECT */
    ds_lbr_lookup(6, 0x17, &m);
    lbr_cpu(&f, &cpu, m, 2, false, 0);
    cfg.select = 1;
    fp_clear_log(&f);
    CHECK_EQ(ds_lbr_enable(&cpu, m, &cfg), DS_ERR_LBR_NO_SELECT, "Core 2 has no LBR_SELECT");
    CHECK_EQ(f.nlog, 0, "nothing touched");
    CHECK_EQ(ds_lbr_enable(&cpu, m, NULL), DS_OK, "defaults");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), 1, "LBR only");
    unsigned fmt;
    CHECK_EQ(ds_lbr_format(&cpu, m, &fmt), DS_OK, "format without PDCM");
    CHECK_EQ(fmt, 0, "format 32 without PDCM (Linux default)");
    /* NetBurst: DEBUGCTLA bit 0, no freeze */
    ds_lbr_lookup(0xF, 0x03, &m);
    lbr_cpu(&f, &cpu, m, 0, false, 0);
    struct ds_lbr_config fr = { .freeze_on_pmi = true };
    CHECK_EQ(ds_lbr_enable(&cpu, m, &fr), DS_ERR_LBR_NO_FREEZE, "NetBurst freeze");
    CHECK_EQ(ds_lbr_enable(&cpu, m, NULL), DS_OK, "NetBurst enable");
    CHECK_EQ(fp_get(&f, 0x1D9), 1, "MSR_DEBUGCTLA bit 0");
    CHECK_EQ(ds_lbr_format(&cpu, m, &fmt), DS_OK, "nb format");
    CHECK_EQ(fmt, DS_LBR_FMT_LIP, "16-entry NetBurst: linear addresses");
    CHECK_EQ(ds_lbr_unfreeze(&cpu, m), DS_ERR_LBR_NO_FREEZE, "NetBurst unfreeze");
    CHECK_EQ(ds_lbr_disable(&cpu, m), DS_OK, "NetBurst disable");
    CHECK_EQ(fp_get(&f, 0x1D9), 0, "cleared");
    /* Arch LBR */
    ds_lbr_lookup(6, 0x97, &m);
    lbr_cpu(&f, &cpu, m, 5, true, 5);
    CHECK_EQ(ds_lbr_enable(&cpu, m, NULL), DS_OK, "arch enable");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_DEPTH), 64, "depth = 8 * fls(CPUID.1CH:EAX[7:0])");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_CTL), 0x7F0007, "LBR_CTL");
    struct ds_lbr_config bad = { .arch_ctl = 1ull << 5 | 1 };
    CHECK_EQ(ds_lbr_enable(&cpu, m, &bad), DS_ERR_LBR_BAD_SELECT, "arch ctl bad bit");
    CHECK_EQ(ds_lbr_disable(&cpu, m), DS_OK, "arch disable");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_CTL), 0, "LBR_CTL 0");
    CHECK_EQ(ds_lbr_enable(NULL, m, NULL), DS_ERR_NULL, "null");
    ds_cpu_init(&cpu, &fp_ops, &f);
    CHECK_EQ(ds_lbr_enable(&cpu, m, NULL), DS_ERR_NOT_IDENTIFIED, "not identified");
}

/* IA32_PERF_CAPABILITIES advertised (PDCM) but its read faults (a hypervisor):
 * the LBR format is unknown (issue 11 item 4), not format 32, for a row whose
 * format comes from that MSR (Skylake 06_5EH: PERF_CAPABILITIES[5:0]); rows
 * that fix the format keep it: packed Core rows (32, Linux intel_pmu_lbr_init_
 * core reads no MSR for 06_0EH), NetBurst (LIP), Arch LBR. Without PDCM the
 * format stays 32 (Linux: intel_cap 0 -> LBR_FORMAT_32). */
static void test_format_caps_fault(void)
{
    static struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *m;
    unsigned fmt = 77;
    CHECK_EQ(ds_lbr_lookup(6, 0x5E, &m), DS_OK, "skylake row");
    lbr_cpu(&f, &cpu, m, 4, true, 5);
    CHECK_EQ(ds_lbr_format(&cpu, m, &fmt), DS_OK, "readable");
    CHECK_EQ(fmt, 5, "format 5 from PERF_CAPABILITIES");
    f.fault_msr = DS_MSR_IA32_PERF_CAPABILITIES;
    ds_cpu_identify(&cpu);
    CHECK_EQ(cpu.caps.perf_caps_err, DS_ERR_MSR_FAULT, "read faulted");
    CHECK_EQ(ds_lbr_format(&cpu, m, &fmt), DS_ERR_LBR_FMT_UNKNOWN, "faulted: unknown, not format 32");
    CHECK_EQ(fmt, 0, "out cleared");
    lbr_cpu(&f, &cpu, m, 4, false, 0);
    CHECK_EQ(ds_lbr_format(&cpu, m, &fmt), DS_OK, "no PDCM");
    CHECK_EQ(fmt, DS_LBR_FMT_32, "no PDCM: format 32");
    const struct ds_lbr_model *nb;
    CHECK_EQ(ds_lbr_lookup(0xF, 0x03, &nb), DS_OK, "netburst row");
    lbr_cpu(&f, &cpu, nb, 0, true, 0);
    f.fault_msr = DS_MSR_IA32_PERF_CAPABILITIES;
    ds_cpu_identify(&cpu);
    CHECK_EQ(ds_lbr_format(&cpu, nb, &fmt), DS_OK, "NetBurst row fixes the format");
    CHECK_EQ(fmt, DS_LBR_FMT_LIP, "NetBurst: LIP");
}

/* ds_lbr_read's room check at the exact boundary: a caller array of exactly
 * the stack depth is enough (Arch LBR: IA32_LBR_DEPTH = 32; Skylake: the
 * 32-entry stack of the SDM LBR table, reference lbr.md), one entry less is
 * DS_ERR_LBR_NOSPC. */
static void test_read_cap_exact(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *m;
    struct ds_lbr_entry out[64];
    size_t got = 99;
    CHECK_EQ(ds_lbr_lookup(6, 0x97, &m), DS_OK, "Alder Lake Arch LBR row");
    lbr_cpu(&f, &cpu, m, 5, true, 5);
    fp_set(&f, DS_MSR_IA32_LBR_DEPTH, 32);
    for (unsigned i = 0; i < 32; i++)
        fp_set(&f, m->from_base + i, 0x401000 + i);
    CHECK_EQ(ds_lbr_read(&cpu, m, DS_LBR_FMT_ARCH, out, 32, &got), DS_OK, "arch: cap == depth 32");
    CHECK_EQ(got, 32, "arch: all 32 entries");
    CHECK_EQ(out[31].from, 0x401000 + 31, "arch: the last entry filled");
    CHECK_EQ(ds_lbr_read(&cpu, m, DS_LBR_FMT_ARCH, out, 31, &got), DS_ERR_LBR_NOSPC, "arch: cap == depth - 1");
    CHECK_EQ(ds_lbr_lookup(6, 0x5E, &m), DS_OK, "Skylake row");
    CHECK_EQ(m->depth, 32, "Skylake: 32 entries");
    lbr_cpu(&f, &cpu, m, 4, true, 5);
    CHECK_EQ(ds_lbr_read(&cpu, m, 5, out, 32, &got), DS_OK, "legacy: cap == depth");
    CHECK_EQ(got, 32, "legacy: 32 entries");
    CHECK_EQ(ds_lbr_read(&cpu, m, 5, out, 31, &got), DS_ERR_LBR_NOSPC, "legacy: cap == depth - 1");
}

/* FREEZE_LBRS_ON_PMI without use_select reads MSR_LBR_SELECT to refuse a
 * call-stack setting made elsewhere; if that read faults, enable fails with
 * DS_ERR_MSR_FAULT and writes nothing (it cannot know the call-stack bit). */
static void test_freeze_select_read_fault(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *m;
    ds_lbr_lookup(6, 0x5E, &m);
    lbr_cpu(&f, &cpu, m, 4, true, 5);
    fp_set(&f, DS_MSR_LBR_SELECT, DS_LBR_SELECT_EN_CALLSTACK);
    f.fault_msr = DS_MSR_LBR_SELECT;
    fp_clear_log(&f);
    struct ds_lbr_config fz = { .freeze_on_pmi = true };
    CHECK_EQ(ds_lbr_enable(&cpu, m, &fz), DS_ERR_MSR_FAULT, "LBR_SELECT read faults");
    CHECK_EQ(f.writes, 0, "nothing written");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), 0, "DEBUGCTL untouched");
}

/* The MSR fault sweep (fault_sweep.h) over every lbr.h operation that
 * touches MSRs: Skylake (legacy LBR + LBR_SELECT + INFO, perfmon v4 and
 * v3 for the two unfreeze flavours) and the Alder Lake Arch LBR row. Each
 * faulting access, read-only or write-only fault answers DS_ERR_MSR_FAULT
 * (lbr.h contract) and no MSR whose read failed is written. */
static void lbr_skl(struct fake_pmu *f, struct ds_cpu *cpu)
{
    const struct ds_lbr_model *m;
    ds_lbr_lookup(6, 0x5E, &m);
    lbr_cpu(f, cpu, m, 4, true, 5);
}
static void lbr_skl_v3(struct fake_pmu *f, struct ds_cpu *cpu)
{
    const struct ds_lbr_model *m;
    ds_lbr_lookup(6, 0x5E, &m);
    lbr_cpu(f, cpu, m, 3, true, 5);
}
static void lbr_adl(struct fake_pmu *f, struct ds_cpu *cpu)
{
    const struct ds_lbr_model *m;
    ds_lbr_lookup(6, 0x97, &m);
    lbr_cpu(f, cpu, m, 5, true, 5);
    fp_set(f, DS_MSR_IA32_LBR_DEPTH, 32);
}
static const struct ds_lbr_model *row_of(const struct ds_cpu *c)
{
    const struct ds_lbr_model *m = NULL;
    ds_lbr_lookup(c->caps.display_family, c->caps.display_model, &m);
    return m;
}
static int lop_enable_select(struct ds_cpu *c)
{
    struct ds_lbr_config cfg = { .freeze_on_pmi = true, .use_select = true, .select = DS_LBR_SELECT_JCC };
    return ds_lbr_enable(c, row_of(c), &cfg);
}
static int lop_enable_freeze(struct ds_cpu *c)
{
    struct ds_lbr_config cfg = { .freeze_on_pmi = true };
    return ds_lbr_enable(c, row_of(c), &cfg);
}
static int lop_enable(struct ds_cpu *c) { return ds_lbr_enable(c, row_of(c), NULL); }
static int lop_disable(struct ds_cpu *c) { return ds_lbr_disable(c, row_of(c)); }
static int lop_unfreeze(struct ds_cpu *c) { return ds_lbr_unfreeze(c, row_of(c)); }
static int lop_read(struct ds_cpu *c)
{
    static struct ds_lbr_entry out[64];
    size_t n;
    const struct ds_lbr_model *m = row_of(c);
    return ds_lbr_read(c, m, (m->flags & DS_LBR_F_ARCH) ? DS_LBR_FMT_ARCH : 5, out, 64, &n);
}

static void test_msr_fault_sweep(void)
{
    static const struct { const char *name; fs_mk_fn mk; fs_op_fn op; } ops[] = {
        { "SKL enable select+freeze", lbr_skl, lop_enable_select },
        { "SKL enable freeze", lbr_skl, lop_enable_freeze },
        { "SKL enable", lbr_skl, lop_enable },
        { "SKL disable", lbr_skl, lop_disable },
        { "SKL unfreeze v4", lbr_skl, lop_unfreeze },
        { "SKL unfreeze v3", lbr_skl_v3, lop_unfreeze },
        { "SKL read", lbr_skl, lop_read },
        { "ADL arch enable freeze", lbr_adl, lop_enable_freeze },
        { "ADL arch enable", lbr_adl, lop_enable },
        { "ADL arch disable", lbr_adl, lop_disable },
        { "ADL arch read", lbr_adl, lop_read },
    };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        for (int how = FS_ANY; how <= FS_WRITE; how++)
            fault_sweep(ops[i].name, ops[i].mk, ops[i].op, (enum fs_mode)how);
}

/* Arch LBR on a model without its own row (here family 6 model 0x97's
 * neighbour 06_99H, not in the tables) gets the generic descriptor, whose
 * fields follow the lbr.h contract for Arch rows: depth 0 (IA32_LBR_DEPTH
 * decides), IA32_LBR_0_FROM_IP 1500H / TO_IP 1600H / INFO 1200H, no TOS. */
static void test_arch_any_row(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *adl, *m = NULL;
    ds_lbr_lookup(6, 0x97, &adl);
    struct ds_lbr_model fake = *adl;
    fake.model = 0x99;
    lbr_cpu(&f, &cpu, &fake, 5, true, 0x3F);
    CHECK_EQ(ds_lbr_lookup(6, 0x99, &m), DS_ERR_LBR_UNKNOWN_MODEL, "06_99H has no row");
    CHECK_EQ(ds_lbr_cpu_model(&cpu, &m), DS_OK, "generic Arch LBR row");
    CHECK(m && (m->flags & DS_LBR_F_ARCH), "Arch flag");
    CHECK(m && m->depth == 0 && m->from_base == 0x1500 && m->to_base == 0x1600 && m->info_base == 0x1200 &&
              m->tos_msr == 0,
          "generic Arch row fields");
    /* ds/lbr.h: "a generic Arch LBR descriptor (family 0, model 0: fits any
     * CPU with Arch LBR)"; TOS 0 = none. Mutant arch_any model 0 -> 1 (seed 20261127). */
    CHECK(m && m->family == 0 && m->model == 0 && m->tos_max == 0, "generic Arch row: family 0, model 0, no TOS");
}

/* IA32_LBR_CTL branch-type filter bits [22:16] need CPUID.(1CH,0):EBX[1]
 * (branch filtering), CALL_STACK needs EBX[2] (reference msr.md, SDM
 * CPUID leaf 1CH): with EBX = 3 (CPL + branch filtering, no call stack)
 * the branch bits are accepted; with EBX = 5 (CPL + call stack) they are
 * refused (DS_ERR_LBR_BAD_SELECT, nothing written). */
static void test_arch_branch_filter_bit(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *m;
    ds_lbr_lookup(6, 0x97, &m);
    struct ds_lbr_config ac = { .arch_ctl = DS_LBR_CTL_LBREN | DS_LBR_CTL_USR | DS_LBR_CTL_BRANCHES };
    static const struct { uint32_t ebx; int want; } rows[] = { { 3, DS_OK }, { 5, DS_ERR_LBR_BAD_SELECT } };
    for (size_t i = 0; i < N(rows); i++) {
        lbr_cpu(&f, &cpu, m, 5, true, 0x3F);
        for (int k = 0; k < f.nleaves; k++)
            if (f.leaves[k].leaf == 0x1C)
                f.leaves[k].r[1] = rows[i].ebx;
        CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify EBX %u", rows[i].ebx);
        CHECK_EQ(ds_lbr_enable(&cpu, m, &ac), rows[i].want, "branch filter bits with 1CH EBX = %u", rows[i].ebx);
        CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_CTL), rows[i].want == DS_OK ? ac.arch_ctl : 0, "LBR_CTL, EBX %u",
                 rows[i].ebx);
    }
}

/* Sign extension at its exact bit in every format that carries flags in the
 * address MSRs (mutant lbr.c:197 sext(from, 63) -> 62 survived: the values
 * above had bits 62..47 all equal). Expectations from Linux lbr.c
 * intel_pmu_lbr_read_64: LBR_FORMAT_EIP_FLAGS and LBR_FORMAT_TIME shift FROM
 * left by skip = 1 and back arithmetically (sign bit 62); EIP_FLAGS2 skip = 3
 * (sign bit 60); LBR_FORMAT_TIME's TO is ((s64)to << 16) >> 16 (sign bit 47),
 * cycles TO[63:48]. Each pair: the sign bit alone set, then only the bit
 * below it. */
static void test_sext_boundaries(void)
{
    static const struct { unsigned fmt; uint64_t from, to, want_from, want_to; const char *what; } t[] = {
        { 3, 1ull << 62, 0, 0xC000000000000000ull, 0, "fmt 3 FROM bit 62 is the sign" },
        { 3, 1ull << 61, 0, 1ull << 61, 0, "fmt 3 FROM bit 61 is address" },
        { 4, 1ull << 60, 0, 0xF000000000000000ull, 0, "fmt 4 FROM bit 60 is the sign" },
        { 4, 1ull << 59, 0, 1ull << 59, 0, "fmt 4 FROM bit 59 is address" },
        { 6, 1ull << 62, 0, 0xC000000000000000ull, 0, "fmt 6 FROM bit 62 is the sign" },
        { 6, 1ull << 61, 0, 1ull << 61, 0, "fmt 6 FROM bit 61 is address" },
        { 6, 0, 1ull << 47, 0, 0xFFFF800000000000ull, "fmt 6 TO bit 47 is the sign" },
        { 6, 0, 1ull << 46, 0, 1ull << 46, "fmt 6 TO bit 46 is address" },
        { 6, 0, (0xFFFFull << 48) | (1ull << 46), 0, 1ull << 46, "fmt 6 TO cycles all ones, bit 46" },
    };
    for (size_t i = 0; i < N(t); i++) {
        struct ds_lbr_entry e;
        CHECK_EQ(ds_lbr_decode(t[i].fmt, t[i].from, t[i].to, 0, &e), DS_OK, "%s", t[i].what);
        CHECK_EQ(e.from, t[i].want_from, "%s: FROM", t[i].what);
        CHECK_EQ(e.to, t[i].want_to, "%s: TO", t[i].what);
        CHECK(!e.mispred && !e.in_tx && !e.abort, "%s: no flag", t[i].what);
        CHECK_EQ(e.cycles, t[i].fmt == 6 ? (uint16_t)(t[i].to >> 48) : 0, "%s: cycles", t[i].what);
    }
}

/* IA32_DEBUGCTL.FREEZE_LBRS_ON_PMI exists "if CPUID.01H:ECX[15] = 1 &&
 * CPUID.0AH:EAX[7:0] > 1" (SDM Vol. 4 IA32_DEBUGCTL): tested at the exact
 * version boundary on Core 2 Penryn 06_17H (mutants lbr.c:411 `>= 2` -> `> 2`
 * and `>= 3` survived): v1 refused, v2 and v3 set bit 11 with bit 0, PDCM
 * clear refused at v2, no leaf 0AH refused. */
static void test_freeze_perfmon_boundary(void)
{
    static const struct { unsigned v; bool pdcm; int want; } c[] = {
        { 0, true, DS_ERR_LBR_NO_FREEZE }, { 1, true, DS_ERR_LBR_NO_FREEZE }, { 2, true, DS_OK },
        { 3, true, DS_OK }, { 2, false, DS_ERR_LBR_NO_FREEZE },
    };
    const struct ds_lbr_model *m;
    CHECK_EQ(ds_lbr_lookup(6, 0x17, &m), DS_OK, "Penryn row");
    for (size_t i = 0; i < N(c); i++) {
        struct fake_pmu f;
        struct ds_cpu cpu;
        lbr_cpu(&f, &cpu, m, c[i].v, c[i].pdcm, 0);
        struct ds_lbr_config fr = { .freeze_on_pmi = true };
        CHECK_EQ(ds_lbr_enable(&cpu, m, &fr), c[i].want, "perfmon v%u pdcm %d: freeze", c[i].v, c[i].pdcm);
        CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), c[i].want ? 0 : 0x801, "v%u pdcm %d: DEBUGCTL", c[i].v,
                 c[i].pdcm);
    }
}

/* Every lbr.h entry point refuses a CPU that is not identified, even when
 * its caps still describe a Skylake (identified cleared after a good
 * identification): DS_ERR_NOT_IDENTIFIED, no MSR access (lbr.h contracts;
 * mutant lbr.c:293 guard removal survived the lead's sample). */
static void test_not_identified_refusals(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *m, *got = NULL;
    static struct ds_lbr_entry out[32];
    size_t n = 7;
    unsigned fmt = 99;
    ds_lbr_lookup(6, 0x5E, &m);
    lbr_cpu(&f, &cpu, m, 4, true, 5);
    cpu.identified = false;
    int log0 = f.nlog;
    CHECK_EQ(ds_lbr_format(&cpu, m, &fmt), DS_ERR_NOT_IDENTIFIED, "format");
    CHECK_EQ(ds_lbr_cpu_model(&cpu, &got), DS_ERR_NOT_IDENTIFIED, "cpu_model");
    CHECK(got == NULL, "cpu_model: no row");
    CHECK_EQ(ds_lbr_enable(&cpu, m, NULL), DS_ERR_NOT_IDENTIFIED, "enable");
    CHECK_EQ(ds_lbr_disable(&cpu, m), DS_ERR_NOT_IDENTIFIED, "disable");
    CHECK_EQ(ds_lbr_unfreeze(&cpu, m), DS_ERR_NOT_IDENTIFIED, "unfreeze");
    CHECK_EQ(ds_lbr_read(&cpu, m, 5, out, 32, &n), DS_ERR_NOT_IDENTIFIED, "read");
    CHECK_EQ(f.nlog, log0, "no MSR access");
}

/*
 * Arch LBR with no depth enumerated: CPUID.(1CH,0):EAX[7:0] is the bitmap
 * of supported depths, depth 8 * (n + 1) for each bit n set (SDM Vol. 3B
 * 18.1.3, Arch LBR enumeration). An empty bitmap leaves no value that
 * IA32_LBR_DEPTH accepts: enable refuses with DS_ERR_LBR_ARCH_DEPTH and
 * writes neither IA32_LBR_DEPTH nor IA32_LBR_CTL; bitmap 01H gives depth 8.
 */
static void test_arch_depth_zero(void)
{
    for (unsigned bits = 0; bits < 2; bits++) {
        struct fake_pmu f;
        struct ds_cpu cpu;
        const struct ds_lbr_model *cm;
        fp_reset(&f);
        fp_intel(&f, 0x1C, sig_of(6, 0xFE), 1u << 15, 1u << 21);
        fp_cpuid_set(&f, 0xA, 0, 0x07300805, 0, 0xF, 0x604);
        fp_cpuid_set(&f, 7, 0, 0, 0, 0, 1u << 19);
        fp_cpuid_set(&f, 0x1C, 0, bits, 0x7, 0x7, 0);
        fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
        fp_set(&f, DS_MSR_IA32_PERF_CAPABILITIES, 0x3F);
        fp_set(&f, DS_MSR_IA32_DEBUGCTL, 0);
        fp_set(&f, DS_MSR_IA32_LBR_DEPTH, 0x55);
        fp_set(&f, DS_MSR_IA32_LBR_CTL, 0x66);
        CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify");
        CHECK_EQ(ds_lbr_cpu_model(&cpu, &cm), DS_OK, "Arch LBR by CPUID");
        CHECK_EQ(ds_lbr_enable(&cpu, cm, NULL), bits ? DS_OK : DS_ERR_LBR_ARCH_DEPTH, "1CH EAX %u", bits);
        CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_DEPTH), bits ? 8u : 0x55u, "LBR_DEPTH (EAX %u)", bits);
        /* IA32_LBR_CTL: LBREn 0, OS 1, USR 2, branch types 16-22 (SDM Vol. 4) */
        CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_CTL), bits ? 0x7F0007u : 0x66u, "LBR_CTL (EAX %u)", bits);
    }
}

/*
 * Arch LBR has no MSR_LBR_SELECT (filtering is IA32_LBR_CTL, SDM Vol. 3B
 * 18.1.3): use_select on an Arch row is DS_ERR_LBR_NO_SELECT with no MSR
 * written. Legacy rows: IA32_PERF_CAPABILITIES.LBR_FMT [5:0] values above
 * 000111B (Goldmont Plus, the last legacy format; reference lbr.md) name no
 * record layout a legacy row can decode: format 7 is accepted, 8 and 3FH
 * are DS_ERR_LBR_BAD_FORMAT.
 */
static void test_arch_no_select_and_bad_format(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *m = NULL;
    struct ds_lbr_config cfg;
    memset(&cfg, 0, sizeof cfg);
    CHECK_EQ(ds_lbr_lookup(6, 0x97, &m), DS_OK, "Alder Lake row");
    CHECK(m && (m->flags & DS_LBR_F_ARCH), "an Arch LBR row");
    lbr_cpu(&f, &cpu, m, 5, true, 0x3F);
    cfg.use_select = true;
    cfg.select = 1;
    fp_clear_log(&f);
    CHECK_EQ(ds_lbr_enable(&cpu, m, &cfg), DS_ERR_LBR_NO_SELECT, "Arch LBR: no LBR_SELECT");
    CHECK_EQ(fp_nwrites(&f, DS_MSR_IA32_LBR_CTL) + fp_nwrites(&f, DS_MSR_IA32_LBR_DEPTH), 0, "nothing written");

    static const struct { unsigned fmt; int err; } t[] = {
        { 7, DS_OK }, { 8, DS_ERR_LBR_BAD_FORMAT }, { 0x3F, DS_ERR_LBR_BAD_FORMAT },
    };
    CHECK_EQ(ds_lbr_lookup(6, 0x5E, &m), DS_OK, "Skylake row");
    for (unsigned k = 0; k < N(t); k++) {
        unsigned got = 99;
        lbr_cpu(&f, &cpu, m, 4, true, t[k].fmt);
        CHECK_EQ(ds_lbr_format(&cpu, m, &got), t[k].err, "LBR_FMT %#x on a legacy row", t[k].fmt);
    }
}

/* ds_lbr_read on an Arch LBR row takes the IA32_LBR_DEPTH values the CPU
 * can hold, multiples of 8 from 8 to 64 (SDM Vol. 3B "Architectural Last
 * Branch Records": CPUID.1CH EAX[7:0] bit n = depth 8 * (n + 1)), and
 * refuses the others with DS_ERR_LBR_ARCH_DEPTH without reading an entry:
 * 0, 1, 9, 63, 72 refused; 8 and 64 read, the latter into an array of exactly 64
 * (63 is DS_ERR_LBR_NOSPC). Every entry of the fake is non-zero (lbr_cpu
 * fills 64 slots), so the read returns the whole depth. */
static void test_arch_read_depth_bounds(void)
{
    static const struct { uint64_t depth; size_t cap; int rc; size_t got; } t[] = {
        { 0, 64, DS_ERR_LBR_ARCH_DEPTH, 0 },  { 8, 64, DS_OK, 8 },
        { 64, 64, DS_OK, 64 },                { 64, 63, DS_ERR_LBR_NOSPC, 0 },
        { 63, 64, DS_ERR_LBR_ARCH_DEPTH, 0 }, { 72, 80, DS_ERR_LBR_ARCH_DEPTH, 0 },
        { 9, 64, DS_ERR_LBR_ARCH_DEPTH, 0 },  { 1, 64, DS_ERR_LBR_ARCH_DEPTH, 0 },
    };
    const struct ds_lbr_model *m;
    CHECK_EQ(ds_lbr_lookup(6, 0x8F, &m), DS_OK, "Sapphire Rapids row");
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct fake_pmu f;
        struct ds_cpu cpu;
        struct ds_lbr_entry out[80];
        size_t got = 99;
        lbr_cpu(&f, &cpu, m, 5, true, 5);
        fp_set(&f, DS_MSR_IA32_LBR_DEPTH, t[i].depth);
        fp_clear_log(&f);
        CHECK_EQ(ds_lbr_read(&cpu, m, DS_LBR_FMT_ARCH, out, t[i].cap, &got), t[i].rc, "depth %u cap %zu",
                 (unsigned)t[i].depth, t[i].cap);
        CHECK_EQ(got, t[i].got, "depth %u cap %zu: entries", (unsigned)t[i].depth, t[i].cap);
        if (t[i].rc == DS_OK && got == t[i].got)
            CHECK_EQ(out[got - 1].from, fp_get(&f, m->from_base + got - 1), "depth %u: last entry read",
                     (unsigned)t[i].depth);
        else
            CHECK_EQ(f.reads, 1, "depth %u cap %zu: only IA32_LBR_DEPTH read", (unsigned)t[i].depth, t[i].cap);
        CHECK_EQ(f.writes, 0, "depth %u: nothing written", (unsigned)t[i].depth);
    }
}

/* IA32_LBR_CTL.OS/USR need CPUID.(1CH,0):EBX[0] (CPL filtering; reference
 * msr.md, SDM CPUID leaf 1CH; Linux intel_pmu_arch_lbr_init drops
 * ARCH_LBR_CTL_CPL without it): EBX = 2 (branch filtering only) makes the
 * default LBR_CTL LBREN | branch types without OS/USR and refuses an
 * explicit USR; EBX = 1 (CPL only) makes it LBREN | OS | USR and refuses the
 * branch-type bits (mutant lbr.c arch_max_depth `(1u << 0)` -> `(1u << 1)`). */
static void test_arch_cpl_filter_bit(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *m;
    ds_lbr_lookup(6, 0x97, &m);
    static const struct { uint32_t ebx; uint64_t dflt; uint64_t ask; int ask_rc; } rows[] = {
        { 2, DS_LBR_CTL_LBREN | DS_LBR_CTL_BRANCHES, DS_LBR_CTL_LBREN | DS_LBR_CTL_USR, DS_ERR_LBR_BAD_SELECT },
        { 1, DS_LBR_CTL_LBREN | DS_LBR_CTL_OS | DS_LBR_CTL_USR, DS_LBR_CTL_LBREN | DS_LBR_CTL_BRANCHES,
          DS_ERR_LBR_BAD_SELECT },
        { 1, DS_LBR_CTL_LBREN | DS_LBR_CTL_OS | DS_LBR_CTL_USR, DS_LBR_CTL_LBREN | DS_LBR_CTL_OS, DS_OK },
    };
    for (size_t i = 0; i < N(rows); i++) {
        lbr_cpu(&f, &cpu, m, 5, true, 0x3F);
        for (int k = 0; k < f.nleaves; k++)
            if (f.leaves[k].leaf == 0x1C)
                f.leaves[k].r[1] = rows[i].ebx;
        CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify EBX %u", rows[i].ebx);
        CHECK_EQ(ds_lbr_enable(&cpu, m, NULL), DS_OK, "default enable, EBX %u", rows[i].ebx);
        CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_CTL), rows[i].dflt, "default LBR_CTL, EBX %u", rows[i].ebx);
        fp_set(&f, DS_MSR_IA32_LBR_CTL, 0);
        struct ds_lbr_config ac = { .arch_ctl = rows[i].ask };
        CHECK_EQ(ds_lbr_enable(&cpu, m, &ac), rows[i].ask_rc, "LBR_CTL %llx with EBX %u",
                 (unsigned long long)rows[i].ask, rows[i].ebx);
        CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_CTL), rows[i].ask_rc == DS_OK ? rows[i].ask : 0,
                 "LBR_CTL written only when accepted, EBX %u", rows[i].ebx);
    }
}

static void test_mut5b_arch_freeze_needs_pdcm(void);
static void test_mut5b_netburst_no_select(void);
/* issue 31: a caller-built legacy row whose depth is not a stack depth
 * (SDM per-model LBR stacks and Linux lbr_nr: 4, 8, 16 or 32; the reader
 * indexes (TOS - k) & (depth - 1)) is refused before any MSR access;
 * each legal depth of the same row reads. */
static void test_caller_row_depth(void)
{
    const struct ds_lbr_model *m;
    CHECK_EQ(ds_lbr_lookup(6, 0x5E, &m), DS_OK, "Skylake row");
    static struct fake_pmu f;
    struct ds_cpu cpu;
    lbr_cpu(&f, &cpu, m, 4, true, 5);
    struct ds_lbr_model row = *m;
    struct ds_lbr_entry out[64];
    size_t got = 99;
    static const uint8_t bad[] = { 0, 1, 2, 3, 5, 6, 7, 12, 24, 31, 33, 64 };
    for (unsigned i = 0; i < sizeof bad; i++) {
        row.depth = bad[i];
        fp_clear_log(&f);
        CHECK_EQ(ds_lbr_read(&cpu, &row, 5, out, 64, &got), DS_ERR_LBR_BAD_DEPTH, "depth %u", bad[i]);
        CHECK(f.reads == 0 && f.writes == 0 && got == 0, "depth %u: no MSR access, nothing read", bad[i]);
    }
    static const uint8_t ok[] = { 4, 8, 16, 32 };
    for (unsigned i = 0; i < sizeof ok; i++) {
        row.depth = ok[i];
        row.tos_max = (uint8_t)(ok[i] - 1);
        CHECK_EQ(ds_lbr_read(&cpu, &row, 5, out, 64, &got), DS_OK, "depth %u", ok[i]);
        CHECK_EQ(got, ok[i], "depth %u entries", ok[i]);
    }
}

int main(void)
{
    test_caller_row_depth();
    test_table();
    test_format_caps_fault();
    test_decode();
    test_reader_every_row();
    test_knl_mispred();
    test_callstack_freeze();
    test_arch_hidden();
    test_not_intel();
    test_arch_info_gating();
    test_new_families();
    test_atom_freeze_erratum();
    test_real_cpuid();
    test_enable();
    test_read_cap_exact();
    test_freeze_select_read_fault();
    test_msr_fault_sweep();
    test_arch_any_row();
    test_arch_branch_filter_bit();
    test_sext_boundaries();
    test_freeze_perfmon_boundary();
    test_not_identified_refusals();
    test_arch_depth_zero();
    test_arch_no_select_and_bad_format();
    test_arch_read_depth_bounds();
    test_arch_cpl_filter_bit();
    test_mut5b_arch_freeze_needs_pdcm();
    test_mut5b_netburst_no_select();
    return check_summary();
}

/* mut5B: the Arch LBR path refuses freeze-on-PMI like the legacy one when
 * IA32_DEBUGCTL[11] does not exist: it exists "if CPUID.01H:ECX[15] = 1 &&
 * CPUID.0AH:EAX[7:0] > 1" (SDM Vol. 4 IA32_DEBUGCTL). An Arch LBR CPU
 * (06_97H row) with PDCM hidden is DS_ERR_LBR_NO_FREEZE with nothing written;
 * the same request without freeze succeeds (mutant lbr.c:450 guard removal
 * survived). */
static void test_mut5b_arch_freeze_needs_pdcm(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *m;
    CHECK_EQ(ds_lbr_lookup(6, 0x97, &m), DS_OK, "Arch LBR row");
    lbr_cpu(&f, &cpu, m, 5, false, 0);
    CHECK(cpu.caps.arch_lbr, "Arch LBR enumerated");
    f.nlog = 0;
    struct ds_lbr_config ac = { .freeze_on_pmi = true, .arch_ctl = DS_LBR_CTL_LBREN | DS_LBR_CTL_USR };
    CHECK_EQ(ds_lbr_enable(&cpu, m, &ac), DS_ERR_LBR_NO_FREEZE, "Arch, no PDCM: freeze refused");
    CHECK_EQ(f.nlog, 0, "refused before any MSR write");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_CTL), 0, "LBR_CTL untouched");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_DEBUGCTL), 0, "DEBUGCTL untouched");
    ac.freeze_on_pmi = false;
    CHECK_EQ(ds_lbr_enable(&cpu, m, &ac), DS_OK, "Arch, no PDCM, no freeze: enabled");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_LBR_CTL), DS_LBR_CTL_LBREN | DS_LBR_CTL_USR, "LBR_CTL LBREn|USR");
}

/* mut5B: NetBurst has no MSR_LBR_SELECT (SDM Vol. 3B NetBurst LBR: only
 * MSR_DEBUGCTLA bit 0): a filtered request is DS_ERR_LBR_NO_SELECT with
 * DEBUGCTLA untouched (mutant lbr.c:514 guard removal survived). */
static void test_mut5b_netburst_no_select(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *m;
    CHECK_EQ(ds_lbr_lookup(0xF, 0x03, &m), DS_OK, "NetBurst row");
    lbr_cpu(&f, &cpu, m, 0, false, 0);
    struct ds_lbr_config sel = { .use_select = true };
    CHECK_EQ(ds_lbr_enable(&cpu, m, &sel), DS_ERR_LBR_NO_SELECT, "NetBurst LBR_SELECT refused");
    CHECK_EQ(fp_get(&f, 0x1D9), 0, "MSR_DEBUGCTLA untouched");
}
