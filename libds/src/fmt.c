/* SPDX-License-Identifier: BSD-2-Clause */
/* Bounded text builder used by the *_format() functions. Pure, NMI-safe. */
#include "internal.h"

void ds__sb_init(struct ds__sb *sb, char *buf, size_t len)
{
    sb->buf = buf;
    sb->len = len;
    sb->pos = 0;
    sb->truncated = false;
    if (buf && len)
        buf[0] = '\0';
}

void ds__sb_putc(struct ds__sb *sb, char c)
{
    if (!sb->buf || sb->pos + 1 >= sb->len) {
        sb->truncated = true;
        return;
    }
    sb->buf[sb->pos++] = c;
    sb->buf[sb->pos] = '\0';
}

void ds__sb_puts(struct ds__sb *sb, const char *s)
{
    while (s && *s)
        ds__sb_putc(sb, *s++);
}

void ds__sb_dec(struct ds__sb *sb, uint64_t v)
{
    char tmp[21];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + (v % 10));
        v /= 10;
    } while (v);
    while (n)
        ds__sb_putc(sb, tmp[--n]);
}

void ds__sb_hex(struct ds__sb *sb, uint64_t v, unsigned digits)
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
