/* SPDX-License-Identifier: BSD-2-Clause */
/* The smallest "kernel" that links libds: proves symbols resolve. */
#include <ds/ds.h>
#include <stddef.h>

#if DS_CONFIG_NETBURST_TABLES
#error "LIBDS_CONFIG_DEFINITIONS did not reach the users of libds::ds"
#endif

void *memset(void *d, int c, size_t n)
{
    unsigned char *p = d;
    while (n--)
        *p++ = (unsigned char)c;
    return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
    unsigned char *p = d;
    const unsigned char *q = s;
    while (n--)
        *p++ = *q++;
    return d;
}

static struct ds_cpu cpu;
static char text[1024];

void kmain(void);
void kmain(void)
{
    if (ds_cpu_init(&cpu, NULL, NULL) == DS_OK && ds_cpu_identify(&cpu) == DS_OK)
        ds_caps_format(&cpu.caps, text, sizeof(text));
    for (;;)
        __asm__ volatile("hlt");
}
