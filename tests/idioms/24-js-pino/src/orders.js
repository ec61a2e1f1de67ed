'use strict';
const logs = require('./log');

class OrderService {
  constructor(region) {
    this.log = logs.logger.child({ svc: 'orders', region });
  }

  place(order) {
    this.log.info({ orderId: order.id, items: order.items.length }, 'order placed by %s', order.user);
    if (order.total > 1000) {
      this.log.warn({ total: order.total }, 'manual review required');
    }
  }

  ship(order, carrier) {
    const shipLog = this.log.child({ orderId: order.id });
    shipLog.info('handing over to %s', carrier);
    shipLog.debug({ carrier }, `label printed for ${order.user}`);
  }

  cancel(order, err) {
    logs.logger.error({ err }, 'cancel failed for order %d', order.id);
    this.log.error(err);
  }
}

module.exports = { OrderService };
