/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Boot-time memory (issue 24): a bump allocator over the free RAM of the
 * loader's memory map (k_boot.ram), above 1 MiB and below 4 GiB (the
 * kernels' identity map), never over the kernel image (__image_start ..
 * __image_end, linker/<arch>.ld) or what the loader left there (k_boot.resv:
 * the information block, modules, strings, the map itself). Nothing is ever
 * freed: it holds what is sized at boot (per-CPU state, k/smp.h).
 */
#ifndef K_MEM_H
#define K_MEM_H

#include <stddef.h>
#include <stdint.h>

/* Zeroed memory of @bytes at a multiple of @align (a power of two), or NULL
 * where no free RAM range holds it (nothing is taken then). */
void *k_mem_alloc(size_t bytes, size_t align);
/* The largest block k_mem_alloc could still return (@align 1), in bytes. */
uint64_t k_mem_largest(void);
/* Free RAM in the map above 1 MiB and below 4 GiB, image and loader data
 * excluded, at boot (before any allocation), in bytes. */
uint64_t k_mem_total(void);

#endif
