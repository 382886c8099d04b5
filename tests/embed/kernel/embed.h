/* SPDX-License-Identifier: BSD-2-Clause */
/* What main.c shares with the sample step (sample.c). */
#ifndef EMBED_H
#define EMBED_H
#include <stddef.h>
#include <stdint.h>

void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void kprintf(const char *fmt, ...);
void check(int cond, const char *what);
void kmain(uint32_t start_info_phys);
void sample_run(void);

#endif
