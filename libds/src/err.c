/* SPDX-License-Identifier: BSD-2-Clause */
/* Error strings. One row per enum ds_err value (err_rows.h); tests/host/test_err.c checks completeness. */
#include <stddef.h>
#include <ds/err.h> /* and nothing of libds above it: util.h includes err.h (issue 26 item 5) */

/* The names and texts lie in one char-array struct, name then text per row
 * in row order with nothing between them (no pointer or offset per row:
 * issue 28 item 6); values[] holds each row's enum value and the lookup
 * walks the strings to the row it finds. Description time only: cold. */
struct err_strs {
#define ROW(v, t) char v##_n[sizeof #v]; char v##_t[sizeof t];
#include "err_rows.h"
#undef ROW
};

static const struct err_strs strs = {
#define ROW(v, t) #v, t,
#include "err_rows.h"
#undef ROW
};

static const short values[] = {
#define ROW(v, t) v,
#include "err_rows.h"
#undef ROW
};

static const char *skip(const char *s)
{
    while (*s++)
        ;
    return s;
}

/* The name of @err's row (its text follows it), or NULL. */
__attribute__((cold)) static const char *find(int err)
{
    const char *s = (const char *)&strs;
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++, s = skip(skip(s)))
        if (values[i] == err)
            return s;
    return 0;
}

__attribute__((cold)) const char *ds_strerror(int err)
{
    const char *s = find(err);
    return s ? skip(s) : "unknown libds error";
}

__attribute__((cold)) const char *ds_errname(int err)
{
    const char *s = find(err);
    return s ? s : "DS_ERR_?";
}

__attribute__((cold)) const char *ds__reason_text(int err)
{
    return err == DS_ERR_NO_PDCM ? "not enumerated (CPUID.01H:ECX.PDCM is 0)" : ds_strerror(err);
}
