/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * docs/porting.md "Sessions in your kernel": the kernel's side of a session
 * (issue 29) -- per-CPU static placement, the IDT gate (fixed vector or
 * NMI), the local APIC LVT Performance Counter entry (programmed, masked
 * around configuration, re-unmasked after every PMI), EOI for fixed
 * delivery, the interrupted IP from the trap frame. The guide's code blocks
 * are copied from this file (embed.snippets checks they still match) and
 * embed.porting.{i386,x86_64} compile it freestanding with gcc -Werror
 * for both ABIs against the libds headers: it is code that builds, not
 * pseudo-code. The handlers use gcc's x86 interrupt attribute (it saves
 * every register it or its callees may clobber and returns with IRET); an
 * assembly stub that pushes the registers and passes the frame does the same.
 *
 * What the kernel itself provides is declared extern below (this_cpu, the
 * xAPIC mapping, the NMI chain, its code selector): every kernel has them.
 * Native MSR access: ds_cpu_init(.., NULL, NULL) (the CPU's own RDMSR,
 * WRMSR, CPUID). On the reference model pass &ds_model_msr_ops and the
 * struct dsm_cpu instead (tests/embed/kernel/sample.c).
 */
#include <ds/ds.h>
#include <ds/session.h>

#define MAX_CPUS   8u
#define PMI_VECTOR 0xF0u          /* fixed delivery: any free vector 32..255 */
#define PERIOD     10000u         /* sample every 10,000 instructions */

/* Local APIC EOI (SDM Vol. 3A "EOI Register"); the LVT PC entry's offset,
 * MSR and fields come from ds/lvt.h (DS_LVT_PC_*, ds_lvt_pc_value). */
#define EOI_XAPIC     0x0B0u
#define EOI_X2APIC    0x80Bu

/* The kernel's own pieces (declared here, defined by your kernel). */
extern unsigned this_cpu(void);             /* index from GS/FS base, TSS or APIC ID */
extern volatile uint32_t *lapic_mmio;       /* xAPIC page, mapped uncached */
extern bool lapic_x2;                       /* x2APIC mode */
extern void nmi_chain(uintptr_t ip);        /* the NMI was not a PMI: your other NMI handling */
extern uint16_t kernel_cs;                  /* code segment selector of the IDT gates */

/* ---- per-CPU placement: static, one slot per logical CPU, no allocation */
struct pcpu {
    struct ds_cpu cpu;                      /* identified ON this CPU */
    struct ds_session ses;                  /* i386 5592, x86_64 6072 bytes: not on a stack */
    uint32_t lvt;                           /* this CPU's unmasked LVT PC value */
    unsigned long samples;
};
static struct pcpu pcpu[MAX_CPUS];          /* .bss: zeroed, so ds_session_pmi is safe at once */
static unsigned char pmu_mem[MAX_CPUS][64 * 1024] __attribute__((aligned(4096)));

static void on_sample(void *arg, const struct ds_session_sample *s)
{
    struct pcpu *p = arg;                   /* this CPU's slot: no global, no lock */
    (void)s;                                /* s->ip, s->req, s->pebs: into a per-CPU ring */
    p->samples++;
}

/* ---- the LVT PC entry and EOI, xAPIC or x2APIC */
static void wrmsr32(uint32_t msr, uint32_t v)
{
    __asm__ volatile("wrmsr" : : "c"(msr), "a"(v), "d"(0u));
}

static void lvt_pc_write(uint32_t v)
{
    if (lapic_x2)
        wrmsr32(DS_MSR_IA32_X2APIC_LVT_PMI, v);
    else
        lapic_mmio[DS_LVT_PC_XAPIC_OFFSET / 4] = v;
}

static void lapic_eoi(void)
{
    if (lapic_x2)
        wrmsr32(EOI_X2APIC, 0);
    else
        lapic_mmio[EOI_XAPIC / 4] = 0;
}

/* ---- IDT gates: 8 bytes on i386, 16 on x86_64 (SDM Vol. 3A "IDT Descriptors") */
#if defined(__x86_64__)
struct idt_gate {
    uint16_t off_lo, sel;
    uint8_t ist, type;                      /* ist: a known-good stack for the NMI */
    uint16_t off_mid;
    uint32_t off_hi, zero;
};
#else
struct idt_gate {
    uint16_t off_lo, sel;
    uint8_t zero, type;
    uint16_t off_hi;
};
#endif
_Static_assert(sizeof(struct idt_gate) == 2 * sizeof(void *), "IDT gate size");

static void idt_set(struct idt_gate *idt, unsigned vec, void (*fn)(void), unsigned ist)
{
    uintptr_t a = (uintptr_t)fn;
    struct idt_gate *g = &idt[vec];
    g->off_lo = (uint16_t)a;
    g->sel = kernel_cs;
    g->type = 0x8E;                         /* present, DPL 0, interrupt gate (IF cleared) */
#if defined(__x86_64__)
    g->ist = (uint8_t)ist;
    g->off_mid = (uint16_t)(a >> 16);
    g->off_hi = (uint32_t)((uint64_t)a >> 32);
    g->zero = 0;
#else
    (void)ist;
    g->zero = 0;
    g->off_hi = (uint16_t)(a >> 16);
#endif
}

/* ---- the handlers: the trap frame's first word is the interrupted IP */
struct trap_frame {
    uintptr_t ip, cs, flags;                /* + sp, ss from another ring (and always on x86_64) */
};

static int pmi_common(uintptr_t ip)
{
    struct pcpu *p = &pcpu[this_cpu()];     /* the CPU the PMI arrived on: the LVT is local */
    int e = ds_session_pmi(&p->ses, ip, NULL);
    lvt_pc_write(p->lvt);                   /* delivery masked the entry: unmask, every PMI */
    return e;
}

__attribute__((interrupt)) static void pmi_fixed(struct trap_frame *f)
{
    (void)pmi_common(f->ip);
    lapic_eoi();                            /* fixed delivery only, after the LVT rewrite */
}

__attribute__((interrupt)) static void pmi_nmi(struct trap_frame *f)
{
    if (pmi_common(f->ip) == DS_ERR_SESSION_SPURIOUS)
        nmi_chain(f->ip);                   /* not ours: pass the NMI on; no EOI for NMIs */
}

void pmi_install(struct idt_gate *idt, bool nmi)
{
    if (nmi)
        idt_set(idt, 2, (void (*)(void))pmi_nmi, 1);
    else
        idt_set(idt, PMI_VECTOR, (void (*)(void))pmi_fixed, 0);
}

/* ---- bring-up and shut-down, on the CPU itself (BSP and each AP) */
int pmu_session_start(bool nmi)
{
    struct pcpu *p = &pcpu[this_cpu()];
    struct ds_cpu *cpu = &p->cpu;
    struct ds_session *ses = &p->ses;
    unsigned char *buf = pmu_mem[this_cpu()];
    int lv = ds_lvt_pc_value(nmi, nmi ? 0 : PMI_VECTOR, false, &p->lvt); /* ds/lvt.h */
    if (lv != DS_OK)
        return lv;                          /* a fixed vector below 32: DS_ERR_PMI_LVT_VECTOR */
    lvt_pc_write(p->lvt | DS_LVT_PC_MASKED); /* no PMI while the session is configured */
    int e = ds_cpu_init(cpu, NULL, NULL);   /* native RDMSR/WRMSR/CPUID */
    if (e == DS_OK)
        e = ds_cpu_identify(cpu);
    struct ds_session_config cfg = {.mem = buf, .bytes = sizeof(pmu_mem[0]), .on_sample = on_sample};
    cfg.arg = p;
    if (e == DS_OK)
        e = ds_session_init(ses, cpu, &cfg);
    struct ds_request rq = {.event = DS_EVENT_INSTRUCTIONS, .period = PERIOD, .mode = DS_SAMPLE_PRECISE};
    if (e == DS_OK)
        e = ds_session_add(ses, &rq, NULL);
    if (e == DS_OK)
        e = ds_session_start(ses);
    if (e == DS_OK)
        lvt_pc_write(p->lvt);               /* unmasked: PMIs from here on */
    return e;                               /* ds_errname(e), ds_strerror(e): the cause */
}

int pmu_session_end(void)
{
    struct pcpu *p = &pcpu[this_cpu()];
    lvt_pc_write(p->lvt | DS_LVT_PC_MASKED); /* no PMI interrupts stop's final drain */
    int e = ds_session_stop(&p->ses);
    int t = ds_session_teardown(&p->ses);   /* every MSR back as found */
    return e ? e : t;
}
