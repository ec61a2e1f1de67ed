const H = require('recorder');
H.setup(__dirname + '/src');
const { installCrashHandlers } = require('./src/crash');
const { UploadQueue } = require('./src/uploads');
const tick = () => new Promise((r) => setImmediate(r));
installCrashHandlers('uploader');
(async () => {
  const cases = [
    async (q) => { await q.upload('photos.zip', 3); await q.upload('notes.txt', 1); q.scheduleCleanup('photos.zip', 4); },
    async (q) => { await q.upload('backup.tar', 5, { cancelAfter: 2 }); q.scheduleCleanup('backup.tar', 250); },
    async (q) => {
      const p = q.upload('video.mp4', 6);
      await tick();
      q.cancel('video.mp4', 'upload window closed');
      await p;
      q.verify('video.mp4');
    },
    async (q) => {
      await Promise.all([q.upload('a.log', 2), q.upload('b.log', 4, { cancelAfter: 1 })]);
      q.scheduleCleanup('logs', 101);
      q.verify('a.log');
    },
  ];
  for (const [c, run] of cases.entries()) {
    H.case(c);
    await run(new UploadQueue());
    // let the uncaught errors and rejections of the case reach their handlers
    await tick();
    await tick();
  }
  H.write();
})();
