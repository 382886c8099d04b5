/* SPDX-License-Identifier: BSD-2-Clause */
/* Framebuffer console (k/fbcon.h). */
#include <k/boot.h>
#include <k/fbcon.h>
#include <k/string.h>
#include <stddef.h>

extern const uint8_t k_font8x16[224][16]; /* U+0020..U+00FF, generated (kernel/font/psf2c.py) */

#define LINE_MAX 256

static struct {
    volatile uint8_t *base;
    uint32_t pitch, width, height, bpp;
    uint8_t rpos, rsize, gpos, gsize, bpos, bsize;
    unsigned scale, cols, rows, row;
    char line[LINE_MAX];
    unsigned len;
    bool on, frozen; /* frozen: the verdict is on screen; later lines go elsewhere only */
} F;

enum colour { C_TEXT, C_OK, C_FAIL, C_SKIP, C_NOTE, C_BG, C_PASS_BG, C_FAIL_BG, C_WHITE };
static const uint8_t rgb[][3] = {
    [C_TEXT] = {0xD0, 0xD0, 0xD0}, [C_OK] = {0x40, 0xD0, 0x40},     [C_FAIL] = {0xFF, 0x50, 0x50},
    [C_SKIP] = {0xE0, 0xC0, 0x30}, [C_NOTE] = {0x90, 0x90, 0xA0},   [C_BG] = {0x00, 0x00, 0x00},
    [C_PASS_BG] = {0x10, 0x50, 0x10}, [C_FAIL_BG] = {0x70, 0x10, 0x10}, [C_WHITE] = {0xFF, 0xFF, 0xFF},
};

static uint32_t pixel(enum colour c)
{
    /* each 8-bit component scaled down to its mask size, shifted to its position */
    return (uint32_t)(rgb[c][0] >> (8 - F.rsize)) << F.rpos | (uint32_t)(rgb[c][1] >> (8 - F.gsize)) << F.gpos |
           (uint32_t)(rgb[c][2] >> (8 - F.bsize)) << F.bpos;
}

static void put_px(volatile uint8_t *p, uint32_t v)
{
    if (F.bpp == 32)
        *(volatile uint32_t *)p = v;
    else if (F.bpp == 16)
        *(volatile uint16_t *)p = (uint16_t)v;
    else
        p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16);
}

static void fill(unsigned x, unsigned y, unsigned w, unsigned h, enum colour c)
{
    uint32_t v = pixel(c), bytes = F.bpp / 8;
    for (unsigned j = y; j < y + h && j < F.height; j++)
        for (unsigned i = x; i < x + w && i < F.width; i++)
            put_px(F.base + (size_t)j * F.pitch + (size_t)i * bytes, v);
}

/* One glyph at pixel (x, y), scale s, foreground fg on background bg. */
static void glyph(unsigned x, unsigned y, unsigned s, unsigned char ch, enum colour fg, enum colour bg)
{
    const uint8_t *g = k_font8x16[(ch >= 0x20 ? ch : '?') - 0x20];
    uint32_t on = pixel(fg), off = pixel(bg), bytes = F.bpp / 8;
    for (unsigned r = 0; r < 16 * s; r++) {
        if (y + r >= F.height)
            return;
        volatile uint8_t *p = F.base + (size_t)(y + r) * F.pitch + (size_t)x * bytes;
        uint8_t bits = g[r / s];
        for (unsigned c = 0; c < 8 * s && x + c < F.width; c++, p += bytes)
            put_px(p, bits & (0x80u >> (c / s)) ? on : off);
    }
}

bool k_fbcon_init(const struct k_boot_info *bi)
{
    if (!bi->fb_bpp || !bi->fb_rsize || bi->fb_rsize > 8 || bi->fb_gsize > 8 || bi->fb_bsize > 8)
        return false;
    F.base = (volatile uint8_t *)(uintptr_t)bi->fb_addr;
    F.pitch = bi->fb_pitch, F.width = bi->fb_width, F.height = bi->fb_height, F.bpp = bi->fb_bpp;
    F.rpos = bi->fb_rpos, F.rsize = bi->fb_rsize, F.gpos = bi->fb_gpos, F.gsize = bi->fb_gsize;
    F.bpos = bi->fb_bpos, F.bsize = bi->fb_bsize;
    F.scale = F.width >= 1600 ? 2 : 1;
    F.cols = F.width / (8 * F.scale);
    F.rows = F.height / (16 * F.scale);
    if (!F.cols || F.rows < 2)
        return false;
    fill(0, 0, F.width, F.height, C_BG);
    F.row = F.len = 0;
    F.on = true;
    return true;
}

bool k_fbcon_active(void) { return F.on; }
unsigned k_fbcon_cols(void) { return F.cols; }
unsigned k_fbcon_rows(void) { return F.rows; }

static bool starts(const char *s, const char *p)
{
    while (*p)
        if (*s++ != *p++)
            return false;
    return true;
}

static enum colour line_colour(void)
{
    F.line[F.len < LINE_MAX ? F.len : LINE_MAX - 1] = '\0';
    for (unsigned i = 0; i + 6 <= F.len; i++)
        if (starts(F.line + i, "# SKIP"))
            return C_SKIP;
    if (starts(F.line, "not ok"))
        return C_FAIL;
    if (starts(F.line, "ok "))
        return C_OK;
    return F.line[0] == '#' ? C_NOTE : C_TEXT;
}

/* Full screen: move the lower half up, clear the rest (one copy per half screen). */
static void scroll_half(void)
{
    unsigned keep = F.rows / 2, drop = F.rows - keep, ch = 16 * F.scale;
    size_t from = (size_t)drop * ch * F.pitch, n = (size_t)keep * ch * F.pitch;
    memmove((void *)(uintptr_t)F.base, (const void *)(uintptr_t)(F.base + from), n);
    fill(0, keep * ch, F.width, F.height - keep * ch, C_BG);
    F.row = keep;
}

static void flush_line(void)
{
    enum colour c = line_colour();
    if (F.row == F.rows)
        scroll_half();
    unsigned n = F.len < F.cols ? F.len : F.cols;
    for (unsigned i = 0; i < n; i++)
        glyph(i * 8 * F.scale, F.row * 16 * F.scale, F.scale, (unsigned char)F.line[i], c, C_BG);
    F.row++;
    F.len = 0;
}

void k_fbcon_putc(char c)
{
    if (!F.on || F.frozen || c == '\r')
        return;
    if (c == '\n') {
        flush_line();
        return;
    }
    if (F.len < LINE_MAX - 1)
        F.line[F.len++] = c;
    if (F.len == F.cols) /* wrap: draw what fits, go on on the next row */
        flush_line();
}

static unsigned slen(const char *p)
{
    unsigned l = 0;
    while (p[l])
        l++;
    return l;
}

/* Screen rows the verdict needs at scale s: long lines wrap (continued two
 * cells in), one row of margin above and below, two cells left and right. */
static unsigned verdict_rows(const char *const *lines, unsigned n, unsigned s, unsigned *cols)
{
    *cols = F.width / (8 * s) > 4 ? F.width / (8 * s) - 4 : 1;
    unsigned rows = 2;
    for (unsigned i = 0; i < n; i++) {
        unsigned l = slen(lines[i]);
        rows += 1 + (l > *cols && *cols > 2 ? (l - *cols + *cols - 3) / (*cols - 2) : 0);
    }
    return rows;
}

void k_fbcon_verdict(const char *const *lines, unsigned n, bool pass)
{
    if (!F.on)
        return;
    unsigned s = 3, cols;
    while (s > 1 && verdict_rows(lines, n, s, &cols) * 16 * s > F.height)
        s--;
    verdict_rows(lines, n, s, &cols);
    enum colour bg = pass ? C_PASS_BG : C_FAIL_BG;
    F.frozen = true;
    fill(0, 0, F.width, F.height, bg);
    unsigned row = 1;
    for (unsigned i = 0; i < n; i++) {
        unsigned l = slen(lines[i]), at = 0, indent = 0;
        while ((row + 1) * 16 * s <= F.height) {
            unsigned w = cols - indent;
            for (unsigned j = 0; j < w && at + j < l; j++)
                glyph((2 + indent + j) * 8 * s, row * 16 * s, s, (unsigned char)lines[i][at + j], C_WHITE, bg);
            row++;
            at += w;
            indent = 2;
            if (at >= l)
                break;
        }
    }
}
