/* SPDX-License-Identifier: BSD-2-Clause */
/* Every error value has a name and a text, and unknown values are handled. */
#include "check.h"
#include <ds/err.h>

/* Every enumerator of err.h (parsed here, independent of err.c's table)
 * has its own row: ds_errname gives its name back and ds_strerror a real
 * text; no value is used twice. */
static void every_enumerator_has_a_row(void)
{
    FILE *f = fopen(DS_ERR_H_PATH, "r");
    CHECK(f != NULL, "open %s", DS_ERR_H_PATH);
    if (!f)
        return;
    char line[512], name[128];
    int n = 0, v;
    static unsigned char seen[DS_ERR__LAST];
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, " %127[A-Z0-9_] = %d ,", name, &v) != 2 || strncmp(name, "DS_", 3) != 0)
            continue;
        n++;
        CHECK(strcmp(ds_errname(v), name) == 0, "%s = %d has its row (errname %s)", name, v, ds_errname(v));
        CHECK(strcmp(ds_strerror(v), "unknown libds error") != 0, "%s has a message", name);
        CHECK(v >= 0 && v < DS_ERR__LAST && !seen[v], "%s = %d below DS_ERR__LAST, not used twice", name, v);
        if (v >= 0 && v < DS_ERR__LAST)
            seen[v] = 1;
    }
    fclose(f);
    CHECK(n >= 150, "%d enumerators parsed", n);
}

int main(void)
{
    every_enumerator_has_a_row();
    /* Every value below DS_ERR__LAST that is named must have distinct text; unknown ones say so. */
    int named = 0;
    for (int v = 0; v < DS_ERR__LAST; v++) {
        const char *n = ds_errname(v);
        const char *t = ds_strerror(v);
        CHECK(n != NULL && t != NULL, "value %d has strings", v);
        if (strcmp(n, "DS_ERR_?") != 0) {
            named++;
            CHECK(strcmp(t, "unknown libds error") != 0, "value %d (%s) has a real text", v, n);
            CHECK(strncmp(n, "DS_", 3) == 0, "name of %d starts with DS_", v);
        }
    }
    CHECK(named >= 16, "at least the core codes are named (%d)", named);
    CHECK(strcmp(ds_errname(DS_OK), "DS_OK") == 0, "DS_OK name");
    CHECK(strcmp(ds_errname(DS_ERR_MSR_FAULT), "DS_ERR_MSR_FAULT") == 0, "MSR_FAULT name");
    CHECK(strcmp(ds_strerror(-1), "unknown libds error") == 0, "negative value");
    CHECK(strcmp(ds_strerror(DS_ERR__LAST), "unknown libds error") == 0, "sentinel is not an error");
    CHECK(strcmp(ds_errname(99999), "DS_ERR_?") == 0, "unknown name");
    return check_summary();
}
