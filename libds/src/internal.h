/* SPDX-License-Identifier: BSD-2-Clause */
/* libds private helpers: static assertions and a bounded text builder (no libc). */
#ifndef DS_INTERNAL_H
#define DS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define DS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Text builder: appends into a caller buffer, always NUL-terminated, records truncation. */
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

#endif /* DS_INTERNAL_H */
