/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Branch Trace Store: records, enable/disable, drain.
 *
 * Sources: SDM Vol. 3B "Branch Trace Store (BTS)", "IA32_DEBUGCTL MSR",
 * "MSR_DEBUGCTLA MSR" (NetBurst, different bit positions), "BTS and DS Save
 * Area"; reference bts.md and msr.md section 3.
 *
 * The ring buffer modes:
 *   - threshold-interrupt (BTINT = 1): the CPU requests a PMI when the BTS
 *     index reaches the threshold; the drain walks base..index;
 *   - circular (BTINT = 0): the index wraps to base at the absolute maximum
 *     and old records are overwritten; no interrupt. libds zeroes the
 *     buffer at setup and after each drain, so a non-zero record at the
 *     index means the ring wrapped (a real branch record never has both
 *     from and to equal to 0); the drain then returns the older records
 *     [index, max) before [base, index). How many were overwritten cannot
 *     be known (DS_DRAIN_WRAPPED is set).
 *
 * Configuration (ds/config.h): DS_CONFIG_BTS=0 compiles BTS out; every
 * function below then returns DS_ERR_UNSUPPORTED with its outputs cleared
 * (ds_bts_debugctl_bits returns 0). DS_CONFIG_NETBURST=0: on a NetBurst CPU
 * ds_bts_enable/ds_bts_disable return DS_ERR_UNSUPPORTED (MSR_DEBUGCTLA) and
 * ds_bts_debugctl_bits returns 0.
 */
#ifndef DS_BTS_H
#define DS_BTS_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <ds/err.h>
#include <ds/cpu.h>
#include <ds/area.h>   /* also struct ds_drain_stats, DS_DRAIN_* */

#ifdef __cplusplus
extern "C" {
#endif

/* SDM "Branch Trace Store (BTS)", 32-bit record: 12 bytes. */
struct ds_bts_rec32 {
    uint32_t from;   /* 0x0 branch source linear address */
    uint32_t to;     /* 0x4 branch target */
    uint32_t flags;  /* 0x8 bit 4: predicted */
};
DS_ASSERT_SIZE(struct ds_bts_rec32, DS_BTS_REC32_SIZE);
DS_ASSERT_OFFSET(struct ds_bts_rec32, from, 0x0);
DS_ASSERT_OFFSET(struct ds_bts_rec32, to, 0x4);
DS_ASSERT_OFFSET(struct ds_bts_rec32, flags, 0x8);

/* SDM "BTS Record Format in 64-bit mode": 24 bytes. */
struct ds_bts_rec64 {
    uint64_t from;   /* 0x00 */
    uint64_t to;     /* 0x08 */
    uint64_t flags;  /* 0x10 bit 4: predicted */
};
DS_ASSERT_SIZE(struct ds_bts_rec64, DS_BTS_REC64_SIZE);
DS_ASSERT_OFFSET(struct ds_bts_rec64, from, 0x00);
DS_ASSERT_OFFSET(struct ds_bts_rec64, to, 0x08);
DS_ASSERT_OFFSET(struct ds_bts_rec64, flags, 0x10);

#define DS_BTS_FLAG_PREDICTED (1ull << 4) /* not supported on Core and Atom (reads 0) */

/* IA32_DEBUGCTL (0x1D9) BTS bits, P6-family descendants (SDM "IA32_DEBUGCTL MSR"). */
#define DS_DEBUGCTL_TR           (1ull << 6)
#define DS_DEBUGCTL_BTS          (1ull << 7)
#define DS_DEBUGCTL_BTINT        (1ull << 8)
#define DS_DEBUGCTL_BTS_OFF_OS   (1ull << 9)
#define DS_DEBUGCTL_BTS_OFF_USR  (1ull << 10)

/* MSR_DEBUGCTLA (0x1D9) BTS bits, NetBurst (SDM "MSR_DEBUGCTLA MSR"): other positions. */
#define DS_NB_DEBUGCTLA_TR          (1ull << 2)
#define DS_NB_DEBUGCTLA_BTS         (1ull << 3)
#define DS_NB_DEBUGCTLA_BTINT       (1ull << 4)
#define DS_NB_DEBUGCTLA_BTS_OFF_OS  (1ull << 5)
#define DS_NB_DEBUGCTLA_BTS_OFF_USR (1ull << 6)

/* ds_bts_enable() flags */
#define DS_BTS_INT     (1u << 0) /* threshold interrupt (BTINT); else circular */
#define DS_BTS_OFF_OS  (1u << 1) /* do not record at CPL 0 (needs DS-CPL) */
#define DS_BTS_OFF_USR (1u << 2) /* do not record at CPL > 0 (needs DS-CPL) */
#define DS_BTS_FLAGS_VALID (DS_BTS_INT | DS_BTS_OFF_OS | DS_BTS_OFF_USR)

/*
 * The DEBUGCTL bits ds_bts_enable() would set for @flags on @cpu (NetBurst
 * uses the MSR_DEBUGCTLA positions). 0 for invalid flags or NULL, and 0
 * when BTS (or, on NetBurst, DS_CONFIG_NETBURST) is compiled out. No error
 * return. MSRs: none. NMI-safe: yes (pure).
 */
uint64_t ds_bts_debugctl_bits(const struct ds_cpu *cpu, uint32_t flags);

/*
 * Start BTS: read-modify-write IA32_DEBUGCTL / MSR_DEBUGCTLA (0x1D9)
 * setting TR|BTS (+BTINT, +BTS_OFF_OS/USR per @flags). Other DEBUGCTL bits
 * are preserved. Preconditions: ds_area_install() done with a BTS buffer.
 * Errors (nothing written on any of them): DS_ERR_NULL, DS_ERR_NOT_SETUP,
 * DS_ERR_NO_BTS_BUFFER, DS_ERR_NOT_INSTALLED, DS_ERR_BAD_FLAGS,
 * DS_ERR_BTS_UNAVAILABLE, DS_ERR_NO_DSCPL, DS_ERR_BTS_MODE (DS_BTS_INT
 * without a threshold), DS_ERR_UNSUPPORTED (NetBurst CPU with
 * DS_CONFIG_NETBURST=0), DS_ERR_MSR_FAULT (read fault; a write fault leaves
 * BTS reported disabled).
 * MSRs: reads and writes IA32_DEBUGCTL / MSR_DEBUGCTLA (0x1D9), once each.
 * NMI-safe: yes (no locks; not reentrant against itself on one ctx).
 */
int ds_bts_enable(struct ds_ctx *ctx, uint32_t flags);

/*
 * Stop BTS: read-modify-write 0x1D9 clearing TR|BTS|BTINT|BTS_OFF_OS|
 * BTS_OFF_USR (layout per family). Errors: DS_ERR_NULL, DS_ERR_NOT_SETUP,
 * DS_ERR_NO_BTS_BUFFER, DS_ERR_UNSUPPORTED (NetBurst CPU with
 * DS_CONFIG_NETBURST=0), DS_ERR_MSR_FAULT (ctx->bts_enabled unchanged).
 * Works whether or not this context enabled BTS (it also stops BTS someone
 * else left on).
 * MSRs: reads and writes IA32_DEBUGCTL / MSR_DEBUGCTLA (0x1D9), once each.
 * NMI-safe: yes (no locks).
 */
int ds_bts_disable(struct ds_ctx *ctx);

/* A decoded branch. */
struct ds_bts_branch {
    uint64_t from;
    uint64_t to;
    uint64_t flags;      /* raw flags field */
    bool predicted;      /* flags bit 4 (always 0 on Core/Atom) */
};

/* Sink: return 0 to take the branch, non-zero to refuse it (lost_rejected). */
typedef int (*ds_bts_sink)(void *arg, const struct ds_bts_branch *b);

/*
 * Hand every stored BTS record to @sink, oldest first, reset the index to
 * base, repair base/max/threshold fields that differ from setup, and (in
 * circular mode) zero the buffer for wrap detection. Threshold mode: base
 * to index, same accounting as ds_pebs_drain() (pebs.h). Circular mode
 * (ctx->bts_circular: no threshold at setup, or the last ds_bts_enable()
 * was without DS_BTS_INT): as described at the top.
 * Never reads outside the caller's buffer. Memory only, no MSR. Bounded by
 * the buffer size, no locks: NMI-safe. Branches taken while draining with
 * BTS on at CPL 0 land in the buffer too; stop BTS (or use DS_BTS_OFF_OS)
 * for a clean drain; a second index read detects and counts such records
 * as lost_race. @out may be NULL (statistics discarded); @sink may not.
 * Errors: DS_ERR_NULL (@ctx or @sink), DS_ERR_NOT_SETUP,
 * DS_ERR_NO_BTS_BUFFER.
 * MSRs: none. NMI-safe: yes (see above; one drainer per ctx at a time).
 */
int ds_bts_drain(struct ds_ctx *ctx, ds_bts_sink sink, void *arg, struct ds_drain_stats *out);

/*
 * Same into an array (up to @cap; the rest counted lost_rejected); *out_n =
 * how many were stored. Errors: DS_ERR_NULL (@out_n NULL, or @arr NULL with
 * @cap > 0), then those of ds_bts_drain(). MSRs: none. NMI-safe: yes.
 */
int ds_bts_drain_array(struct ds_ctx *ctx, struct ds_bts_branch *arr, size_t cap, size_t *out_n,
                       struct ds_drain_stats *out);

/*
 * Has the BTS index reached the threshold? *out is false when no threshold
 * is configured or the buffer runs circular (ctx->bts_circular). Errors: DS_ERR_NULL (@ctx or @out), DS_ERR_NOT_SETUP,
 * DS_ERR_NO_BTS_BUFFER. MSRs: none (reads the DS area). NMI-safe: yes.
 */
int ds_bts_threshold_reached(const struct ds_ctx *ctx, bool *out);

#ifdef __cplusplus
}
#endif

#endif /* DS_BTS_H */
