const H = require('recorder');
// logging.ts holds the logger implementations, pure logging wrappers: their callers emit the messages
H.setup(__dirname + '/src', { skip: ['logging.ts'] });
const { ConsoleLogger } = require(H.compiled('logging'));
const { Cart, Checkout } = require(H.compiled('cart'));
[['ann', [['mug', 2, 7.5], ['tea', 0, 4]], 'card', 100], ['bob', [['lamp', 1, 120], ['bulb', 6, 2.25]], 'invoice', 100], ['cy', [['pen', 10, 1.2]], 'card', 50]].forEach(([owner, lines, method, limit], c) => {
  H.case(c);
  const root = new ConsoleLogger('shop');
  const cart = new Cart(owner, root);
  for (const [sku, qty, price] of lines) cart.add({ sku, qty, price });
  new Checkout(root, limit).pay(cart, method);
});
H.write();
