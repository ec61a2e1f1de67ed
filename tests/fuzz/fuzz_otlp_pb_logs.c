/* OTLP/HTTP and Kafka bodies: ExportLogsServiceRequest in protobuf. */
#include "fuzz_otlp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_otlp(INGEST_OTLP_LOGS, INGEST_ENC_PROTO, data, size);
    return 0;
}
