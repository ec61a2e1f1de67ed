'use strict';

const number = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 2 });
const eur = new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR' });
const percent = new Intl.NumberFormat('en-GB', { style: 'percent', maximumFractionDigits: 1 });
const kilos = new Intl.NumberFormat('en-GB', { style: 'unit', unit: 'kilogram', maximumFractionDigits: 1 });

// A tag for log lines: numbers get grouping and at most two decimals.
function fmt(strings, ...values) {
  return String.raw({ raw: strings }, ...values.map((v) => (typeof v === 'number' ? number.format(v) : v)));
}

module.exports = { fmt, eur, percent, kilos };
