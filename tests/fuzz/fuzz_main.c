/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer entry: the first input byte picks the target, the rest is its
 * input. Drains get 4 in 10 inputs; then invalid ds_area_setup input, LBR
 * decode, LBR read, identification + format selection from random CPUID /
 * PERF_CAPABILITIES, NetBurst raw programming + mask names, and PMC period
 * values (fuzz_targets.c).
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct in in = { data, size };
    switch (take(&in, 1) % 10) {
    case 4: return fuzz_setup(&in);
    case 5: return fuzz_lbr_decode(&in);
    case 6: return fuzz_lbr_read(&in);
    case 7: return fuzz_identify(&in);
    case 8: return fuzz_netburst(&in);
    case 9: return fuzz_period(&in);
    default: return fuzz_drain(&in);
    }
}
