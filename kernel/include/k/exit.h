/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Ending a run. `exit=qemu` (default) writes the verdict to QEMU's
 * isa-debug-exit device (port 0xF4, 4 bytes): QEMU then exits with status
 * (code << 1) | 1, i.e. 33 for success and 35 for failure. These cannot be
 * confused with QEMU's own error exit (1), a triple fault or guest shutdown
 * under -no-reboot (0), or timeout(1)'s 124/137. If the port write returns
 * (real hardware), the kernel halts. `exit=halt`: print the verdict and
 * halt forever. `exit=reboot`: reset through the keyboard controller, then
 * by a triple fault.
 */
#ifndef K_EXIT_H
#define K_EXIT_H

#include <stdbool.h>

#define K_DEBUG_EXIT_PORT   0xF4
#define K_EXIT_CODE_PASS    0x10   /* QEMU status 33 */
#define K_EXIT_CODE_FAIL    0x11   /* QEMU status 35 */

void k_exit(bool success) __attribute__((noreturn));
void k_halt_forever(void) __attribute__((noreturn));

#endif
