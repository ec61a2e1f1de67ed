const H = require('recorder');
H.setup(__dirname + '/src');
const { Stall } = require('./src/stall');
[
  ['apples', { cox: 3.2, gala: 2.8 }, [['cox', 2.5], ['gala', 1.25], ['cox', 1000]], [], 'mon', 900],
  ['herbs', { basil: 24, mint: 18 }, [['sage', 0.2], ['basil', 0.35]], [['mint', 19.5], ['basil', 22]], 'tue', 20],
  ['honey', { clover: 14 }, [['heather', 2]], [], 'wed', 35.5],
].forEach(([name, prices, sales, reprices, day, costs], c) => {
  H.case(c);
  const s = new Stall(name, prices);
  for (const [item, price] of reprices) s.reprice(item, price);
  for (const [item, kg] of sales) s.sell(item, kg);
  s.close(day, costs);
});
H.write();
