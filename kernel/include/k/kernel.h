/* SPDX-License-Identifier: BSD-2-Clause */
/* Kernel-wide state that test groups may read (set up before any test). */
#ifndef K_KERNEL_H
#define K_KERNEL_H

#include <ds/ds.h>
#include <k/boot.h>

#if defined(__x86_64__)
#define K_ARCH "x86_64"
#else
#define K_ARCH "i386"
#endif

/* Boot information (protocol, command line, EFI or not). */
extern struct k_boot_info k_boot;
/* libds context for this (the boot) CPU: ds_cpu_init() with k_ds_msr_ops
 * and ds_cpu_identify() already done; k_cpu_identify_err is its result. */
extern struct ds_cpu k_cpu;
extern int k_cpu_identify_err;
/* EFLAGS as kmain found it (read before anything else in kmain): the entry
 * code normalises it (boot/<arch>/entry.S), the platform group checks it. */
extern unsigned long k_entry_flags;

#endif
