'use strict';

class RoutingError extends Error {
  constructor(parcel, reason) {
    super(`no route for parcel ${parcel.id}: ${reason}`);
    this.name = 'RoutingError';
  }
}

class Scanner {
  constructor(log) {
    this.log = log.child({ component: 'scanner' });
  }

  scan(parcel) {
    this.log.info({ parcel }, 'scanned parcel %s', parcel.id);
    if (parcel.kg > 30) this.log.warn({ parcel }, 'parcel %s is %dkg, needs a second handler', parcel.id, parcel.kg);
  }
}

class Router {
  constructor(log, vans) {
    this.vans = vans;
    this.log = log.child({ component: 'router', vans: Object.keys(vans).length });
  }

  route(parcel) {
    const van = this.vans[parcel.dest];
    if (!van) throw new RoutingError(parcel, `${parcel.dest} is not served today`);
    const route = { hub: 'north', van };
    this.log.debug({ route }, 'routing %s', parcel.id);
    this.log.info({ route, parcel }, `parcel ${parcel.id} loaded on ${van}`);
    return route;
  }
}

class Depot {
  constructor(log, vans) {
    this.log = log;
    this.scanner = new Scanner(log);
    this.router = new Router(log, vans);
  }

  receive(parcels) {
    for (const p of parcels) {
      this.scanner.scan(p);
      try {
        this.router.route(p);
      } catch (err) {
        this.log.error(err);
        this.log.info({ parcel: p }, 'parcel set aside');
      }
    }
    this.log.info('shift done: %d parcels', parcels.length);
  }
}

module.exports = { Depot };
