const H = require('recorder');
H.setup(__dirname + '/src');
// message column = the whole JSON line
const msgOnly = { write: (s) => { H.record(s); return true; } };
require('./src/log').setDestination(msgOnly);
const { OrderService } = require('./src/orders');
[{ id: 1, user: 'ann', items: [1, 2], total: 50 }, { id: 2, user: 'bob', items: [1], total: 5000 }, { id: 3, user: 'cy', items: [], total: 10 }].forEach((o, c) => {
  H.case(c);
  const s = new OrderService('eu');
  s.place(o);
  if (o.id === 3) s.cancel(o, new Error('payment gateway timeout'));
  else s.ship(o, 'dhl');
});
H.write();
