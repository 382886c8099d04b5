/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared pieces of the libFuzzer target (tests/fuzz/fuzz_*.c). */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

struct in {
    const uint8_t *p;
    size_t n;
};

/* The next @bytes input bytes, little-endian; 0 past the end. */
static inline uint64_t take(struct in *in, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++) {
        v |= (uint64_t)(in->n ? *in->p : 0) << (8 * i);
        if (in->n) {
            in->p++;
            in->n--;
        }
    }
    return v;
}

static inline void fuzz_fail(const char *target, const char *what)
{
    fprintf(stderr, "%s: invariant broken: %s\n", target, what);
    abort();
}

/* Sign-extend @v from bit @b (SDM: canonical / sign-extended addresses). */
static inline uint64_t fuzz_sext(uint64_t v, unsigned b)
{
    unsigned s = 63 - b;
    return (uint64_t)((int64_t)(v << s) >> s);
}

int fuzz_drain(struct in *in);
int fuzz_setup(struct in *in);
int fuzz_lbr_decode(struct in *in);
int fuzz_lbr_read(struct in *in);
int fuzz_identify(struct in *in);
int fuzz_netburst(struct in *in);
int fuzz_period(struct in *in);

#endif
