const H = require('recorder');
// winston's profiler adds the elapsed time; keep the message, not the timing
H.setup(__dirname + '/src', { transform: (t) => t.replace(/ \(\d+ms\)$/, ' (Nms)') });
const { make } = require('./src/logger');
const { Syncer } = require('./src/sync');
const logger = make(H.stream());
[['origin', ['a.txt', 'b.lock']], ['backup', ['c.txt']], ['mirror', ['d.txt', 'e.txt', 'f.lock']]].forEach(([remote, files], c) => {
  H.case(c);
  new Syncer(logger, remote).run(files);
});
H.write();
