/* SPDX-License-Identifier: BSD-2-Clause */
/* libds private helpers: static assertions and a bounded text builder (no libc). */
#ifndef DS_INTERNAL_H
#define DS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <ds/config.h>

#define DS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

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
void ds__sb_dec(struct ds__sb *sb, uint64_t v);
/* Hex with "0x" prefix; @digits = minimum number of digits (0 = as many as needed). */
void ds__sb_hex(struct ds__sb *sb, uint64_t v, unsigned digits);

/* --- DS context internals (area.c, pebs.c, bts.c, pmi.c) ------------------ */
#include <ds/area.h>
#include <ds/pebs.h>

/* Little-endian loads from possibly unaligned bytes (no memcpy needed). */
static inline uint64_t ds__ld64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static inline uint32_t ds__ld32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
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

/* DS management fields, read/written through volatile (the CPU updates the index). */
enum ds__fld { DS__BASE = 0, DS__INDEX = 1, DS__MAX = 2, DS__THRESH = 3 };
uint64_t ds__area_get(const struct ds_ctx *ctx, bool pebs, enum ds__fld f);
void ds__area_put(struct ds_ctx *ctx, bool pebs, enum ds__fld f, uint64_t v);

/* The threshold field value setup programs for a buffer. */
uint64_t ds__thresh_value(const struct ds_buf_state *b);

/*
 * Fixed-size drain engine shared by PEBS (fmt 0-3, NetBurst) and BTS
 * threshold mode. @emit returns 0 = taken, 1 = rejected by sink, 2 = corrupt.
 */
typedef int (*ds__emit_fn)(void *e, const unsigned char *rec, uint32_t size);
void ds__drain_fixed(struct ds_ctx *ctx, bool pebs, ds__emit_fn emit, void *e, struct ds_drain_stats *st);

/* Finish a drain: race check against @seen_index, repair fields, reset index. */
void ds__drain_finish(struct ds_ctx *ctx, bool pebs, uint64_t seen_index, struct ds_drain_stats *st);

/* Verify and repair base/max/threshold fields (anomaly bits into st). */
void ds__drain_check_fields(struct ds_ctx *ctx, bool pebs, struct ds_drain_stats *st);

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

#endif /* DS_INTERNAL_H */
