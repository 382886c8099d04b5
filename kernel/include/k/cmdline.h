/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Kernel command line: whitespace-separated `key=value` options (words
 * without '=' are flags, value ""). The boot loader's copy is copied once
 * into a kernel buffer (up to 1023 bytes). Options used by the platform:
 *   tests=all|g1,g2    test groups to run (k/ktest.h)
 *   pmi=fixed|nmi      PMI delivery mode (default fixed)
 *   exit=qemu|halt|reboot  how to end (k/exit.h; default qemu)
 *   apic=x2apic|xapic  allow or refuse x2APIC mode (default x2apic)
 *   debugcon=1         mirror the console to port 0xE9
 *   baremetal=1        SDM deviations are failures, not skips (ktest_deviation)
 *   smp=off|N, cpus=0,2,..., smp_fail=N, smp_enum=mptable  application processors (k/smp.h)
 *   cpu_profile.N=a+b  model profiles for AP N in the smp_e2e group (kernel/tests/smp.c)
 * Read by the e2e group (kernel/e2e): backend=hw|model|auto, profile=p1,p2.
 */
#ifndef K_CMDLINE_H
#define K_CMDLINE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

void k_cmdline_set(const char *s);
const char *k_cmdline(void);
/* Value of the last `key=...` (pointer into the command line, NOT
 * NUL-terminated; *out_len its length). NULL if absent. */
const char *k_opt(const char *key, size_t *out_len);
/* true if `key=value` is present with exactly this value. */
bool k_opt_is(const char *key, const char *value);
/* Copy the value into buf (NUL-terminated); returns def if absent/too long. */
const char *k_opt_str(const char *key, char *buf, size_t len, const char *def);
/* true if @item is one element of the comma list value of @key. */
bool k_opt_list_has(const char *key, const char *item);
/* Parse an unsigned number (decimal or 0x hex); def if absent or invalid. */
uint64_t k_opt_u64(const char *key, uint64_t def);

#endif
