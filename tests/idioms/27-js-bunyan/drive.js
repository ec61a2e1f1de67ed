const H = require('recorder');
H.setup(__dirname + '/src');
const cache = require('./src/cache');
// message column = bunyan's "msg" field
cache.useStream({ write: (s) => { H.record(JSON.parse(s).msg); return true; } });
[[10, ['a', 'b']], [2, []], [5, ['q']]].forEach(([cap, keys], c) => {
  H.case(c);
  const k = new cache.LruCache(cap);
  k.get('k1', true);
  k.get('k2', false);
  if (keys.length) k.evict(keys); else k.fail(new Error('ECONNREFUSED'));
});
H.write();
