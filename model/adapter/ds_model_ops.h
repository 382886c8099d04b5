/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bridge between libds and the reference model: a struct ds_msr_ops whose
 * read/write/cpuid go to a struct dsm_cpu. This header and ds_model_ops.c are
 * the ONLY files that include both <ds/...> and "dsmodel.h".
 *
 * Usage: ds_cpu_init(&cpu, &ds_model_msr_ops, &model_cpu);
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

#ifdef __cplusplus
}
#endif

#endif
