'use strict';
const { Geocoder, createGeocoder } = require('./geocoder');

function importSheet(region, addresses, { legacy = false } = {}) {
  const geo = legacy ? createGeocoder(region) : new Geocoder(region);
  if (legacy) geo.setRegion(region.toUpperCase());
  const found = addresses.filter((a) => (legacy ? geo.find(a) : geo.lookup(a)));
  console.log(`sheet ${region}: ${found.length}/${addresses.length} addresses placed`);
  if (geo.misses > addresses.length / 2) console.error(`sheet ${region}: too many misses, check the spelling`);
  return found;
}

module.exports = { importSheet };
