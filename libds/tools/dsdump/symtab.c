/* SPDX-License-Identifier: BSD-2-Clause */
/* Symbols of an ELF file (libelf), looked up by address: see symtab.h. */
#include "symtab.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int sym_cmp(const void *a, const void *b)
{
    const struct sym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->func != y->func) /* functions first among equals */
        return y->func - x->func;
    return (x->size < y->size) - (x->size > y->size);
}

/* Opens path as an ELF file for reading. Returns the handle (*fd set), or NULL with err set. */
static Elf *open_elf(const char *path, int *fd, char *err, size_t errsz)
{
    if (elf_version(EV_CURRENT) == EV_NONE) {
        snprintf(err, errsz, "libelf: %s", elf_errmsg(-1));
        return NULL;
    }
    *fd = open(path, O_RDONLY);
    if (*fd < 0) {
        snprintf(err, errsz, "%s: %s", path, strerror(errno));
        return NULL;
    }
    Elf *e = elf_begin(*fd, ELF_C_READ, NULL);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        snprintf(err, errsz, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
        if (e)
            elf_end(e);
        close(*fd);
        return NULL;
    }
    return e;
}

/* The symbol table section: the full .symtab, else .dynsym; NULL if neither. */
static Elf_Scn *pick_symtab(Elf *e, GElf_Shdr *picksh)
{
    Elf_Scn *scn = NULL, *pick = NULL;
    GElf_Shdr sh;
    memset(picksh, 0, sizeof *picksh);
    while ((scn = elf_nextscn(e, scn))) {
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !pick)) {
            pick = scn;
            *picksh = sh;
        }
    }
    return pick;
}

/* Copies the named, defined function / object / no-type symbols of the table
 * section pick into st (local .L and $ mapping labels skipped), sorted. */
static void collect_syms(Elf *e, Elf_Scn *pick, const GElf_Shdr *picksh, struct symtab *st)
{
    Elf_Data *d = elf_getdata(pick, NULL);
    size_t cnt = picksh->sh_entsize ? picksh->sh_size / picksh->sh_entsize : 0;
    st->v = calloc(cnt ? cnt : 1, sizeof *st->v);
    for (size_t i = 0; d && i < cnt; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s))
            continue;
        int type = GELF_ST_TYPE(s.st_info);
        if (type != STT_FUNC && type != STT_NOTYPE && type != STT_OBJECT)
            continue;
        if (s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_ABS)
            continue;
        const char *name = elf_strptr(e, picksh->sh_link, s.st_name);
        if (!name || !name[0] || name[0] == '$' || !strncmp(name, ".L", 2))
            continue;
        st->v[st->n].addr = s.st_value;
        st->v[st->n].size = s.st_size;
        st->v[st->n].func = type == STT_FUNC;
        st->v[st->n].name = strdup(name);
        st->n++;
    }
    qsort(st->v, st->n, sizeof *st->v, sym_cmp);
}

int load_symbols(const char *path, struct symtab *st, char *err, size_t errsz)
{
    memset(st, 0, sizeof *st);
    int fd;
    Elf *e = open_elf(path, &fd, err, errsz);
    if (!e)
        return -1;
    GElf_Shdr picksh;
    Elf_Scn *pick = pick_symtab(e, &picksh);
    if (!pick) {
        snprintf(err, errsz, "%s: no symbol table (stripped?)", path);
        elf_end(e);
        close(fd);
        return -1;
    }
    collect_syms(e, pick, &picksh, st);
    GElf_Ehdr eh;
    st->elfclass = gelf_getclass(e) == ELFCLASS32 ? 32 : 64;
    st->machine = gelf_getehdr(e, &eh) ? eh.e_machine : 0;
    elf_end(e);
    close(fd);
    return 0;
}

/* The symbol containing ip (sized), else the nearest preceding size-0 label. */
static const struct sym *sym_find(const struct symtab *st, uint64_t ip)
{
    size_t lo = 0, hi = st->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (st->v[mid].addr <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return NULL;
    const struct sym *label = NULL;
    for (size_t i = lo; i-- > 0;) {
        const struct sym *s = &st->v[i];
        if (s->size && ip < s->addr + s->size)
            return s;
        if (!s->size && !label)
            label = s;
        if (lo - i > 64)
            break;
    }
    /* A label only counts if no sized symbol ends between it and ip. */
    if (label) {
        for (size_t i = lo; i-- > 0 && st->v[i].addr >= label->addr;)
            if (st->v[i].size && st->v[i].addr + st->v[i].size <= ip && st->v[i].addr >= label->addr)
                return NULL;
    }
    return label;
}

void symbolize(const struct symtab *st, uint64_t ip, char *buf, size_t n, char *name_only, size_t nn)
{
    const struct sym *s = st ? sym_find(st, ip) : NULL;
    if (s) {
        snprintf(buf, n, "%s+0x%" PRIx64, s->name, ip - s->addr);
        if (name_only)
            snprintf(name_only, nn, "%s", s->name);
    } else {
        snprintf(buf, n, "0x%" PRIx64, ip);
        if (name_only)
            snprintf(name_only, nn, "%s", st ? "[unknown]" : buf);
    }
}

void symtab_free(struct symtab *st)
{
    for (size_t i = 0; i < st->n; i++)
        free(st->v[i].name);
    free(st->v);
}

const char *symtab_mismatch(const struct symtab *st, const char *arch, char *buf, size_t n)
{
    int want32 = !strcmp(arch, "i386");
    if (!want32 && strcmp(arch, "x86_64"))
        return NULL; /* an arch this check does not know */
    if (st->elfclass == (want32 ? 32 : 64) && st->machine == (want32 ? EM_386 : EM_X86_64))
        return NULL;
    snprintf(buf, n, "ELF%d e_machine %u", st->elfclass, st->machine);
    return buf;
}
