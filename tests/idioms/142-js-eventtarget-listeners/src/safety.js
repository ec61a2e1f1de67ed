'use strict';

// The safety monitor: plain listener functions, one of them only once.
function watch(lift, opts = {}) {
  let closes = 0;
  lift.addEventListener('door-close', (event) => {
    closes += 1;
    if (event.blocked) console.warn('%s: door blocked at floor %d, reopening', lift.name, event.floor);
  });
  lift.addEventListener('fault', function onFirstFault(event) {
    console.error('%s: first fault since start, maintenance paged (%s)', lift.name, event.detail.code);
  }, { once: true });
  if (opts.trace) {
    lift.addEventListener('pass', ({ detail }) => {
      console.debug('%s: passing %d %s', lift.name, detail.floor, detail.dir);
    });
  }
  return () => closes;
}

module.exports = { watch };
