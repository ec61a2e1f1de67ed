const H = require('recorder');
H.setup(__dirname + '/src');
const { Gateway } = require(H.compiled('payments'));
[['stripe-eu', '4242424242424242', 120], ['adyen', '5555444433331111', 4800], ['local', '378282246310005', 15]].forEach(([g, card, amount], c) => {
  H.case(c);
  const gw = new Gateway(g);
  if (gw.authorize(card, amount)) gw.settle('tx-' + c);
});
H.write();
