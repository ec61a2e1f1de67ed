'use strict';
var Vehicle = require('./vehicle').Vehicle;

function Bus(id, seats, fuel) {
  Vehicle.call(this, id, seats);
  this.fuel = fuel === undefined ? 100 : fuel;
}
Bus.prototype = Object.create(Vehicle.prototype);
Bus.prototype.constructor = Bus;

Bus.prototype.dispatch = function (line) {
  if (this.fuel < 20) {
    console.warn('%s has %d%% fuel, refuel before line %s', this.id, this.fuel, line);
    return false;
  }
  return Vehicle.prototype.dispatch.call(this, line);
};

module.exports = { Bus: Bus };
