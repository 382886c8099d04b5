/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The local APIC LVT Performance Counter entry (LVT PC): the value a kernel
 * writes to route PMIs (issue 29). libds never touches the APIC; these are
 * the SDM's fields (Vol. 3A "Local Vector Table", Figure "Local Vector
 * Table (LVT)"; ../shared/reference/msr.md section 7, pmi.md section 1).
 *
 *   xAPIC: MMIO offset 0x340 from the APIC base (FEE0_0340H by default);
 *   x2APIC: MSR 0x834 (DS_MSR_IA32_X2APIC_LVT_PMI, msr.h).
 *   bits 7:0 vector (fixed delivery), 10:8 delivery mode (000 fixed,
 *   100 NMI), 12 delivery status (read-only), 16 mask (1 = masked);
 *   reset value 0x00010000 (masked).
 *
 * The CPU sets the mask bit when it delivers a PMI: the handler writes the
 * unmasked value again on every PMI (Linux apic_write(APIC_LVTPC,
 * APIC_DM_NMI) in intel_pmu_handle_irq; session.h "Life cycle", porting.md
 * section 9). Linux uses NMI delivery: DS_LVT_PC_DM_NMI (0x400). Fixed
 * delivery needs an IDT gate for the vector and an EOI.
 */
#ifndef DS_LVT_H
#define DS_LVT_H

#include <stdint.h>
#include <stdbool.h>
#include <ds/err.h>

#define DS_LVT_PC_XAPIC_OFFSET 0x340u      /* xAPIC MMIO offset */
#define DS_LVT_PC_VECTOR_MASK  0xFFu       /* bits 7:0 */
#define DS_LVT_PC_DM_FIXED     (0u << 8)   /* delivery mode 000b */
#define DS_LVT_PC_DM_NMI       (4u << 8)   /* delivery mode 100b: NMI, vector ignored (Linux APIC_DM_NMI) */
#define DS_LVT_PC_MASKED       (1u << 16)  /* mask bit */
#define DS_LVT_PC_MIN_VECTOR   32u         /* vectors 0-31: exceptions (SDM: 0-15 illegal for the APIC) */

/*
 * *@out = the LVT PC value for NMI delivery (@nmi; @vector must be 0, the
 * field is ignored) or fixed delivery to @vector (32..255), masked when
 * @masked. Errors: DS_ERR_NULL, DS_ERR_PMI_LVT_VECTOR (fixed delivery with
 * a vector below 32 or above 255, or NMI with a nonzero vector); *@out is
 * then DS_LVT_PC_MASKED (the reset value). MSRs: none. NMI-safe: yes.
 */
static inline int ds_lvt_pc_value(bool nmi, unsigned vector, bool masked, uint32_t *out)
{
    if (!out)
        return DS_ERR_NULL;
    *out = DS_LVT_PC_MASKED;
    if (nmi ? vector != 0 : (vector < DS_LVT_PC_MIN_VECTOR || vector > DS_LVT_PC_VECTOR_MASK))
        return DS_ERR_PMI_LVT_VECTOR;
    *out = (nmi ? DS_LVT_PC_DM_NMI : DS_LVT_PC_DM_FIXED | vector) | (masked ? DS_LVT_PC_MASKED : 0);
    return DS_OK;
}

#endif /* DS_LVT_H */
