/* fuzz_rules.c - the extraction rules compiler: any JSON compiles or is refused with a message. */
#include "fuzz.h"
#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    rc_rules_free(rc_rules_parse((const char *)data, size, err, sizeof err));
    return 0;
}
