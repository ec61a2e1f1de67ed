// Sends a case log through the OpenTelemetry JS SDK to an OTLP/HTTP
// endpoint: the cases of the first half as spans (exporter-trace-otlp-proto,
// protobuf), the rest as log records (exporter-logs-otlp-http, JSON).
//
//   node send.js URL EVENTS.jsonl   (one {"case_id","activity"} per line)
//
// Prints {"spans":N,"logs":M} when both exporters have flushed; exits 1 if
// an export failed.
'use strict';
const fs = require('fs');
const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');
const { LoggerProvider, BatchLogRecordProcessor } = require('@opentelemetry/sdk-logs');
const { OTLPLogExporter } = require('@opentelemetry/exporter-logs-otlp-http');
const { Resource } = require('@opentelemetry/resources');

async function main() {
  const [url, file] = process.argv.slice(2);
  if (!url || !file) {
    console.error('usage: node send.js URL EVENTS.jsonl');
    process.exit(2);
  }
  const events = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const cases = [...new Set(events.map((e) => e.case_id))];
  const viaSpans = new Set(cases.slice(0, Math.ceil(cases.length / 2)));
  const resource = new Resource({ 'service.name': 'pmrag-test' });
  let failed = 0;
  const watch = (exporter) => {
    const orig = exporter.export.bind(exporter);
    exporter.export = (items, done) =>
      orig(items, (res) => {
        if (res.code !== 0) {
          failed++;
          console.error('export failed:', res.error && res.error.message);
        }
        done(res);
      });
    return exporter;
  };
  const spanExporter = watch(new OTLPTraceExporter({ url: url + '/v1/traces' }));
  const tracer = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(spanExporter, { maxExportBatchSize: 64, scheduledDelayMillis: 50 })],
  });
  const logExporter = watch(new OTLPLogExporter({ url: url + '/v1/logs' }));
  const logs = new LoggerProvider({ resource });
  logs.addLogRecordProcessor(new BatchLogRecordProcessor(logExporter, { maxExportBatchSize: 64, scheduledDelayMillis: 50 }));
  const t = tracer.getTracer('pmrag-test');
  const lg = logs.getLogger('pmrag-test');
  let nspans = 0, nlogs = 0;
  let now = Date.now() - events.length;
  for (const e of events) {
    now += 1;
    if (viaSpans.has(e.case_id)) {
      const span = t.startSpan(e.activity, { attributes: { 'case.id': e.case_id }, startTime: now });
      span.end(now);
      nspans++;
    } else {
      lg.emit({ body: e.activity, timestamp: now, severityText: 'INFO', attributes: { 'case.id': e.case_id } });
      nlogs++;
    }
  }
  await tracer.forceFlush();
  await logs.forceFlush();
  await tracer.shutdown();
  await logs.shutdown();
  console.log(JSON.stringify({ spans: nspans, logs: nlogs }));
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
