/* SPDX-License-Identifier: BSD-2-Clause */
/* Boot-time bump allocator. See k/mem.h. */
#include <k/mem.h>
#include <k/boot.h>
#include <k/kernel.h>
#include <k/string.h>
#include <stdbool.h>

extern char __image_start[], __image_end[];
static uint64_t pt_at; /* i386 without PSE: the entry's 4 MiB of page tables */
static uint64_t pt_base(void) { return pt_at; }

#define LOW  (1ull << 20)  /* below: BIOS data, the AP trampoline, VGA */
#define HIGH (1ull << 32)  /* the identity map ends here */

static uint64_t next = LOW; /* the bump pointer: nothing below it is handed out again */

static bool used(uint64_t a, uint64_t n, uint64_t *skip_to)
{
    uint64_t img0 = (uintptr_t)__image_start, img1 = (uintptr_t)__image_end;
    if (a < img1 && a + n > img0) {
        *skip_to = img1;
        return true;
    }
    for (unsigned i = 0; i < k_boot.nresv; i++)
        if (a < k_boot.resv[i].end && a + n > k_boot.resv[i].base) {
            *skip_to = k_boot.resv[i].end;
            return true;
        }
    uint64_t pt = pt_base();
    if (pt && a < pt + (4ull << 20) && a + n > pt) {
        *skip_to = pt + (4ull << 20);
        return true;
    }
    return false;
}

/* Lowest address >= @from in RAM range @r where @n bytes at @align fit, or 0. */
static uint64_t fit(const struct k_mem_range *r, uint64_t from, uint64_t n, uint64_t align)
{
    uint64_t end = r->end < HIGH ? r->end : HIGH;
    uint64_t a = r->base > from ? r->base : from;
    for (;;) {
        a = (a + align - 1) & ~(align - 1);
        uint64_t skip;
        if (a + n > end || a + n < a)
            return 0;
        if (!used(a, n, &skip))
            return a;
        a = skip;
    }
}

void *k_mem_alloc(size_t bytes, size_t align)
{
    uint64_t best = 0;
    if (!bytes || k_boot.resv_full)
        return NULL;
    for (unsigned i = 0; i < k_boot.nram; i++) {
        uint64_t a = fit(&k_boot.ram[i], next, bytes, align ? align : 1);
        if (a && (!best || a < best))
            best = a;
    }
    if (!best)
        return NULL;
    next = best + bytes;
    memset((void *)(uintptr_t)best, 0, bytes);
    return (void *)(uintptr_t)best;
}

/* Free bytes of RAM range @r from @from on, in blocks between used ranges:
 * the largest block, and (with @sum) their total. */
static uint64_t blocks(const struct k_mem_range *r, uint64_t from, uint64_t *sum)
{
    uint64_t end = r->end < HIGH ? r->end : HIGH, a = r->base > from ? r->base : from, big = 0;
    while (a < end) {
        uint64_t skip, b = a;
        if (used(a, 1, &skip)) {
            a = skip;
            continue;
        }
        while (b < end && !used(b, 1, &skip)) { /* grow to the next used range */
            uint64_t nb = end;
            for (unsigned i = 0; i < k_boot.nresv; i++)
                if (k_boot.resv[i].base > b && k_boot.resv[i].base < nb)
                    nb = k_boot.resv[i].base;
            if ((uintptr_t)__image_start > b && (uintptr_t)__image_start < nb)
                nb = (uintptr_t)__image_start;
            if (pt_base() > b && pt_base() < nb)
                nb = pt_base();
            b = nb;
        }
        big = b - a > big ? b - a : big;
        *sum += b - a;
        a = b;
    }
    return big;
}

uint64_t k_mem_largest(void)
{
    uint64_t big = 0, sum = 0;
    for (unsigned i = 0; i < k_boot.nram; i++) {
        uint64_t b = blocks(&k_boot.ram[i], next, &sum);
        big = b > big ? b : big;
    }
    return k_boot.resv_full ? 0 : big;
}

uint64_t k_mem_total(void)
{
    uint64_t sum = 0;
    for (unsigned i = 0; i < k_boot.nram; i++)
        blocks(&k_boot.ram[i], LOW, &sum);
    return sum;
}

#if defined(__i386__)
/* boot/i386/entry.S, without PSE, with paging still off: the 4 MiB for the
 * 4 KiB page tables that identity-map 4 GiB, the allocator's first block.
 * Returns 0 where none is free. */
uintptr_t k_boot_pt_alloc(uint32_t magic, uintptr_t info);
uintptr_t k_boot_pt_alloc(uint32_t magic, uintptr_t info)
{
    k_boot_parse(magic, info, &k_boot);
    void *p = k_mem_alloc(4u << 20, 4096);
    pt_at = (uintptr_t)p;
    return (uintptr_t)p;
}
#endif
