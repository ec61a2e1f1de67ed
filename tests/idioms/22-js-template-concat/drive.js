const H = require('recorder');
H.setup(__dirname + '/src');
const { Uploader } = require('./src/uploader');
[['/x/a.tar', 500, true], ['/y/b.bin', 70000, false], ['c.txt', 2048, true]].forEach(([f, s, ok], c) => {
  H.case(c);
  const u = new Uploader('bkt' + c);
  u.start(f, s);
  u.part(1, 3, 40 + c);
  u.finish(f, ok);
});
H.write();
