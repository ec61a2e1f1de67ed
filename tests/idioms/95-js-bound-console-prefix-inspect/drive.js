const H = require('recorder');
H.setup(__dirname + '/src');
const { BackupPlan } = require('./src/backup');
[['nightly', { maxGb: 500, tier: 'cold', keep: 7 }, false, [{ name: 'db', sizeGb: 120 }, { name: 'media', sizeGb: 900 }]],
  ['hourly', { maxGb: 50, tier: 'hot', keep: 24 }, true, [{ name: 'db-wal', sizeGb: 3 }]],
  ['weekly', { maxGb: 2000, tier: 'archive', keep: 4, regions: ['eu', 'us'] }, true, [{ name: 'db', sizeGb: 120 }, { name: 'media', sizeGb: 900 }, { name: 'logs', sizeGb: 2400 }]]].forEach(([name, cfg, verbose, vols], c) => {
  H.case(c);
  new BackupPlan(name, cfg, verbose).run(vols);
});
H.write();
