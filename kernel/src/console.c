/* SPDX-License-Identifier: BSD-2-Clause */
/* Console: COM1, VGA text, debug port 0xE9; kprintf. See k/console.h. */
#include <k/console.h>
#include <k/fbcon.h>
#include <k/io.h>
#include <k/percpu.h>
#include <k/spin.h>
#include <stdint.h>

#define COM1 0x3F8
#define VGA_COLS 80
#define VGA_ROWS 25

static bool have_serial;
static bool use_vga = true;
static bool use_e9;
static unsigned vga_row, vga_col;

static bool serial_probe(void)
{
    /* Scratch register: a 16450+ UART keeps what is written to it. */
    outb(COM1 + 7, 0x5A);
    if (inb(COM1 + 7) != 0x5A)
        return false;
    outb(COM1 + 7, 0xA5);
    if (inb(COM1 + 7) != 0xA5)
        return false;
    outb(COM1 + 1, 0x00);  /* no UART interrupts */
    outb(COM1 + 3, 0x80);  /* DLAB */
    outb(COM1 + 0, 0x01);  /* divisor 1: 115200 baud */
    outb(COM1 + 1, 0x00);
    outb(COM1 + 3, 0x03);  /* 8N1 */
    outb(COM1 + 2, 0xC7);  /* FIFO on, cleared, 14-byte threshold */
    /* Loopback test: what is sent comes back. */
    outb(COM1 + 4, 0x1E);
    outb(COM1 + 0, 0xAE);
    for (unsigned i = 0; i < 100000 && !(inb(COM1 + 5) & 1); i++)
        ;
    if (!(inb(COM1 + 5) & 1) || inb(COM1 + 0) != 0xAE)
        return false;
    outb(COM1 + 4, 0x0F);  /* normal mode, DTR RTS OUT1 OUT2 */
    return true;
}

void k_console_init(void)
{
    have_serial = serial_probe();
}

void k_console_set_debugcon(bool on) { use_e9 = on; }
void k_console_set_vga(bool on) { use_vga = on; }
bool k_console_has_serial(void) { return have_serial; }

static void serial_putc(char c)
{
    /* Bounded wait: a wedged UART must not hang the kernel. */
    for (unsigned i = 0; i < 1000000 && !(inb(COM1 + 5) & 0x20); i++)
        ;
    outb(COM1, (uint8_t)c);
}

static void vga_putc(char c)
{
    volatile uint16_t *vga = (volatile uint16_t *)(uintptr_t)0xB8000;
    if (c == '\n') {
        vga_col = 0;
        vga_row++;
    } else if (c == '\r') {
        vga_col = 0;
    } else {
        vga[vga_row * VGA_COLS + vga_col] = (uint16_t)(0x0700 | (uint8_t)c);
        if (++vga_col == VGA_COLS) {
            vga_col = 0;
            vga_row++;
        }
    }
    if (vga_row == VGA_ROWS) {
        for (unsigned i = 0; i < (VGA_ROWS - 1) * VGA_COLS; i++)
            vga[i] = vga[i + VGA_COLS];
        for (unsigned i = 0; i < VGA_COLS; i++)
            vga[(VGA_ROWS - 1) * VGA_COLS + i] = 0x0720;
        vga_row = VGA_ROWS - 1;
    }
}

static void raw_putc(char c)
{
    if (have_serial) {
        if (c == '\n')
            serial_putc('\r');
        serial_putc(c);
    }
    if (use_vga)
        vga_putc(c);
    else
        k_fbcon_putc(c); /* no-op unless a framebuffer was taken */
    if (use_e9)
        outb(0xE9, (uint8_t)c);
}

/* Line mode (issue 13: e2e on every CPU at once): each CPU's output collects
 * in its own line buffer and goes out a whole line at a time under the
 * console lock, so lines of different CPUs never interleave mid-line. A
 * character printed while this CPU holds the lock (an NMI during its own
 * flush) goes out at once; an NMI that prints while its CPU is building a
 * line lands in that line (the e2e PMI handler prints nothing). */
#define LINE_MAX_CHARS 4095 /* > the longest DSLOG line (docs/records.md: about 2.6 KB) */
static struct k_spin out_lock;
static volatile bool line_mode;
struct line {
    char b[LINE_MAX_CHARS + 1];
    unsigned n;
};
K_PERCPU(struct line, lines);

static void line_flush(unsigned cpu)
{
    bool taken = k_spin_lock(&out_lock);
    for (unsigned i = 0; i < lines[cpu].n; i++)
        raw_putc(lines[cpu].b[i]);
    lines[cpu].n = 0;
    k_spin_unlock(&out_lock, taken);
}

void k_console_lines(bool on)
{
    if (!on) /* the caller is the only CPU printing again: flush what is left */
        for (unsigned i = 0; i < k_smp_slots(); i++)
            if (lines[i].n)
                line_flush(i);
    line_mode = on;
}

void k_console_write_block(const char *s, size_t n)
{
    bool taken = line_mode && k_spin_lock(&out_lock);
    for (size_t i = 0; i < n; i++)
        raw_putc(s[i]);
    k_spin_unlock(&out_lock, taken);
}

void kputc(char c)
{
    if (!line_mode || !lines) {
        raw_putc(c);
        return;
    }
    unsigned me = k_smp_self();
    if (__atomic_load_n(&out_lock.owner, __ATOMIC_ACQUIRE) == (int)me + 1) {
        raw_putc(c);
        return;
    }
    lines[me].b[lines[me].n++] = c;
    if (c == '\n' || lines[me].n == LINE_MAX_CHARS)
        line_flush(me);
}

void kputs(const char *s)
{
    while (*s)
        kputc(*s++);
}

/* --- formatting ----------------------------------------------------------- */

struct out {
    char *buf;        /* NULL: console */
    size_t len, pos;
};

static void emit(struct out *o, char c)
{
    if (!o->buf)
        kputc(c);
    else if (o->pos + 1 < o->len)
        o->buf[o->pos] = c;
    o->pos++;
}

static void emit_num(struct out *o, unsigned long long v, unsigned base, bool upper,
                     bool neg, int width, bool zero, bool left)
{
    char tmp[24];
    int n = 0;
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    do {
        /* base is 10 or 16: avoid 64-bit division helpers for base 16 */
        if (base == 16) {
            tmp[n++] = digits[v & 15];
            v >>= 4;
        } else {
            tmp[n++] = digits[v % 10];
            v /= 10;
        }
    } while (v);
    int total = n + (neg ? 1 : 0);
    if (!left && !zero)
        for (; width > total; width--)
            emit(o, ' ');
    if (neg)
        emit(o, '-');
    if (!left && zero)
        for (; width > total; width--)
            emit(o, '0');
    while (n)
        emit(o, tmp[--n]);
    if (left)
        for (; width > total; width--)
            emit(o, ' ');
}

/* About 95 lines (over the ~80 rule, issue 26): one pass over the format with
 * the conversions in one switch, so that va_arg is taken in one place. */
static int format(struct out *o, const char *fmt, va_list ap)
{
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            emit(o, *fmt);
            continue;
        }
        fmt++;
        bool zero = false, left = false;
        int width = 0, lng = 0;
        bool size = false;
        for (;; fmt++) {
            if (*fmt == '0')
                zero = true;
            else if (*fmt == '-')
                left = true;
            else
                break;
        }
        while (*fmt >= '0' && *fmt <= '9')
            width = width * 10 + (*fmt++ - '0');
        while (*fmt == 'l') {
            lng++;
            fmt++;
        }
        if (*fmt == 'z') {
            size = true;
            fmt++;
        }
        unsigned long long u;
        long long s;
        switch (*fmt) {
        case 'd':
        case 'i':
            if (lng >= 2)
                s = va_arg(ap, long long);
            else if (lng == 1 || size)
                s = va_arg(ap, long);
            else
                s = va_arg(ap, int);
            emit_num(o, s < 0 ? 0ull - (unsigned long long)s : (unsigned long long)s, 10, false,
                     s < 0, width, zero, left);
            break;
        case 'u':
        case 'x':
        case 'X':
            if (lng >= 2)
                u = va_arg(ap, unsigned long long);
            else if (lng == 1 || size)
                u = va_arg(ap, unsigned long);
            else
                u = va_arg(ap, unsigned int);
            emit_num(o, u, *fmt == 'u' ? 10 : 16, *fmt == 'X', false, width, zero, left);
            break;
        case 'p':
            emit(o, '0');
            emit(o, 'x');
            emit_num(o, (uintptr_t)va_arg(ap, void *), 16, false, false,
                     (int)sizeof(void *) * 2, true, false);
            break;
        case 'c':
            emit(o, (char)va_arg(ap, int));
            break;
        case 's': {
            const char *str = va_arg(ap, const char *);
            if (!str)
                str = "(null)";
            int n = 0;
            while (str[n])
                n++;
            if (!left)
                for (; width > n; width--)
                    emit(o, ' ');
            for (int i = 0; i < n; i++)
                emit(o, str[i]);
            if (left)
                for (; width > n; width--)
                    emit(o, ' ');
            break;
        }
        case '%':
            emit(o, '%');
            break;
        case '\0':
            fmt--;
            break;
        default:
            emit(o, '%');
            emit(o, *fmt);
            break;
        }
    }
    if (o->buf && o->len)
        o->buf[o->pos < o->len ? o->pos : o->len - 1] = '\0';
    return (int)o->pos;
}

int kvprintf(const char *fmt, va_list ap)
{
    struct out o = { 0, 0, 0 };
    return format(&o, fmt, ap);
}

int kprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = kvprintf(fmt, ap);
    va_end(ap);
    return n;
}

int k_vsnprintf(char *buf, size_t len, const char *fmt, va_list ap)
{
    struct out o = { buf, len, 0 };
    if (!buf)
        o.len = 0, o.buf = (char *)"";
    return format(&o, fmt, ap);
}

int k_snprintf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = k_vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n;
}
