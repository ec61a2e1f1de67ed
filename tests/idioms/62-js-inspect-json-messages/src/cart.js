'use strict';
const util = require('util');

class Cart {
  constructor(user) {
    this.user = user;
    this.items = [];
  }

  add(sku, qty, price) {
    this.items.push({ sku, qty, price });
    console.log(`cart ${this.user}: added ${util.inspect({ sku, qty }, { compact: true, breakLength: Infinity })}`);
  }

  checkout(coupon) {
    const total = this.items.reduce((s, i) => s + i.qty * i.price, 0);
    console.info('checkout payload: ' + JSON.stringify({ user: this.user, total, coupon }));
    if (!coupon) console.warn('no coupon for %s; skus: %s', this.user, util.inspect(this.items.map((i) => i.sku)));
  }

  dump() {
    console.debug(`state of ${this.user}:\n${JSON.stringify(this.items, null, 2)}`);
  }
}

module.exports = { Cart };
