process.env.BILLING_LOG_LEVEL = 'debug';
const H = require('recorder');
// winston's timestamp() stamps the time of the run: keep the line, fix the stamp
H.setup(__dirname + '/src', { transform: (t) => t.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d /, '2026-12-06 10:00:00 ') });
const { Subscriptions } = require('./src/subscriptions');
[['acme', [{ id: 1, plan: 'pro', customer: 'ann', seats: 4, card: 'ok' }, { id: 2, plan: 'basic', customer: 'bob', seats: 60, card: 'ok' }]],
  ['globex', [{ id: 3, plan: 'pro', customer: 'cy', seats: 10, card: 'expired' }]],
  ['initech', [{ id: 4, plan: 'basic', customer: 'dee', seats: 2, card: 'ok' }, { id: 5, plan: 'pro', customer: 'eve', seats: 75, card: 'expired' }, { id: 6, plan: 'pro', customer: 'fay', seats: 51, card: 'ok' }]]].forEach(([tenant, subs], c) => {
  H.case(c);
  const s = new Subscriptions(tenant);
  const renewed = subs.filter((sub) => s.renew(sub)).length;
  s.close(renewed, subs.length);
});
H.write();
