const H = require('recorder');
H.setup(__dirname + '/src');
const { watch } = require('./src/watcher');
[['/a', ['x.js', '.env']], ['/b', ['y.js']], ['/c', ['.git', 'z.ts']]].forEach(([d, fs], c) => {
  H.case(c);
  watch(d, fs);
});
H.write();
