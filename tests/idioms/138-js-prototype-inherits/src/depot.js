'use strict';
var Vehicle = require('./vehicle').Vehicle;

function Depot(name) {
  this.name = name;
  this.fleet = {};
}

Depot.prototype = {
  constructor: Depot,

  load: function (records) {
    for (var i = 0; i < records.length; i++) {
      var v = Vehicle.fromRecord(records[i]);
      if (v) this.fleet[v.id] = v;
    }
    console.log('%s depot: %d vehicles', this.name, Object.keys(this.fleet).length);
  },

  roster: function (plan) {
    var self = this;
    plan.forEach(function (step) {
      var v = self.fleet[step.id];
      if (!v) {
        console.error('%s: no vehicle %s in the depot', self.name, step.id);
        return;
      }
      if (step.couple) v.couple(step.couple);
      if (step.line && v.dispatch(step.line) && step.km) v.returnToDepot(step.km);
    });
  },

  summary: function () {
    var out = [];
    for (var id in this.fleet) out.push(String(this.fleet[id]) + ' ' + this.fleet[id].km + 'km');
    console.log('%s depot at close: %s', this.name, out.join(', '));
  },
};

module.exports = { Depot: Depot };
