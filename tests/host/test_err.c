/* SPDX-License-Identifier: BSD-2-Clause */
/* Every error value has a name and a text, and unknown values are handled. */
#include "check.h"
#include <ds/err.h>

int main(void)
{
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
