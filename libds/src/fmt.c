/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bounded text builder used by the *_format() functions. Pure, NMI-safe.
 * Compiled only with DS_CONFIG_FORMAT (ds/config.h): its only users are the
 * renderers ds_caps_format and ds_probe_format.
 */
#include "util.h"

#if DS_CONFIG_FORMAT

DS_COLD void ds__sb_init(struct ds__sb *sb, char *buf, size_t len)
{
    sb->buf = buf;
    sb->len = len;
    sb->pos = 0;
    sb->truncated = false;
    if (buf && len)
        buf[0] = '\0';
}

DS_COLD void ds__sb_putc(struct ds__sb *sb, char c)
{
    if (!sb->buf || sb->pos + 1 >= sb->len) {
        sb->truncated = true;
        return;
    }
    sb->buf[sb->pos++] = c;
    sb->buf[sb->pos] = '\0';
}

DS_COLD void ds__sb_puts(struct ds__sb *sb, const char *s)
{
    while (s && *s)
        ds__sb_putc(sb, *s++);
}

/*
 * Decimal without division: a 64-bit '/' or '%' on i386 becomes a call to
 * libgcc's __udivdi3/__umoddi3 (clang always, gcc at -Os), a symbol a kernel
 * need not provide. Subtracting powers of ten costs at most 9 steps a digit.
 */
DS_COLD void ds__sb_dec(struct ds__sb *sb, uint64_t v)
{
    static const uint64_t pow10[] = {
        10000000000000000000ull, 1000000000000000000ull, 100000000000000000ull,
        10000000000000000ull, 1000000000000000ull, 100000000000000ull,
        10000000000000ull, 1000000000000ull, 100000000000ull, 10000000000ull,
        1000000000ull, 100000000ull, 10000000ull, 1000000ull, 100000ull,
        10000ull, 1000ull, 100ull, 10ull, 1ull,
    };
    bool started = false;
    for (size_t i = 0; i < DS_ARRAY_SIZE(pow10); i++) {
        char d = '0';
        while (v >= pow10[i]) {
            v -= pow10[i];
            d++;
        }
        if (d != '0' || started || pow10[i] == 1) {
            ds__sb_putc(sb, d);
            started = true;
        }
    }
}

DS_COLD void ds__sb_hex(struct ds__sb *sb, uint64_t v, unsigned digits)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[16];
    unsigned n = 0;
    do {
        tmp[n++] = hex[v & 0xF];
        v >>= 4;
    } while (v && n < 16);
    while (n < digits && n < 16)
        tmp[n++] = '0';
    ds__sb_puts(sb, "0x");
    while (n)
        ds__sb_putc(sb, tmp[--n]);
}

#endif /* DS_CONFIG_FORMAT */
