/*
 * A request encoder for the tests and the load generator: OTLP traces
 * made from events, through protobuf-c's generated code, so that what
 * pmrag decodes by hand is checked against an independent writer. Kept
 * apart from unit.c (no test runner needed): tests/bench/serve_load.c
 * links it too. Reentrant; the events are borrowed for the call.
 */
#ifndef PMRAG_UNIT_OTLP_H
#define PMRAG_UNIT_OTLP_H

#include "ingest.h"

/*
 * Appends an ExportTraceServiceRequest to out: one resource (attribute
 * service.name = service, when not NULL), one scope, and one span per
 * event: name = activity, start and end time = time_ns (0 when
 * INGEST_NO_TIME), attributes = the event's attrs (string values) and
 * case.id = case_id, a trace id derived from the case id (the same case
 * gives the same id, never all zero) and a span id from the case id, the
 * event's index and its time. Returns 0, or CORE_EUSAGE for an event
 * without a case id.
 */
int unit_otlp_spans(const ingest_event *evs, size_t n, const char *service, core_buf *out);

#endif
