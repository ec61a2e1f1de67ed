// The glaze table, shipped as a UMD module so the studio's web page can
// load it too.
(function (root, factory) {
  if (typeof module === 'object' && module.exports) module.exports = factory();
  else root.Glazes = factory();
})(this, function () {
  'use strict';
  var CONES = { '06': 999, '04': 1060, '6': 1222, '10': 1305 };
  var table = {};

  function define(name, cone) {
    if (!(cone in CONES)) {
      console.error('glazes: %s names an unknown cone %s', name, cone);
      return false;
    }
    table[name] = cone;
    return true;
  }

  function peakFor(names) {
    var peak = 0;
    names.forEach(function (n) {
      if (!(n in table)) {
        console.warn('glazes: %s is not in the table, ignored', n);
        return;
      }
      peak = Math.max(peak, CONES[table[n]]);
    });
    return peak;
  }

  return { define: define, peakFor: peakFor };
});
