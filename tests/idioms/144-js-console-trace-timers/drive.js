const H = require('recorder');
const src = __dirname + '/src';
// console.time's durations change from run to run: the message keeps the label and the text, with a fixed
// duration. console.trace prints the stack: the message keeps the frames under src/ (their path made
// relative), not the driver's or node's own, which differ from machine to machine.
H.setup(src, {
  transform: (t) => {
    t = t.replace(/^([\w.-]+): [\d.:]+(ms|s|min|h)\b/, '$1: 1.234ms');
    if (!t.startsWith('Trace: ')) return t;
    return t.split('\n').filter((l, i) => i === 0 || l.includes(src + '/')).join('\n').split(src + '/').join('src/');
  },
});
const { ThumbCache } = require('./src/cache');
const { Batch } = require('./src/batch');
const img = (s, w, h) => ({ src: s, width: w, height: h });
[
  [[64, 256], [[img('cat.jpg', 4000, 3000), img('dog.jpg', 1200, 1600)], [img('cat.jpg', 4000, 3000)]], 'cat.jpg'],
  [[128], [[img('sea.png', 800, 600), img('void.png', 0, 0), img('sky.png', 640, 480)], [img('sea.png', 800, 600)]]],
  [[64], [[img('map.tif', 9000, 9000)], [img('map.tif', 9000, 9000)]], 'map.tif'],
].forEach(([sizes, batches, evict], c) => {
  H.case(c);
  const cache = new ThumbCache();
  batches.forEach((images, i) => {
    if (i > 0 && evict) cache.evict(evict);
    new Batch(`${c}.${i}`, cache, sizes).run(images);
  });
});
H.write();
