/* fuzz_files.h - the event-file driver shared by the CSV, XES and
 * detected-format targets. */
#ifndef PMRAG_FUZZ_FILES_H
#define PMRAG_FUZZ_FILES_H

#include "fuzz.h"

/*
 * Writes data to the memory file and reads it as an event file of format
 * fmt (INGEST_FMT_AUTO: detected) twice: with the defaults, and with
 * skip_bad, other role keys (the time required) and a 64-byte record cap,
 * so that records span reads. Checks every event, that the stats count
 * what came out, that reading ends (no more calls than the input allows),
 * and that an error other than a malformed record is returned again by
 * the next call.
 */
void fuzz_read_events(ingest_format fmt, const uint8_t *data, size_t size);

#endif
