const H = require('recorder');
// Transport.log only formats and writes what it is handed: its callers emit the messages
H.setup(__dirname + '/src', { skip: ['transport.ts'] });
const { CommonFormatter, KeyValueFormatter } = require(H.compiled('formatters'));
const { Transport } = require(H.compiled('transport'));
const { FileServer } = require(H.compiled('fileserver'));
const files = new Map([['/index.html', 5120], ['/video.mp4', 2400000], ['/robots.txt', 64]]);
[[new CommonFormatter(), ['/index.html', '/robots.txt']], [new KeyValueFormatter(), ['/video.mp4', '/missing.png']], [new KeyValueFormatter(' | '), ['/index.html']], [new CommonFormatter(), ['/video.mp4', '/admin']]].forEach(([fmt, paths], c) => {
  H.case(c);
  const s = new FileServer(files, new Transport(fmt));
  paths.forEach((p, i) => s.get(`192.0.2.${c * 10 + i}`, p, new Date(Date.UTC(2026, 11, 6, 10, 0, c * 10 + i))));
  s.shutdown();
});
H.write();
