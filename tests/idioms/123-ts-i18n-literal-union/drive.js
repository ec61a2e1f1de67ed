const H = require('recorder');
H.setup(__dirname + '/src');
const { SyncClient } = require(H.compiled('sync'));
[
  ['en', 'cloud:/photos', 100, 1000, [{ name: 'a.jpg', sizeMb: 4 }, { name: '~a.jpg.tmp', sizeMb: 1 }, { name: 'b.jpg', sizeMb: 5, conflict: true }]],
  ['de', 'cloud:/docs', 780, 1000, [{ name: 'vertrag.pdf', sizeMb: 2, conflict: true }, { name: 'scan.tif', sizeMb: 300 }]],
  ['en', 'cloud:/music', 10, 100, [{ name: 'song.flac', sizeMb: 75 }]],
  ['de', 'cloud:/backup', 0, 500, [{ name: '~lock', sizeMb: 0 }, { name: 'db.dump', sizeMb: 120 }, { name: 'etc.tar', sizeMb: 30 }]],
].forEach(([locale, target, used, quota, entries], c) => {
  H.case(c);
  new SyncClient(locale, target, used, quota).run(entries);
});
H.write();
