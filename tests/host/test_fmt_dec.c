/* SPDX-License-Identifier: BSD-2-Clause */
/* The division-free decimal writer (fmt.c) against libc's snprintf. */
#include "check.h"
#include "../../libds/src/util.h"
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

static void hex_cases(void);
static void sb_bounds(void);
static void hex_wide_digits(void);

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
    hex_cases();
    sb_bounds();
    hex_wide_digits();
    return check_summary();
}

/* ds__sb_hex (util.h contract: "0x", then at least @digits hex digits,
 * lower case, as many as the value needs) against libc's "%0*llx". */
static void hex_one(uint64_t v, unsigned digits)
{
    char got[40], want[40];
    struct ds__sb sb;
    ds__sb_init(&sb, got, sizeof(got));
    ds__sb_hex(&sb, v, digits);
    snprintf(want, sizeof(want), "0x%0*llx", (int)digits, (unsigned long long)v);
    CHECK(strcmp(got, want) == 0, "hex(0x%llx, %u): got '%s', want '%s'", (unsigned long long)v, digits, got, want);
    CHECK(!sb.truncated, "hex(0x%llx, %u) fits 40 bytes", (unsigned long long)v, digits);
}

static void hex_cases(void)
{
    /* every nibble value alone and in every position; every pad width 0..16
     * below, at and above the value's own length */
    for (unsigned d = 0; d <= 16; d++) {
        hex_one(0, d);
        hex_one(UINT64_MAX, d);
        for (unsigned nib = 0; nib < 16; nib++)
            for (unsigned sh = 0; sh < 64; sh += 4)
                hex_one((uint64_t)nib << sh, d);
    }
    hex_one(0x0123456789abcdefull, 0);
    hex_one(0xfedcba9876543210ull, 0);
    hex_one(0x8000000000000000ull, 3);
}

/* The builder's exact capacity boundary (len counts the NUL), the NULL and
 * zero-length buffers, and init over a used builder. */
static void sb_bounds(void)
{
    char b[8];
    struct ds__sb sb;

    memset(b, 'x', sizeof(b));
    ds__sb_init(&sb, b, 4);
    ds__sb_puts(&sb, "abc"); /* 3 chars + NUL == len: fits exactly */
    CHECK(strcmp(b, "abc") == 0 && !sb.truncated && sb.pos == 3, "3 chars in 4 bytes: '%s' trunc %d", b, sb.truncated);
    ds__sb_putc(&sb, 'd'); /* one more does not */
    CHECK(strcmp(b, "abc") == 0 && sb.truncated && sb.pos == 3, "4th char refused: '%s' trunc %d", b, sb.truncated);
    CHECK(b[4] == 'x', "nothing written past len");

    memset(b, 'x', sizeof(b));
    ds__sb_init(&sb, b, 1); /* room for the NUL only */
    CHECK(b[0] == '\0' && sb.pos == 0 && !sb.truncated, "len 1 init");
    ds__sb_putc(&sb, 'a');
    CHECK(b[0] == '\0' && b[1] == 'x' && sb.truncated, "len 1: nothing fits");

    memset(b, 'x', sizeof(b));
    ds__sb_init(&sb, b, 0);
    CHECK(b[0] == 'x' && !sb.truncated, "len 0: buffer untouched by init");
    ds__sb_putc(&sb, 'a');
    CHECK(b[0] == 'x' && sb.truncated, "len 0: putc refused, buffer untouched");

    ds__sb_init(&sb, NULL, 8);
    CHECK(!sb.truncated && sb.pos == 0, "NULL buffer init");
    ds__sb_puts(&sb, "a");
    CHECK(sb.truncated && sb.pos == 0, "NULL buffer: truncated, nothing counted");

    /* init resets a used, truncated builder */
    ds__sb_init(&sb, b, 2);
    ds__sb_puts(&sb, "abc");
    CHECK(sb.truncated, "used builder truncated");
    ds__sb_init(&sb, b, sizeof(b));
    CHECK(sb.pos == 0 && !sb.truncated && b[0] == '\0', "re-init clears pos and truncated");
    ds__sb_puts(&sb, "hi");
    ds__sb_puts(&sb, NULL); /* NULL string: nothing */
    ds__sb_puts(&sb, "");
    CHECK(strcmp(b, "hi") == 0 && !sb.truncated, "puts appends: '%s'", b);
}

/* mut4B: a minimum width above 16 digits. A 64-bit value has 16 hex digits
 * at most, and ds__sb_hex builds them in a 16-char scratch: widths 17, 20
 * and UINT_MAX give exactly 16 digits (the pad loop stops at the scratch's
 * end; a pad bound one higher writes past it: ASan, or a 17th digit). */
static void hex_wide_digits(void)
{
    static const unsigned widths[] = { 17, 20, 0xFFFFFFFFu };
    for (unsigned i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
        char got[40];
        struct ds__sb sb;
        ds__sb_init(&sb, got, sizeof(got));
        ds__sb_hex(&sb, 1, widths[i]);
        CHECK(strcmp(got, "0x0000000000000001") == 0, "hex(1, %u): got '%s'", widths[i], got);
        ds__sb_init(&sb, got, sizeof(got));
        ds__sb_hex(&sb, 0xABCull << 52, widths[i]);
        CHECK(strcmp(got, "0xabc0000000000000") == 0, "hex(abc<<52, %u): got '%s'", widths[i], got);
    }
}
