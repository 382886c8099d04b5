/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The session PMI sink's PEBS attribution (session_pmi.c ses_pebs_sink),
 * alone in this header so that ctest host.test_session can compare it with
 * ds_pebs_attribute without the session's private names.
 */
#ifndef DS_SESSION_ATTR_H
#define DS_SESSION_ATTR_H

#include <ds/config.h>
#include <ds/pebs.h>

/* The counters a PEBS record names among @en, the session's PEBS status
 * bits, as the routing uses them: ds_pebs_attribute's *out on success, its
 * *out & @en on an error (DS_ERR_PEBS_AMBIGUOUS: both candidates; an unknown
 * format, or NetBurst compiled out: 0), and for architectural PEBS the
 * record's applicable counters & @en. Pure, no out-parameter, no call: the
 * PMI sink's frame holds nothing for it (issue 29 item 3). ctest
 * host.test_session compares it with ds_pebs_attribute on every format. */
static inline __attribute__((always_inline)) uint64_t ds__ses_pebs_ctrs(const struct ds_pebs_sample *p, uint64_t en)
{
    uint64_t c = p->counters & en;
    switch (p->fmt) {
    case DS_PEBS_FMT_0:
        return 1; /* Core 2 / Atom: PEBS only on IA32_PMC0 (not masked) */
    case DS_PEBS_FMT_NB32:
    case DS_PEBS_FMT_NB64:
        return DS_CONFIG_NETBURST ? en : 0; /* the one PEBS counter */
    case DS_PEBS_FMT_1:
    case DS_PEBS_FMT_2:
        /* status 0 with one PEBS counter enabled: that one */
        return !c && en && !(en & (en - 1)) ? en : c;
    case DS_PEBS_FMT_3:
    case DS_PEBS_FMT_4:
    case DS_PEBS_FMT_5:
    case DS_PEBS_FMT_6:
    case DS_PEBS_FMT_ARCH:
        return c;
    default:
        return 0;
    }
}

#endif /* DS_SESSION_ATTR_H */
