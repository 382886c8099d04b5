/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PEBS: format selection, record sizes, decoding of every format (records
 * built byte by byte at the reference offsets of pebs-records.md, not with
 * libds's structs), adaptive groups, and the drain against corrupt fields.
 */
#include "check.h"
#include <stdlib.h>
#include "ds_env.h"
#include <ds/ds.h>

static void put64(unsigned char *b, size_t off, uint64_t v) { memcpy(b + off, &v, 8); }
static void put32(unsigned char *b, size_t off, uint32_t v) { memcpy(b + off, &v, 4); }

/* A distinct value per offset. */
static uint64_t V(size_t off) { return 0x1111000000000000ull | (off << 8) | 0x5A; }

static void test_select(void)
{
    static struct env e;
    enum ds_pebs_fmt f;
    fake_core2(&e.f); env_identify(&e, 1);
    CHECK_EQ(ds_pebs_format_select(&e.cpu, DS_LAYOUT_64, &f), DS_OK, "core2"); CHECK_EQ(f, DS_PEBS_FMT_0, "fmt0");
    fake_haswell(&e.f); env_identify(&e, 1);
    ds_pebs_format_select(&e.cpu, DS_LAYOUT_64, &f); CHECK_EQ(f, DS_PEBS_FMT_2, "fmt2");
    fake_skylake_pmu(&e.f); env_identify(&e, 1);
    ds_pebs_format_select(&e.cpu, DS_LAYOUT_64, &f); CHECK_EQ(f, DS_PEBS_FMT_3, "fmt3");
    CHECK_EQ(ds_pebs_format_select(&e.cpu, DS_LAYOUT_32, &f), DS_ERR_LAYOUT, "fmt3 never 32-bit");
    CHECK_EQ(ds_pebs_format_select(&e.cpu, (enum ds_layout)7, &f), DS_ERR_INVAL, "bad layout");
    fake_icelake(&e.f); env_identify(&e, 1);
    ds_pebs_format_select(&e.cpu, DS_LAYOUT_64, &f); CHECK_EQ(f, DS_PEBS_FMT_4, "fmt4");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x4500); env_identify(&e, 1);
    ds_pebs_format_select(&e.cpu, DS_LAYOUT_64, &f); CHECK_EQ(f, DS_PEBS_FMT_5, "fmt5");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x100); env_identify(&e, 1);
    ds_pebs_format_select(&e.cpu, DS_LAYOUT_64, &f); CHECK_EQ(f, DS_PEBS_FMT_1, "fmt1");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x600); env_identify(&e, 1);
    CHECK_EQ(ds_pebs_format_select(&e.cpu, DS_LAYOUT_64, &f), DS_OK, "fmt6 accepted (Lunar Lake, Arrow Lake-S)");
    CHECK_EQ(f, DS_PEBS_FMT_6, "fmt6");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x700); env_identify(&e, 1);
    CHECK_EQ(ds_pebs_format_select(&e.cpu, DS_LAYOUT_64, &f), DS_ERR_PEBS_FORMAT, "fmt7 unknown");
    fake_netburst(&e.f); env_identify(&e, 0);
    ds_pebs_format_select(&e.cpu, DS_LAYOUT_32, &f); CHECK_EQ(f, DS_PEBS_FMT_NB32, "nb32");
    ds_pebs_format_select(&e.cpu, DS_LAYOUT_64, &f); CHECK_EQ(f, DS_PEBS_FMT_NB64, "nb64");
    fake_set_msr(&e.f, DS_MSR_IA32_MISC_ENABLE, (1u << 7) | (1u << 12)); env_identify(&e, 0);
    CHECK_EQ(ds_pebs_format_select(&e.cpu, DS_LAYOUT_32, &f), DS_ERR_PEBS_UNAVAILABLE, "PEBS_UNAVAILABLE");

    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_NB32, 0), 40, "nb32 size");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_NB64, 0), 144, "nb64 size");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_0, 0), 0x90, "fmt0 size");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_1, 0), 0xB0, "fmt1 size");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_2, 0), 0xC0, "fmt2 size");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_3, 0), 0xC8, "fmt3 size");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_4, 0), 32, "basic only");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_4, 0xF | (31ull << 24)), 1232, "all groups, 32 LBRs = 1232");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_5, 0x1ull << 40), 0, "reserved data cfg bit");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_NONE, 0), 0, "none");
}

/* Could not read is not "unavailable" (issue 11 item 4): IA32_MISC_ENABLE
 * advertised (CPUID.01H:EDX.MSR, family 6 model >= 0DH) but its read faults ->
 * availability unknown; IA32_PERF_CAPABILITIES advertised (PDCM) but faulting
 * -> format unknown, not "PDCM is 0". The same CPU with the MSR readable
 * selects format 3 (Skylake), and without PDCM keeps DS_ERR_NO_PDCM. */
static void test_select_unread(void)
{
    static struct env e;
    enum ds_pebs_fmt f = DS_PEBS_FMT_3; /* not NONE: the errors below must write NONE (pebs.h contract) */
    fake_skylake_pmu(&e.f);
    e.f.fault_on_read = DS_MSR_IA32_MISC_ENABLE;
    env_identify(&e, 1);
    CHECK_EQ(e.cpu.caps.misc_enable_err, DS_ERR_MSR_FAULT, "MISC_ENABLE read faulted");
    CHECK_EQ(ds_pebs_format_select(&e.cpu, DS_LAYOUT_64, &f), DS_ERR_MISC_ENABLE_UNREAD, "MISC_ENABLE unread");
    CHECK_EQ(f, DS_PEBS_FMT_NONE, "no format");
    fake_skylake_pmu(&e.f);
    e.f.fault_on_read = DS_MSR_IA32_PERF_CAPABILITIES;
    env_identify(&e, 1);
    CHECK_EQ(e.cpu.caps.perf_caps_err, DS_ERR_MSR_FAULT, "PERF_CAPABILITIES read faulted");
    f = DS_PEBS_FMT_3;
    CHECK_EQ(ds_pebs_format_select(&e.cpu, DS_LAYOUT_64, &f), DS_ERR_PEBS_CAPS_UNREAD, "PERF_CAPABILITIES unread");
    CHECK_EQ(f, DS_PEBS_FMT_NONE, "no format");
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_pebs_format_select(&e.cpu, DS_LAYOUT_64, &f), DS_OK, "readable: selects");
    CHECK_EQ(f, DS_PEBS_FMT_3, "fmt 3");
    /* ds_area_setup with a PEBS buffer says the same, not "PEBS unavailable" */
    fake_skylake_pmu(&e.f);
    e.f.fault_on_read = DS_MSR_IA32_MISC_ENABLE;
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_MISC_ENABLE_UNREAD, "area setup: MISC_ENABLE unread");
}

static void test_decode_fixed(void)
{
    unsigned char r[0xC8];
    struct ds_pebs_sample s;
    for (size_t off = 0; off < sizeof(r); off += 8)
        put64(r, off, V(off));
    /* reference: 0x10 RAX, 0x18 RBX, 0x20 RCX, 0x28 RDX, 0x30 RSI, 0x38 RDI, 0x40 RBP, 0x48 RSP */
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_0, r, 0x90, true, &s), DS_OK, "fmt0");
    CHECK_EQ(s.size, 0x90, "size");
    CHECK_EQ(s.flags, V(0x00), "rflags @0");
    CHECK_EQ(s.ip, V(0x08), "rip @8");
    CHECK(s.ip_is_next, "trap-like");
    CHECK_EQ(s.gpr[DS_GPR_RAX], V(0x10), "rax");
    CHECK_EQ(s.gpr[DS_GPR_RBX], V(0x18), "rbx");
    CHECK_EQ(s.gpr[DS_GPR_RCX], V(0x20), "rcx");
    CHECK_EQ(s.gpr[DS_GPR_RDX], V(0x28), "rdx");
    CHECK_EQ(s.gpr[DS_GPR_RSI], V(0x30), "rsi");
    CHECK_EQ(s.gpr[DS_GPR_RDI], V(0x38), "rdi");
    CHECK_EQ(s.gpr[DS_GPR_RBP], V(0x40), "rbp");
    CHECK_EQ(s.gpr[DS_GPR_RSP], V(0x48), "rsp");
    CHECK_EQ(s.gpr[DS_GPR_R8], V(0x50), "r8");
    CHECK_EQ(s.gpr[DS_GPR_R15], V(0x88), "r15");
    CHECK(!(s.present & (DS_SAMPLE_MEM | DS_SAMPLE_TSC | DS_SAMPLE_EVENTING_IP)), "fmt0 has no more");

    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_1, r, 0xB0, false, &s), DS_OK, "fmt1");
    CHECK(!s.ip_is_next, "fault-like");
    CHECK_EQ(s.counters, V(0x90), "status @0x90");
    CHECK(s.present & DS_SAMPLE_STATUS, "status snapshot, not exact");
    CHECK_EQ(s.data_addr, V(0x98), "dla @0x98");
    CHECK_EQ(s.data_source, V(0xA0), "dse @0xA0");
    CHECK_EQ(s.latency, V(0xA8), "lat @0xA8");
    CHECK(!(s.present & DS_SAMPLE_EVENTING_IP), "fmt1 no eventing ip");

    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_2, r, 0xC0, false, &s), DS_OK, "fmt2");
    CHECK_EQ(s.eventing_ip, V(0xB0), "eventing ip @0xB0");
    CHECK_EQ(s.tsx, V(0xB8), "tsx @0xB8");
    CHECK(!(s.present & DS_SAMPLE_TSC), "fmt2 no tsc");

    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_3, r, 0xC8, false, &s), DS_OK, "fmt3");
    CHECK_EQ(s.tsc, V(0xC0), "tsc @0xC0");
    CHECK(s.present & DS_SAMPLE_APPLICABLE, "applicable counters exact");
    CHECK_EQ(s.counters, V(0x90), "applicable @0x90");
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_3, r, 0xC0, false, &s), DS_ERR_REC_SHORT, "short");

    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_NB64, r, 0x90, false, &s), DS_OK, "nb64");
    CHECK(s.ip_is_next, "NetBurst always trap-like");
    CHECK_EQ(s.gpr[DS_GPR_RSP], V(0x48), "nb64 rsp");

    unsigned char n[40];
    for (uint32_t off = 0; off < 40; off += 4)
        put32(n, off, 0xA0000000u | off);
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_NB32, n, 40, false, &s), DS_OK, "nb32");
    CHECK_EQ(s.flags, 0xA0000000u, "eflags @0");
    CHECK_EQ(s.ip, 0xA0000004u, "eip @4");
    CHECK_EQ(s.gpr[DS_GPR_RAX], 0xA0000008u, "eax @8");
    CHECK_EQ(s.gpr[DS_GPR_RBX], 0xA000000Cu, "ebx @0xC");
    CHECK_EQ(s.gpr[DS_GPR_RCX], 0xA0000010u, "ecx @0x10");
    CHECK_EQ(s.gpr[DS_GPR_RDX], 0xA0000014u, "edx @0x14");
    CHECK_EQ(s.gpr[DS_GPR_RSI], 0xA0000018u, "esi @0x18");
    CHECK_EQ(s.gpr[DS_GPR_RDI], 0xA000001Cu, "edi @0x1C");
    CHECK_EQ(s.gpr[DS_GPR_RBP], 0xA0000020u, "ebp @0x20");
    CHECK_EQ(s.gpr[DS_GPR_RSP], 0xA0000024u, "esp @0x24");
    CHECK(s.present & DS_SAMPLE_GPRS32, "32-bit registers only");
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_NB32, n, 39, false, &s), DS_ERR_REC_SHORT, "nb32 short");
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_NB32, NULL, 40, false, &s), DS_ERR_NULL, "null");
}

/* Build an adaptive record at @b with @groups (DATA_CFG style); returns its size. */
static uint32_t mk_adaptive(unsigned char *b, uint64_t groups, uint64_t tag)
{
    uint32_t size = 32;
    if (groups & 1) size += 32;
    if (groups & 2) size += 144;
    if (groups & 4) size += 256;
    if (groups & 8) size += 24 * (uint32_t)(((groups >> 24) & 0xFF) + 1);
    memset(b, 0, size);
    put64(b, 0, groups | ((uint64_t)size << 48));
    for (uint32_t off = 8; off < size; off += 8)
        put64(b, off, tag + off);
    return size;
}

static void test_decode_adaptive(void)
{
    unsigned char r[2048];
    struct ds_pebs_sample s;
    uint64_t groups = 0xF | (2ull << 24); /* mem, gprs, xmm, 3 LBRs */
    uint32_t size = mk_adaptive(r, groups, 0x7700000000000000ull);
    CHECK_EQ(size, 32 + 32 + 144 + 256 + 72, "size arithmetic");
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_4, r, size, false, &s), DS_OK, "decode");
    CHECK_EQ(s.size, size, "size");
    CHECK_EQ(s.ip, 0x7700000000000008ull, "basic ip @8");
    CHECK_EQ(s.eventing_ip, s.ip, "eventing ip");
    CHECK_EQ(s.counters, 0x7700000000000010ull, "applicable @0x10");
    CHECK_EQ(s.tsc, 0x7700000000000018ull, "tsc @0x18");
    CHECK_EQ(s.data_addr, 0x7700000000000020ull, "mem dla @32");
    CHECK_EQ(s.data_source, 0x7700000000000028ull, "mem aux");
    CHECK_EQ(s.latency, 0x7700000000000030ull, "mem lat");
    CHECK_EQ(s.tsx, 0x7700000000000038ull, "mem tsx");
    /* GPR group at 64: RFLAGS, RIP, RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI */
    CHECK_EQ(s.flags, 0x7700000000000040ull, "rflags");
    CHECK_EQ(s.gpr[DS_GPR_RAX], 0x7700000000000050ull, "rax @64+0x10");
    CHECK_EQ(s.gpr[DS_GPR_RCX], 0x7700000000000058ull, "rcx @64+0x18 (adaptive order)");
    CHECK_EQ(s.gpr[DS_GPR_RDX], 0x7700000000000060ull, "rdx");
    CHECK_EQ(s.gpr[DS_GPR_RBX], 0x7700000000000068ull, "rbx @64+0x28");
    CHECK_EQ(s.gpr[DS_GPR_RSP], 0x7700000000000070ull, "rsp");
    CHECK_EQ(s.gpr[DS_GPR_RDI], 0x7700000000000088ull, "rdi");
    CHECK_EQ(s.gpr[DS_GPR_R15], 0x77000000000000C8ull, "r15");
    CHECK(s.xmm == (const void *)(r + 208), "xmm group at 208");
    CHECK(s.lbr == (const void *)(r + 464), "lbr group at 464");
    CHECK_EQ(s.lbr_count, 3, "3 LBR entries");
    CHECK_EQ(s.lbr[2].info, 0x7700000000000000ull + 464 + 2 * 24 + 16, "lbr[2].info");
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_4, r, size - 8, false, &s), DS_ERR_REC_SHORT, "truncated");
    put64(r, 0, groups | ((uint64_t)(size + 8) << 48));
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_4, r, sizeof(r), false, &s), DS_ERR_REC_SIZE, "size lies");
    put64(r, 0, groups | (1ull << 5) | ((uint64_t)size << 48));
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_4, r, sizeof(r), false, &s), DS_ERR_REC_SIZE, "unknown group bit");
    /* retire latency in bits 47:32 */
    size = mk_adaptive(r, 0, 0);
    put64(r, 0, (0x123ull << 32) | ((uint64_t)size << 48));
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_5, r, size, false, &s), DS_OK, "fmt5 basic");
    CHECK_EQ(s.retire_latency, 0x123, "retire latency");
    CHECK(!(s.present & DS_SAMPLE_GPRS), "no gprs");
}

struct collect {
    struct ds_pebs_sample s[64];
    int n;
    int refuse_after;
};

static int collect(void *a, const struct ds_pebs_sample *s)
{
    struct collect *c = a;
    if (c->n >= c->refuse_after)
        return 1;
    c->s[c->n++] = *s;
    return 0;
}

static int invariant(const struct ds_drain_stats *st)
{
    return st->present == st->records + st->lost_beyond + st->lost_corrupt + st->lost_rejected + st->lost_race;
}

static void test_drain_fixed(void)
{
    static struct env e;
    static struct collect c;
    struct ds_drain_stats st;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    uint64_t base = (uint64_t)(uintptr_t)e.pebs;
    for (int i = 0; i < 5; i++)
        put64(e.pebs, i * 0xC8 + 8, 0x1000 + i); /* rip */
    e.area.a64.pebs_index = base + 5 * 0xC8;
    uint64_t pend;
    CHECK_EQ(ds_pebs_pending(&e.ctx, &pend), DS_OK, "pending");
    CHECK_EQ(pend, 5, "5 pending");
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    unsigned r0 = e.f.reads, w0 = e.f.writes;
    CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "drain");
    CHECK_EQ(e.f.reads + e.f.writes, r0 + w0, "drain touches no MSR");
    CHECK_EQ(c.n, 5, "5 records");
    CHECK_EQ(c.s[0].ip, 0x1000, "first");
    CHECK_EQ(c.s[4].ip, 0x1004, "last, in order");
    CHECK_EQ(st.present, 5, "present");
    CHECK_EQ(st.records, 5, "records");
    CHECK_EQ(st.anomalies, 0, "clean");
    CHECK_EQ(e.area.a64.pebs_index, base, "index reset");

    /* sink refuses after 2 */
    e.area.a64.pebs_index = base + 5 * 0xC8;
    memset(&c, 0, sizeof(c)); c.refuse_after = 2;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK_EQ(st.records, 2, "2 taken");
    CHECK_EQ(st.lost_rejected, 3, "3 rejected");
    CHECK(invariant(&st), "invariant");

    /* array drain with small array */
    struct ds_pebs_sample arr[3];
    size_t n;
    e.area.a64.pebs_index = base + 5 * 0xC8;
    CHECK_EQ(ds_pebs_drain_array(&e.ctx, arr, 3, &n, &st), DS_OK, "array");
    CHECK_EQ(n, 3, "3 in array");
    CHECK_EQ(st.lost_rejected, 2, "2 did not fit");
    CHECK_EQ(arr[2].ip, 0x1002, "arr[2]");

    /* index far past the maximum: only the buffer is read, rest lost_beyond */
    e.area.a64.pebs_index = base + 1000 * 0xC8;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK_EQ(st.present, 1000, "present as claimed");
    CHECK_EQ(st.records, 16, "the 16 buffer records");
    CHECK_EQ(st.lost_beyond, 984, "rest beyond the buffer");
    CHECK(st.anomalies & DS_DRAIN_INDEX_PAST_MAX, "flagged");
    CHECK(invariant(&st), "invariant");

    /* index exactly at max: full */
    e.area.a64.pebs_index = base + 16 * 0xC8;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK(st.anomalies & DS_DRAIN_FULL, "full flagged");
    CHECK_EQ(st.records, 16, "16");

    /* below base */
    e.area.a64.pebs_index = base - 0xC8;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK_EQ(c.n, 0, "nothing read");
    CHECK(st.anomalies & DS_DRAIN_INDEX_BELOW_BASE, "below base flagged");
    CHECK_EQ(e.area.a64.pebs_index, base, "reset");

    /* misaligned: partial record ignored */
    e.area.a64.pebs_index = base + 2 * 0xC8 + 17;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK_EQ(st.records, 2, "two whole records");
    CHECK(st.anomalies & DS_DRAIN_INDEX_MISALIGNED, "misaligned flagged");

    /* corrupted base/max/threshold are repaired, never trusted */
    e.area.a64.pebs_base = 0;
    e.area.a64.pebs_max = ~0ull;
    e.area.a64.pebs_thresh = 5;
    e.area.a64.pebs_index = base + 0xC8;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK_EQ(st.records, 1, "1 record");
    CHECK((st.anomalies & (DS_DRAIN_BASE_CHANGED | DS_DRAIN_MAX_CHANGED | DS_DRAIN_THRESH_CHANGED)) ==
          (DS_DRAIN_BASE_CHANGED | DS_DRAIN_MAX_CHANGED | DS_DRAIN_THRESH_CHANGED), "all flagged");
    CHECK_EQ(e.area.a64.pebs_base, base, "base repaired");
    CHECK_EQ(e.area.a64.pebs_max, base + 16 * 0xC8, "max repaired");
    CHECK_EQ(e.area.a64.pebs_thresh, base + 0xC8, "thresh repaired");
}

static void test_drain_adaptive(void)
{
    static struct env e;
    static struct collect c;
    struct ds_drain_stats st;
    fake_icelake(&e.f);
    env_identify(&e, 1);
    e.cfg.pebs_data_cfg = DS_PEBS_DATA_CFG_GPRS;
    e.cfg.pebs.bytes = 16 * 176;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "icl setup");
    uint64_t base = (uint64_t)(uintptr_t)e.pebs;
    /* mixed sizes: gprs record, basic-only record, gprs record */
    uint32_t off = 0;
    off += mk_adaptive(e.pebs + off, 2, 0x100);
    off += mk_adaptive(e.pebs + off, 0, 0x200);
    off += mk_adaptive(e.pebs + off, 2, 0x300);
    e.area.a64.pebs_index = base + off;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "drain");
    CHECK_EQ(c.n, 3, "3 variable-size records");
    CHECK_EQ(c.s[1].ip, 0x208, "middle basic-only record");
    CHECK_EQ(c.s[2].gpr[DS_GPR_RAX], 0x300 + 32 + 0x10, "third record's rax");
    CHECK_EQ(st.anomalies, 0, "clean");
    CHECK(invariant(&st), "invariant");

    /* a size field that lies stops the walk; the rest is one lost record */
    off = 0;
    off += mk_adaptive(e.pebs + off, 2, 0x100);
    uint32_t second = off;
    off += mk_adaptive(e.pebs + off, 2, 0x300);
    off += mk_adaptive(e.pebs + off, 0, 0x400);
    put64(e.pebs, second, 2 | (4000ull << 48));
    e.area.a64.pebs_index = base + off;
    memset(&c, 0, sizeof(c));  c.refuse_after = 64;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK_EQ(st.records, 1, "one good record before the lie");
    CHECK_EQ(st.lost_corrupt, 1, "the rest: one corrupt");
    CHECK(st.anomalies & DS_DRAIN_SIZE_LIE, "size lie flagged");
    CHECK(invariant(&st), "invariant");
}

/* A sink that plays the CPU: appends two records of race_rec bytes while
 * the drain runs. */
static struct env *race_env;
static uint64_t race_rec;
static int racing_sink(void *a, const struct ds_pebs_sample *s)
{
    (void)s;
    int *n = a;
    if ((*n)++ == 0)
        race_env->area.a64.pebs_index += 2 * race_rec;
    return 0;
}

/* A drain that saw 3 records while the sink appended 2: counted as a race,
 * the index reset to the base. */
static void check_race3(const struct ds_drain_stats *st, uint64_t index, uint64_t base, const char *tag)
{
    CHECK_EQ(st->records, 3, "%s: the 3 records seen", tag);
    CHECK_EQ(st->lost_race, 2, "%s: 2 arrived during the drain", tag);
    CHECK_EQ(st->present, 5, "%s: present counts them", tag);
    CHECK(st->anomalies & DS_DRAIN_RACE, "%s: race flagged", tag);
    CHECK(invariant(st), "%s: invariant", tag);
    CHECK_EQ(index, base, "%s: reset", tag);
}

static void test_drain_race(void)
{
    static struct env e;
    struct ds_drain_stats st;
    int n = 0;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    ds_area_setup(&e.ctx, &e.cpu, &e.cfg);
    race_env = &e;
    race_rec = 0xC8;
    uint64_t base = (uint64_t)(uintptr_t)e.pebs;
    e.area.a64.pebs_index = base + 3 * 0xC8;
    ds_pebs_drain(&e.ctx, racing_sink, &n, &st);
    check_race3(&st, e.area.a64.pebs_index, base, "fixed");
    /* a race that ends exactly at the absolute maximum (16 records) */
    n = 0;
    e.area.a64.pebs_index = base + 14 * 0xC8;
    ds_pebs_drain(&e.ctx, racing_sink, &n, &st);
    CHECK_EQ(st.records, 14, "14 seen");
    CHECK_EQ(st.lost_race, 2, "2 appended, ending at the maximum");
    CHECK(!(st.anomalies & DS_DRAIN_FULL), "the index seen was below the maximum");
    CHECK(invariant(&st), "invariant");
}

/*
 * The race check on an adaptive drain (its own walk, pebs_adaptive.c): the
 * CPU appending records of the configured size (Ice Lake, GPR group: 176
 * bytes) while the sink runs; counted against the index seen, which the
 * adaptive drain takes as base + the bytes it walked. An index seen past
 * the maximum counts no race (whatever the CPU writes after it).
 */
static void test_drain_race_adaptive(void)
{
    static struct env e;
    struct ds_drain_stats st;
    int n = 0;
    fake_icelake(&e.f);
    env_identify(&e, 1);
    e.cfg.pebs_data_cfg = DS_PEBS_DATA_CFG_GPRS;
    e.cfg.pebs.bytes = 8 * 176;
    e.cfg.pebs.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "icl gprs setup");
    race_env = &e;
    race_rec = 176;
    uint64_t base = (uint64_t)(uintptr_t)e.pebs;
    for (unsigned k = 0; k < 8; k++)
        mk_adaptive(e.pebs + 176 * k, 2, 0x1000 * (k + 1));
    e.area.a64.pebs_index = base + 3 * 176;
    ds_pebs_drain(&e.ctx, racing_sink, &n, &st);
    check_race3(&st, e.area.a64.pebs_index, base, "adaptive");
    /* ending exactly at the maximum (8 records) */
    n = 0;
    e.area.a64.pebs_index = base + 6 * 176;
    ds_pebs_drain(&e.ctx, racing_sink, &n, &st);
    CHECK(st.records == 6 && st.lost_race == 2 && st.present == 8, "adaptive: 2 appended up to the maximum");
    CHECK(!(st.anomalies & DS_DRAIN_FULL), "adaptive: the index seen was below the maximum");
    /* seen at the maximum: anything after it is past the maximum, no race */
    n = 0;
    e.area.a64.pebs_index = base + 8 * 176;
    ds_pebs_drain(&e.ctx, racing_sink, &n, &st);
    CHECK(st.records == 8 && st.lost_race == 0 && !(st.anomalies & DS_DRAIN_RACE), "adaptive: full, no race");
    CHECK(st.anomalies & DS_DRAIN_FULL, "adaptive: full flagged");
    /* seen one record past the maximum: counted beyond, no race */
    n = 0;
    e.area.a64.pebs_index = base + 9 * 176;
    ds_pebs_drain(&e.ctx, racing_sink, &n, &st);
    CHECK(st.records == 8 && st.lost_beyond == 1 && st.lost_race == 0, "adaptive: past max, no race");
    CHECK(invariant(&st), "adaptive: past max invariant");
}

static void test_attribute(void)
{
    struct ds_pebs_sample s;
    uint64_t c;
    memset(&s, 0, sizeof(s));
    s.fmt = DS_PEBS_FMT_0;
    CHECK_EQ(ds_pebs_attribute(&s, 0, &c), DS_OK, "fmt0"); CHECK_EQ(c, 1, "PMC0");
    s.fmt = DS_PEBS_FMT_1; s.counters = 0x6;
    CHECK_EQ(ds_pebs_attribute(&s, 0x3, &c), DS_OK, "fmt1 one match"); CHECK_EQ(c, 0x2, "PMC1");
    CHECK_EQ(ds_pebs_attribute(&s, 0x6, &c), DS_ERR_PEBS_AMBIGUOUS, "two candidates"); CHECK_EQ(c, 0x6, "both");
    s.counters = 0;
    CHECK_EQ(ds_pebs_attribute(&s, 0x8, &c), DS_OK, "status 0, one enabled"); CHECK_EQ(c, 0x8, "PMC3");
    CHECK_EQ(ds_pebs_attribute(&s, 0x9, &c), DS_ERR_PEBS_AMBIGUOUS, "status 0, two enabled");
    CHECK_EQ(c, 0, "status 0, two enabled: the record names none of them");
    s.fmt = DS_PEBS_FMT_2; s.counters = 0x4;
    CHECK_EQ(ds_pebs_attribute(&s, 0x3, &c), DS_ERR_PEBS_AMBIGUOUS, "fmt2, status names no enabled counter");
    CHECK_EQ(c, 0, "fmt2: none of the two enabled");
    s.fmt = DS_PEBS_FMT_3; s.counters = 0x5;
    CHECK_EQ(ds_pebs_attribute(&s, 0x7, &c), DS_OK, "fmt3"); CHECK_EQ(c, 0x5, "exact, several");
    s.fmt = DS_PEBS_FMT_6; s.counters = (1ull << 32) | 0x3;
    CHECK_EQ(ds_pebs_attribute(&s, (1ull << 32) | 0x1, &c), DS_OK, "fmt6");
    CHECK_EQ(c, (1ull << 32) | 0x1, "fmt6: applicable counters masked by the enabled ones, fixed 0 kept");
    s.fmt = DS_PEBS_FMT_ARCH;
    CHECK_EQ(ds_pebs_attribute(&s, 0x3, &c), DS_ERR_PEBS_FORMAT, "arch PEBS: not a DS-area format");
    CHECK_EQ(c, 0, "arch PEBS: nothing attributed");
    s.fmt = DS_PEBS_FMT_NB32;
    CHECK_EQ(ds_pebs_attribute(&s, 0x10, &c), DS_OK, "nb"); CHECK_EQ(c, 0x10, "the PEBS counter");
    s.fmt = DS_PEBS_FMT_NONE;
    CHECK_EQ(ds_pebs_attribute(&s, 1, &c), DS_ERR_PEBS_FORMAT, "none");
    CHECK_EQ(ds_pebs_attribute(NULL, 1, &c), DS_ERR_NULL, "null");
}

/* Every field of two samples (the drain's reused sample vs a fresh decode). */
static int same_sample(const struct ds_pebs_sample *a, const struct ds_pebs_sample *b)
{
    if (a->fmt != b->fmt || a->present != b->present || a->size != b->size || a->ip_is_next != b->ip_is_next)
        return 0;
    if (a->ip != b->ip || a->eventing_ip != b->eventing_ip || a->flags != b->flags)
        return 0;
    for (int i = 0; i < DS_GPR__COUNT; i++)
        if (a->gpr[i] != b->gpr[i])
            return 0;
    return a->counters == b->counters && a->data_addr == b->data_addr && a->data_source == b->data_source &&
           a->latency == b->latency && a->tsx == b->tsx && a->tsc == b->tsc && a->header == b->header &&
           a->retire_latency == b->retire_latency && a->lbr_count == b->lbr_count && a->xmm == b->xmm &&
           a->lbr == b->lbr;
}

/*
 * Expectation without libds's decoder: record i was written by mk_adaptive
 * with tag T_i, so the quadword at offset X is T_i + X. Offsets transcribed
 * from the SDM "Adaptive PEBS" group layouts: basic IP 0x08, applicable 0x10,
 * TSC 0x18; meminfo at 0x20 (DLA +0, aux +8, latency +0x10, TSX +0x18); GPR
 * group after it (RFLAGS +0, RIP +8, RAX +0x10, RCX +0x18, RDX +0x20, RBX
 * +0x28, RSP +0x30, RBP +0x38, RSI +0x40, RDI +0x48, R8.. +0x50..); XMM group
 * (256 bytes) after that; LBR group last.
 */
static int ref_matches(const struct ds_pebs_sample *sm, uint64_t groups, uint64_t t, const unsigned char *rec)
{
    int ok = sm->ip == t + 8 && sm->eventing_ip == t + 8 && sm->counters == t + 0x10 && sm->tsc == t + 0x18;
    uint64_t g = 0x20;
    if (groups & 1) {
        ok &= sm->data_addr == t + 0x20 && sm->data_source == t + 0x28 && sm->latency == t + 0x30 &&
              sm->tsx == t + 0x38 && (sm->present & DS_SAMPLE_MEM);
        g = 0x40;
    } else {
        ok &= sm->data_addr == 0 && sm->latency == 0 && !(sm->present & DS_SAMPLE_MEM);
    }
    if (groups & 2) {
        ok &= sm->flags == t + g && sm->gpr[DS_GPR_RAX] == t + g + 0x10 && sm->gpr[DS_GPR_RCX] == t + g + 0x18 &&
              sm->gpr[DS_GPR_RDX] == t + g + 0x20 && sm->gpr[DS_GPR_RBX] == t + g + 0x28 &&
              sm->gpr[DS_GPR_RSP] == t + g + 0x30 && sm->gpr[DS_GPR_RDI] == t + g + 0x48 &&
              sm->gpr[DS_GPR_R8] == t + g + 0x50 && sm->gpr[DS_GPR_R15] == t + g + 0x88;
        g += 144;
    } else {
        ok &= sm->flags == 0 && sm->gpr[DS_GPR_RAX] == 0 && sm->gpr[DS_GPR_R15] == 0;
    }
    if (groups & 4) {
        ok &= sm->xmm == (const void *)(rec + g) && (sm->present & DS_SAMPLE_XMM);
        g += 256;
    } else {
        ok &= sm->xmm == NULL;
    }
    if (groups & 8) {
        uint32_t n = (uint32_t)((groups >> 24) & 0xFF) + 1;
        ok &= sm->lbr == (const void *)(rec + g) && sm->lbr_count == n;
    } else {
        ok &= sm->lbr == NULL && sm->lbr_count == 0;
    }
    return ok;
}

static uint64_t rd(const unsigned char *b, size_t off, size_t w)
{
    uint64_t v = 0;
    memcpy(&v, b + off, w);
    return v;
}

/*
 * The fixed formats' fields read straight from the reference offsets
 * (pebs-records.md / SDM "PEBS Record Format" tables), independent of
 * libds's decoder: NetBurst 32-bit EFLAGS 0, EIP 4, EAX 8, EBX 0xC, ECX
 * 0x10, EDX 0x14, ESI 0x18, EDI 0x1C, EBP 0x20, ESP 0x24; the 64-bit block
 * RFLAGS 0, RIP 8, RAX 0x10, RBX 0x18, RCX 0x20, RDX 0x28, RSI 0x30, RDI
 * 0x38, RBP 0x40, RSP 0x48, R8..R15 0x50..0x88; fmt 1+ status/applicable
 * 0x90, DLA 0x98, DSE 0xA0, latency 0xA8; fmt 2+ EventingIP 0xB0, TSX 0xB8;
 * fmt 3 TSC 0xC0.
 */
static int ref_fixed(enum ds_pebs_fmt f, const unsigned char *b, const struct ds_pebs_sample *sm)
{
    if (f == DS_PEBS_FMT_NB32)
        return sm->flags == rd(b, 0, 4) && sm->ip == rd(b, 4, 4) && sm->gpr[DS_GPR_RAX] == rd(b, 8, 4) &&
               sm->gpr[DS_GPR_RBX] == rd(b, 0xC, 4) && sm->gpr[DS_GPR_RCX] == rd(b, 0x10, 4) &&
               sm->gpr[DS_GPR_RDX] == rd(b, 0x14, 4) && sm->gpr[DS_GPR_RSI] == rd(b, 0x18, 4) &&
               sm->gpr[DS_GPR_RDI] == rd(b, 0x1C, 4) && sm->gpr[DS_GPR_RBP] == rd(b, 0x20, 4) &&
               sm->gpr[DS_GPR_RSP] == rd(b, 0x24, 4) && sm->gpr[DS_GPR_R8] == 0 && sm->size == 40;
    int ok = sm->flags == rd(b, 0, 8) && sm->ip == rd(b, 8, 8) && sm->gpr[DS_GPR_RAX] == rd(b, 0x10, 8) &&
             sm->gpr[DS_GPR_RBX] == rd(b, 0x18, 8) && sm->gpr[DS_GPR_RCX] == rd(b, 0x20, 8) &&
             sm->gpr[DS_GPR_RDX] == rd(b, 0x28, 8) && sm->gpr[DS_GPR_RSI] == rd(b, 0x30, 8) &&
             sm->gpr[DS_GPR_RDI] == rd(b, 0x38, 8) && sm->gpr[DS_GPR_RBP] == rd(b, 0x40, 8) &&
             sm->gpr[DS_GPR_RSP] == rd(b, 0x48, 8);
    for (int i = 0; i < 8; i++)
        ok &= sm->gpr[DS_GPR_R8 + i] == rd(b, 0x50 + 8 * (size_t)i, 8);
    bool f1 = f == DS_PEBS_FMT_1 || f == DS_PEBS_FMT_2 || f == DS_PEBS_FMT_3;
    bool f2 = f == DS_PEBS_FMT_2 || f == DS_PEBS_FMT_3;
    ok &= sm->counters == (f1 ? rd(b, 0x90, 8) : 0) && sm->data_addr == (f1 ? rd(b, 0x98, 8) : 0) &&
          sm->data_source == (f1 ? rd(b, 0xA0, 8) : 0) && sm->latency == (f1 ? rd(b, 0xA8, 8) : 0);
    ok &= sm->eventing_ip == (f2 ? rd(b, 0xB0, 8) : 0) && sm->tsx == (f2 ? rd(b, 0xB8, 8) : 0);
    ok &= sm->tsc == (f == DS_PEBS_FMT_3 ? rd(b, 0xC0, 8) : 0);
    return ok;
}

/*
 * The drain decodes into one sample cleared once per drain (perf): every
 * record it hands out must equal ds_pebs_decode() of the same bytes, for
 * each fixed format and for adaptive records whose groups change from one
 * record to the next (fields of a group the previous record had must not
 * leak into the next).
 */
static void test_drain_equals_decode(void)
{
    static struct env e;
    static struct collect c;
    struct ds_drain_stats st;
    static const struct { void (*prof)(struct fake_cpu *); int ia32e; enum ds_pebs_fmt fmt; } t[] = {
        { fake_netburst, 0, DS_PEBS_FMT_NB32 }, { fake_netburst, 1, DS_PEBS_FMT_NB64 },
        { fake_core2, 1, DS_PEBS_FMT_0 },       { fake_haswell, 1, DS_PEBS_FMT_2 },
        { fake_skylake_pmu, 1, DS_PEBS_FMT_3 },
    };
    for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
        memset(&e, 0, sizeof(e));
        t[k].prof(&e.f);
        env_identify(&e, t[k].ia32e);
        CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
        CHECK_EQ(e.ctx.pebs_fmt, t[k].fmt, "format of the profile");
        uint32_t rsz = e.ctx.pebs.rec_size;
        for (size_t off = 0; off < e.ctx.pebs.bytes; off += 4)
            put32(e.pebs, off, 0xA5000000u ^ (uint32_t)(off * 2654435761u));
        uint64_t base = e.ctx.pebs.linear;
        if (e.ctx.layout == DS_LAYOUT_32)
            e.area.a32.pebs_index = (uint32_t)(base + 7 * rsz);
        else
            e.area.a64.pebs_index = base + 7 * rsz;
        memset(&c, 0, sizeof(c));
        c.refuse_after = 64;
        CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "drain");
        CHECK_EQ(c.n, 7, "7 records");
        CHECK_EQ(st.records, 7, "7 taken");
        for (int i = 0; i < c.n; i++) {
            struct ds_pebs_sample d;
            memset(&d, 0xEE, sizeof(d));
            CHECK_EQ(ds_pebs_decode(t[k].fmt, e.pebs + (size_t)i * rsz, rsz, e.ctx.pebs_trap, &d), DS_OK, "decode");
            CHECK(same_sample(&c.s[i], &d), "drained sample == decoded sample");
            CHECK(ref_fixed(t[k].fmt, e.pebs + (size_t)i * rsz, &c.s[i]), "drained sample == reference offsets");
        }
    }

    /* adaptive: groups change every record */
    memset(&e, 0, sizeof(e));
    fake_icelake(&e.f);
    env_identify(&e, 1);
    e.cfg.pebs_data_cfg = 0xF | (1ull << 24);
    e.cfg.pebs.bytes = 4 * ds_pebs_record_size(DS_PEBS_FMT_4, e.cfg.pebs_data_cfg);
    e.cfg.pebs.thresh_records = 0; /* 4 records: below the 12-record margin of 8 GP + 4 fixed */
    CHECK(e.cfg.pebs.bytes <= ENV_PEBS_BYTES, "fits the fixture");
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "icl setup");
    static const uint64_t seq[] = { 0x3, 0x0, 0x2, 0x1, 0x8 | (1ull << 24), 0x4, 0xF, 0x0 };
    uint32_t off = 0, offs[8];
    for (int i = 0; i < 8; i++) {
        offs[i] = off;
        off += mk_adaptive(e.pebs + off, seq[i], 0x1000ull * (uint64_t)(i + 1));
    }
    CHECK(off <= e.cfg.pebs.bytes, "records fit the buffer");
    e.area.a64.pebs_index = e.ctx.pebs.linear + off;
    memset(&c, 0, sizeof(c));
    c.refuse_after = 64;
    CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "adaptive drain");
    CHECK_EQ(c.n, 8, "8 records");
    CHECK(invariant(&st), "invariant");
    for (int i = 0; i < c.n; i++) {
        struct ds_pebs_sample d;
        memset(&d, 0xEE, sizeof(d));
        CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_4, e.pebs + offs[i], off - offs[i], false, &d), DS_OK, "decode");
        CHECK(same_sample(&c.s[i], &d), "adaptive drained sample == decoded sample");
        CHECK(ref_matches(&c.s[i], seq[i], 0x1000ull * (uint64_t)(i + 1), e.pebs + offs[i]),
              "adaptive drained sample == hand transcription");
    }
    CHECK_EQ(c.s[1].gpr[DS_GPR_RAX], 0, "basic-only record after a GPR record: no stale GPRs");
    CHECK_EQ(c.s[1].data_addr, 0, "no stale meminfo");
    CHECK(c.s[5].lbr == NULL && c.s[5].lbr_count == 0, "no stale LBR pointer");
}

/*
 * Issue 10 item 19: an index past the maximum by less than one record is
 * INDEX_PAST_MAX (pebs.h: "index beyond the buffer's end"), never FULL;
 * exactly at the maximum is FULL only; one whole record past is
 * PAST_MAX with one lost_beyond. Fixed format and adaptive alike.
 */
static void test_index_past_max_partial(void)
{
    static struct env e;
    static struct collect c;
    struct ds_drain_stats st;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    uint64_t base = (uint64_t)(uintptr_t)e.pebs, max = base + 16 * 0xC8;
    e.area.a64.pebs_index = max + 5;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK(st.anomalies & DS_DRAIN_INDEX_PAST_MAX, "max + 5 bytes: past max");
    CHECK(!(st.anomalies & DS_DRAIN_FULL), "max + 5 bytes: not FULL");
    CHECK(st.anomalies & DS_DRAIN_INDEX_MISALIGNED, "max + 5 bytes: misaligned");
    CHECK_EQ(st.records, 16, "the 16 buffer records");
    CHECK_EQ(st.lost_beyond, 0, "no whole record beyond");
    CHECK(invariant(&st), "invariant");
    e.area.a64.pebs_index = max;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK_EQ(st.anomalies, DS_DRAIN_FULL, "exactly at max: FULL only");
    e.area.a64.pebs_index = max + 0xC8;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK_EQ(st.anomalies, DS_DRAIN_INDEX_PAST_MAX, "one record past: PAST_MAX only");
    CHECK_EQ(st.lost_beyond, 1, "one record beyond");
    e.area.a64.pebs_index = max - 1;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK_EQ(st.anomalies, DS_DRAIN_INDEX_MISALIGNED, "max - 1: misaligned, neither full nor past");
    CHECK_EQ(st.records, 15, "15 whole records");

    /* adaptive, basic-only records of 32 bytes: filled exactly, then + 8 bytes */
    memset(&e, 0, sizeof(e));
    fake_icelake(&e.f);
    env_identify(&e, 1);
    e.cfg.pebs.bytes = 16 * 32;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "icl setup");
    base = (uint64_t)(uintptr_t)e.pebs;
    for (int i = 0; i < 16; i++)
        put64(e.pebs, (size_t)i * 32, 32ull << 48);
    e.area.a64.pebs_index = base + 16 * 32;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK_EQ(st.anomalies, DS_DRAIN_FULL, "adaptive filled exactly: FULL only");
    CHECK_EQ(st.records, 16, "adaptive: 16 records");
    for (int i = 0; i < 16; i++)
        put64(e.pebs, (size_t)i * 32, 32ull << 48);
    e.area.a64.pebs_index = base + 16 * 32 + 8;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK(st.anomalies & DS_DRAIN_INDEX_PAST_MAX, "adaptive max + 8: past max");
    CHECK(!(st.anomalies & DS_DRAIN_FULL), "adaptive max + 8: not FULL");
    CHECK(invariant(&st), "adaptive invariant");
}

/*
 * Issue 10 item 18: the sample's xmm/lbr pointers point into the record;
 * at a misaligned address the caller's natural s.lbr[i].info access is
 * undefined behaviour. Records carrying those groups must be 8-byte
 * aligned (DS_ERR_REC_ALIGN); records without them decode at any address
 * (every other field is copied out with unaligned-safe loads).
 */
static void test_decode_unaligned(void)
{
    static _Alignas(64) unsigned char buf[2048 + 16];
    struct ds_pebs_sample s;
    for (unsigned mis = 1; mis < 8; mis++) {
        unsigned char *r = buf + mis;
        uint32_t size = mk_adaptive(r, 0x8 | (1ull << 24), 0x4400000000000000ull); /* 2 LBRs */
        CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_4, r, size, false, &s), DS_ERR_REC_ALIGN, "LBR group at +%u", mis);
        CHECK(s.lbr == NULL && s.present == 0, "sample cleared on the error");
        size = mk_adaptive(r, 0x4, 0x4400000000000000ull);
        CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_5, r, size, false, &s), DS_ERR_REC_ALIGN, "XMM group at +%u", mis);
        size = mk_adaptive(r, 0x3, 0x4400000000000000ull);
        CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_4, r, size, false, &s), DS_OK, "meminfo+GPRs at +%u", mis);
        CHECK_EQ(s.gpr[DS_GPR_RAX], 0x4400000000000000ull + 64 + 0x10, "rax read unaligned");
        CHECK(s.xmm == NULL && s.lbr == NULL, "no pointers");
        CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_3, buf + mis, 0xC8, false, &s), DS_OK, "fmt3 at +%u", mis);
    }
    uint32_t size = mk_adaptive(buf + 8, 0xC | (1ull << 24), 0x4400000000000000ull);
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_4, buf + 8, size, false, &s), DS_OK, "8-aligned with XMM+LBR");
    CHECK(s.lbr == (const void *)(buf + 8 + 32 + 256), "lbr pointer");
    CHECK_EQ(s.lbr[1].info, 0x4400000000000000ull + 32 + 256 + 24 + 16, "lbr[1].info natural access");
}

/* Replace CPUID leaf @leaf sub-leaf 0 of a fake profile (the first match wins). */
static void set_leaf(struct fake_cpu *f, uint32_t leaf, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    for (int i = 0; i < f->nleaves; i++)
        if (f->leaves[i].leaf == leaf && f->leaves[i].sub == 0) {
            f->leaves[i].r[0] = a, f->leaves[i].r[1] = b, f->leaves[i].r[2] = c, f->leaves[i].r[3] = d;
            return;
        }
    fake_set_cpuid(f, leaf, 0, a, b, c, d);
}

/*
 * Issue 11: PEBS format 6 (Lunar Lake, Arrow Lake-S) accepted, with the
 * counters-snapshot group. Layout transcribed from Linux ("perf/x86/intel/ds:
 * Add PEBS format 6"; asm/perf_event.h PEBS_DATACFG_CNTR bit 4, METRICS
 * bit 5, CNTR_SHIFT 32 (16 bits), FIX_SHIFT 48 (8 bits); struct
 * pebs_cntr_header {u32 cntr, fixed, metrics, reserved}; ds.c
 * setup_pebs_adaptive_sample_data: the group follows the LBR group, one
 * u64 per set cntr bit, then per set fixed bit, then 2 u64 when metrics ==
 * 3). Offsets below are written by hand from that, not from libds.
 */
/*
 * Issue 28: records after a validated format 6 record with the same header
 * are decoded by a fast run (pebs_adaptive.c run_same_cntr) that must also
 * compare the counters group's own header: records 0-1 GP0, record 2 GP2
 * and record 3 FIX1 have the same header (counters group, 56 bytes: one
 * value) but other counters. Expectations: the record layout (SDM adaptive
 * PEBS, Linux setup_pebs_adaptive_sample_data: one u64 per set bit, GP then
 * fixed) written by hand, and each drained sample equal to ds_pebs_decode
 * of the record alone in every counters field.
 */
static void test_perf28_fmt6_same_header(void)
{
    static struct env e;
    static struct collect c;
    struct ds_drain_stats st;
    fake_icelake(&e.f);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x8000 | 0x4000 | 0x2000 | 0x600 | 0x80 | 0x3F);
    env_identify(&e, 1);
    e.cfg.pebs_data_cfg = (1ull << 4) | (0x5ull << 32) | (0x2ull << 48); /* GP0, GP2, FIX1: 72 bytes */
    e.cfg.pebs.bytes = 40 * 72;
    e.cfg.pebs.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "fmt6 setup");
    unsigned char *r = e.pebs;
    memset(r, 0, 56 * 4);
    const uint32_t gp[4] = { 0x1, 0x1, 0x4, 0 }, fx[4] = { 0, 0, 0, 0x2 };
    for (unsigned i = 0; i < 4; i++) {
        unsigned char *q = r + 56 * i;
        put64(q, 0x00, 0x10 | (56ull << 48));
        put64(q, 0x08, 0xA000 + i);
        put32(q, 0x20, gp[i]);
        put32(q, 0x24, fx[i]);
        put64(q, 0x30, 0x500 + i);
    }
    e.area.a64.pebs_index = (uint64_t)(uintptr_t)e.pebs + 56 * 4;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "drain");
    CHECK_EQ(c.n, 4, "4 records");
    CHECK_EQ(st.anomalies, 0, "clean");
    CHECK_EQ(c.s[1].cntr_gp[0], 0x501, "record 1: GP0 (fast run)");
    CHECK_EQ(c.s[2].cntr_gp_mask, 0x4, "record 2: GP2 only, same header");
    CHECK_EQ(c.s[2].cntr_gp[2], 0x502, "record 2: GP2's value");
    CHECK_EQ(c.s[2].cntr_gp[0], 0, "record 2: GP0 of record 1 does not leak");
    CHECK_EQ(c.s[3].cntr_gp_mask, 0, "record 3: no GP");
    CHECK_EQ(c.s[3].cntr_fixed_mask, 0x2, "record 3: FIX1");
    CHECK_EQ(c.s[3].cntr_fixed[1], 0x503, "record 3: FIX1's value");
    CHECK_EQ(c.s[3].cntr_gp[2], 0, "record 3: GP2 of record 2 does not leak");
    for (unsigned i = 0; i < 4; i++) {
        struct ds_pebs_sample d;
        CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_6, r + 56 * i, 56, false, &d), DS_OK, "decode %u alone", i);
        CHECK(d.cntr_gp_mask == c.s[i].cntr_gp_mask && d.cntr_fixed_mask == c.s[i].cntr_fixed_mask &&
                  !memcmp(d.cntr_gp, c.s[i].cntr_gp, sizeof(d.cntr_gp)) &&
                  !memcmp(d.cntr_fixed, c.s[i].cntr_fixed, sizeof(d.cntr_fixed)) && d.ip == c.s[i].ip &&
                  d.present == c.s[i].present,
              "record %u drained = decoded alone", i);
    }
}

/*
 * The fast run's counters-group compare (run_same_cntr) beyond the GP mask:
 * the same header (counters group and metrics bits, 64 or 72 bytes) and the
 * same GP mask, but another fixed mask (GP0 + FIX0, then GP0 + FIX1: one
 * value each, the record layout as above); then a record whose metrics word
 * no longer names metrics under the same header and masks: its size no
 * longer matches its counters group (Linux setup_pebs_adaptive_sample_data
 * sizes the group from that word), so it is a size lie, not a sample.
 */
static void test_fmt6_run_fixed_and_metrics(void)
{
    static struct env e;
    static struct collect c;
    struct ds_drain_stats st;
    fake_icelake(&e.f);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x8000 | 0x4000 | 0x2000 | 0x600 | 0x80 | 0x3F);
    env_identify(&e, 1);
    e.cfg.pebs_data_cfg = (1ull << 4) | (1ull << 5) | (0x1ull << 32) | (0x3ull << 48); /* GP0, FIX0-1, metrics */
    e.cfg.pebs.bytes = 40 * 88;
    e.cfg.pebs.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "fmt6 setup");
    unsigned char *r = e.pebs;
    memset(r, 0, 64 * 2);
    for (unsigned i = 0; i < 2; i++) {
        unsigned char *q = r + 64 * i;
        put64(q, 0x00, 0x10 | (64ull << 48));
        put64(q, 0x08, 0xB000 + i);
        put32(q, 0x20, 0x1);
        put32(q, 0x24, 1u << i);
        put64(q, 0x30, 0x600 + i);
        put64(q, 0x38, 0x700 + i);
    }
    e.area.a64.pebs_index = (uint64_t)(uintptr_t)e.pebs + 64 * 2;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "drain fixed");
    CHECK(c.n == 2 && st.records == 2 && st.anomalies == 0, "2 records, clean");
    CHECK(c.s[1].cntr_gp_mask == 1 && c.s[1].cntr_fixed_mask == 2, "record 1: GP0 + FIX1");
    CHECK_EQ(c.s[1].cntr_gp[0], 0x601, "record 1: GP0's value");
    CHECK_EQ(c.s[1].cntr_fixed[1], 0x701, "record 1: FIX1's value");
    CHECK_EQ(c.s[1].cntr_fixed[0], 0, "record 1: FIX0 of record 0 does not leak");

    memset(r, 0, 72 * 2);
    for (unsigned i = 0; i < 2; i++) {
        unsigned char *q = r + 72 * i;
        put64(q, 0x00, 0x30 | (72ull << 48)); /* counters + metrics */
        put64(q, 0x08, 0xC000 + i);
        put32(q, 0x20, 0x1);
        put32(q, 0x28, i == 0 ? DS_PEBS_CNTR_METRICS : 0);
        put64(q, 0x30, 0x800 + i);
        put64(q, 0x38, 0x900 + i);
        put64(q, 0x40, 0xA00 + i);
    }
    e.area.a64.pebs_index = (uint64_t)(uintptr_t)e.pebs + 72 * 2;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "drain metrics");
    CHECK(c.n == 1 && st.records == 1, "record 0 only");
    CHECK(c.n == 1 && c.s[0].topdown_slots == 0x900 && c.s[0].perf_metrics == 0xA00, "record 0: slots, metrics");
    CHECK(st.lost_corrupt == 1 && (st.anomalies & DS_DRAIN_SIZE_LIE), "record 1: size lie");
    CHECK(invariant(&st), "invariant");
    struct ds_pebs_sample d;
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_6, r + 72, 72, false, &d), DS_ERR_REC_SIZE, "record 1 alone: size");
}

static void test_fmt6_counters(void)
{
    static struct env e;
    static struct collect c;
    struct ds_drain_stats st;
    fake_icelake(&e.f);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x8000 | 0x4000 | 0x2000 | 0x600 | 0x80 | 0x3F); /* fmt6, metrics */
    env_identify(&e, 1);
    const uint64_t cfg = (1ull << 4) | (1ull << 5) | (0x5ull << 32) | (0x3ull << 48); /* GP0, GP2; FIX0, FIX1 */
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_6, cfg), 32 + 16 + 8 * 4 + 16, "basic + cntr header + 4 values + slots/metrics");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_6, (1ull << 4)), 48, "counters bit alone: header only");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_6, 1ull << 56), 0, "bit 56 reserved");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_5, cfg), 0, "fmt5 has no counters group");
    e.cfg.pebs_data_cfg = cfg;
    e.cfg.pebs.bytes = 40 * 96;
    e.cfg.pebs.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "fmt6 setup");
    CHECK_EQ(e.ctx.pebs_fmt, DS_PEBS_FMT_6, "fmt6");
    CHECK_EQ(e.ctx.pebs.rec_size, 96, "record size");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_FIXED, 1, 7), DS_OK, "fmt6 fixed reset");
    CHECK_EQ(e.area.a64.pebs_reset[33], 7, "fmt6 fixed 1 at slot 32 + 1");

    unsigned char *r = e.pebs;
    memset(r, 0, 96 * 3);
    /* record 0: 96 bytes, everything */
    put64(r, 0x00, 0x30 | (96ull << 48));
    put64(r, 0x08, 0xAAA0); put64(r, 0x10, 0x1); put64(r, 0x18, 0x7777);
    put32(r, 0x20, 0x5); put32(r, 0x24, 0x3); put32(r, 0x28, 3); put32(r, 0x2C, 0);
    put64(r, 0x30, 0x100); put64(r, 0x38, 0x102); put64(r, 0x40, 0x200); put64(r, 0x48, 0x201);
    put64(r, 0x50, 0x5105); put64(r, 0x58, 0x3E7A);
    /* record 1 at 96: counters only, GP0 only, no metrics: 32 + 16 + 8 = 56 bytes */
    put64(r, 96 + 0x00, 0x10 | (56ull << 48));
    put64(r, 96 + 0x08, 0xBBB0);
    put32(r, 96 + 0x20, 0x1); put32(r, 96 + 0x24, 0); put32(r, 96 + 0x28, 0);
    put64(r, 96 + 0x30, 0x999);
    /* record 2 at 152: basic only, 32 bytes */
    put64(r, 152, 32ull << 48);
    put64(r, 152 + 8, 0xCCC0);
    e.area.a64.pebs_index = (uint64_t)(uintptr_t)e.pebs + 184;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "drain");
    CHECK_EQ(c.n, 3, "3 records");
    CHECK_EQ(st.anomalies, 0, "clean");
    CHECK(c.s[0].present & DS_SAMPLE_CNTRS, "counters present");
    CHECK(c.s[0].present & DS_SAMPLE_METRICS, "metrics present");
    CHECK_EQ(c.s[0].cntr_gp_mask, 0x5, "gp mask");
    CHECK_EQ(c.s[0].cntr_fixed_mask, 0x3, "fixed mask");
    CHECK_EQ(c.s[0].cntr_gp[0], 0x100, "GP0 @0x30");
    CHECK_EQ(c.s[0].cntr_gp[1], 0, "GP1 not in the snapshot");
    CHECK_EQ(c.s[0].cntr_gp[2], 0x102, "GP2 @0x38");
    CHECK_EQ(c.s[0].cntr_fixed[0], 0x200, "FIX0 @0x40");
    CHECK_EQ(c.s[0].cntr_fixed[1], 0x201, "FIX1 @0x48");
    CHECK_EQ(c.s[0].topdown_slots, 0x5105, "slots @0x50");
    CHECK_EQ(c.s[0].perf_metrics, 0x3E7A, "metrics @0x58");
    CHECK_EQ(c.s[0].ip, 0xAAA0, "basic ip");
    CHECK_EQ(c.s[1].size, 56, "second record 56 bytes");
    CHECK_EQ(c.s[1].cntr_gp[0], 0x999, "GP0 of record 1");
    CHECK_EQ(c.s[1].cntr_gp[2], 0, "GP2 of record 0 does not leak");
    CHECK_EQ(c.s[1].cntr_fixed[0], 0, "FIX0 does not leak");
    CHECK(!(c.s[1].present & DS_SAMPLE_METRICS) && c.s[1].topdown_slots == 0, "no metrics, cleared");
    CHECK(!(c.s[2].present & DS_SAMPLE_CNTRS) && c.s[2].cntr_gp[0] == 0 && c.s[2].cntr_gp_mask == 0,
          "basic record after counters: cleared");
    CHECK_EQ(c.s[2].ip, 0xCCC0, "basic ip of record 2");

    /* The counters header decides the size: a record whose size field disagrees is corrupt. */
    put64(r, 0x00, 0x30 | (88ull << 48));
    struct ds_pebs_sample d;
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_6, r, 96, false, &d), DS_ERR_REC_SIZE, "size != header's count");
    put64(r, 0x00, 0x30 | (96ull << 48));
    put64(r, 0x00, 0x30 | (104ull << 48)); /* size consistent with 3 GP values: only bit 16 is wrong */
    put32(r, 0x20, 0x5 | (1u << 16));
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_6, r, 104, false, &d), DS_ERR_REC_SIZE, "GP bit 16 cannot be configured");
    put64(r, 0x00, 0x30 | (104ull << 48));
    put32(r, 0x20, 0x5);
    put32(r, 0x24, 0x3 | (1u << 8));
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_6, r, 104, false, &d), DS_ERR_REC_SIZE, "fixed bit 8 cannot be configured");
    put64(r, 0x00, 0x30 | (96ull << 48));
    put32(r, 0x24, 0x3);
    put32(r, 0x20, 0x5);
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_6, r, 95, false, &d), DS_ERR_REC_SHORT, "one byte short");
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_6, r, 40, false, &d), DS_ERR_REC_SHORT, "counters header cut");
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_6, r, 96, false, &d), DS_OK, "whole record");
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_5, r, 96, false, &d), DS_ERR_REC_SIZE, "fmt5: bits 4/5 are unknown groups");

    /* DATA_CFG validation */
    e.cfg.pebs_data_cfg = 0x5ull << 32;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_DATA_CFG, "GP mask without the counters bit");
    e.cfg.pebs_data_cfg = (1ull << 4) | (0x100ull << 32);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_DATA_CFG, "GP8 does not exist (8 GP counters)");
    e.cfg.pebs_data_cfg = (1ull << 4) | (0x80ull << 32);
    e.cfg.pebs.bytes = 40 * 56;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "GP7 exists");
    e.cfg.pebs_data_cfg = (1ull << 4) | (0x10ull << 48);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_DATA_CFG, "fixed 4 does not exist");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x4000 | 0x2000 | 0x600 | 0x80 | 0x3F); /* no PERF_METRICS */
    env_identify(&e, 1);
    e.cfg.pebs_data_cfg = 1ull << 5;
    e.cfg.pebs.bytes = 40 * 64;
    e.cfg.pebs.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_DATA_CFG, "metrics without PERF_METRICS");
    fake_icelake(&e.f); env_identify(&e, 1);
    e.cfg.pebs_data_cfg = 1ull << 4;
    e.cfg.pebs.bytes = 40 * 48;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_DATA_CFG, "fmt4: no counters group");
}

/*
 * Issue 11: timed PEBS (IA32_PERF_CAPABILITIES[17]) gates the retire
 * latency (basic group header bits 47:32): with it the field is the
 * latency (0 included); without it "not recorded" (0, bit clear). The
 * CPU-free decoder reports it only when non-zero.
 */
static void test_retire_latency_gate(void)
{
    static struct env e;
    static struct collect c;
    struct ds_drain_stats st;
    unsigned char r[64];
    struct ds_pebs_sample s;
    memset(r, 0, sizeof(r));
    put64(r, 0, (0x123ull << 32) | (32ull << 48));
    fake_icelake(&e.f); env_identify(&e, 1); /* PERF_CAPABILITIES[17] clear */
    CHECK_EQ(ds_pebs_decode_cpu(&e.cpu, DS_PEBS_FMT_4, r, 32, &s), DS_OK, "decode_cpu untimed");
    CHECK(!(s.present & DS_SAMPLE_RETIRE_LAT), "untimed: not recorded");
    CHECK_EQ(s.retire_latency, 0, "untimed: 0");
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_4, r, 32, false, &s), DS_OK, "decode");
    CHECK(s.present & DS_SAMPLE_RETIRE_LAT, "CPU unknown: non-zero reported");
    e.cfg.pebs.bytes = 16 * 32;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup untimed");
    for (int i = 0; i < 3; i++)
        put64(e.pebs, (size_t)i * 32, ((0x10ull + (uint64_t)i) << 32) | (32ull << 48));
    e.area.a64.pebs_index = (uint64_t)(uintptr_t)e.pebs + 3 * 32;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK_EQ(c.n, 3, "3");
    CHECK(!(c.s[0].present & DS_SAMPLE_RETIRE_LAT) && !(c.s[2].present & DS_SAMPLE_RETIRE_LAT), "drain untimed");
    CHECK_EQ(c.s[2].retire_latency, 0, "drain untimed: 0 (fast run too)");

    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x20000 | 0x4000 | 0x2000 | 0x400 | 0x80 | 0x3F);
    env_identify(&e, 1);
    CHECK(e.cpu.caps.pebs_timing_info, "timed PEBS");
    CHECK_EQ(ds_pebs_decode_cpu(&e.cpu, DS_PEBS_FMT_4, r, 32, &s), DS_OK, "decode_cpu timed");
    CHECK(s.present & DS_SAMPLE_RETIRE_LAT, "timed: recorded");
    CHECK_EQ(s.retire_latency, 0x123, "timed: value");
    put64(r, 0, 32ull << 48);
    ds_pebs_decode_cpu(&e.cpu, DS_PEBS_FMT_4, r, 32, &s);
    CHECK((s.present & DS_SAMPLE_RETIRE_LAT) && s.retire_latency == 0, "timed: 0 is a latency");
    e.cfg.pebs.bytes = 16 * 32;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup timed");
    for (int i = 0; i < 3; i++)
        put64(e.pebs, (size_t)i * 32, ((0x10ull + (uint64_t)i) << 32) | (32ull << 48));
    e.area.a64.pebs_index = (uint64_t)(uintptr_t)e.pebs + 3 * 32;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    ds_pebs_drain(&e.ctx, collect, &c, &st);
    CHECK_EQ(c.s[0].retire_latency, 0x10, "drain timed 0");
    CHECK_EQ(c.s[2].retire_latency, 0x12, "drain timed 2 (fast run)");
    CHECK(c.s[2].present & DS_SAMPLE_RETIRE_LAT, "drain timed: present");
    struct ds_cpu raw;
    ds_cpu_init(&raw, &fake_ops, &e.f);
    CHECK_EQ(ds_pebs_decode_cpu(&raw, DS_PEBS_FMT_4, r, 32, &s), DS_ERR_NOT_IDENTIFIED, "not identified");
}

/*
 * Issue 10 item 13: the meminfo latency split (instruction latency 15:0,
 * cache latency 47:32) is a property of the microarchitecture (Linux
 * PMU_FL_INSTR_LATENCY: SPR/EMR/GNR, ADL/RPL both core types, ADL-N,
 * Crestmont, MTL, LNL, ARL...), not of PEBS format 5: Sapphire Rapids
 * (06_8FH) reports format 4 and splits; Ice Lake (06_7EH) format 4 does
 * not; a format 5 part that is not in Linux's list does not.
 */
static void test_latency_split(void)
{
    static struct env e;
    static const struct { uint32_t sig; bool split; const char *what; } t[] = {
        { 0x000706E5, false, "06_7EH Ice Lake" },        { 0x000806F8, true, "06_8FH Sapphire Rapids" },
        { 0x000C06F1, true, "06_CFH Emerald Rapids" },   { 0x000A06D1, true, "06_ADH Granite Rapids" },
        { 0x00090672, true, "06_97H Alder Lake" },       { 0x000B0671, true, "06_B7H Raptor Lake" },
        { 0x000B06E0, true, "06_BEH Alder Lake-N" },     { 0x000A06F3, true, "06_AFH Sierra Forest" },
        { 0x000A06A4, true, "06_AAH Meteor Lake" },      { 0x000B06D1, true, "06_BDH Lunar Lake" },
        { 0x000C0652, true, "06_C5H Arrow Lake" },       { 0x00080665, false, "06_86H Tremont" },
        { 0x000806C1, false, "06_8CH Tiger Lake" },      { 0x000A0671, false, "06_A7H Rocket Lake" },
        /* signatures of the real CPUID dumps in shared/cpuid (file names) */
        { 0x000C0662, true, "dump ArrowLake_07 (06_C6H)" },   { 0x000C06C3, true, "dump PantherLakeL_01 (06_CCH)" },
        { 0x000C06F2, true, "dump EmeraldRapids_01 (06_CFH)" }, { 0x000606A6, false, "dump ICX_04 (06_6AH)" },
        { 0x000706A8, false, "dump GoldmontPlus (06_7AH)" },  { 0x000906C0, false, "dump JasperLake_01 (06_9CH)" },
        { 0x00050654, false, "dump SkylakeX (06_55H)" },
    };
    unsigned char r[64];
    memset(r, 0, sizeof(r));
    put64(r, 0, 1 | (64ull << 48));
    put64(r, 32 + 0x10, 0x0000004200000017ull); /* cache 0x42, instr 0x17 */
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct ds_pebs_sample s;
        fake_icelake(&e.f);
        set_leaf(&e.f, 1, t[i].sig, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
        fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x4000 | 0x2000 | 0x500 | 0x80 | 0x3F); /* fmt 5 */
        env_identify(&e, 1);
        CHECK_EQ(ds_pebs_latency_split(&e.cpu), t[i].split, "%s split", t[i].what);
        CHECK_EQ(ds_pebs_decode_cpu(&e.cpu, DS_PEBS_FMT_5, r, 64, &s), DS_OK, "%s decode", t[i].what);
        CHECK_EQ(s.latency, 0x0000004200000017ull, "%s raw latency kept", t[i].what);
        CHECK_EQ(!!(s.present & DS_SAMPLE_LAT_SPLIT), t[i].split, "%s split bit", t[i].what);
        CHECK_EQ(s.instr_latency, t[i].split ? 0x17u : 0u, "%s instr latency", t[i].what);
        CHECK_EQ(s.cache_latency, t[i].split ? 0x42u : 0u, "%s cache latency", t[i].what);
    }
    fake_icelake(&e.f);
    set_leaf(&e.f, 0, 0x1B, 0x68747541, 0x444D4163, 0x69746E65); /* AuthenticAMD */
    env_identify(&e, 1);
    CHECK(!ds_pebs_latency_split(&e.cpu), "not Intel: no split");
    CHECK(!ds_pebs_latency_split(NULL), "NULL");
}

/*
 * The meminfo latency split in a fast run (records after the first with
 * the same header, pebs_adaptive.c run_same): Sapphire Rapids (06_8FH,
 * Linux PMU_FL_INSTR_LATENCY), format 5, three basic + meminfo records,
 * each with its own instruction (15:0) and cache (47:32) latency.
 */
static void test_latency_split_run(void)
{
    static struct env e;
    static struct collect c;
    struct ds_drain_stats st;
    fake_icelake(&e.f);
    set_leaf(&e.f, 1, 0x000806F8, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x4000 | 0x2000 | 0x500 | 0x80 | 0x3F); /* fmt 5 */
    env_identify(&e, 1);
    CHECK(ds_pebs_latency_split(&e.cpu), "SPR splits");
    e.cfg.pebs_data_cfg = DS_PEBS_DATA_CFG_MEMINFO;
    e.cfg.pebs.bytes = 16 * 64;
    e.cfg.pebs.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "spr meminfo setup");
    for (unsigned k = 0; k < 3; k++) {
        mk_adaptive(e.pebs + 64 * k, 1, 0x100 * k);
        put64(e.pebs, 64 * k + 32 + 0x10, ((0x40ull + k) << 32) | (0x10 + k)); /* cache 0x4k, instr 0x1k */
    }
    e.area.a64.pebs_index = (uint64_t)(uintptr_t)e.pebs + 3 * 64;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "spr drain");
    CHECK_EQ(c.n, 3, "3 records");
    for (int k = 0; k < c.n && k < 3; k++) {
        CHECK(c.s[k].present & DS_SAMPLE_LAT_SPLIT, "record %d split bit", k);
        CHECK_EQ(c.s[k].instr_latency, 0x10u + (unsigned)k, "record %d instr latency", k);
        CHECK_EQ(c.s[k].cache_latency, 0x40u + (unsigned)k, "record %d cache latency", k);
        CHECK_EQ(c.s[k].latency, ((0x40ull + (unsigned)k) << 32) | (0x10u + (unsigned)k), "record %d raw", k);
    }
}

/* A sink that keeps up to 128 samples (copies). */
static struct ds_pebs_sample big[128];
static int nbig, big_refuse;
static int big_sink(void *a, const struct ds_pebs_sample *sm)
{
    (void)a;
    if (nbig >= big_refuse || nbig >= 128)
        return 1;
    big[nbig++] = *sm;
    return 0;
}

/*
 * Issue 10 item 22 (the fast run) and the exact-boundary class: an adaptive
 * buffer filled exactly with runs of equal headers broken by other group
 * sets, every sample checked against the hand transcription above (not
 * against ds_pebs_decode); then the last record cut (index 8 bytes short of
 * the maximum), a sink refusing in the middle of a run, and a size lie in
 * the middle of a run.
 */
static void test_adaptive_runs(void)
{
    static struct env e;
    struct ds_drain_stats st;
    fake_icelake(&e.f);
    env_identify(&e, 1);
    e.cfg.pebs_data_cfg = 0x3;
    e.cfg.pebs.bytes = 16 * 208; /* 3328 */
    e.cfg.pebs.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    static uint64_t grp[100], tag[100];
    static uint32_t off[100];
    int n = 0;
    uint32_t o = 0;
    for (int i = 0; i < 86; i++) {
        uint64_t gsel = (i >= 6 && i < 9) ? 0x3 : i == 9 ? (0x8 | (1ull << 24)) : 0;
        grp[n] = gsel; tag[n] = 0x100000ull * (uint64_t)(i + 1); off[n] = o;
        o += mk_adaptive(e.pebs + o, gsel, tag[n]);
        n++;
    }
    CHECK_EQ(o, 3328, "86 records fill the buffer exactly");
    uint64_t base = e.ctx.pebs.linear;
    e.area.a64.pebs_index = base + o;
    nbig = 0; big_refuse = 128;
    CHECK_EQ(ds_pebs_drain(&e.ctx, big_sink, NULL, &st), DS_OK, "drain");
    CHECK_EQ(st.anomalies, DS_DRAIN_FULL, "filled exactly: FULL only");
    CHECK_EQ(st.present, 86, "86 present");
    CHECK_EQ(st.records, 86, "86 taken");
    CHECK_EQ(nbig, 86, "86 samples");
    int bad = -1;
    for (int i = 0; i < nbig && i < n; i++)
        if (!ref_matches(&big[i], grp[i], tag[i], e.pebs + off[i]) && bad < 0)
            bad = i;
    CHECK_EQ(bad, -1, "every sample matches the hand transcription (first bad record)");
    CHECK_EQ(big[85].size, 32, "last is basic-only");

    /* index 8 bytes short of the maximum: the last record is cut */
    o = 0;
    for (int i = 0; i < n; i++)
        o += mk_adaptive(e.pebs + o, grp[i], tag[i]);
    e.area.a64.pebs_index = base + o - 8;
    nbig = 0;
    ds_pebs_drain(&e.ctx, big_sink, NULL, &st);
    CHECK_EQ(st.records, 85, "85 whole records");
    CHECK_EQ(st.lost_corrupt, 1, "the cut record");
    CHECK(st.anomalies & DS_DRAIN_SIZE_LIE || st.anomalies & DS_DRAIN_INDEX_MISALIGNED, "flagged");
    CHECK(!(st.anomalies & DS_DRAIN_FULL), "not full");
    CHECK(invariant(&st), "invariant");

    /* sink refuses from the 20th sample on (inside the long basic run) */
    e.area.a64.pebs_index = base + o;
    nbig = 0; big_refuse = 20;
    ds_pebs_drain(&e.ctx, big_sink, NULL, &st);
    CHECK_EQ(st.records, 20, "20 taken");
    CHECK_EQ(st.lost_rejected, 66, "66 refused");
    CHECK(invariant(&st), "invariant");

    /* a size lie in the middle of the last basic run: record 40 claims 40 bytes */
    put64(e.pebs, off[40], 40ull << 48);
    e.area.a64.pebs_index = base + o;
    nbig = 0; big_refuse = 128;
    ds_pebs_drain(&e.ctx, big_sink, NULL, &st);
    CHECK_EQ(st.records, 40, "the 40 records before the lie");
    CHECK_EQ(st.lost_corrupt, 1, "the rest: one corrupt");
    CHECK(st.anomalies & DS_DRAIN_SIZE_LIE, "size lie flagged");
    CHECK(invariant(&st), "invariant");
    CHECK(ref_matches(&big[39], grp[39], tag[39], e.pebs + off[39]), "record 39 intact");
}

/*
 * Issue 10 test strength (clearing paths). A sample field the record does not
 * carry reads 0 whatever the caller's struct held (pebs.h: "On any error *out
 * is cleared"; header "else 0"; xmm/lbr "NULL when absent"; ssp "0 for the
 * other formats"; cntr_* "0 elsewhere"). Counts the fields other than fmt,
 * present, size, ip_is_next and the adaptive header (@hdr) that are not 0.
 */
static int stale_fields(const struct ds_pebs_sample *s, uint64_t hdr)
{
    int n = (s->ip != 0) + (s->eventing_ip != 0) + (s->flags != 0) + (s->counters != 0) + (s->data_addr != 0) +
            (s->data_source != 0) + (s->latency != 0) + (s->tsx != 0) + (s->tsc != 0) + (s->header != hdr) +
            (s->retire_latency != 0) + (s->lbr_count != 0) + (s->instr_latency != 0) + (s->cache_latency != 0) +
            (s->cntr_gp_mask != 0) + (s->cntr_fixed_mask != 0) + (s->topdown_slots != 0) +
            (s->perf_metrics != 0) + (s->xmm != NULL) + (s->lbr != NULL) + (s->ssp != 0) + (s->fragments != 0);
    for (int i = 0; i < DS_GPR__COUNT; i++)
        n += s->gpr[i] != 0;
    for (int i = 0; i < 16; i++)
        n += s->cntr_gp[i] != 0;
    for (int i = 0; i < 8; i++)
        n += s->cntr_fixed[i] != 0;
    return n;
}

/* An all-zero record decoded over a poisoned sample: nothing stale survives;
 * a failed decode clears everything, fmt/present/size included. */
static void test_decode_clears_poison(void)
{
    static const struct { enum ds_pebs_fmt f; uint32_t size; } fx[] = {
        { DS_PEBS_FMT_NB32, 40 }, { DS_PEBS_FMT_NB64, 144 }, { DS_PEBS_FMT_0, 0x90 },
        { DS_PEBS_FMT_1, 0xB0 },  { DS_PEBS_FMT_2, 0xC0 },   { DS_PEBS_FMT_3, 0xC8 },
        { DS_PEBS_FMT_4, 32 },    { DS_PEBS_FMT_5, 32 },     { DS_PEBS_FMT_6, 32 },
    };
    _Alignas(8) unsigned char r[0xC8];
    struct ds_pebs_sample s;
    for (size_t k = 0; k < sizeof(fx) / sizeof(fx[0]); k++) {
        bool adaptive = fx[k].f == DS_PEBS_FMT_4 || fx[k].f == DS_PEBS_FMT_5 || fx[k].f == DS_PEBS_FMT_6;
        uint64_t hdr = adaptive ? 32ull << 48 : 0; /* basic group only */
        memset(r, 0, sizeof(r));
        put64(r, 0, hdr);
        memset(&s, 0xA5, sizeof(s));
        CHECK_EQ(ds_pebs_decode(fx[k].f, r, fx[k].size, false, &s), DS_OK, "fmt %d zero record", (int)fx[k].f);
        CHECK_EQ(s.fmt, fx[k].f, "fmt %d", (int)fx[k].f);
        CHECK_EQ(s.size, fx[k].size, "fmt %d size", (int)fx[k].f);
        CHECK_EQ(stale_fields(&s, hdr), 0, "fmt %d: no field of the poisoned sample survives", (int)fx[k].f);
        memset(&s, 0xA5, sizeof(s));
        CHECK_EQ(ds_pebs_decode(fx[k].f, r, fx[k].size - 1, false, &s), DS_ERR_REC_SHORT, "fmt %d short", (int)fx[k].f);
        CHECK(s.fmt == DS_PEBS_FMT_NONE && s.present == 0 && s.size == 0 && !s.ip_is_next && stale_fields(&s, 0) == 0,
              "fmt %d: a failed decode clears the sample", (int)fx[k].f);
    }
}

/*
 * The drain reuses one sample: a basic-only record after one that carried
 * every group (meminfo, GPRs, XMM, 1 LBR, format 6 counters + metrics) must
 * come out with nothing of the first one (record layout: SDM "Adaptive PEBS"
 * groups in this order, the counters group last with its 16-byte header:
 * GP bitmap, fixed bitmap, metrics = 3 (Linux INTEL_CNTR_METRICS)).
 */
static void test_drain_clears_previous_groups(void)
{
    static struct env e;
    static struct collect c;
    struct ds_drain_stats st;
    fake_icelake(&e.f);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x8000 | 0x4000 | 0x2000 | 0x600 | 0x80 | 0x3F); /* fmt6, metrics */
    env_identify(&e, 1);
    const uint64_t groups = 0x3F; /* mem, gprs, xmm, lbr (1 entry), counters, metrics */
    e.cfg.pebs_data_cfg = groups | (0x5ull << 32) | (0x3ull << 48);
    const uint32_t big = 32 + 32 + 144 + 256 + 24 + 16 + 4 * 8 + 16;
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_6, e.cfg.pebs_data_cfg), big, "every group: %u bytes", big);
    e.cfg.pebs.bytes = 4 * big;
    e.cfg.pebs.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "fmt6 setup, every group");
    unsigned char *r = e.pebs;
    memset(r, 0, 2 * big);
    put64(r, 0, groups | ((uint64_t)big << 48));
    for (uint32_t off = 8; off < big - 64; off += 8)
        put64(r, off, 0x5500000000000000ull + off);
    uint32_t ch = big - 64; /* counters group header */
    put32(r, ch, 0x5); put32(r, ch + 4, 0x3); put32(r, ch + 8, 3);
    for (uint32_t off = ch + 16; off < big; off += 8)
        put64(r, off, 0x6600000000000000ull + off);
    put64(r, big, 32ull << 48); /* basic only, zero body */
    e.area.a64.pebs_index = e.ctx.pebs.linear + big + 32;
    memset(&c, 0, sizeof(c));
    c.refuse_after = 64;
    CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "drain");
    CHECK_EQ(c.n, 2, "2 records");
    CHECK(c.s[0].present & DS_SAMPLE_MEM && c.s[0].present & DS_SAMPLE_GPRS && c.s[0].xmm && c.s[0].lbr_count == 1 &&
          c.s[0].present & DS_SAMPLE_CNTRS && c.s[0].present & DS_SAMPLE_METRICS && c.s[0].perf_metrics,
          "record 0 carries every group");
    CHECK_EQ(c.s[1].size, 32, "record 1: basic only");
    CHECK_EQ(stale_fields(&c.s[1], 32ull << 48), 0, "record 1: nothing of record 0 left");
}

/* ds_pebs_latency_split for every DisplayModel of the Linux
 * PMU_FL_INSTR_LATENCY list, typed from Linux intel_pmu_init (the glc case:
 * SAPPHIRERAPIDS_X, EMERALDRAPIDS_X, GRANITERAPIDS_X/D; the hybrid case:
 * ALDERLAKE(_L), RAPTORLAKE(_P,_S); ATOM_GRACEMONT; ATOM_CRESTMONT(_X);
 * METEORLAKE(_L), LUNARLAKE_M, ARROWLAKE(_H,_U), PANTHERLAKE_L, WILDCATLAKE_L,
 * ATOM_DARKMONT_X) with the model numbers of Linux intel-family.h, and their
 * table neighbours that are not in it (mutants pebs.c:665-667 0xBF -> 0xBE,
 * 0x9A -> 0x99, 0xAE -> 0xAF survived: test_latency_split typed only some
 * rows). DisplayFamily 6 only; an unidentified CPU never splits (mutant
 * pebs.c:671 `||` -> `&&`). */
static void test_latency_split_every_model(void)
{
    static struct env e;
    static const uint8_t in[] = { 0x8F, 0xCF, 0xAD, 0xAE, 0x97, 0x9A, 0xB7, 0xBA, 0xBF, 0xBE, 0xAF, 0xB6,
                                  0xAA, 0xAC, 0xBD, 0xC5, 0xC6, 0xB5, 0xCC, 0xD5, 0xDD };
    static const uint8_t out[] = { 0x8E, 0x8D, 0x8C, 0x90, 0x96, 0x99, 0x9B, 0x9C, 0x9D, 0x9E, 0xA5, 0xA6,
                                   0xA7, 0xAB, 0xB0, 0xB8, 0xB9, 0xBB, 0xBC, 0xC0, 0xC4, 0xC7, 0xCB, 0xCD,
                                   0xCE, 0xD0, 0xD4, 0xD6, 0xD7, 0xDC, 0xDE, 0x7E, 0x6A, 0x86, 0x8A };
    for (int pass = 0; pass < 2; pass++) {
        const uint8_t *m = pass ? out : in;
        size_t n = pass ? sizeof(out) : sizeof(in);
        for (size_t i = 0; i < n; i++) {
            uint32_t sig = 0x600u | ((uint32_t)(m[i] >> 4) << 16) | ((m[i] & 0xFu) << 4) | 1u;
            fake_icelake(&e.f);
            set_leaf(&e.f, 1, sig, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
            env_identify(&e, 1);
            CHECK_EQ(e.cpu.caps.display_model, m[i], "06_%02XH identified", m[i]);
            CHECK_EQ(ds_pebs_latency_split(&e.cpu), !pass, "06_%02XH split", m[i]);
            if (!pass) {
                e.cpu.identified = false;
                CHECK(!ds_pebs_latency_split(&e.cpu), "06_%02XH not identified: no split", m[i]);
            }
        }
    }
    /* SPR's model byte 8FH in DisplayFamily 0FH and 13H (Diamond Rapids' family), family 5 */
    static const uint32_t other[] = { 0x00080FF1, 0x00480FF1, 0x000805F1 }; /* 0F_8FH, 13_8FH, 05_0FH */
    for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
        fake_icelake(&e.f);
        set_leaf(&e.f, 1, other[i], 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
        env_identify(&e, 1);
        CHECK(e.cpu.caps.display_family != 6, "sig %08x not family 6", other[i]);
        CHECK(!ds_pebs_latency_split(&e.cpu), "sig %08x: no split outside family 6", other[i]);
    }
}

/* Format 6 with the counters group present but empty (header only: no GP,
 * no fixed, no metrics; record 32 + 16 = 48 bytes, layout of
 * test_fmt6_counters' Linux transcription) decoded with exactly its size
 * available, and one byte less (mutant pebs.c:450 `avail < base + header`
 * -> `<=` survived). */
static void test_fmt6_empty_counters_exact(void)
{
    static unsigned char r[64] __attribute__((aligned(16)));
    struct ds_pebs_sample s;
    memset(r, 0, sizeof(r));
    put64(r, 0x00, 0x10 | (48ull << 48));
    put64(r, 0x08, 0xAAA0);
    put32(r, 0x20, 0), put32(r, 0x24, 0), put32(r, 0x28, 0), put32(r, 0x2C, 0);
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_6, r, 48, false, &s), DS_OK, "48 bytes available, 48-byte record");
    CHECK(s.ip == 0xAAA0 && (s.present & DS_SAMPLE_CNTRS) && s.cntr_gp_mask == 0 && s.cntr_fixed_mask == 0,
          "empty counters group");
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_6, r, 47, false, &s), DS_ERR_REC_SHORT, "47 bytes available");
}

/* Adaptive drain boundaries (mutants pebs.c:877 `idx < b->linear` -> `<=` and
 * pebs.c:861 `groups == 0` -> `== 1` survived): an empty buffer (index ==
 * base) is no anomaly; a run of records carrying only the memory-info group
 * decodes every record's own group. Layout: SDM Vol. 3B "Adaptive PEBS":
 * basic group {header: groups [3:0], size [63:48]; IP; applicable; TSC},
 * memory-info group {address, auxiliary info, latency, TSX info}; data_cfg
 * bit 0 = MEMINFO. */
static void test_adaptive_empty_and_meminfo_run(void)
{
    static struct env e;
    static struct collect c;
    struct ds_drain_stats st;
    fake_icelake(&e.f);
    env_identify(&e, 1);
    e.cfg.pebs_data_cfg = DS_PEBS_DATA_CFG_MEMINFO;
    e.cfg.pebs.bytes = 16 * 64;
    e.cfg.pebs.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "fmt4 meminfo setup");
    CHECK_EQ(e.ctx.pebs.rec_size, 64, "basic + meminfo");
    uint64_t base = (uint64_t)(uintptr_t)e.pebs;
    e.area.a64.pebs_index = base;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "empty drain");
    CHECK(c.n == 0 && st.records == 0 && st.present == 0 && st.anomalies == 0, "empty: nothing, no anomaly");
    unsigned char *r = e.pebs;
    for (unsigned k = 0; k < 3; k++) {
        put64(r, 64 * k + 0x00, 0x1 | (64ull << 48));
        put64(r, 64 * k + 0x08, 0x401000 + k);
        put64(r, 64 * k + 0x20, 0x7F0000002000ull + 0x40 * k);
        put64(r, 64 * k + 0x28, 0x100 + k);
    }
    e.area.a64.pebs_index = base + 3 * 64;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "meminfo drain");
    CHECK_EQ(c.n, 3, "3 records");
    for (int k = 0; k < c.n && k < 3; k++) {
        CHECK_EQ(c.s[k].ip, 0x401000u + (unsigned)k, "record %d ip", k);
        CHECK_EQ(c.s[k].data_addr, 0x7F0000002000ull + 0x40 * (unsigned)k, "record %d its own data address", k);
        CHECK(c.s[k].present & DS_SAMPLE_MEM, "record %d memory info present", k);
    }
    CHECK_EQ(st.anomalies, 0, "clean");
}

/* The decoder never reads outside [rec, rec + avail) (ds/pebs.h): a format 6
 * counters record cut before its counters header, in a buffer of exactly
 * @avail bytes (ASan sees any read past it). Mutants pebs.c:450 `||` -> `&&`
 * and the removal of pebs.c:453 `return DS_ERR_REC_SIZE` survived: they read
 * the header past the end. */
static void test_fmt6_cut_counters_in_bounds(void)
{
    static const struct { uint32_t size, avail; int want; } t[] = {
        { 48, 40, DS_ERR_REC_SHORT }, /* header promises 48, 40 there */
        { 40, 40, DS_ERR_REC_SIZE },  /* size too small for basic + counters header */
        { 48, 44, DS_ERR_REC_SHORT },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        unsigned char *r = malloc(t[i].avail);
        CHECK(r != NULL, "malloc");
        if (!r)
            return;
        memset(r, 0, t[i].avail);
        put64(r, 0x00, 0x10 | ((uint64_t)t[i].size << 48));
        put64(r, 0x08, 0xAAA0);
        struct ds_pebs_sample s;
        CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_6, r, t[i].avail, false, &s), t[i].want, "size %u avail %u", t[i].size,
                 t[i].avail);
        free(r);
    }
}

/* Refusals of a context whose setup flag is clear while its PEBS buffer
 * fields are still there, and of a CPU not identified whose caps still say
 * Ice Lake (pebs.h contracts: DS_ERR_NOT_SETUP / DS_ERR_NOT_IDENTIFIED;
 * mutant pebs.c:962 guard removal survived the lead's sample: the check
 * after it answered DS_ERR_NO_PEBS_BUFFER only for a zeroed context). */
static void test_not_setup_refusals(void)
{
    static struct env e;
    static struct collect c;
    static struct ds_pebs_sample arr[4];
    struct ds_drain_stats st;
    fake_icelake(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    e.area.a64.pebs_index = (uint64_t)(uintptr_t)e.pebs + 2 * e.ctx.pebs.rec_size;
    e.ctx.setup = false;
    uint64_t pend = 77;
    size_t n = 5;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    CHECK_EQ(ds_pebs_pending(&e.ctx, &pend), DS_ERR_NOT_SETUP, "pending");
    CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_ERR_NOT_SETUP, "drain");
    CHECK_EQ(c.n, 0, "drain: nothing delivered");
    CHECK_EQ(ds_pebs_drain_array(&e.ctx, arr, 4, &n, &st), DS_ERR_NOT_SETUP, "drain_array");
    CHECK_EQ(n, 0, "drain_array: none");
    e.cpu.identified = false;
    enum ds_pebs_fmt fmt = DS_PEBS_FMT_4;
    CHECK_EQ(ds_pebs_format_select(&e.cpu, DS_LAYOUT_64, &fmt), DS_ERR_NOT_IDENTIFIED, "format_select");
    unsigned char r[64];
    memset(r, 0, sizeof(r));
    put64(r, 0, 32ull << 48);
    put64(r, 8, 0x401000);
    struct ds_pebs_sample s;
    CHECK_EQ(ds_pebs_decode_cpu(&e.cpu, DS_PEBS_FMT_4, r, 32, &s), DS_ERR_NOT_IDENTIFIED, "decode_cpu");
    CHECK(s.ip == 0 && s.present == 0, "decode_cpu: sample cleared");
}

/* ds_pebs_decode_cpu's NULL arguments, each alone (pebs.h: DS_ERR_NULL;
 * the guard removal at pebs.c:683 survived). */
static void test_decode_cpu_nulls(void)
{
    static struct env e;
    fake_icelake(&e.f);
    env_identify(&e, 1);
    unsigned char r[64];
    memset(r, 0, sizeof(r));
    put64(r, 0, 32ull << 48);
    struct ds_pebs_sample s;
    CHECK_EQ(ds_pebs_decode_cpu(NULL, DS_PEBS_FMT_4, r, 32, &s), DS_ERR_NULL, "NULL cpu");
    CHECK_EQ(ds_pebs_decode_cpu(&e.cpu, DS_PEBS_FMT_4, NULL, 32, &s), DS_ERR_NULL, "NULL record");
    CHECK_EQ(ds_pebs_decode_cpu(&e.cpu, DS_PEBS_FMT_4, r, 32, NULL), DS_ERR_NULL, "NULL sample");
    CHECK_EQ(ds_pebs_decode_cpu(&e.cpu, DS_PEBS_FMT_4, r, 32, &s), DS_OK, "all given");
}

/*
 * Format 6 counters group at its top slots (asm/perf_event.h: 16 GP bits
 * from CNTR_SHIFT 32, 8 fixed bits from FIX_SHIFT 48): a record with GP15
 * and FIX7 (64 bytes: basic 32, header 16, two values), then one with GP0
 * only (56 bytes). The second sample must not keep the first's GP15 / FIX7
 * values (every slot is cleared, the last ones included).
 */
static void test_fmt6_top_counters_cleared(void)
{
    static struct env e;
    static struct collect c;
    struct ds_drain_stats st;
    fake_icelake(&e.f);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x8000 | 0x4000 | 0x2000 | 0x600 | 0x80 | 0x3F);
    /* leaf 0AH: v5, 16 GP counters of 48 bits, fixed bitmap FFH, 8 fixed */
    set_leaf(&e.f, 0xA, 0x08301005, 0, 0xFF, 0x608);
    env_identify(&e, 1);
    e.cfg.pebs_data_cfg = (1ull << 4) | (0x8001ull << 32) | (0x80ull << 48);
    e.cfg.pebs.bytes = 40 * 72; /* configured record: 32 + 16 + 3 values */
    e.cfg.pebs.thresh_records = 0;
    int se = ds_area_setup(&e.ctx, &e.cpu, &e.cfg);
    CHECK_EQ(se, DS_OK, "fmt6 setup with GP0, GP15, FIX7");
    if (se)
        return;
    unsigned char *r = e.pebs;
    memset(r, 0, 128);
    put64(r, 0x00, 0x10 | (64ull << 48));
    put64(r, 0x08, 0xAAA0);
    put32(r, 0x20, 0x8000); put32(r, 0x24, 0x80);
    put64(r, 0x30, 0x1515); put64(r, 0x38, 0x0707);
    put64(r, 64 + 0x00, 0x10 | (56ull << 48));
    put64(r, 64 + 0x08, 0xBBB0);
    put32(r, 64 + 0x20, 0x1);
    put64(r, 64 + 0x30, 0x999);
    e.area.a64.pebs_index = (uint64_t)(uintptr_t)e.pebs + 120;
    memset(&c, 0, sizeof(c)); c.refuse_after = 64;
    CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "drain");
    CHECK_EQ(c.n, 2, "2 records");
    CHECK(c.s[0].cntr_gp[15] == 0x1515 && c.s[0].cntr_fixed[7] == 0x0707, "GP15 @0x30, FIX7 @0x38");
    CHECK_EQ(c.s[1].cntr_gp[0], 0x999, "GP0 of record 1");
    CHECK_EQ(c.s[1].cntr_gp[15], 0, "GP15 of record 0 does not leak");
    CHECK_EQ(c.s[1].cntr_fixed[7], 0, "FIX7 of record 0 does not leak");
}

/*
 * Adaptive header checks at the edges of their fields (SDM "Adaptive PEBS"
 * basic-group header: bits 3:0 the groups of formats 4/5 (6 adds the
 * counters group, bits 5:4), 23:4 (23:6) no group libds knows, LBR count
 * 31:24, retire latency 47:32 on timed-PEBS parts, record size 63:48):
 * - an unknown group at the lowest unknown bit (4 on formats 4/5, 6 on
 *   format 6) and at the highest (23) is DS_ERR_REC_SIZE even when the size
 *   field matches the known groups (mutant pebs.c:482 mask FFFFF0H -> FFFFEFH);
 * - in a drain, a record after a valid one whose header differs only in
 *   size bit 0 (bit 48) is a size lie, not a member of the fast run: one
 *   taken, one corrupt (mutant DS__HDR_KEY_MASK 0xFFFF -> 0x10000, which
 *   put bit 48 outside the key).
 */
static void test_adaptive_header_edges(void)
{
    unsigned char r[64];
    struct ds_pebs_sample s;
    static const struct { enum ds_pebs_fmt fmt; unsigned bit; } u[] = {
        { DS_PEBS_FMT_4, 4 }, { DS_PEBS_FMT_4, 23 }, { DS_PEBS_FMT_5, 4 }, { DS_PEBS_FMT_5, 23 },
        { DS_PEBS_FMT_6, 6 }, { DS_PEBS_FMT_6, 23 },
    };
    for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
        uint32_t size = mk_adaptive(r, 0, 0x100);
        CHECK_EQ(ds_pebs_decode(u[i].fmt, r, size, false, &s), DS_OK, "fmt %x basic", (unsigned)u[i].fmt);
        put64(r, 0, (1ull << u[i].bit) | ((uint64_t)size << 48));
        CHECK_EQ(ds_pebs_decode(u[i].fmt, r, size, false, &s), DS_ERR_REC_SIZE, "fmt %x: unknown group bit %u",
                 (unsigned)u[i].fmt, u[i].bit);
    }

    static struct env e;
    struct ds_drain_stats st;
    fake_icelake(&e.f);
    env_identify(&e, 1);
    e.cfg.pebs_data_cfg = 0;
    e.cfg.pebs.bytes = 4096;
    e.cfg.pebs.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    uint32_t o = mk_adaptive(e.pebs, 0, 0x100000);
    o += mk_adaptive(e.pebs + o, 0, 0x200000);
    put64(e.pebs + 32, 0, (uint64_t)(32 + 1) << 48); /* second header: size 33 */
    o += mk_adaptive(e.pebs + o, 0, 0x300000);
    e.area.a64.pebs_index = e.ctx.pebs.linear + o;
    nbig = 0;
    big_refuse = 128;
    CHECK_EQ(ds_pebs_drain(&e.ctx, big_sink, NULL, &st), DS_OK, "drain");
    CHECK_EQ(st.records, 1, "the first record only");
    CHECK_EQ(st.lost_corrupt, 1, "size 33 after size 32: one corrupt");
    CHECK(st.anomalies & DS_DRAIN_SIZE_LIE, "size lie flagged");
    CHECK_EQ(nbig, 1, "one sample");
    CHECK_EQ(big[0].ip, 0x100008ull, "first record's IP");
}

/* Format 6 records with the counters group are checked for unknown group
 * bits in header bits 31:0 only (bits 23:6 no group; SDM "Adaptive PEBS"
 * header), never in the retire latency 47:32: a 56-byte record (basic 32,
 * counters header 16, GP0's value 8; Linux setup_pebs_adaptive_sample_data)
 * with bit 6 or bit 23 set is DS_ERR_REC_SIZE; with retire latency 123H it
 * decodes, latency reported (mutant pebs.c cntr_check mask FFFFFFFFH ->
 * 100000000H checked only bit 32). */
static void test_fmt6_cntr_header_bits(void)
{
    unsigned char r[56];
    struct ds_pebs_sample d;
    static const struct { uint64_t extra; int rc; } t[] = {
        { 0, DS_OK }, { 1ull << 6, DS_ERR_REC_SIZE }, { 1ull << 23, DS_ERR_REC_SIZE },
        { 0x123ull << 32, DS_OK }, { (0x123ull << 32) | (1ull << 6), DS_ERR_REC_SIZE },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        memset(r, 0, sizeof(r));
        put64(r, 0x00, 0x10 | t[i].extra | (56ull << 48)); /* counters group only */
        put64(r, 0x08, 0xABC0);                               /* basic IP */
        put32(r, 0x20, 0x1);                                  /* GP0 */
        put64(r, 0x30, 0x777);                                /* GP0's value */
        CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_6, r, sizeof(r), false, &d), t[i].rc, "header %016llx",
                 (unsigned long long)(t[i].extra | 0x10));
        if (t[i].rc == DS_OK) {
            CHECK_EQ(d.cntr_gp[0], 0x777, "GP0 value (%zu)", i);
            CHECK_EQ(d.retire_latency, (uint32_t)(t[i].extra >> 32), "retire latency (%zu)", i);
            CHECK_EQ(d.ip, 0xABC0, "ip (%zu)", i);
        }
    }
}

/*
 * Adaptive drain accounting at its exact edges (area.h ds_drain_stats:
 * "bytes claimed beyond the buffer count as ceil(bytes / configured record
 * size) lost_beyond records"; "a record whose size field is inconsistent
 * ends the walk"): 16 basic records of 32 bytes fill the buffer; an index
 * 8, 32, 40, 64 bytes past the end loses 1, 1, 2, 2 records beyond it
 * (mutant pebs.c adaptive_claimed `rem ? 1 : 0` -> `rem ? 2 : 0`). The last
 * record's header claiming 64 bytes with exactly 32 left (a whole basic
 * group) is a size lie; with 24 left (basic group cut) the index is
 * misaligned (mutant walk_adaptive `< sizeof(struct ds_pebs_basic)` -> `<=`).
 */
static void test_adaptive_beyond_and_tail(void)
{
    static struct env e;
    static struct collect c;
    struct ds_drain_stats st;
    fake_icelake(&e.f);
    env_identify(&e, 1);
    e.cfg.pebs_data_cfg = 0;
    e.cfg.pebs.bytes = 16 * 32;
    e.cfg.pebs.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    uint64_t base = e.ctx.pebs.linear, max = base + 16 * 32;
    static const struct { uint64_t past, beyond; } t[] = { { 8, 1 }, { 32, 1 }, { 40, 2 }, { 64, 2 } };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        for (int k = 0; k < 16; k++)
            put64(e.pebs, (size_t)k * 32, 32ull << 48);
        e.area.a64.pebs_index = max + t[i].past;
        memset(&c, 0, sizeof(c)); c.refuse_after = 64;
        CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "max + %u: drain", (unsigned)t[i].past);
        CHECK_EQ(st.records, 16, "max + %u: the buffer's records", (unsigned)t[i].past);
        CHECK_EQ(st.lost_beyond, t[i].beyond, "max + %u: lost beyond", (unsigned)t[i].past);
        CHECK_EQ(st.present, 16 + t[i].beyond, "max + %u: present", (unsigned)t[i].past);
        CHECK(st.anomalies & DS_DRAIN_INDEX_PAST_MAX, "max + %u: past max", (unsigned)t[i].past);
        CHECK(invariant(&st), "max + %u: invariant", (unsigned)t[i].past);
    }
    static const struct { uint64_t idx; uint32_t flag; const char *what; } u[] = {
        { 16 * 32, DS_DRAIN_SIZE_LIE | DS_DRAIN_FULL, "32 bytes left, size 64: size lie" },
        { 15 * 32 + 24, DS_DRAIN_INDEX_MISALIGNED, "24 bytes left: misaligned" },
    };
    for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
        for (int k = 0; k < 16; k++)
            put64(e.pebs, (size_t)k * 32, 32ull << 48);
        put64(e.pebs, 15 * 32, 64ull << 48);
        e.area.a64.pebs_index = base + u[i].idx;
        memset(&c, 0, sizeof(c)); c.refuse_after = 64;
        CHECK_EQ(ds_pebs_drain(&e.ctx, collect, &c, &st), DS_OK, "%s: drain", u[i].what);
        CHECK_EQ(st.records, 15, "%s: 15 records", u[i].what);
        CHECK_EQ(st.lost_corrupt, 1, "%s: one corrupt", u[i].what);
        CHECK_EQ(st.anomalies, u[i].flag, "%s: anomalies", u[i].what);
        CHECK(invariant(&st), "%s: invariant", u[i].what);
    }
}

/* The split meminfo latency fields at their bit edges (Linux
 * PMU_FL_INSTR_LATENCY parts, struct pebs_meminfo: instruction latency
 * bits 15:0, cache latency 47:32; bits 31:16 and 63:48 are not latency):
 * 0xFFFF8001_FFFF8003 splits into instr 8003H and cache 8001H on Sapphire
 * Rapids 06_8FH (odd low bits, bit 15 set, the bits above each field set;
 * the value 42H/17H above left cache bit 0 untested: mutant pebs.c
 * `(lat >> 32) & 0xFFFF` -> `& 0xFFFE`). */
static void test_latency_split_edges(void)
{
    static struct env e;
    unsigned char r[64];
    struct ds_pebs_sample s;
    memset(r, 0, sizeof(r));
    put64(r, 0, 1 | (64ull << 48));
    put64(r, 32 + 0x10, 0xFFFF8001FFFF8003ull);
    fake_icelake(&e.f);
    set_leaf(&e.f, 1, 0x000806F8, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x4000 | 0x2000 | 0x500 | 0x80 | 0x3F); /* fmt 5 */
    env_identify(&e, 1);
    CHECK(ds_pebs_latency_split(&e.cpu), "SPR splits");
    CHECK_EQ(ds_pebs_decode_cpu(&e.cpu, DS_PEBS_FMT_5, r, 64, &s), DS_OK, "decode");
    CHECK_EQ(s.latency, 0xFFFF8001FFFF8003ull, "raw latency kept");
    CHECK_EQ(s.instr_latency, 0x8003u, "instr latency bits 15:0");
    CHECK_EQ(s.cache_latency, 0x8001u, "cache latency bits 47:32");
}

int main(void)
{
    test_attribute();
    test_drain_race();
    test_drain_race_adaptive();
    test_select();
    test_select_unread();
    test_decode_fixed();
    test_decode_adaptive();
    test_drain_fixed();
    test_drain_adaptive();
    test_drain_equals_decode();
    test_index_past_max_partial();
    test_decode_unaligned();
    test_fmt6_counters();
    test_perf28_fmt6_same_header();
    test_fmt6_run_fixed_and_metrics();
    test_retire_latency_gate();
    test_latency_split();
    test_latency_split_run();
    test_adaptive_runs();
    test_decode_clears_poison();
    test_drain_clears_previous_groups();
    test_latency_split_every_model();
    test_fmt6_empty_counters_exact();
    test_adaptive_empty_and_meminfo_run();
    test_fmt6_cut_counters_in_bounds();
    test_not_setup_refusals();
    test_decode_cpu_nulls();
    test_fmt6_top_counters_cleared();
    test_adaptive_header_edges();
    test_fmt6_cntr_header_bits();
    test_adaptive_beyond_and_tail();
    test_latency_split_edges();
    return check_summary();
}
