/* XES event files (ingest/file_xes.c, expat), plain or gzip. */
#include "fuzz_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_read_events(INGEST_FMT_XES, data, size);
    return 0;
}
