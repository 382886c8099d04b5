/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bridge between libds and the reference model: a struct ds_msr_ops whose
 * read/write/cpuid go to a struct dsm_cpu. This header and ds_model_ops.c are
 * the ONLY files that include both <ds/...> and "dsmodel.h".
 *
 * Usage: ds_cpu_init(&cpu, &ds_model_msr_ops, &model_cpu);
 * and, for the model's record writes, ds_model_mem_ops over the region the
 * session uses (below).
 */
#ifndef DS_MODEL_OPS_H
#define DS_MODEL_OPS_H

#include <ds/msr.h>
#include "dsmodel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ctx is a struct dsm_cpu *. read/write return DS_OK, or DS_ERR_MSR_FAULT when
 * the model raised #GP (then *out is untouched), or DS_ERR_NULL for a NULL
 * ctx/out. NMI-safe: no locks, no allocation. */
extern const struct ds_msr_ops ds_model_msr_ops;

/* Initialise @dcpu (libds) over @mcpu (model), mirroring the model's IA-32e
 * setting into libds. Returns ds_cpu_init()'s result. */
int ds_model_cpu_init(struct ds_cpu *dcpu, struct dsm_cpu *mcpu);

/* The model's memory in a kernel: one region the kernel reaches through
 * @virt, which the CPU sees at linear address @linear (the DS area, BTS and
 * PEBS buffers: IA32_DS_AREA and the pointers in it) and at physical
 * address @phys (architectural PEBS: IA32_PEBS_BASE is physical). The
 * model's records land in the region whichever address it writes; any
 * address outside both windows is "unmapped" (the op returns -1 and the
 * model skips the record and counts dsm_stats()->mem_faults), never
 * dereferenced. Give the session the same numbers: cfg.mem = virt,
 * cfg.mem_linear = linear, cfg.mem_phys = phys.
 * dsm_identity_mem_ops is only for kernels whose every address, physical
 * ones included, is its pointer: with cfg.mem_phys != the pointer it writes
 * arch-PEBS records through the physical address as a pointer (a page fault
 * in a higher-half kernel; issue 29). Physical address 0 is a valid @phys. */
struct ds_model_mem {
    unsigned char *virt;
    uint64_t linear, phys, bytes;
};

/* ctx: a struct ds_model_mem *. NMI-safe: no locks, byte copies. */
extern const struct dsm_mem_ops ds_model_mem_ops;

/* @m = the region @virt of @bytes at physical @phys, linear = the pointer
 * (a kernel whose linear addresses are its pointers). DS_OK, or DS_ERR_NULL
 * (@m or @virt NULL), DS_ERR_INVAL (@bytes 0, or a window that wraps
 * the 64-bit address space). */
int ds_model_mem_init(struct ds_model_mem *m, void *virt, uint64_t phys, uint64_t bytes);

#ifdef __cplusplus
}
#endif

#endif
