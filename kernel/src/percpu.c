/* SPDX-License-Identifier: BSD-2-Clause */
/* Per-CPU arrays and the caller's CPU index. See k/percpu.h. */
#include <k/percpu.h>
#include <k/mem.h>
#include <k/string.h>

extern const struct k_percpu __kpercpu_start[], __kpercpu_end[];

static unsigned nslots;
static uintptr_t areas_base;  /* the APs' areas (k/smp.h), CPU i's at base + i * stride */
static size_t areas_stride;

unsigned k_smp_slots(void) { return nslots; }

size_t k_percpu_bytes(unsigned n)
{
    size_t sum = 0;
    for (const struct k_percpu *d = __kpercpu_start; d < __kpercpu_end; d++)
        sum = ((sum + d->align - 1) & ~(size_t)(d->align - 1)) + (size_t)d->size * n;
    return sum;
}

bool k_percpu_alloc(unsigned n)
{
    uint8_t *p = k_mem_alloc(k_percpu_bytes(n), 4096);
    if (!p)
        return false;
    size_t off = 0;
    for (const struct k_percpu *d = __kpercpu_start; d < __kpercpu_end; d++) {
        off = (off + d->align - 1) & ~(size_t)(d->align - 1);
        void *base = p + off;
        memcpy(d->var, &base, sizeof base);
        off += (size_t)d->size * n;
    }
    nslots = n;
    return true;
}

void k_percpu_set_areas(const void *base, size_t stride)
{
    areas_base = (uintptr_t)base;
    areas_stride = stride;
}

unsigned k_smp_self(void)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0), base = areas_base;
    if (sp < base || sp >= base + (uintptr_t)nslots * areas_stride)
        return 0;
    return (unsigned)((sp - base) / areas_stride);
}
