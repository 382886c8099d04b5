/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private to the PEBS sources (pebs.c, pebs_fixed.c, pebs_adaptive.c,
 * arch_pebs.c) and the PMI handler (pmi.c): the decoders' shared helpers
 * and the PMI drain entry for architectural PEBS. Not installed.
 */
#ifndef DS_PEBS_INT_H
#define DS_PEBS_INT_H

#include <ds/pebs.h>
#include <ds/arch_pebs.h>

/*
 * The scratch sample of struct ds_pmi (pebs_scratch) is kept between PMIs;
 * pebs_scratch_key says what it holds, so that a PMI does not clear or
 * prepare it again:
 *   0                      nothing (ds_pmi_init): cleared and prepared first;
 *   0x80000000 | trap<<16 | fmt   a fixed format's prepared sample (pebs.c fixed_key);
 *   DS__SCRATCH_ADAPTIVE | fmt<<8 | opts   an adaptive drain's last record:
 *                          the fields of the groups it did not carry are zero;
 *   DS__SCRATCH_ARCH       an architectural PEBS drain's last record, same rule.
 * The adaptive and arch drains leave the sample in that state after every
 * record (they clear what the previous record carried and the next does not).
 */
#define DS__SCRATCH_ADAPTIVE 0x40000000u
#define DS__SCRATCH_ARCH     0x20000000u

/*
 * ds_arch_pebs_drain for ds_pmi_handle: counts added into @st (not
 * cleared), the records decoded into the caller's @scratch (prepared when
 * *@key is not DS__SCRATCH_ARCH; no 528-byte sample in this frame).
 * @frozen: the counters cannot assist during the drain (a freeze mode,
 * before the ack): IA32_PEBS_INDEX is read once and reset (Linux
 * intel_pmu_drain_arch_pebs), 2 MSR accesses; else it is read again to
 * count the records written meanwhile (ds_arch_pebs_drain), 3.
 * @ap installed (ds_pmi_init checked it). MSR errors are not reported
 * (the handler's status re-read sees the unacknowledged bit).
 */
void ds__arch_pebs_drain_pmi(struct ds_arch_pebs *ap, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st,
                             struct ds_pebs_sample *scratch, uint32_t *key, bool frozen);

#endif /* DS_PEBS_INT_H */
