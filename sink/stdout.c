/* The stdout JSONL sink. */
#include "sink.h"

#include <errno.h>

int sink_jsonl_write(FILE *out, const char *doc, size_t len)
{
    /* One fwrite of the document and its newline, then a flush: a pipe
     * reader gets whole lines, and a closed pipe is seen here, not at
     * exit. */
    if (fwrite(doc, 1, len, out) != len || fputc('\n', out) == EOF || fflush(out) == EOF) {
        int err = errno ? errno : EIO;
        clearerr(out);
        return -err;
    }
    return 0;
}
