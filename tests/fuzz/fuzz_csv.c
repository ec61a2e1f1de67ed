/* CSV event files (ingest/file_csv.c), plain or gzip. */
#include "fuzz_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_read_events(INGEST_FMT_CSV, data, size);
    return 0;
}
