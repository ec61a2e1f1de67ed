'use strict';
const util = require('util');

const PLACES = {
  'harbour st 4': [53.5461, 9.9661],
  'market sq 1': [51.0504, 13.7373],
  'old mill rd': [50.9375, 6.9603],
};

class Geocoder {
  constructor(region) {
    this.region = region;
    this.misses = 0;
  }

  lookup(address) {
    const hit = PLACES[address.toLowerCase()];
    if (!hit) {
      this.misses++;
      console.warn(`no match for "${address}" in ${this.region}`);
      return null;
    }
    console.log(`"${address}" -> ${hit[0].toFixed(4)},${hit[1].toFixed(4)} (${this.region})`);
    return hit;
  }
}

// The 1.x names, kept for old callers: each warns once per process.
Geocoder.prototype.find = util.deprecate(function find(address) {
  return this.lookup(address);
}, 'Geocoder#find() is deprecated, use Geocoder#lookup()', 'GEO001');

Geocoder.prototype.setRegion = util.deprecate(function setRegion(region) {
  this.region = region;
}, 'Geocoder#setRegion() is deprecated: pass the region to the constructor', 'GEO002');

const createGeocoder = util.deprecate((region) => new Geocoder(region),
  'createGeocoder() will be removed in 3.0, use new Geocoder(region)');

module.exports = { Geocoder, createGeocoder };
