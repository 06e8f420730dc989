/* fuzz_msg.c - the request validator (Kafka messages): any bytes give a message or an error
 * answer; a crawl request also becomes a job spec that the job parser accepts. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "job.h"
#include "msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rc_msg m;
    rc_msg_error e;
    if (rc_msg_parse((const char *)data, size, &m, &e) < 0) {
        free(rc_msg_error_answer(&e));
        return 0;
    }
    if (m.kind == RC_MSG_CRAWL) {
        char *spec = rc_msg_crawl_to_job_json(&m), err[512];
        rc_job j;
        if (spec && rc_job_parse(spec, strlen(spec), &j, err, sizeof err) == 0)
            rc_job_release(&j);
        free(spec);
    }
    rc_msg_release(&m);
    return 0;
}
