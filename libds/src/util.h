/* SPDX-License-Identifier: BSD-2-Clause */
/* libds private helpers that know no facility type (issue 26 item 5): the
 * bounded text builder, unaligned loads, ds__zero, period arithmetic,
 * 64-bit division without libgcc (no libc). Facility internals are in
 * area_fields.h (DS management fields), drain_int.h (the drain engine),
 * cpu_int.h (inline MSR access) and each facility's X_int.h. */
#ifndef DS_UTIL_H
#define DS_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <ds/config.h>
#include <ds/err.h>

#define DS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* An exported function that runs at setup, description or probe time, never
 * on a drain or PMI path: GCC optimizes it (and the static helpers only it
 * calls) for size and places it in .text.unlikely. Issue 28 item 6: the
 * kernel archive <= 110 KB. Not on anything a drain or PMI handler calls
 * (ds_msr_*, ds_pmc_gp_read/write, ds_nb_rearm, ds_lbr_read ...). */
#define DS_COLD __attribute__((cold))

/* Text builder (fmt.c, compiled only with DS_CONFIG_FORMAT): appends into a caller buffer, always NUL-terminated, records truncation. */
struct ds__sb {
    char *buf;
    size_t len;   /* capacity including the NUL */
    size_t pos;   /* characters written so far (excluding NUL) */
    bool truncated;
};

void ds__sb_init(struct ds__sb *sb, char *buf, size_t len);
void ds__sb_putc(struct ds__sb *sb, char c);
void ds__sb_puts(struct ds__sb *sb, const char *s);
/* The reason of a report line that already names its MSR ("KEY: VERDICT
 * (MSR (addr): reason)", cpu.c and probe.c): ds_strerror(@err), except
 * where that sentence names the MSR again (DS_ERR_NO_PDCM: the cause is the
 * CPUID bit; issue 29). err.c. */
const char *ds__reason_text(int err);
void ds__sb_dec(struct ds__sb *sb, uint64_t v);
/* Hex with "0x" prefix; @digits = minimum number of digits (0 = as many as needed;
 * above 16, 16: a 64-bit value has 16 hex digits). */
void ds__sb_hex(struct ds__sb *sb, uint64_t v, unsigned digits);

/*
 * Little-endian loads from possibly unaligned bytes: one plain load (x86 is
 * little-endian and allows unaligned access). The may_alias, aligned(1)
 * types make reading any byte buffer through them defined for GCC/Clang;
 * no memcpy call is emitted (freestanding, no libc).
 */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "libds targets x86 (little-endian)");
typedef uint64_t __attribute__((may_alias, aligned(1))) ds__u64_una;
typedef uint32_t __attribute__((may_alias, aligned(1))) ds__u32_una;

static inline uint64_t ds__ld64(const unsigned char *p)
{
    return *(const ds__u64_una *)(const void *)p;
}

static inline uint32_t ds__ld32(const unsigned char *p)
{
    return *(const ds__u32_una *)(const void *)p;
}

/* Zero @n bytes without a memset call (cpu.c: core, always compiled). */
void ds__zero(void *p, size_t n);

/*
 * Start and reload values for a sampling period on a @width-bit counter
 * (ds_pmc_period_values' arithmetic, shared with ds_nb_period so that
 * NetBurst support does not need DS_CONFIG_PMC). Pure.
 */
static inline int ds__period_values(unsigned width, bool full_width, uint64_t period,
                                    uint64_t *out_start, uint64_t *out_reset)
{
    if (!out_start || !out_reset)
        return DS_ERR_NULL;
    if (width < 8 || width > 64)
        return DS_ERR_INVAL;
    if (period == 0)
        return DS_ERR_PMC_PERIOD_ZERO;
    /* Legacy IA32_PMCx writes load bits 31:0 and sign-extend bit 31 (SDM
     * "Full-Width Writes to Performance Counter Registers"). */
    unsigned usable = (!full_width && width > 32) ? 32 : width;
    if (period > (1ull << (usable - 1)))
        return DS_ERR_PMC_PERIOD_WIDE;
    uint64_t mask = width >= 64 ? ~0ull : ((1ull << width) - 1);
    uint64_t v = (0 - period) & mask;
    *out_start = v;
    *out_reset = v;
    return DS_OK;
}

/*
 * 64-bit unsigned division without libgcc: i386 would otherwise call
 * __udivdi3/__umoddi3, which a kernel may not provide. Shift-subtract,
 * bounded (64 steps); native on 64-bit targets. @d must be non-zero.
 */
static inline uint64_t ds__div64(uint64_t n, uint64_t d, uint64_t *out_rem)
{
#if UINTPTR_MAX > 0xFFFFFFFFu
    if (out_rem)
        *out_rem = n % d;
    return n / d;
#else
    uint64_t q = 0, r = 0;
    for (int i = 63; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1);
        if (r >= d) {
            r -= d;
            q |= 1ull << i;
        }
    }
    if (out_rem)
        *out_rem = r;
    return q;
#endif
}

/*
 * n / d for a record size @d (non-zero): a native 32-bit divide when @n fits
 * in 32 bits (always, for an index inside a buffer on i386, where size_t is
 * 32 bits), ds__div64 only for a garbage index beyond 4 GiB. Used once per
 * drain; the per-record walk adds record sizes and never divides.
 */
static inline uint64_t ds__div_rec(uint64_t n, uint32_t d, uint64_t *out_rem)
{
    if (n <= 0xFFFFFFFFull) {
        uint32_t n32 = (uint32_t)n;
        if (out_rem)
            *out_rem = n32 % d;
        return n32 / d;
    }
    return ds__div64(n, d, out_rem);
}

#endif /* DS_UTIL_H */
