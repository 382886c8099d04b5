/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Framebuffer console: text on the linear framebuffer the boot loader hands
 * over (multiboot2 framebuffer info tag, RGB direct colour, 32/24/16 bpp),
 * for UEFI machines without COM1, where it is the only thing a user sees.
 *
 * Glyphs: an 8x16 Latin-1 font converted at build time from Debian's
 * console-setup-linux (Lat15-Fixed16.psf.gz, public domain) by
 * kernel/font/psf2c.py; drawn at 2x on screens at least 1600 pixels wide.
 * Output is kept per line and drawn when the line ends, in a colour chosen
 * from the whole line (TAP: "ok" green, "not ok" red, "# SKIP" yellow, "#"
 * comments grey). When the screen is full it scrolls by half a screen at a
 * time (one copy per half screen: whole-screen copies per line are too slow
 * under emulation). No allocation: one static line buffer.
 */
#ifndef K_FBCON_H
#define K_FBCON_H

#include <stdbool.h>
#include <stdint.h>

struct k_boot_info;

/* Take the framebuffer described by bi (nothing if it has none). */
bool k_fbcon_init(const struct k_boot_info *bi);
bool k_fbcon_active(void);
void k_fbcon_putc(char c);

/* The one-screen verdict: clear the screen and draw the n lines
 * lines[0..n-1]) on a background that says pass or fail,
 * at the largest scale (1x..3x) at which they fit. */
void k_fbcon_verdict(const char *const *lines, unsigned n, bool pass);

/* Font cell of the current scale, in pixels (for tests and layout). */
unsigned k_fbcon_cols(void);
unsigned k_fbcon_rows(void);

#endif
