/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Application processors (issue 13). k_smp_start() enumerates the CPUs from
 * the ACPI MADT (k/acpi.h), starts each AP with INIT-SIPI-SIPI (SDM Vol. 3A
 * "MP Initialization Protocol Algorithm for MP Systems" / "Typical AP
 * Initialization Sequence": INIT, 10 ms, STARTUP, 200 us, STARTUP) through a
 * real-mode trampoline copied to K_AP_TRAMP_BASE (kernel/arch/<arch>/
 * trampoline.S), gives it its own GDT, TSS, #DF stack and stack and the
 * BSP's IDT, enables its local APIC in the BSP's mode (xAPIC/x2APIC), and
 * has it run ds_cpu_init + ds_cpu_identify ON THAT CPU into its own
 * struct ds_cpu. APs are started one at a time; the BSP prints what each
 * reported (APs do not print while starting; where several CPUs print at
 * once, k_console_lines keeps their lines whole), then the AP
 * parks (CLI; HLT) with its LVT PC masked. A CPU that does not answer within
 * K_SMP_START_TIMEOUT_MS is reported, sent INIT again (so that a late start
 * cannot run on the next AP's stack), and the run continues.
 *
 * How many CPUs: as many as the MADT (types 0 and 9) or the MP table lists,
 * no compile-time maximum (issue 24). k_smp_setup() sizes the CPU table and
 * every K_PERCPU array from that count and allocates them from free RAM
 * (k/mem.h); a CPU whose per-CPU state does not fit is reported with the
 * reason and not started.
 *
 * Kernel options: smp=off (BSP only), smp=N (at most N CPUs, BSP included),
 * cpus=0,2,3 (logical CPU numbers allowed to start; 0 is the BSP and always
 * runs; the others are numbered 1.. in MADT order, BSP excluded).
 * smp_enum=mptable: take the CPU list from the MP table even where a MADT
 * exists (it is the fallback without one; kernel/src/mptable.c).
 * Test hook: smp_fail=2 sends CPU 2's STARTUP IPIs to a page that only
 * halts, so the "did not answer" path (report, re-INIT, carry on) runs.
 */
#ifndef K_SMP_H
#define K_SMP_H

#include <stdint.h>
#include <stdbool.h>
#include <ds/cpu.h>
#include <k/percpu.h> /* K_PERCPU, k_smp_self, k_smp_slots */
#include <k/spin.h>   /* struct k_spin */

#define K_AP_TRAMP_BASE 0x8000u
#define K_AP_DEAD_BASE  0x9000u   /* smp_fail= test hook: a SIPI target that only halts */
#define K_SMP_START_TIMEOUT_MS 2000u

enum k_smp_state {
    K_SMP_ABSENT = 0,     /* slot unused */
    K_SMP_SKIPPED,        /* listed, not started (smp=/cpus=/limits) */
    K_SMP_FAILED,         /* INIT-SIPI-SIPI sent, no answer */
    K_SMP_RUNNING,        /* the AP reached C code */
    K_SMP_IDENTIFIED,     /* the AP ran ds_cpu_identify and parked */
};

struct k_smp_cpu {
    unsigned index;           /* logical number: 0 = BSP */
    uint32_t apic_id;         /* from the MADT */
    uint32_t apic_id_seen;    /* what the CPU read from its own local APIC */
    volatile int state;       /* enum k_smp_state */
    const char *why;          /* for SKIPPED/FAILED */
    int identify_err;         /* ds_cpu_identify() on that CPU */
    struct ds_cpu cpu;        /* that CPU's own libds context */
    void (*volatile call)(void);  /* k_smp_run_on mailbox */
    volatile unsigned calls_done;
    unsigned posted;              /* calls_done when the last call was posted */
};

/* Enumerate the CPUs and allocate the CPU table and the per-CPU arrays
 * (call once, on the BSP, after k_lapic_init, before anything uses a
 * K_PERCPU array). Prints nothing unless even the boot CPU's per-CPU state
 * does not fit: then it says so and returns false, and the caller ends the
 * run (FAIL; smp does not call the test harness, issue 26). */
bool k_smp_setup(void);
/* Start the APs (call once, on the BSP, after k_smp_setup, k_trap_init and
 * the BSP's capability report). Prints one line per CPU. */
void k_smp_start(void);
/* Number of CPU slots filled (BSP included) and the table. */
unsigned k_smp_count(void);
const struct k_smp_cpu *k_smp_cpu(unsigned i);
/* The MADT was read (false: no ACPI, smp=off before enumeration, ...). */
bool k_smp_enumerated(void);

/* Run @fn on AP @i (interrupts enabled there) and wait until it returns.
 * The BSP spins meanwhile, so @fn may use the kernel's state (console,
 * trap table, test counters) as the BSP would. Returns 0, or -1
 * if CPU @i is not a running AP. The AP is woken by a fixed IPI with
 * K_VEC_SMP_WAKE (between the kernel's test range and its fixed vectors). */
#define K_VEC_SMP_WAKE 0xEE
int k_smp_run_on(unsigned i, void (*fn)(void));
/* The two halves: post @fn to AP @i without waiting (0, or -1 as above or
 * if a call is still running there), then wait for it. Between them the
 * caller runs concurrently with the AP: the console's lines and the ktest
 * counters are locked (k_console_lines, ktest.c), other kernel state that
 * @fn also uses is the caller's to serialise. */
int k_smp_post(unsigned i, void (*fn)(void));
void k_smp_wait(unsigned i);
/* Vector of the smp_conc group's per-CPU PMI self-IPI. */
#define K_VEC_SMP_PMI 0xED

/* Trampoline image and its parameter block (kernel/arch/<arch>/trampoline.S). */
struct k_ap_tramp_params {
    uint64_t cr3, cr4, stack, entry, arg;
};
extern const char k_ap_tramp_start[], k_ap_tramp_end[], k_ap_tramp_params[];

#endif
