'use strict';
const { buildPayload } = require('./payload');
const { traceBody, traceReply, event } = require('./trace');

class Dispatcher {
  constructor(hooks, post) {
    this.hooks = hooks;
    this.post = post;
  }

  publish(type, order) {
    const body = JSON.stringify(buildPayload(type, order));
    for (const hook of this.hooks.filter((h) => h.types.includes(type))) {
      this.deliver(hook, body);
    }
  }

  deliver(hook, body) {
    traceBody(body);
    const reply = this.post(hook.url, body);
    traceReply(reply);
    if (reply.status >= 400) {
      event({ event: 'webhook_failed', hook: hook.id, status: reply.status });
      console.error(reply.text);
    } else {
      event({ event: 'webhook_delivered', hook: hook.id, bytes: body.length });
    }
  }
}

module.exports = { Dispatcher };
