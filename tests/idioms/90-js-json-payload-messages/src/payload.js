'use strict';

function buildPayload(type, order) {
  return {
    type,
    order: { id: order.id, total: order.total, currency: order.currency },
    lines: order.lines.map(([sku, qty]) => ({ sku, qty })),
  };
}

module.exports = { buildPayload };
