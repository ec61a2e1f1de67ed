/*
 * The tests' reader of the prediction the daemon publishes
 * (pmrag.v1.Prediction, proto/pmrag/v1/prediction.proto): for the tests
 * that check the bytes of sink_prediction_pb(), alone and as they arrive
 * on a Kafka topic.
 */
#ifndef PMRAG_UNIT_PREDICTION_H
#define PMRAG_UNIT_PREDICTION_H

#include "sink.h"

/*
 * Decodes pmrag.v1.Prediction bytes and appends the JSON that
 * sink_prediction_json() gives for the same prediction. Unknown fields
 * (wire types varint, fixed64, length-delimited, fixed32) are skipped;
 * for a repeated scalar field the last value wins, as in protobuf.
 * Returns 0, or CORE_EFORMAT with "byte offset N: ..." in why (truncated
 * varint or field, a known field with the wrong wire type, a group, field
 * number 0); out is then left as it was. buf is borrowed for the call.
 */
int unit_prediction_pb_to_json(const void *buf, size_t len, core_buf *out, char *why,
                               size_t whylen);

#endif
