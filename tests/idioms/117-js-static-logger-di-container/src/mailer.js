'use strict';

class Mailer {
  // the logger is optional: a mailer built without one stays silent
  constructor({ logger, outbox = [] } = {}) {
    this.log = logger;
    this.outbox = outbox;
  }

  send(to, invoice) {
    if (!to.includes('@')) {
      this.log?.warn(`cannot mail ${invoice.number}: bad address "${to}"`);
      return false;
    }
    this.outbox.push({ to, subject: invoice.number });
    this.log?.info(`mailed ${invoice.number} to ${to}`);
    return true;
  }
}

module.exports = { Mailer };
