/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The architectural PEBS flow (Panther Lake and later). See flow.h.
 */
#include "flow.h"

/* --- architectural PEBS flow (Panther Lake and later) ---------------------------
 *
 * Architectural PEBS has no DS area: its buffer is IA32_PEBS_BASE/INDEX
 * (arch_pebs.h), the counter's PEBS enable and record groups are its CFG_C,
 * and the threshold PMI is IA32_PERF_GLOBAL_STATUS bit 54. The session
 * serves it (do_session_run); the checks are those of the DS-area PEBS
 * runs: sample count from events/period, IPs inside the workload, data
 * addresses inside the chased array, nothing lost silently.
 *
 * IA32_PEBS_BASE takes a PHYSICAL address: this kernel's memory is
 * identity-mapped (linear == physical), so ses_mem's pointer is its
 * physical address on both backends (cfg.mem_phys 0 = identity). Not verified on hardware here (no
 * architectural-PEBS CPU on this host).
 */
/* The PEBS checks of run_checks, for the architectural records. */
static void apebs_checks(const struct run_cfg *rc, uint64_t events, uint64_t expect)
{
    uint64_t got = E.npebs + E.pebs_over;
    if (E.model)
        check(got == expect, "%s: %u architectural PEBS samples = floor((%u events - 1) / period %u) = %u (model rule)",
              rc->name, (unsigned)got, (unsigned)events, (unsigned)rc->period, (unsigned)expect);
    else
        check(got + 2 + expect / 4 >= expect && got <= expect + 2 + expect / 4,
              "%s: %u architectural PEBS samples ~ %u events / period %u = %u (hardware tolerance)", rc->name,
              (unsigned)got, (unsigned)events, (unsigned)rc->period, (unsigned)expect);
    uint32_t inr = 0, arch = 0, mem_ok = 0, mem_n = 0, m64 = 0;
    uint64_t ret_to = ret_to_of_run(), b = (uintptr_t)E.chase_arr;
    for (uint32_t i = 0; i < E.npebs; i++) {
        inr += ip_ok(i, ret_to);
        arch += E.pebs[i].fmt == DSREC_PEBS_ARCH;
        m64 += E.pinfo[i].mode64;
        if (rc->loads && E.pinfo[i].has_mem) {
            mem_n++;
            mem_ok += E.pinfo[i].data_addr >= b && E.pinfo[i].data_addr < b + sizeof E.chase_arr;
        }
    }
    check(arch == E.npebs, "%s: %u of %u records are architectural (fmt=arch)", rc->name, arch, E.npebs);
    /* The header's 64BIT_MODE says the record was taken in 64-bit mode (Linux
     * struct arch_pebs_header mode:1 at 30): every record on the x86_64
     * kernel, none on the i386 kernel (protected mode, the 32-bit path). */
    uint32_t m64_want = sizeof(void *) == 8 ? E.npebs : 0;
    check(m64 == m64_want, "%s: %u of %u records with header 64BIT_MODE set (%u expected on this %s kernel)",
          rc->name, m64, E.npebs, m64_want, sizeof(void *) == 8 ? "x86_64" : "i386");
    check(E.npebs > 0 && (E.model ? inr == E.npebs : inr * 4 >= E.npebs * 3), "%s: %u of %u sampled IPs inside %s",
          rc->name, inr, E.npebs, wl_name(rc->wl));
    if (mem_n)
        check(mem_ok == mem_n, "%s: %u of %u sampled data addresses inside the chased array", rc->name, mem_ok, mem_n);
    check(E.pst.records + lost_of(&E.pst) == E.pst.present && lost_of(&E.pst) == 0 &&
              !(E.pst.anomalies & DS_DRAIN_FULL),
          "%s: architectural PEBS drain: %u present = %u records + %u lost, none lost, never FULL", rc->name,
          (unsigned)E.pst.present, (unsigned)E.pst.records, (unsigned)lost_of(&E.pst));
    if (E.model)
        check(E.pst.present == dsm_stats(&E.m)->pebs_written && dsm_stats(&E.m)->pebs_skipped == 0,
              "%s: the model wrote %u architectural PEBS records (%u threshold PMI requests), all drained", rc->name,
              (unsigned)dsm_stats(&E.m)->pebs_written, (unsigned)E.m.ap.thresh_pmis);
}

/* The architectural-PEBS checks after the final drain, then the RUN line
 * (do_session_run); @want_frags: fragments per record (model E-core 2). */
void apebs_run_checks(const struct run_cfg *rc, uint32_t want_frags)
{
    struct wl_expect x;
    wl_expect_of(rc->wl, rc->n, &x);
    uint64_t events = rc->loads ? x.loads : x.insns;
    if (E.model) {
        check(E.bad_steps == 0 && E.dsm_err == 0 && E.insns == x.insns && E.loads == x.loads,
              "%s: every step of %s decoded and fed (%u instructions, %u loads)", rc->name, wl_name(rc->wl),
              (unsigned)E.insns, (unsigned)E.loads);
        events = rc->loads ? E.loads : E.insns;
        check(E.delivered > 0 && E.handled == E.delivered && E.nmi_timeouts == 0,
              "%s: %u model threshold PMIs delivered (%s), %u handled", rc->name, E.delivered,
              rc->nmi ? "NMI" : "fixed vector", E.handled);
        if (rc->hold_first)
            check(E.held == HOLD_STEPS - 1, "%s: the first PMI waited %u steps under the masked LVT PC, then arrived",
                  rc->name, E.held);
    }
    check(E.pmi_err == DS_OK, "%s: PMI handling without error (%s)", rc->name, ds_errname(E.pmi_err));
    uint64_t expect = dsm_pebs_expected(events, rc->period);
    apebs_checks(rc, events, expect);
    if (E.model) {
        uint32_t fr = 0;
        for (uint32_t i = 0; i < E.npebs; i++)
            fr += E.pebs[i].frags == want_frags;
        check(fr == E.npebs, "%s: %u of %u records reassembled from %u fragment(s) each", rc->name, fr, E.npebs,
              want_frags);
    }
    check_lbr(rc);
    print_run(rc, events, expect);
}
