/* SPDX-License-Identifier: BSD-2-Clause */
/* MADT processor entries. See k/madt.h. No kernel dependency: the host
 * test compiles this file as it is. */
#include <k/madt.h>
#include <stddef.h>

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void add(struct k_madt_cpus *o, uint32_t id, uint32_t uid, bool x2)
{
    if (o->cpu) {
        for (unsigned i = 0; i < o->ncpus; i++)
            if (o->cpu[i].apic_id == id)
                return; /* listed twice (e.g. as type 0 and type 9) */
        if (o->ncpus >= o->cap)
            return;
        o->cpu[o->ncpus] = (struct k_acpi_cpu){ .apic_id = id, .uid = uid, .x2apic = x2 };
    }
    o->ncpus++;
    o->nx2 += x2;
    if (id > o->max_id)
        o->max_id = id;
}

/* Usable type-0 CPUs exist (Linux acpi_check_lapic, run before the parse). */
static bool has_lapic_cpus(const uint8_t *t, uint32_t len)
{
    for (uint32_t e = 44; e + 2 <= len && t[e + 1] >= 2 && e + t[e + 1] <= len; e += t[e + 1])
        if (t[e] == 0 && t[e + 1] >= 8 && t[e + 3] != 0xFF && (le32(t + e + 4) & 3))
            return true;
    return false;
}

void k_madt_parse(const uint8_t *t, uint32_t len, struct k_madt_cpus *o)
{
    o->ncpus = o->nlisted = o->nignored = o->nx2 = 0;
    o->max_id = 0;
    o->lapic_addr = len >= 40 ? le32(t + 36) : 0;
    bool lapic_cpus = has_lapic_cpus(t, len);
    for (uint32_t e = 44; e + 2 <= len;) {
        uint8_t type = t[e], elen = t[e + 1];
        if (elen < 2 || e + elen > len)
            break;
        if (type == 0 && elen >= 8) {          /* Processor Local APIC */
            uint32_t id = t[e + 3], flags = le32(t + e + 4);
            o->nlisted++;
            if (id == 0xFF)
                o->nignored++;
            else if (flags & 3)
                add(o, id, t[e + 2], false);
        } else if (type == 9 && elen >= 16) {  /* Processor Local x2APIC */
            uint32_t id = le32(t + e + 4), flags = le32(t + e + 8);
            o->nlisted++;
            if (id == 0xFFFFFFFFu || (lapic_cpus && id < 0xFF))
                o->nignored++;
            else if (flags & 3)
                add(o, id, le32(t + e + 12), true);
        }
        e += elen;
    }
}
