'use strict';
// Tracing of the webhook traffic, on when WEBHOOK_TRACE is set.
const on = () => Boolean(process.env.WEBHOOK_TRACE);

function traceBody(body) {
  if (on()) console.log(body);
}

function traceReply(reply) {
  if (on()) console.log(`${reply.status} ${reply.text}`);
}

function event(fields) {
  process.stdout.write(JSON.stringify(fields) + '\n');
}

module.exports = { traceBody, traceReply, event };
