const H = require('recorder');
H.setup(__dirname + '/src');
const { Playlist } = require('./src/playlist');
const { runSlot } = require('./src/playout');
const t = (artist, title, seconds, banned) => ({ artist, title, seconds, banned });
[
  ['Morning', 600, 0, [t('Nina', 'Blue', 200), t('Otto', 'Rain', 240)]],
  ['Lunch', 500, 2, [t('Pia', 'Salt', 150), t('Quin', 'Oak', 120), t('Rex', 'Tide', 180), t('Sol', 'Ash', 90, true)]],
  ['Late', 700, 0, [t('Tam', 'Moon', 100), t('Uma', 'Owl', 100), t('Vic', 'Fog', 900), t('Wes', 'Dew', 100), t('Xia', 'Elm', 100)]],
].forEach(([show, slot, every, tracks], c) => {
  H.case(c);
  runSlot(new Playlist(show, tracks), slot, every);
});
H.write();
