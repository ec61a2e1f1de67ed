'use strict';
const logger = require('./logger');

class Subscriptions {
  constructor(tenant) {
    this.log = logger.child({ tenant });
    this.log.debug('loaded plans for %s', tenant);
  }

  renew(sub) {
    const log = this.log.child({ invoice: `INV-${sub.id}` });
    log.info('renewing %s plan for %s', sub.plan, sub.customer);
    if (sub.card === 'expired') {
      log.error(`card of ${sub.customer} expired, renewal postponed`);
      return false;
    }
    const amount = sub.seats * (sub.plan === 'pro' ? 12 : 5);
    log.info('charged %d EUR for %d seats', amount, sub.seats);
    if (sub.seats > 50) log.warn('%s uses %d seats, above the plan limit', sub.customer, sub.seats);
    return true;
  }

  close(renewed, total) {
    logger.info(`renewal run done: ${renewed}/${total} renewed`);
  }
}

module.exports = { Subscriptions };
