/*
 * sink.h - where predictions go: the Kafka output topic (idempotent
 * producer), the HTTP API (cases, stateless queries, /metrics, /livez,
 * /readyz), and stdout JSONL for pipes. Also the prediction's wire forms
 * (pmrag.v1.Prediction protobuf, and JSON with the same field names).
 *
 * Threading and lifetime: each section says which thread may call what.
 * Nothing here prints: errors come back as codes with a reason in why,
 * and progress goes to the core_logger the caller passes.
 */
#ifndef PMRAG_SINK_H
#define PMRAG_SINK_H

#include "core.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* stdout JSONL                                                        */
/* ------------------------------------------------------------------ */

/*
 * Writes one JSON document as a line to out (a newline is added) and
 * flushes it, so that a reader at the end of a pipe sees every prediction
 * as it is made. Returns 0, or a negated errno (-EPIPE when the reader has
 * gone: the caller stops writing there). One thread per FILE at a time.
 */
int sink_jsonl_write(FILE *out, const char *doc, size_t len);

#ifdef __cplusplus
}
#endif
#endif
