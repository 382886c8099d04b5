/* SPDX-License-Identifier: BSD-2-Clause */
/* Error strings. One row per enum ds_err value (err_rows.h); tests/host/test_err.c checks completeness. */
#include <stddef.h>
#include <ds/err.h> /* and nothing of libds above it: util.h includes err.h (issue 26 item 5) */

/* The names and texts lie in one char-array struct (no pointer per row:
 * issue 28 item 6), rows[] holds their offsets. */
struct err_strs {
#define ROW(v, t) char v##_n[sizeof #v]; char v##_t[sizeof t];
#include "err_rows.h"
#undef ROW
};
_Static_assert(sizeof(struct err_strs) <= 0xFFFF, "16-bit offsets");

static const struct err_strs strs = {
#define ROW(v, t) #v, t,
#include "err_rows.h"
#undef ROW
};

struct ds_err_row {
    short value;
    unsigned short name, text;
};

static const struct ds_err_row rows[] = {
#define ROW(v, t) { v, offsetof(struct err_strs, v##_n), offsetof(struct err_strs, v##_t) },
#include "err_rows.h"
#undef ROW
};

static const struct ds_err_row *find(int err)
{
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        if (rows[i].value == err)
            return &rows[i];
    return 0;
}

const char *ds_strerror(int err)
{
    const struct ds_err_row *r = find(err);
    return r ? (const char *)&strs + r->text : "unknown libds error";
}

const char *ds_errname(int err)
{
    const struct ds_err_row *r = find(err);
    return r ? (const char *)&strs + r->name : "DS_ERR_?";
}

const char *ds__reason_text(int err)
{
    return err == DS_ERR_NO_PDCM ? "not enumerated (CPUID.01H:ECX.PDCM is 0)" : ds_strerror(err);
}
