/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Local APIC, xAPIC (MMIO) or x2APIC (MSR) mode.
 * SDM Vol. 3A "Advanced Programmable Interrupt Controller (APIC)".
 *
 * k_lapic_init() enables the APIC (IA32_APIC_BASE.EN, spurious vector
 * register with K_VEC_SPURIOUS and APIC software enable), switches to
 * x2APIC mode when CPUID.01H:ECX[21] offers it and x2APIC was not refused
 * (`apic=xapic`), masks the LVT timer (OVMF leaves it periodic and unmasked
 * on vector 0x20), LINT0 and the error LVT, sets TPR to 0, and leaves LVT PC
 * masked. Register offsets below are xAPIC MMIO offsets; in x2APIC mode the
 * same register is MSR 0x800 + (offset >> 4).
 * MSRs touched: IA32_APIC_BASE (0x1B), 0x800-0x83F in x2APIC mode.
 */
#ifndef K_LAPIC_H
#define K_LAPIC_H

#include <stdint.h>
#include <stdbool.h>

#define K_MSR_IA32_APIC_BASE 0x1Bu
#define K_APIC_BASE_BSP     (1ull << 8)
#define K_APIC_BASE_EXTD    (1ull << 10)  /* x2APIC mode */
#define K_APIC_BASE_EN      (1ull << 11)

/* Register offsets (SDM Vol. 3A "Local APIC Register Address Map") */
#define K_APIC_ID        0x020
#define K_APIC_VERSION   0x030
#define K_APIC_TPR       0x080
#define K_APIC_EOI       0x0B0
#define K_APIC_SVR       0x0F0
#define K_APIC_ISR0      0x100  /* + 0x10 * n, n = 0..7 */
#define K_APIC_IRR0      0x200
#define K_APIC_ESR       0x280
#define K_APIC_ICR_LO    0x300
#define K_APIC_ICR_HI    0x310  /* xAPIC only */
#define K_APIC_LVT_TIMER 0x320
#define K_APIC_LVT_THERM 0x330
#define K_APIC_LVT_PC    0x340
#define K_APIC_LVT_LINT0 0x350
#define K_APIC_LVT_LINT1 0x360
#define K_APIC_LVT_ERROR 0x370
#define K_APIC_TIMER_ICR 0x380

/* LVT and ICR fields */
#define K_LVT_VECTOR_MASK    0xFFu
#define K_LVT_DM_SHIFT       8
#define K_LVT_DM_MASK        (7u << 8)
#define K_LVT_DM_FIXED       (0u << 8)
#define K_LVT_DM_NMI         (4u << 8)
#define K_LVT_DELIV_STATUS   (1u << 12)
#define K_LVT_MASKED         (1u << 16)
#define K_SVR_ENABLE         (1u << 8)
#define K_ICR_DM_FIXED       (0u << 8)
#define K_ICR_DM_NMI         (4u << 8)
#define K_ICR_LEVEL_ASSERT   (1u << 14)
#define K_ICR_BUSY           (1u << 12)  /* xAPIC delivery status */

enum k_lapic_mode { K_LAPIC_NONE = 0, K_LAPIC_XAPIC = 1, K_LAPIC_X2APIC = 2 };

/* Returns 0, or -1 if the CPU has no local APIC (CPUID.01H:EDX[9] = 0; it
 * also reads 0 where firmware cleared IA32_APIC_BASE.EN, SDM Vol. 3A
 * "Enabling or Disabling the Local APIC"), IA32_APIC_BASE faults, EN does
 * not stay set, or its MMIO page is above 4 GiB (not mapped by this kernel).
 * Call once. Without an APIC, mode is K_LAPIC_NONE: writes are dropped,
 * reads return 0, k_lapic_lvt_pc_read() returns K_LVT_MASKED (no LVT can
 * deliver anything), and every test group that needs an interrupt skips
 * with k_lapic_absent_reason(). */
int k_lapic_init(bool allow_x2apic);
/* Why k_lapic_init() found no usable APIC ("" once it found one). */
const char *k_lapic_absent_reason(void);
enum k_lapic_mode k_lapic_mode(void);
const char *k_lapic_mode_name(void);

/* Raw register access by xAPIC offset. NMI-safe. */
uint32_t k_lapic_read(uint32_t reg);
void k_lapic_write(uint32_t reg, uint32_t val);

uint32_t k_lapic_id(void);                 /* full 32-bit ID in x2APIC mode, 8-bit in xAPIC */
void k_lapic_eoi(void);
uint32_t k_lapic_lvt_pc_read(void);
void k_lapic_lvt_pc_write(uint32_t val);
void k_lapic_timer_mask(void);
/* true if the In-Service Register bit for @vector is set. */
bool k_lapic_in_service(unsigned vector);
/* Send a fixed-vector IPI to this CPU (destination = own APIC ID). */
void k_lapic_self_ipi(unsigned vector);
/* Send an NMI IPI to this CPU (destination = own APIC ID, not the "self"
 * shorthand, which the SDM allows only for fixed delivery). */
void k_lapic_self_nmi(void);
/* Send ICR low word @lo to APIC ID @id (xAPIC: ICR high bits 31:24; x2APIC:
 * ICR MSR 0x830 bits 63:32). Returns 0, or -1 without an APIC, for an ID
 * above 255 in xAPIC mode, or when xAPIC delivery status stays pending. */
int k_lapic_send_ipi(uint32_t id, uint32_t lo);
#define K_ICR_DM_INIT        (5u << 8)
#define K_ICR_DM_STARTUP     (6u << 8)

#endif
