'use strict';
const bunyan = require('bunyan');

const serializers = {
  err: bunyan.stdSerializers.err,
  parcel: (p) => ({ id: p.id, kg: p.kg, dest: p.dest }),
  route: (r) => r && `${r.hub}->${r.van}`,
};

function createRoot(stream, level = 'info') {
  return bunyan.createLogger({ name: 'depot', serializers, streams: [{ stream, level }] });
}

module.exports = { createRoot };
