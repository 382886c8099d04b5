/* SPDX-License-Identifier: BSD-2-Clause */
/* The division-free decimal writer (fmt.c) against libc's snprintf. */
#include "check.h"
#include "../../libds/src/internal.h"
#include <stdio.h>
#include <string.h>
#include <stdint.h>

static void one(uint64_t v)
{
    char got[32], want[32];
    struct ds__sb sb;
    ds__sb_init(&sb, got, sizeof(got));
    ds__sb_dec(&sb, v);
    snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
    CHECK(strcmp(got, want) == 0, "%s: got '%s'", want, got);
}

int main(void)
{
    uint64_t p = 1;
    one(0);
    one(UINT64_MAX);
    one(UINT64_MAX - 1);
    for (int i = 0; i < 20; i++, p *= 10) {
        one(p);
        one(p - 1);
        one(p + 1);
        one(p * 9);
    }
    for (uint64_t x = 0x9E3779B97F4A7C15ull, i = 0; i < 1000; i++, x = x * 6364136223846793005ull + 1442695040888963407ull)
        one(x >> (i % 64));
    /* truncation: "12345" into 4 bytes keeps "123", flags it */
    char small[4];
    struct ds__sb sb;
    ds__sb_init(&sb, small, sizeof(small));
    ds__sb_dec(&sb, 12345);
    CHECK(strcmp(small, "123") == 0, "truncated to '%s'", small);
    CHECK(sb.truncated, "truncation flagged");
    return check_summary();
}
