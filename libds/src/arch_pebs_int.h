/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private to architectural PEBS (arch_pebs.c) and the PMI handler (pmi.c):
 * the PMI drain entry. Not installed.
 */
#ifndef DS_ARCH_PEBS_INT_H
#define DS_ARCH_PEBS_INT_H

#include <ds/arch_pebs.h>

/*
 * ds_arch_pebs_drain for ds_pmi_handle: counts added into @st (not
 * cleared), the records decoded into the caller's @scratch (prepared when
 * *@key is not DS__SCRATCH_ARCH; no 528-byte sample in this frame), @lay
 * the layout of the record it holds (kept with it: struct ds_pmi).
 * @frozen: the counters cannot assist during the drain (a freeze mode,
 * before the ack): IA32_PEBS_INDEX is read once and reset (Linux
 * intel_pmu_drain_arch_pebs), 2 MSR accesses; else it is read again to
 * count the records written meanwhile (ds_arch_pebs_drain), 3.
 * @ap installed (ds_pmi_init checked it). MSR errors are not reported
 * (the handler's status re-read sees the unacknowledged bit).
 */
void ds__arch_pebs_drain_pmi(struct ds_arch_pebs *ap, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st,
                             struct ds__pmi_scratch *scr, bool frozen);

#endif /* DS_ARCH_PEBS_INT_H */
