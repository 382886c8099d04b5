/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The test fakes are no more permissive than hardware: a WRMSR to an
 * architecturally read-only MSR #GPs (reported as DS_ERR_MSR_FAULT, the way
 * the fakes model every faulting MSR) and leaves the value alone.
 * Expectations: SDM Vol. 4 Table 2-2 access columns, transcribed in
 * fake_ro.h; the reference model (model/) faults on the same writes.
 */
#include "check.h"
#include "fake_cpu.h"
#include "fake_pmu.h"

static const uint32_t ro_msrs[] = { 0x017, 0x0CE, 0x179, 0x198, 0x345, 0x38E, 0x392 };
#define NRO (sizeof(ro_msrs) / sizeof(ro_msrs[0]))

static void test_fake_cpu_ro(void)
{
    static struct fake_cpu f;
    fake_skylake_pmu(&f); /* perfmon v4 */
    for (unsigned i = 0; i < NRO; i++) {
        fake_set_msr(&f, ro_msrs[i], 0x5A);
        unsigned faults = f.faults;
        CHECK_EQ(fake_write(&f, ro_msrs[i], 0), DS_ERR_MSR_FAULT, "fake_cpu: WRMSR %#x #GPs", ro_msrs[i]);
        CHECK_EQ(f.faults, faults + 1, "fault counted for %#x", ro_msrs[i]);
        CHECK_EQ(fake_get_msr(&f, ro_msrs[i]), 0x5A, "value of %#x unchanged", ro_msrs[i]);
        uint64_t v = 0;
        CHECK_EQ(fake_read(&f, ro_msrs[i], &v), DS_OK, "RDMSR %#x still works", ro_msrs[i]);
        CHECK_EQ(v, 0x5A, "read back %#x", ro_msrs[i]);
    }
    /* GLOBAL_STATUS_SET is writable on v4, absent (#GP) below */
    fake_set_msr(&f, DS_MSR_IA32_PERF_GLOBAL_STATUS_SET, 0);
    CHECK_EQ(fake_write(&f, DS_MSR_IA32_PERF_GLOBAL_STATUS_SET, 1), DS_OK, "v4: STATUS_SET writable");
    fake_haswell(&f); /* perfmon v3 */
    fake_set_msr(&f, DS_MSR_IA32_PERF_GLOBAL_STATUS_SET, 0);
    CHECK_EQ(fake_write(&f, DS_MSR_IA32_PERF_GLOBAL_STATUS_SET, 1), DS_ERR_MSR_FAULT, "v3: STATUS_SET #GPs");
    /* the R/W neighbours stay writable; write-ignored (TCG) MSRs drop */
    CHECK_EQ(fake_write(&f, DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1), DS_OK, "OVF_CTRL writable");
    CHECK_EQ(fake_write(&f, DS_MSR_IA32_PERF_GLOBAL_CTRL, 1), DS_OK, "GLOBAL_CTRL writable");
    CHECK_EQ(fake_get_msr(&f, DS_MSR_IA32_PERF_GLOBAL_CTRL), 1, "GLOBAL_CTRL written");
    fake_set_ro(&f, DS_MSR_IA32_DS_AREA);
    CHECK_EQ(fake_write(&f, DS_MSR_IA32_DS_AREA, 0x1000), DS_OK, "write-ignored accepts");
    CHECK_EQ(fake_get_msr(&f, DS_MSR_IA32_DS_AREA), 0, "write-ignored drops");
}

static void test_fake_pmu_ro(void)
{
    static struct fake_pmu f;
    fp_reset(&f);
    fp_intel(&f, 0xA, 0x000506E3, 1u << 15, 0);
    fp_cpuid_set(&f, 0xA, 0, 0x07300404, 0, 0, 0x603); /* v4 */
    for (unsigned i = 0; i < NRO; i++) {
        fp_set(&f, ro_msrs[i], 0xA5);
        CHECK_EQ(fp_write(&f, ro_msrs[i], 0), DS_ERR_MSR_FAULT, "fake_pmu: WRMSR %#x #GPs", ro_msrs[i]);
        CHECK_EQ(fp_get(&f, ro_msrs[i]), 0xA5, "value of %#x unchanged", ro_msrs[i]);
    }
    CHECK_EQ(fp_nwrites(&f, 0x38E), 1, "the faulting write is logged");
    fp_set(&f, DS_MSR_IA32_PERF_GLOBAL_STATUS_SET, 0);
    CHECK_EQ(fp_write(&f, DS_MSR_IA32_PERF_GLOBAL_STATUS_SET, 2), DS_OK, "v4: STATUS_SET writable");
    fp_reset(&f);
    fp_intel(&f, 0xA, 0x000306C3, 1u << 15, 0);
    fp_cpuid_set(&f, 0xA, 0, 0x07300403, 0, 0, 0x603); /* v3 */
    fp_set(&f, DS_MSR_IA32_PERF_GLOBAL_STATUS_SET, 0);
    CHECK_EQ(fp_write(&f, DS_MSR_IA32_PERF_GLOBAL_STATUS_SET, 2), DS_ERR_MSR_FAULT, "v3: STATUS_SET #GPs");
    fp_set(&f, 0x1C9, 0); /* MSR_LASTBRANCH_TOS is R/W (Linux intel_pmu_lbr_restore writes it) */
    CHECK_EQ(fp_write(&f, 0x1C9, 3), DS_OK, "LBR TOS writable");
}

int main(void)
{
    test_fake_cpu_ro();
    test_fake_pmu_ro();
    return check_summary();
}
