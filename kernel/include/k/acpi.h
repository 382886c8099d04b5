/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ACPI, only as far as CPU enumeration needs it (ACPI 6.5 section 5.2):
 * the RSDP (from the boot loader, else the BIOS area search of 5.2.5.1),
 * the RSDT/XSDT, and the MADT ("APIC") Processor Local APIC (type 0) and
 * Processor Local x2APIC (type 9) entries. Tables are read through the
 * kernel's identity map (first 4 GiB): a table above 4 GiB is not read.
 */
#ifndef K_ACPI_H
#define K_ACPI_H

#include <stdint.h>
#include <stdbool.h>

#define K_ACPI_MAX_CPUS 64

struct k_acpi_cpu {
    uint32_t apic_id;   /* local APIC ID (type 0: 8 bits) or x2APIC ID (type 9) */
    uint32_t uid;       /* ACPI processor UID */
    bool x2apic;        /* from a type-9 entry */
};

struct k_acpi_madt_info {
    const char *rsdp_source;  /* "multiboot2 ACPI new", "multiboot2 ACPI old", "PVH", "BIOS area", or NULL */
    uintptr_t rsdp;           /* physical address of the RSDP (0: none) */
    uint8_t revision;         /* RSDP revision (0: ACPI 1.0, RSDT only) */
    uint32_t lapic_addr;      /* MADT local interrupt controller address */
    unsigned ncpus;           /* enabled (or online-capable) processors listed, at most K_ACPI_MAX_CPUS */
    unsigned nlisted;         /* every processor entry seen, disabled ones included */
    struct k_acpi_cpu cpu[K_ACPI_MAX_CPUS];
    const char *error;        /* why no MADT was found, NULL on success */
};

/* Find the RSDP: @boot_rsdp (the copy in a multiboot2 tag, or the PVH
 * rsdp_paddr) if non-zero, else search the EBDA's first KiB and
 * 0xE0000-0xFFFFF on 16-byte boundaries. Then parse the MADT. Returns 0, or
 * -1 with out->error set. Not NMI-safe (boot time only). */
int k_acpi_madt(uintptr_t boot_rsdp, const char *boot_src, struct k_acpi_madt_info *out);

/* Fallback without a MADT: the MP specification 1.4 tables
 * (kernel/src/mptable.c). Fills the same structure: rsdp_source "MP table",
 * rsdp = the floating pointer's address, revision = its spec revision.
 * Returns 0, or -1 with out->error set. */
int k_mptable_cpus(struct k_acpi_madt_info *out);

#endif
