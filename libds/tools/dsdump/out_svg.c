/* SPDX-License-Identifier: BSD-2-Clause */
/* --svg: a hot-spot chart of the sample table. See out_svg.h. */
#include "out_svg.h"

#include "utf8.h"

#include <inttypes.h>
#include <stdio.h>

/* XML character data; ill-formed UTF-8 becomes U+FFFD, controls are dropped
 * (XML 1.0 forbids them). */
static void xml_text(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        switch (n ? *p : 0) {
        case 0: fputs("\xEF\xBF\xBD", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if (*p >= 0x20)
                fwrite(p, 1, n, f);
        }
        p += n ? n : 1;
    }
}

int write_svg(const char *path, const struct input *S, const struct runs *R)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    const int top = 20, row = 18, width = 900, label_w = 300, bar_w = 480;
    int rows = 1;
    for (size_t i = 0; i < R->n; i++)
        if (R->v[i].pebs)
            rows += 2 + (int)(R->v[i].nsyms > 20 ? 20 : R->v[i].nsyms);
    int height = top + rows * row + 10;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"monospace\" font-size=\"12\">\n", width, height, width, height);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    fprintf(f, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">PEBS hot spots: ", top);
    xml_text(f, S->name);
    fprintf(f, "</text>\n");
    int y = top + row;
    for (size_t i = 0; i < R->n; i++) {
        const struct run *ru = &R->v[i];
        if (!ru->pebs)
            continue;
        char lb[80];
        run_label(R, ru->log, ru->name, lb, sizeof lb);
        y += row;
        fprintf(f, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">run ", y);
        xml_text(f, lb);
        fprintf(f, " (%" PRIu64 " samples)</text>\n", ru->pebs);
        for (size_t k = 0; k < ru->nsyms && k < 20; k++) {
            y += row;
            double frac = (double)ru->syms[k].n / (double)ru->pebs;
            int w = (int)(frac * bar_w + 0.5);
            int red = 80 + (int)(frac * 175);
            fprintf(f, "<g><title>");
            xml_text(f, ru->syms[k].name);
            fprintf(f, ": %" PRIu64 " samples</title>", ru->syms[k].n);
            fprintf(f, "<text x=\"20\" y=\"%d\">", y);
            char nm[40];
            snprintf(nm, sizeof nm, "%.38s", ru->syms[k].name);
            xml_text(f, nm);
            fprintf(f, "</text><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,60,40)\"/>",
                    label_w, y - row + 5, w > 0 ? w : 1, row - 4, red);
            fprintf(f, "<text x=\"%d\" y=\"%d\">%.2f%%</text></g>\n", label_w + bar_w + 10, y, 100.0 * frac);
        }
        y += row / 2;
    }
    fprintf(f, "</svg>\n");
    return fclose(f);
}

