/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MSR fault sweep over a fake_pmu CPU (include after check.h and
 * fake_pmu.h): run an operation once on a clean CPU, note every distinct
 * MSR it touched, then rerun it on a fresh CPU with that one MSR faulting
 * (#GP caught by the backend) on any access, on reads only, or on writes
 * only. Every libds function documents DS_ERR_MSR_FAULT for a faulting
 * access: it must say so instead of going on with a value it never read,
 * and must not write an MSR whose read (of a read-modify-write) failed.
 */
#ifndef TEST_FAULT_SWEEP_H
#define TEST_FAULT_SWEEP_H

enum fs_mode { FS_ANY, FS_READ, FS_WRITE };

static uint32_t fs_msr;
static enum fs_mode fs_how;

static inline int fs_read(void *ctx, uint32_t msr, uint64_t *out)
{
    if (fs_msr && msr == fs_msr && fs_how != FS_WRITE) {
        fp_log(ctx, 'r', msr, 0);
        return DS_ERR_MSR_FAULT;
    }
    return fp_read(ctx, msr, out);
}

static inline int fs_write(void *ctx, uint32_t msr, uint64_t v)
{
    if (fs_msr && msr == fs_msr && fs_how != FS_READ) {
        fp_log(ctx, 'w', msr, v);
        return DS_ERR_MSR_FAULT;
    }
    return fp_write(ctx, msr, v);
}

static const struct ds_msr_ops fs_ops = { fs_read, fs_write, fp_cpuid };

typedef void (*fs_mk_fn)(struct fake_pmu *, struct ds_cpu *);
typedef int (*fs_op_fn)(struct ds_cpu *);

/* @mk builds the fake and identifies @cpu on it (any ops); @op must succeed
 * on it. @want: the error every faulted rerun must return. */
static inline void fault_sweep_want(const char *name, fs_mk_fn mk, fs_op_fn op, enum fs_mode how, int want)
{
    static struct fake_pmu f;
    static uint32_t seen[512];
    struct ds_cpu cpu;
    unsigned ns = 0;
    mk(&f, &cpu);
    fp_clear_log(&f);
    CHECK_EQ(op(&cpu), DS_OK, "%s: clean run", name);
    for (int i = 0; i < f.nlog; i++) {
        char k = f.log[i].kind;
        if ((how == FS_READ && k != 'r') || (how == FS_WRITE && k != 'w'))
            continue;
        unsigned j = 0;
        while (j < ns && seen[j] != f.log[i].msr)
            j++;
        if (j == ns && ns < sizeof(seen) / sizeof(seen[0]))
            seen[ns++] = f.log[i].msr;
    }
    CHECK(how != FS_ANY || ns > 0, "%s: touches MSRs", name);
    static const char *const hows[] = { "access", "read", "write" };
    for (unsigned j = 0; j < ns; j++) {
        mk(&f, &cpu);
        cpu.ops = &fs_ops;
        fs_msr = seen[j];
        fs_how = how;
        fp_clear_log(&f);
        int e = op(&cpu);
        int after = 0, failed = 0;
        for (int i = 0; i < f.nlog; i++) {
            after += failed && f.log[i].kind == 'w' && f.log[i].msr == seen[j];
            failed |= how == FS_READ && f.log[i].kind == 'r' && f.log[i].msr == seen[j];
        }
        CHECK(e == want && after == 0, "%s: %s of MSR %#x faults -> %s (want %s), %d writes to it after", name,
              hows[how], seen[j], ds_errname(e), ds_errname(want), after);
        fs_msr = 0;
    }
}

static inline void fault_sweep(const char *name, fs_mk_fn mk, fs_op_fn op, enum fs_mode how)
{
    fault_sweep_want(name, mk, op, how, DS_ERR_MSR_FAULT);
}

#endif
