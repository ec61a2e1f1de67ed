// A pottery kiln's controller as a revealing module: private state and
// functions inside an immediately invoked function, a few of them returned.
var Kiln = (function () {
  'use strict';
  var MAX_C = 1300;
  var temp = 20;
  var log = [];

  function clamp(target) {
    if (target > MAX_C) {
      console.warn('kiln: target ' + target + ' C above the element limit, using ' + MAX_C + ' C');
      return MAX_C;
    }
    return target;
  }

  function ramp(target, ratePerHour) {
    target = clamp(target);
    var hours = Math.abs(target - temp) / ratePerHour;
    console.log('kiln: ramp ' + temp + ' -> ' + target + ' C at ' + ratePerHour + ' C/h, ' + hours.toFixed(1) + ' h');
    log.push(['ramp', temp, target]);
    temp = target;
    return hours;
  }

  function hold(minutes) {
    if (minutes > 240) console.warn('kiln: a ' + minutes + ' min soak is unusually long');
    console.log('kiln: holding ' + temp + ' C for ' + minutes + ' min');
    log.push(['hold', temp, minutes]);
  }

  function reset() {
    temp = 20;
    log = [];
  }

  return {
    ramp: ramp,
    hold: hold,
    reset: reset,
    status: function () {
      console.info('kiln: ' + log.length + ' segments run, now at ' + temp + ' C');
      return temp;
    },
  };
})();

module.exports = Kiln;
