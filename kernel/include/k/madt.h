/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MADT processor entries (ACPI 6.5 5.2.12): Processor Local APIC (type 0,
 * 8-bit IDs) and Processor Local x2APIC (type 9, 32-bit IDs). Pure: it
 * reads a table in memory and nothing else, so the host test
 * (kernel/host/test_madt.c) runs it on synthetic tables. The rules are
 * Linux's (arch/x86/kernel/acpi/boot.c: acpi_parse_lapic,
 * acpi_parse_x2apic, acpi_check_lapic):
 *  - a CPU is usable if Enabled (flags bit 0) or Online Capable (bit 1);
 *  - type 0 with ID 0xFF and type 9 with ID 0xFFFFFFFF are invalid, ignored;
 *  - a type 9 entry with an ID below 0xFF is ignored where usable type 0
 *    entries exist (ACPI 6.5 5.2.12.12: with both kinds, x2APIC IDs are
 *    >= 255);
 *  - an ID listed twice is one CPU.
 * Called with cpu = NULL it only counts (sizing the list before it is
 * allocated: issue 24, no compile-time CPU maximum).
 */
#ifndef K_MADT_H
#define K_MADT_H

#include <stdint.h>
#include <stdbool.h>

struct k_acpi_cpu {
    uint32_t apic_id;   /* local APIC ID (type 0: 8 bits) or x2APIC ID (type 9) */
    uint32_t uid;       /* ACPI processor UID */
    bool x2apic;        /* from a type-9 entry */
};

struct k_madt_cpus {
    struct k_acpi_cpu *cpu;   /* in: room for cap entries, or NULL to count */
    unsigned cap;
    unsigned ncpus;           /* out: usable CPUs (stored, or counted: an upper bound with duplicates) */
    unsigned nlisted;         /* out: every processor entry, disabled and invalid ones included */
    unsigned nignored;        /* out: invalid IDs and type-9 IDs < 255 beside type-0 CPUs */
    unsigned nx2;             /* out: usable CPUs from type-9 entries */
    uint32_t max_id;          /* out: highest usable APIC ID */
    uint32_t lapic_addr;      /* out: local interrupt controller address */
};

/* Parse the MADT at @t (its header included), @len bytes (the header's
 * length field, already checked against the checksum by the caller). */
void k_madt_parse(const uint8_t *t, uint32_t len, struct k_madt_cpus *o);

#endif
