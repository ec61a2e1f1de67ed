'use strict';
const log = require('./log');
const { withRequest } = require('./context');

class Desk {
  constructor(catalog, limits) {
    this.catalog = catalog;
    this.limits = limits;
    this.loans = new Map();
  }

  checkout(member, isbns) {
    return withRequest(member, async () => {
      const have = this.loans.get(member) || 0;
      const limit = this.limits[member] ?? 3;
      if (have + isbns.length > limit) {
        log.warn('loan limit %d reached (%d out, %d asked)', limit, have, isbns.length);
        return 0;
      }
      let lent = 0;
      for (const isbn of isbns) {
        if (await this.catalog.reserve(isbn)) lent += 1;
      }
      this.loans.set(member, have + lent);
      log.info('checked out %d of %d', lent, isbns.length);
      return lent;
    });
  }
}

module.exports = { Desk };
