/* SPDX-License-Identifier: BSD-2-Clause */
/* Kernel command-line options. See k/cmdline.h. */
#include <k/cmdline.h>

static char line[1024];

void k_cmdline_set(const char *s)
{
    size_t i = 0;
    if (s)
        for (; s[i] && i < sizeof(line) - 1; i++)
            line[i] = s[i];
    line[i] = '\0';
}

const char *k_cmdline(void) { return line; }

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

const char *k_opt(const char *key, size_t *out_len)
{
    const char *found = NULL;
    size_t flen = 0, klen = 0;
    while (key[klen])
        klen++;
    for (const char *p = line; *p;) {
        while (is_space(*p))
            p++;
        const char *w = p;
        while (*p && !is_space(*p))
            p++;
        size_t wl = (size_t)(p - w);
        if (wl < klen)
            continue;
        size_t i;
        for (i = 0; i < klen && w[i] == key[i]; i++)
            ;
        if (i != klen)
            continue;
        if (wl == klen) {
            found = w + wl; /* flag: empty value */
            flen = 0;
        } else if (w[klen] == '=') {
            found = w + klen + 1;
            flen = wl - klen - 1;
        }
    }
    if (out_len)
        *out_len = flen;
    return found;
}

bool k_opt_is(const char *key, const char *value)
{
    size_t n, i;
    const char *v = k_opt(key, &n);
    if (!v)
        return false;
    for (i = 0; i < n && value[i] == v[i]; i++)
        ;
    return i == n && value[n] == '\0';
}

const char *k_opt_str(const char *key, char *buf, size_t len, const char *def)
{
    size_t n;
    const char *v = k_opt(key, &n);
    if (!v || !buf || n + 1 > len)
        return def;
    for (size_t i = 0; i < n; i++)
        buf[i] = v[i];
    buf[n] = '\0';
    return buf;
}

bool k_opt_list_has(const char *key, const char *item)
{
    size_t n;
    const char *v = k_opt(key, &n);
    if (!v)
        return false;
    const char *end = v + n;
    while (v < end) {
        const char *e = v;
        while (e < end && *e != ',')
            e++;
        size_t i, l = (size_t)(e - v);
        for (i = 0; i < l && item[i] == v[i]; i++)
            ;
        if (i == l && item[l] == '\0')
            return true;
        v = e + 1;
    }
    return false;
}

uint64_t k_opt_u64(const char *key, uint64_t def)
{
    size_t n;
    const char *v = k_opt(key, &n);
    if (!v || !n)
        return def;
    uint64_t r = 0;
    size_t i = 0;
    unsigned base = 10;
    if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
        base = 16;
        i = 2;
    }
    for (; i < n; i++) {
        unsigned d;
        char c = v[i];
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (base == 16 && c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (base == 16 && c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return def;
        if (r > (UINT64_MAX - d) / base)
            return def;
        r = r * base + d;
    }
    return r;
}
