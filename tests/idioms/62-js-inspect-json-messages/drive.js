const H = require('recorder');
H.setup(__dirname + '/src');
const { Cart } = require('./src/cart');
[['ann', [['A1', 2, 9.5]], 'SPRING'], ['bob', [['B7', 1, 120], ['C3', 4, 2.25]], null], ['cy', [['Z9', 10, 1]], null]].forEach(([u, items, coupon], c) => {
  H.case(c);
  const k = new Cart(u);
  for (const [s, q, p] of items) k.add(s, q, p);
  k.checkout(coupon);
  k.dump();
});
H.write();
