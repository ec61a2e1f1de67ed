const H = require('recorder');
// say is a pure logging wrapper: its callers emit the messages
H.setup(__dirname + '/src', { skip: ['say'] });
const { placeOrder } = require(H.compiled('orders'));
[['o-1', 'ann', 12, 'dhl'], ['o-2', 'bob', 3, null], ['o-3', 'cy', 1, 'ups'], ['o-4', 'dee', 40, null]].forEach((a, c) => {
  H.case(c);
  placeOrder(...a);
});
H.write();
