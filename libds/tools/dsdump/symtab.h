/* SPDX-License-Identifier: BSD-2-Clause */
/* Symbols of an ELF32 or ELF64 file (libelf), looked up by address. */
#ifndef DSDUMP_SYMTAB_H
#define DSDUMP_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

struct sym {
    uint64_t addr, size;
    char *name;
    int func; /* STT_FUNC */
};

/* Sorted by address (functions first among equals, then larger first). */
struct symtab {
    struct sym *v;
    size_t n;
    int elfclass; /* 32 or 64 (ELFCLASS32 / ELFCLASS64) */
    unsigned machine; /* e_machine: EM_386 3, EM_X86_64 62 */
};

/* Loads the named, defined function / object / no-type symbols of path's
 * .symtab (else .dynsym) into st. Returns 0, or -1 with err set (not an ELF
 * file, no symbol table). */
int load_symbols(const char *path, struct symtab *st, char *err, size_t errsz);
/* "name+0xoff" of the symbol containing ip (or the nearest preceding size-0
 * label) into buf, else "0x<ip>"; with name_only also the bare name
 * ("[unknown]" if st has none for ip, the hex address if st is NULL). */
void symbolize(const struct symtab *st, uint64_t ip, char *buf, size_t n, char *name_only, size_t nn);
void symtab_free(struct symtab *st);
/* The ELF that fits a log's HDR arch= ("i386": ELF32 EM_386, "x86_64": ELF64
 * EM_X86_64), or NULL if st fits; else a description of st ("ELF32 EM_386"). */
const char *symtab_mismatch(const struct symtab *st, const char *arch, char *buf, size_t n);

#endif /* DSDUMP_SYMTAB_H */
