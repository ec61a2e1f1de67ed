/*
 * Event files of a detected format: the sniffing (gzip, a byte order mark,
 * '<', '{', OTLP's "resourceSpans"), and the JSON Lines and OTLP JSON file
 * backends (ingest/file_jsonl.c, ingest/file_otlp.c), which no other
 * target reads.
 */
#include "fuzz_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_read_events(INGEST_FMT_AUTO, data, size);
    return 0;
}
