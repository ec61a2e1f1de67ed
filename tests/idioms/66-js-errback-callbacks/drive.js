const H = require('recorder');
H.setup(__dirname + '/src');
const { KvStore } = require('./src/store');
const { restore, lookup } = require('./src/app');
const { promisify } = require('util');
(async () => {
  for (const [c, [entries, keys]] of [[[['a', 1], ['b', 2]], ['a', 'z']], [[['port', 'x']], ['port']], [[['n', 7], ['m', 'y'], ['q', 3]], ['q', 'n']]].entries()) {
    H.case(c);
    const s = new KvStore();
    await promisify(restore)(s, entries);
    for (const k of keys) await promisify(lookup)(s, k).catch(() => {});
  }
  H.write();
})();
