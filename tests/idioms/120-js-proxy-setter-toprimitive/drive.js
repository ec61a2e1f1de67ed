const H = require('recorder');
H.setup(__dirname + '/src');
const { Strip } = require('./src/mixer');
const { Decibels } = require('./src/units');
[
  [1, 'kick', [['gain', 3], ['pan', -10]], [true]],
  [7, 'vocal', [['gain', 18], ['gain', -4.5], ['pan', 140]], [false, true, true]],
  [12, 'keys', [['pan', 35], ['reverb', 20]], [true, false], ['pan', 'reverb']],
].forEach(([n, label, changes, mutes, resets = []], c) => {
  H.case(c);
  const s = new Strip(n, label);
  for (const [key, v] of changes) s.settings[key] = key === 'gain' ? new Decibels(v) : v;
  for (const m of mutes) s.muted = m;
  for (const key of resets) delete s.settings[key];
});
H.write();
