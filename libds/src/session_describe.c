/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sessions: ds_session_describe (session_int.h), the chosen counters,
 * formats and buffers as text (DS_CONFIG_FORMAT).
 */
#include "session_int.h"

#if DS_CONFIG_FORMAT
static const char *fmt_name(enum ds_pebs_fmt f)
{
    switch (f) {
    case DS_PEBS_FMT_0: return "PEBS format 0";
    case DS_PEBS_FMT_1: return "PEBS format 1";
    case DS_PEBS_FMT_2: return "PEBS format 2";
    case DS_PEBS_FMT_3: return "PEBS format 3";
    case DS_PEBS_FMT_4: return "PEBS format 4 (adaptive)";
    case DS_PEBS_FMT_5: return "PEBS format 5 (adaptive)";
    case DS_PEBS_FMT_6: return "PEBS format 6 (adaptive)";
    case DS_PEBS_FMT_NB32: return "NetBurst PEBS (32-bit DS)";
    case DS_PEBS_FMT_NB64: return "NetBurst PEBS (64-bit DS)";
    case DS_PEBS_FMT_ARCH: return "architectural PEBS";
    default: return "no PEBS";
    }
}

static const char *how_name(const struct ds_session_req *r)
{
    switch (r->how) {
    case DS_HOW_PEBS: return "PEBS";
    case DS_HOW_APEBS: return "arch PEBS";
    case DS_HOW_NB_PEBS: return "NetBurst PEBS, replay tagging";
    case DS_HOW_OVERFLOW: return "overflow PMI";
    case DS_HOW_NB_OVERFLOW: return "overflow PMI (CCCR.OVF_PMI)";
    case DS_HOW_BTS: return r->rq.mode == DS_TRACE_BTS ? "BTS linear, threshold PMI" : "BTS circular";
    case DS_HOW_COUNT: return "count only (counters group)";
    default: return "?";
    }
}

static const char *const freeze_names[] = { "none", "legacy", "streamlined" };

static void describe_req(struct ds__sb *b, const struct ds_session *s, unsigned i)
{
    const struct ds_session_req *r = &s->req[i];
    ds__sb_puts(b, "req ");
    ds__sb_dec(b, i);
    ds__sb_puts(b, ": ");
    ds__sb_puts(b, r->rq.raw.set ? "raw" : (r->rq.event == DS_EVENT_NONE ? "-" : r->name));
    if (r->how == DS_HOW_BTS) {
        ds__sb_puts(b, ", ");
        ds__sb_puts(b, how_name(r));
        ds__sb_putc(b, '\n');
        return;
    }
    if (r->how == DS_HOW_NB_PEBS || r->how == DS_HOW_NB_OVERFLOW) {
        ds__sb_puts(b, " ESCR ");
        ds__sb_hex(b, r->nbas.escr_msr, 0);
        ds__sb_puts(b, "=");
        ds__sb_hex(b, r->nbas.escr_val, 0);
        ds__sb_puts(b, " on counter ");
        ds__sb_dec(b, r->idx);
        ds__sb_puts(b, r->idx == 16 ? " (IQ_COUNTER4)" : "");
    } else if (r->kind == DS_CTR_FIXED) {
        /* a fixed counter has no EVTSEL: its IA32_FIXED_CTR_CTRL field */
        ds__sb_puts(b, " fixed_ctr_ctrl ");
        ds__sb_hex(b, ses_fixed_ctrl(r), 0);
        ds__sb_puts(b, " on FIXED");
        ds__sb_dec(b, r->idx);
    } else {
        ds__sb_puts(b, " evtsel ");
        ds__sb_hex(b, r->evtsel, 0);
        ds__sb_puts(b, " on PMC");
        ds__sb_dec(b, r->idx);
    }
    ds__sb_puts(b, ", ");
    ds__sb_puts(b, how_name(r));
    ds__sb_puts(b, ", period ");
    ds__sb_dec(b, r->rq.period);
    ds__sb_puts(b, " start ");
    ds__sb_hex(b, r->start, 0);
    ds__sb_putc(b, '\n');
}

/* Before start: the buffers start will carve (ds__ses_bufplan, memory
 * only), marked "planned"; a region start would refuse says so. */
static void describe_plan(struct ds__sb *b, const struct ds_session *s)
{
    struct ses_bufplan o;
    uint64_t dc = ds__ses_data_cfg(s);
    int e = ds__ses_bufplan(s, dc, &o);
    if (e) {
        ds__sb_puts(b, "planned buffers: none, start would fail: ");
        ds__sb_puts(b, ds_strerror(e));
        ds__sb_putc(b, '\n');
        return;
    }
    if (o.pebs_n) {
        ds__sb_puts(b, "planned PEBS buffer: ");
        ds__sb_dec(b, o.pebs_n);
        ds__sb_puts(b, " records of ");
        ds__sb_dec(b, o.pebs_rsz);
        ds__sb_puts(b, " bytes, threshold ");
        ds__sb_dec(b, o.pebs_thr);
        ds__sb_puts(b, " records, data_cfg ");
        ds__sb_hex(b, dc, 0);
        ds__sb_putc(b, '\n');
    }
    if (o.apebs) {
        ds__sb_puts(b, "planned arch PEBS buffer: ");
        ds__sb_dec(b, (uint64_t)SES_PAGE << o.apebs_code);
        ds__sb_puts(b, " bytes\n");
    }
    if (o.bts_n) {
        ds__sb_puts(b, "planned BTS buffer: ");
        ds__sb_dec(b, o.bts_n);
        ds__sb_puts(b, " records, threshold ");
        ds__sb_dec(b, o.bts_thr);
        ds__sb_puts(b, o.bts_thr ? "\n" : " (circular)\n");
    }
}

static void describe_bufs(struct ds__sb *b, const struct ds_session *s)
{
    if (s->state == DS_SESSION_READY && !s->started) {
        describe_plan(b, s);
        return;
    }
    if (s->ctx.setup && s->ctx.pebs.mem) {
        ds__sb_puts(b, "PEBS buffer: ");
        ds__sb_dec(b, s->ctx.pebs.nrec);
        ds__sb_puts(b, " records of ");
        ds__sb_dec(b, s->ctx.pebs.rec_size);
        ds__sb_puts(b, " bytes, threshold ");
        ds__sb_dec(b, s->ctx.pebs.thresh_records);
        ds__sb_puts(b, " records, data_cfg ");
        ds__sb_hex(b, s->data_cfg, 0);
        ds__sb_putc(b, '\n');
    }
    if (s->ap.setup) {
        ds__sb_puts(b, "arch PEBS buffer: ");
        ds__sb_dec(b, s->ap.bytes);
        ds__sb_puts(b, " bytes, threshold ");
        ds__sb_dec(b, s->ap.thresh);
        ds__sb_puts(b, " bytes\n");
    }
    if (s->ctx.setup && s->ctx.bts.mem) {
        ds__sb_puts(b, "BTS buffer: ");
        ds__sb_dec(b, s->ctx.bts.nrec);
        ds__sb_puts(b, " records, threshold ");
        ds__sb_dec(b, s->ctx.bts.thresh_records);
        ds__sb_puts(b, s->ctx.bts.thresh_records ? "\n" : " (circular)\n");
    }
}

DS_COLD int ds_session_describe(const struct ds_session *s, char *buf, size_t len)
{
    if (!s || !buf)
        return DS_ERR_NULL;
    struct ds__sb b;
    ds__sb_init(&b, buf, len);
    ds__sb_puts(&b, "uarch ");
    ds__sb_puts(&b, ds_uarch_name(s->uarch));
    ds__sb_puts(&b, " (family ");
    ds__sb_hex(&b, s->cpu ? s->cpu->caps.display_family : 0, 2);
    ds__sb_puts(&b, " model ");
    ds__sb_hex(&b, s->cpu ? s->cpu->caps.display_model : 0, 2);
    ds__sb_puts(&b, "), ");
    ds__sb_puts(&b, fmt_name(s->fmt));
    ds__sb_puts(&b, ", freeze ");
    ds__sb_puts(&b, s->state == DS_SESSION_RUNNING || s->state == DS_SESSION_STOPPED
                        ? freeze_names[s->freeze <= DS_FREEZE_STREAMLINED ? s->freeze : 0] : "(chosen at start)");
    ds__sb_putc(&b, '\n');
    for (unsigned i = 0; i < s->nreq && i < DS_SESSION_MAX_REQ; i++)
        describe_req(&b, s, i);
    describe_bufs(&b, s);
    return b.truncated ? DS_ERR_BUFSZ : DS_OK;
}
#else
DS_COLD int ds_session_describe(const struct ds_session *s, char *buf, size_t len)
{
    (void)s;
    if (buf && len)
        buf[0] = '\0';
    return DS_ERR_UNSUPPORTED;
}
#endif
