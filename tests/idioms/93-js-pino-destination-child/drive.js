process.env.TELEMETRY_LOG_LEVEL = 'debug';
const fs = require('fs');
const H = require('recorder');
H.setup(__dirname + '/src');
// pino.destination({ dest: 1, sync: true }) writes each line with fs.writeSync(1, ...), not through
// process.stdout: record those lines (message column = pino's "msg"), where the writes happen.
const writeSync = fs.writeSync;
fs.writeSync = function (fd, data, ...rest) {
  if (fd !== 1) return writeSync.call(fs, fd, data, ...rest);
  for (const line of String(data).split('\n').filter(Boolean)) H.record(JSON.parse(line).msg);
  return Buffer.byteLength(data);
};
const { Ingest } = require('./src/ingest');
[['plant-a', [['t1', 'temp', 21], ['h1', 'humidity', 90]]], ['plant-b', [['c1', 'co2', 800], ['x9', 'noise', 70], ['t2', 'temp', 44]]], ['lab', [['t3', 'temp', 19]]]].forEach(([site, readings], c) => {
  H.case(c);
  const ing = new Ingest(site);
  for (const r of readings) ing.push(...r);
  ing.flush();
});
H.write();
