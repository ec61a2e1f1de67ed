'use strict';
const { container } = require('./container');
const { Invoice } = require('./invoice');
const { Mailer } = require('./mailer');

function wire({ quiet = false } = {}) {
  container.register('mailer', (c) => new Mailer({ logger: quiet ? undefined : c.resolve('logger').child('mailer') }));
  return container;
}

function bill(c, orders) {
  const mailer = c.resolve('mailer');
  const log = c.resolve('logger');
  let sent = 0;
  for (const { customer, email, lines } of orders) {
    if (mailer.send(email, Invoice.create(customer, lines))) sent++;
  }
  log.info(`billing run: ${sent} of ${orders.length} invoices mailed`);
}

module.exports = { wire, bill };
