'use strict';
const Kiln = require('./kiln');
const Glazes = require('./glazes');

// The firing scheduler, an arrow function run at once like the modules above.
module.exports = (() => {
  let firings = 0;

  const schedule = (load) => {
    Kiln.reset();
    const peak = Glazes.peakFor(load.glazes);
    if (!peak) {
      console.error(`firing #${firings + 1}: nothing to fire in load "${load.name}"`);
      return false;
    }
    firings += 1;
    console.log(`firing #${firings}: ${load.name}, peak ${peak} C`);
    Kiln.ramp(600, 100);
    Kiln.ramp(peak, load.fast ? 250 : 150);
    Kiln.hold(load.soak);
    Kiln.status();
    return true;
  };

  return { schedule, define: Glazes.define };
})();
