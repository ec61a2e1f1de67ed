'use strict';
const { makeLog, createLogger } = require('./make-log');

const log = makeLog('inventory');
const logger = createLogger('inv', { verbose: true });

function restock(sku, qty) {
  log('restocking', sku, 'with', qty, 'units');
  const l = logger.child('restock');
  l.debug('sku %s now at %d', sku, qty + 10);
  if (qty > 50) l.info(`large order for ${sku}`);
}

function audit(skus) {
  log(`audit of ${skus.length} skus`);
  logger.info('audit done: %s', skus.join(','));
}

module.exports = { restock, audit };
