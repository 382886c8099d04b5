/* SPDX-License-Identifier: BSD-2-Clause */
/* Port I/O and a few privileged instructions. All inline, NMI-safe. */
#ifndef K_IO_H
#define K_IO_H

#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
static inline void k_cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void k_sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void k_pause(void) { __asm__ volatile("pause"); }
/* Halt until the next interrupt with interrupts enabled atomically ("sti; hlt"). */
static inline void k_sti_hlt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }

static inline unsigned long k_read_cr0(void) { unsigned long v; __asm__ volatile("mov %%cr0, %0" : "=r"(v)); return v; }
static inline unsigned long k_read_cr2(void) { unsigned long v; __asm__ volatile("mov %%cr2, %0" : "=r"(v)); return v; }
static inline unsigned long k_read_cr3(void) { unsigned long v; __asm__ volatile("mov %%cr3, %0" : "=r"(v)); return v; }
static inline unsigned long k_read_cr4(void) { unsigned long v; __asm__ volatile("mov %%cr4, %0" : "=r"(v)); return v; }

static inline unsigned long k_read_flags(void)
{
    unsigned long f;
    __asm__ volatile("pushf; pop %0" : "=r"(f) : : "memory");
    return f;
}

#define K_FLAGS_TF (1ul << 8)
#define K_FLAGS_IF (1ul << 9)

static inline uint64_t k_rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

#endif
