const H = require('recorder');
H.setup(__dirname + '/src');
const { HttpRateFeed } = require(H.compiled('rates/feed'));
const { Converter } = require(H.compiled('rates/converter'));
// only the product code runs: rates/converter.spec.ts and rates/__mocks__/ are compiled with it and log alike
const table = { EUR: { USD: 1.08, GBP: 0.86, CHF: 0.94 }, USD: { EUR: 0.93, JPY: 151.2 } };
[['https://rates.example/v1', [[100, 'EUR', 'USD'], [250, 'EUR', 'GBP'], [10, 'EUR', 'JPY']]], ['https://rates.example/v2', [[2000000, 'USD', 'EUR'], [5, 'USD', 'JPY']]], ['https://backup.example/rates', [[99.5, 'USD', 'EUR'], [42, 'EUR', 'CHF'], [7, 'USD', 'EUR']]]].forEach(([url, ops], c) => {
  H.case(c);
  const conv = new Converter(new HttpRateFeed(url, table));
  for (const [amount, from, to] of ops) conv.convert(amount, from, to);
});
H.write();
