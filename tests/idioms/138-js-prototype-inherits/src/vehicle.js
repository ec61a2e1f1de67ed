'use strict';
// Rolling stock of a tram and bus depot, written in the pre-class style:
// constructor functions, methods on their prototypes, util.inherits.
var util = require('util');

function Vehicle(id, seats) {
  this.id = id;
  this.seats = seats;
  this.line = null;
  this.km = 0;
}

Vehicle.fromRecord = function (rec) {
  var Ctor = rec.type === 'tram' ? require('./tram').Tram : require('./bus').Bus;
  if (!rec.id) {
    console.warn('record without an id skipped: %j', rec);
    return null;
  }
  return new Ctor(rec.id, rec.seats, rec.extra);
};

Vehicle.prototype.dispatch = function (line) {
  if (this.line) {
    console.warn('%s is already out on line %s', this.id, this.line);
    return false;
  }
  this.line = line;
  console.log('%s dispatched on line %s (%d seats)', this.id, line, this.capacity());
  return true;
};

Vehicle.prototype.capacity = function () {
  return this.seats;
};

Vehicle.prototype.returnToDepot = function returnToDepot(km) {
  this.km += km;
  console.log('%s back from line %s after %d km', this.id, this.line, km);
  this.line = null;
};

Vehicle.prototype.toString = function () {
  return util.format('%s<%s>', this.constructor.name, this.id);
};

module.exports = { Vehicle: Vehicle };
