'use strict';
const { EVT, kRemember } = require('./events');

// What the studio does on each event, keyed by the event's name.
const handlers = {
  [EVT.PLAY](deck, item) {
    deck.seconds += item.seconds;
    console.log(`on air: ${item.artist} - ${item.title} (${item.seconds}s)`);
  },
  [EVT.SKIP]: (deck, item) => {
    console.log(`skipped ${item.title}: ${item.seconds}s would overrun the slot`);
  },
  [`${EVT.JINGLE}`](deck, item) {
    deck.seconds += item.seconds;
  },
};

function runSlot(playlist, slotSeconds, jingleEvery = 0) {
  const deck = { seconds: 0 };
  const items = jingleEvery ? playlist.withJingles(jingleEvery) : playlist;
  for (const item of items) {
    const evt = item.jingle ? EVT.JINGLE : deck.seconds + item.seconds > slotSeconds ? EVT.SKIP : EVT.PLAY;
    handlers[evt](deck, item);
    if (evt === EVT.PLAY) playlist[kRemember](item);
  }
  console.info(`${playlist.show}: ${deck.seconds}s of ${slotSeconds}s filled, last played ${playlist.lastPlayed}`);
}

module.exports = { runSlot, handlers };
