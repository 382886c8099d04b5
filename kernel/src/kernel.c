/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel-wide state of k/kernel.h (kmain sets it up; issue 26: defined
 * here, not in main.c, so that the modules that read it do not depend on
 * the kernel's top). */
#include <k/kernel.h>

struct k_boot_info k_boot;
struct ds_cpu k_cpu;
int k_cpu_identify_err = DS_ERR_NULL;
unsigned long k_entry_flags;
