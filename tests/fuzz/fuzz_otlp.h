/* fuzz_otlp.h - the OTLP request-body driver shared by the protobuf and
 * JSON targets. */
#ifndef PMRAG_FUZZ_OTLP_H
#define PMRAG_FUZZ_OTLP_H

#include "fuzz.h"

/*
 * Decodes data as one request of kind in enc twice, with the default
 * limits and with tiny ones (2 attributes, 3-byte strings, other case
 * keys), checking every event, the result counts, that a refused body
 * emitted nothing, and that the export response built from the result
 * reads back (JSON through jansson, protobuf through protobuf-c, its
 * error message valid UTF-8 as proto3 strings must be).
 */
void fuzz_otlp(ingest_otlp_kind kind, ingest_encoding enc, const uint8_t *data, size_t size);

#endif
