/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Kernel console: COM1 (0x3F8, 115200 8N1) when present, the VGA text
 * buffer (0xB8000) when the boot loader left a text mode, and the QEMU/Bochs
 * debug port 0xE9 when `debugcon=1` is on the command line.
 *
 * COM1 presence is decided by the scratch-register test (write/read back
 * the UART scratch register 7) and a loopback test. Without COM1 the output
 * still goes to the VGA text console (BIOS boot) or, where the boot loader
 * left a graphics framebuffer (UEFI), the framebuffer console (k/fbcon.h),
 * and, if asked, port 0xE9.
 *
 * kprintf formats: %s %c %d %i %u %x %X %p %% with the l, ll, z length
 * modifiers, a field width and the 0 and - flags (e.g. %08x, %-10s,
 * %016llx). Output of one kprintf call is not interleaved with another
 * unless an NMI prints in the middle of it; with several CPUs printing,
 * k_console_lines(true) keeps their lines whole. Serial writes poll the UART, so
 * kprintf is usable from any context, NMI included.
 */
#ifndef K_CONSOLE_H
#define K_CONSOLE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>

void k_console_init(void);
/* Enable/disable mirroring to the debug port 0xE9. */
void k_console_set_debugcon(bool on);
/* Enable/disable the VGA text console (off for UEFI boots). */
void k_console_set_vga(bool on);
bool k_console_has_serial(void);

/* Line mode on/off (issue 13): while on, every CPU's output goes out a whole
 * line at a time (per-CPU line buffers, flushed at '\n' or 4095 characters
 * under a spin lock), so several CPUs may print at once. Off (the default):
 * characters go out as printed; turning it off flushes partial lines. */
void k_console_lines(bool on);
/* Write n bytes as one block: in line mode under the same lock, so no other
 * CPU's line lands inside it (a CPU's whole DSLOG log, kernel/e2e). */
void k_console_write_block(const char *s, size_t n);
void kputs(const char *s);        /* no newline added */
void kputc(char c);
int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int kvprintf(const char *fmt, va_list ap);
/* Format into buf (always NUL-terminated when len > 0); returns the length
 * the full output would have. */
int k_snprintf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int k_vsnprintf(char *buf, size_t len, const char *fmt, va_list ap);

#endif
