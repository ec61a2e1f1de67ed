'use strict';
var util = require('util');
var Vehicle = require('./vehicle').Vehicle;

function Tram(id, seats, cars) {
  Vehicle.call(this, id, seats);
  this.cars = cars || 1;
}
util.inherits(Tram, Vehicle);

Tram.prototype.capacity = function () {
  return this.seats * this.cars;
};

Tram.prototype.couple = function couple(extra) {
  if (this.line) {
    console.error('cannot couple %s while it runs line %s', this.id, this.line);
    return;
  }
  this.cars += extra;
  console.info('%s now runs with %d cars', this.id, this.cars);
};

module.exports = { Tram: Tram };
