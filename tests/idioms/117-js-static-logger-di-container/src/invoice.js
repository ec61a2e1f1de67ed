'use strict';
const { container } = require('./container');

class Invoice {
  static log = container.resolve('logger').child('invoice');
  static issued = 0;

  static create(customer, lines) {
    const total = lines.reduce((s, [, qty, price]) => s + qty * price, 0);
    const number = `INV-${String(++Invoice.issued).padStart(4, '0')}`;
    Invoice.log.info(`${number} for ${customer}: ${lines.length} lines, ${total.toFixed(2)} EUR`);
    if (total === 0) Invoice.log.warn(`${number} has a zero total`);
    return new Invoice(number, customer, total);
  }

  constructor(number, customer, total) {
    this.number = number;
    this.customer = customer;
    this.total = total;
  }
}

module.exports = { Invoice };
