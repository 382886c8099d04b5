/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The model alone on the issue 14 KVM-guest profiles. Expectations are my own
 * transcription of Linux arch/x86/kvm (cpuid.c kvm_set_cpu_caps, vmx.c
 * vmx_set_cpu_caps / vmx_get_perf_capabilities / vmx_get_supported_debugctl,
 * pmu_intel.c intel_pmu_refresh / intel_is_valid_msr, x86.c kvm_vcpu_reset),
 * QEMU target/i386/cpu.c (hypervisor bit); the guest's PEBS format is the
 * host's (vmx_get_perf_capabilities: host_perf_cap & PERF_CAP_PEBS_MASK), 4 on
 * a Sapphire Rapids host (Linux core.c sets pebs_ept for SAPPHIRERAPIDS_X
 * itself, ds.c for format 5 parts; a guest's boot line "PEBS fmt4+-baseline";
 * docs/design.md "Which CPUs write which PEBS format"; the issue text said 5),
 * with PEBS_BASELINE masked ("Disallow adaptive PEBS"); not measured on KVM.
 */
#include <stdio.h>
#include "check.h"
#include "model_util.h"

#define LIN64 0xFFFF800000200000ull
#define PEBS_BUF 0x1000u
static _Alignas(4096) uint8_t blk[1 << 16];
static struct fake_mem mem;

static void wr(struct dsm_cpu *c, uint32_t msr, uint64_t v)
{
    CHECK_EQ(dsm_wrmsr(c, msr, v), DSM_OK, "wrmsr 0x%X = 0x%llx", msr, (unsigned long long)v);
}

static void mk(struct dsm_cpu *c, enum dsm_profile p)
{
    CHECK_EQ(fm_cpu_init(c, p, &mem, blk, sizeof blk, LIN64), DSM_OK, "init %s", dsm_profile_name(p));
}

/* Both guests: hypervisor bit, perfmon v2 with 3 fixed counters, no BTS. */
static void common(struct dsm_cpu *c, const char *n)
{
    uint32_t r[4];
    uint64_t v;
    dsm_cpuid(c, 1, 0, r);
    CHECK(r[2] & (1u << 31), "%s: CPUID.1:ECX[31] hypervisor", n);
    CHECK(!(r[2] & (1u << 4)), "%s: no DS-CPL", n);
    dsm_cpuid(c, 0xA, 0, r);
    CHECK_EQ(r[0] & 0xFF, 2, "%s: KVM caps perfmon at version 2", n);
    CHECK_EQ(r[3] & 0x1F, 3, "%s: 3 fixed counters", n);
    dsm_cpuid(c, 7, 0, r);
    CHECK(!(r[3] & (1u << 19)), "%s: no Arch LBR (07H EDX[19])", n);
    dsm_cpuid(c, 0x1C, 0, r);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0, "%s: leaf 1CH zero", n);
    CHECK_EQ(dsm_rdmsr(c, 0x1A0, &v), DSM_OK, "%s: MISC_ENABLE", n);
    CHECK(v & (1ull << 11), "%s: MISC_ENABLE.BTS_UNAVAILABLE", n);
    /* TR 6, BTS 7, BTINT 8 each #GP, and FREEZE_PERFMON_ON_PMI 12 */
    for (unsigned b = 6; b <= 8; b++)
        CHECK_EQ(dsm_wrmsr(c, 0x1D9, 1ull << b), DSM_GP, "%s: DEBUGCTL bit %u #GP", n, b);
    CHECK_EQ(dsm_wrmsr(c, 0x1D9, 1ull << 12), DSM_GP, "%s: FREEZE_PERFMON_ON_PMI #GP", n);
    CHECK_EQ(dsm_wrmsr(c, 0x186, 1ull << 21), DSM_GP, "%s: EVTSEL AnyThread reserved", n);
    /* BTF (1) is accepted and dropped */
    wr(c, 0x1D9, 0x2);
    CHECK_EQ(dsm_rdmsr(c, 0x1D9, &v), DSM_OK, "%s: DEBUGCTL read", n);
    CHECK_EQ(v & 0x2, 0, "%s: BTF dropped", n);
}

static void test_kvm_spr(void)
{
    struct dsm_cpu c;
    uint32_t r[4];
    uint64_t v;
    mk(&c, DSM_KVM_SPR);
    common(&c, "kvm_spr");
    dsm_cpuid(&c, 1, 0, r);
    CHECK(r[2] & (1u << 2), "DTES64 with PEBS-EPT");
    CHECK(r[3] & (1u << 21), "DS with PEBS-EPT");
    CHECK_EQ(dsm_rdmsr(&c, 0x345, &v), DSM_OK, "PERF_CAPABILITIES");
    CHECK_EQ((v >> 8) & 0xF, 4, "PEBS format 4: the Sapphire Rapids host's");
    CHECK_EQ(v & (1ull << 14), 0, "PEBS_BASELINE masked");
    CHECK_EQ(v & 0x3F, 0, "LBR_FMT 0: no legacy LBR on an Arch LBR host");
    CHECK_EQ(dsm_rdmsr(&c, 0x1A0, &v), DSM_OK, "MISC_ENABLE");
    CHECK_EQ(v & (1ull << 12), 0, "PEBS available");
    /* no LBR: legacy stack, TOS, INFO, LBR_SELECT, LER, Arch LBR all #GP; LBR (0) dropped */
    static const uint32_t gone[] = { 0x680, 0x680 + 31, 0x6C0, 0xDC0, 0x1C9, 0x1C8, 0x1DD, 0x1DE,
                                     0x14CE, 0x14CF, 0x1500, 0x40, 0 };
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
        CHECK_EQ(dsm_rdmsr(&c, gone[i], &v), DSM_GP, "LBR MSR 0x%X absent", gone[i]);
    CHECK_EQ(dsm_wrmsr(&c, 0x1D9, 1ull << 11), DSM_GP, "FREEZE_LBRS_ON_PMI #GP without LBR");
    wr(&c, 0x1D9, 0x1);
    CHECK_EQ(dsm_rdmsr(&c, 0x1D9, &v), DSM_OK, "DEBUGCTL read");
    CHECK_EQ(v, 0, "DEBUGCTL.LBR dropped");
    /* adaptive PEBS masked: DATA_CFG, EVTSEL bit 34, fixed-counter PEBS #GP */
    CHECK_EQ(dsm_rdmsr(&c, 0x3F2, &v), DSM_GP, "PEBS_DATA_CFG absent without PEBS_BASELINE");
    CHECK_EQ(dsm_wrmsr(&c, 0x186, 0xC0 | (1ull << 22) | (1ull << 34)), DSM_GP, "EVTSEL adaptive bit");
    CHECK_EQ(dsm_wrmsr(&c, 0x38D, 0x2 | (1ull << 32)), DSM_GP, "FIXED_CTR_CTRL adaptive bit");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F1, 1ull << 32), DSM_GP, "PEBS_ENABLE fixed 0 (GP counters only)");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F1, 1ull << 8), DSM_GP, "PEBS_ENABLE beyond 8 GP counters");
    /* one basic-only record: 32 bytes, header size field 32 */
    ds_setup(&mem, LIN64, true, 0, 0, 0, LIN64 + PEBS_BUF, LIN64 + PEBS_BUF + 0x4000, LIN64 + PEBS_BUF + 0x4000);
    wr(&c, 0x600, LIN64);
    /* C0H on PMC1: Golden Cove INST_RETIRED takes PEBS on PMC1-7 only (perfmon
     * "PEBScounters"; Linux intel_glc_pebs_event_constraints 0xc0 mask 0xfe) */
    wr(&c, 0x4C2, 0xFFFFFFFFFFFFull);
    wr(&c, 0x187, 0xC0 | (1ull << 16) | (1ull << 22));
    wr(&c, 0x3F1, 0xFF);
    wr(&c, 0x38F, 2);
    struct dsm_event e = ev_plain(0x7000);
    dsm_retire(&c, &e);
    dsm_retire(&c, &e);
    CHECK_EQ(dsm_stats(&c)->pebs_written, 1, "one PEBS record");
    CHECK_EQ(dsm_pebs_record_size(&c), 32, "basic group only");
    CHECK_EQ(rd64(&mem, LIN64 + PEBS_BUF) >> 48, 32, "record header size 32");
    CHECK_EQ(rd64(&mem, LIN64 + 0x28), LIN64 + PEBS_BUF + 32, "PEBS index advanced by 32");
    CHECK_EQ(dsm_stats(&c)->bts_written, 0, "no BTS");
}

static void test_kvm_skl(void)
{
    struct dsm_cpu c;
    uint32_t r[4];
    uint64_t v;
    mk(&c, DSM_KVM_SKL);
    common(&c, "kvm_skl");
    dsm_cpuid(&c, 1, 0, r);
    CHECK(!(r[2] & (1u << 2)), "no DTES64 without PEBS-EPT");
    CHECK(!(r[3] & (1u << 21)), "no DS without PEBS-EPT");
    CHECK_EQ(dsm_rdmsr(&c, 0x1A0, &v), DSM_OK, "MISC_ENABLE");
    CHECK(v & (1ull << 12), "MISC_ENABLE.PEBS_UNAVAILABLE");
    CHECK_EQ(dsm_rdmsr(&c, 0x345, &v), DSM_OK, "PERF_CAPABILITIES");
    CHECK_EQ(v & 0x3F, 5, "LBR_FMT 5");
    CHECK_EQ(v & (0xFull << 8 | 0xC0 | 1ull << 14), 0, "no PEBS bits");
    CHECK_EQ(dsm_rdmsr(&c, 0x3F1, &v), DSM_GP, "no PEBS_ENABLE");
    CHECK_EQ(dsm_rdmsr(&c, 0x3F2, &v), DSM_GP, "no PEBS_DATA_CFG");
    CHECK_EQ(dsm_rdmsr(&c, 0x600, &v), DSM_GP, "no DS_AREA without CPUID DS");
    /* the Skylake LBR stack: 32 FROM/TO/INFO, TOS, LBR_SELECT */
    CHECK_EQ(dsm_rdmsr(&c, 0x680 + 31, &v), DSM_OK, "FROM 31");
    CHECK_EQ(dsm_rdmsr(&c, 0x6C0 + 31, &v), DSM_OK, "TO 31");
    CHECK_EQ(dsm_rdmsr(&c, 0xDC0 + 31, &v), DSM_OK, "INFO 31");
    CHECK_EQ(dsm_rdmsr(&c, 0x680 + 32, &v), DSM_GP, "FROM 32 absent");
    CHECK_EQ(dsm_wrmsr(&c, 0x1C9, 32), DSM_GP, "TOS 32 beyond 32 entries");
    wr(&c, 0x1C9, 31);
    wr(&c, 0x1C8, 0x3FF);
    CHECK_EQ(dsm_rdmsr(&c, 0x14CF, &v), DSM_GP, "no Arch LBR depth");
    /* DEBUGCTL.LBR and FREEZE_LBRS_ON_PMI kept; a taken branch lands in entry 0 */
    wr(&c, 0x1C8, 0);
    wr(&c, 0x1D9, 0x1 | (1ull << 11));
    CHECK_EQ(dsm_rdmsr(&c, 0x1D9, &v), DSM_OK, "DEBUGCTL read");
    CHECK_EQ(v, 0x801, "LBR and FREEZE_LBRS_ON_PMI set");
    struct dsm_event e = ev_plain(0x5000);
    e.flags = DSM_EV_BRANCH | DSM_EV_TAKEN;
    e.br_kind = DSM_BR_NEAR_REL_JMP;
    e.br_to = 0x6000;
    dsm_retire(&c, &e);
    CHECK_EQ(dsm_rdmsr(&c, 0x1C9, &v), DSM_OK, "TOS read");
    CHECK_EQ(v, 0, "TOS wrapped 31 -> 0");
    CHECK_EQ(dsm_rdmsr(&c, 0x680, &v), DSM_OK, "FROM 0");
    CHECK_EQ(v & 0xFFFFFFFFFFFFull, 0x5000, "FROM 0 = branch source");
}

int main(void)
{
    test_kvm_spr();
    test_kvm_skl();
    return check_summary();
}
