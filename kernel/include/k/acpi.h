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
#include <stddef.h>
#include <k/madt.h>

/* Where the CPU list goes: allocated once its length is known (issue 24:
 * no compile-time maximum). Returns NULL when it does not fit. */
typedef void *(*k_acpi_alloc_fn)(size_t bytes);

struct k_acpi_madt_info {
    const char *rsdp_source;  /* "multiboot2 ACPI new", "multiboot2 ACPI old", "PVH", "BIOS area", or NULL */
    uintptr_t rsdp;           /* physical address of the RSDP (0: none) */
    uint8_t revision;         /* RSDP revision (0: ACPI 1.0, RSDT only) */
    uint32_t lapic_addr;      /* MADT local interrupt controller address */
    unsigned ncpus;           /* enabled (or online-capable) processors listed */
    unsigned nlisted;         /* every processor entry seen, disabled ones included */
    unsigned nignored;        /* invalid entries (k/madt.h) */
    unsigned nx2;             /* CPUs from x2APIC (type 9) entries */
    uint32_t max_id;          /* highest usable APIC ID */
    struct k_acpi_cpu *cpu;   /* ncpus entries, from the caller's allocator */
    const char *error;        /* why no MADT was found, NULL on success */
};

/* Find the RSDP: @boot_rsdp (the copy in a multiboot2 tag, or the PVH
 * rsdp_paddr) if non-zero, else search the EBDA's first KiB and
 * 0xE0000-0xFFFFF on 16-byte boundaries. Then parse the MADT. Returns 0, or
 * -1 with out->error set. Not NMI-safe (boot time only). */
int k_acpi_madt(uintptr_t boot_rsdp, const char *boot_src, struct k_acpi_madt_info *out, k_acpi_alloc_fn alloc);

/* Fallback without a MADT: the MP specification 1.4 tables
 * (kernel/src/mptable.c). Fills the same structure: rsdp_source "MP table",
 * rsdp = the floating pointer's address, revision = its spec revision.
 * Returns 0, or -1 with out->error set. */
int k_mptable_cpus(struct k_acpi_madt_info *out, k_acpi_alloc_fn alloc);

#endif
