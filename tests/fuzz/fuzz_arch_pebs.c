/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target over the architectural PEBS decoder and drain
 * (ds/arch_pebs.h): the input chooses the core type (Panther Lake P/E CPUID
 * words, ../shared/cpuid/GenuineIntel00C06C3_PantherLakeL_01_CPUID.txt),
 * the buffer size (4 or 8 KiB), both IA32_PEBS_INDEX values the drain reads
 * (so the write offset, FULL, EN, threshold, reserved bits and a race are
 * arbitrary), which samples the sink refuses, and the buffer bytes (every
 * header field arbitrary). The buffer is allocated at its exact size, so
 * ASan reports any read outside it; the sink touches the last LBR entry,
 * XMM15 and the last quadword of every vector part (YMMH, OPMASK, ZMMH,
 * H16ZMM) so pointers handed out must lie inside it. Checked after each drain:
 *   present == records + lost_beyond + lost_corrupt + lost_rejected + lost_race,
 *   records == samples the sink accepted,
 *   the INDEX written back has offset 0, FULL 0, reserved bits 0, and the
 *   second read's EN and threshold.
 * The decoder is also run over the raw input at its exact size.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "fake_cpu.h"

struct in {
    const uint8_t *p;
    size_t n;
};

static uint64_t take(struct in *in, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++) {
        v |= (uint64_t)(in->n ? *in->p : 0) << (8 * i);
        if (in->n) {
            in->p++;
            in->n--;
        }
    }
    return v;
}

struct sink_state {
    uint64_t taken, calls;
    uint8_t refuse_mask;
};

static int sink(void *a, const struct ds_pebs_sample *s)
{
    struct sink_state *st = a;
    volatile uint64_t touch = s->ip ^ s->gpr[DS_GPR_R15] ^ s->tsc ^ s->cntr_gp[15];
    if (s->lbr && s->lbr_count)
        touch ^= s->lbr[s->lbr_count - 1].info;
    if (s->xmm)
        touch ^= s->xmm->xmm[31];
    /* the last quadword of each vector part (Linux arch_pebs_ymmh/_opmask/_zmmh/_h16zmm sizes) */
    if (s->ymmh)
        touch ^= s->ymmh[31];
    if (s->opmask)
        touch ^= s->opmask[7];
    if (s->zmmh)
        touch ^= s->zmmh[63];
    if (s->h16zmm)
        touch ^= s->h16zmm[127];
    (void)touch;
    st->calls++;
    if (st->refuse_mask & (1u << (st->calls & 7)))
        return 1;
    st->taken++;
    return 0;
}

static uint64_t index_second;
static int index_reads;
static int fz_read(void *ctx, uint32_t msr, uint64_t *out)
{
    int e = fake_read(ctx, msr, out);
    if (!e && msr == 0x3F5 && ++index_reads == 2)
        *out = index_second;
    return e;
}
static const struct ds_msr_ops fz_ops = { fz_read, fake_write, fake_cpuid };

static void ptl(struct fake_cpu *f, int ecore)
{
    memset(f, 0, sizeof(*f));
    fake_set_cpuid(f, 0, 0, 0x00000028, 0x756E6547, 0x6C65746E, 0x49656E69);
    fake_set_cpuid(f, 1, 0, 0x000C06C3, ecore ? 0x40800800 : 0x00800800, 0x7FFAFBFF, 0xBFEBFBFF);
    fake_set_cpuid(f, 0xA, 0, 0x0D300806, 0x00000280, 0x00000007, 0x00008603);
    fake_set_cpuid(f, 0x23, 0, ecore ? 0x3F : 0x3B, 3, ecore ? 8 : 0, 0);
    fake_set_cpuid(f, 0x23, 1, ecore ? 0xFF : 0x3FF, ecore ? 0x77 : 0xF, 0, 0);
    fake_set_cpuid(f, 0x23, 4, 0, ecore ? 0x60060338 : 0x60060378, 0, 0);
    fake_set_cpuid(f, 0x23, 5, ecore ? 0xFF : 0x3FF, 3, ecore ? 0x77 : 0xF, 1);
    fake_set_cpuid(f, 0x80000000u, 0, 0x80000008u, 0, 0, 0);
    fake_set_cpuid(f, 0x80000008u, 0, 0x0000302E, 0x00000200, 0, 0);
    fake_set_msr(f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fake_set_msr(f, DS_MSR_IA32_PERF_CAPABILITIES, 0xF00 | 0x3F); /* PEBS_FMT 0xF (constructed) */
    fake_set_msr(f, 0x3F4, 0);
    fake_set_msr(f, 0x3F5, 0);
}

static void die(const char *what)
{
    fprintf(stderr, "fuzz_arch_pebs: %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fake_cpu f;
    struct in in = { data, size };
    unsigned ctl = (unsigned)take(&in, 1);
    uint64_t idx1 = take(&in, 8);
    uint64_t idx2 = (ctl & 4) ? take(&in, 8) : idx1;
    struct sink_state ss = { 0, 0, (uint8_t)take(&in, 1) };

    /* the decoder over the rest of the input, at its exact size */
    unsigned char *raw = malloc(in.n ? in.n : 1);
    memcpy(raw, in.p, in.n);
    struct ds_pebs_sample s;
    uint32_t used = 0;
    int e = ds_arch_pebs_decode(raw, in.n, &s, &used);
    if (used > in.n)
        die("decode consumed past the bytes");
    if (e == DS_OK && (used < 16 || s.fmt != DS_PEBS_FMT_ARCH || s.size != used))
        die("decode outputs");
    if (e == DS_OK && (!!s.ymmh != !!(s.present & DS_SAMPLE_YMMH) || !!s.opmask != !!(s.present & DS_SAMPLE_OPMASK) ||
                       !!s.zmmh != !!(s.present & DS_SAMPLE_ZMMH) || !!s.h16zmm != !!(s.present & DS_SAMPLE_H16ZMM)))
        die("vector part pointers vs present bits");
    if (e == DS_OK) { /* every vector part inside the bytes decoded */
        const unsigned char *lo = raw, *hi = raw + used;
        const unsigned char *pp[4] = { (const void *)s.ymmh, (const void *)s.opmask, (const void *)s.zmmh,
                                       (const void *)s.h16zmm };
        const size_t len[4] = { 256, 64, 512, 1024 };
        for (int i = 0; i < 4; i++)
            if (pp[i] && (pp[i] < lo || pp[i] + len[i] > hi))
                die("vector part outside the record");
    }
    if (e != DS_OK && e != DS_ERR_APEBS_NO_BASIC && used != 0)
        die("decode consumed on error");
    free(raw);

    ptl(&f, ctl & 1);
    struct ds_cpu cpu;
    ds_cpu_init(&cpu, &fz_ops, &f);
    if (ds_cpu_identify(&cpu) != DS_OK)
        die("identify");
    unsigned code = (ctl >> 1) & 1;
    size_t bytes = (size_t)4096 << code;
    unsigned char *mem = aligned_alloc(4096, bytes);
    memset(mem, 0, bytes);
    memcpy(mem, in.p, in.n < bytes ? in.n : bytes);
    struct ds_arch_pebs_config cfg = { mem, 0x10000000ull, code, 0 };
    struct ds_arch_pebs ap;
    if (ds_arch_pebs_setup(&ap, &cpu, &cfg) != DS_OK || ds_arch_pebs_install(&ap) != DS_OK)
        die("setup/install");
    fake_set_msr(&f, 0x3F5, idx1);
    index_second = idx2;
    index_reads = 0;
    struct ds_drain_stats st;
    f.nlog = 0;
    if (ds_arch_pebs_drain(&ap, sink, &ss, &st) != DS_OK)
        die("drain");
    if (st.present != st.records + st.lost_beyond + st.lost_corrupt + st.lost_rejected + st.lost_race)
        die("present != records + lost");
    if (st.records != ss.taken)
        die("records != accepted");
    uint64_t w;
    unsigned nw = fake_writes_to(&f, 0x3F5, &w);
    bool empty = !(idx1 & 0x7FFFFF0ull) && !(idx1 & (1ull << 31));
    if (empty ? nw != 0 : (nw != 1 || w != (idx2 & ((1ull << 32) | (0x7FFFFFull << 36)))))
        die("INDEX reset");
    free(mem);
    return 0;
}
