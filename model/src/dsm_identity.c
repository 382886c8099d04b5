/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Identity memory operations for a kernel whose linear addresses are its
 * pointers (identity or direct mapping): the model's DS-area reads and
 * record writes become plain memory accesses. Not for host programs (a host
 * maps a fake linear range instead, see tests/model/tests/model_util.h).
 */
#include "dsmodel.h"

static int id_check(uint64_t linear, size_t len)
{
    if (len == 0)
        return 0;
    if (linear + len < linear)
        return -1;
    if (linear + len - 1 > (uint64_t)UINTPTR_MAX)
        return -1;   /* i386: beyond the 4 GiB a pointer reaches */
    return 0;
}

static int id_read(void *ctx, uint64_t linear, void *buf, size_t len)
{
    (void)ctx;
    if (id_check(linear, len))
        return -1;
    const volatile unsigned char *s = (const volatile unsigned char *)(uintptr_t)linear;
    unsigned char *d = buf;
    for (size_t i = 0; i < len; i++)
        d[i] = s[i];
    return 0;
}

static int id_write(void *ctx, uint64_t linear, const void *buf, size_t len)
{
    (void)ctx;
    if (id_check(linear, len))
        return -1;
    volatile unsigned char *d = (volatile unsigned char *)(uintptr_t)linear;
    const unsigned char *s = buf;
    for (size_t i = 0; i < len; i++)
        d[i] = s[i];
    return 0;
}

const struct dsm_mem_ops dsm_identity_mem_ops = { id_read, id_write };
