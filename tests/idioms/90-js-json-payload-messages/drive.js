const H = require('recorder');
// trace.js only writes what it is handed: its callers emit the payloads, replies and events
H.setup(__dirname + '/src', { skip: ['trace.js'] });
const { Dispatcher } = require('./src/webhooks');
const hooks = [{ id: 'wh_erp', url: 'https://erp.example/hooks', types: ['order.paid', 'order.refunded'] }, { id: 'wh_mail', url: 'https://mail.example/in', types: ['order.paid'] }];
// the receivers' replies come from outside src/
const post = (url, body) => (url.includes('mail') && body.includes('"currency":"JPY"')
  ? { status: 422, text: '{"error":"unsupported currency","field":"order.currency"}' }
  : { status: 202, text: `{"accepted":true,"queue":"${url.includes('erp') ? 'erp-in' : 'mail-out'}"}` });
[[true, 'order.paid', { id: 'A-100', total: 12.5, currency: 'EUR', lines: [['mug', 2]] }],
  [false, 'order.refunded', { id: 'A-101', total: 40, currency: 'EUR', lines: [['lamp', 1], ['bulb', 4]] }],
  [true, 'order.paid', { id: 'B-7', total: 3000, currency: 'JPY', lines: [['tea', 3]] }]].forEach(([trace, type, order], c) => {
  H.case(c);
  if (trace) process.env.WEBHOOK_TRACE = '1'; else delete process.env.WEBHOOK_TRACE;
  new Dispatcher(hooks, post).publish(type, order);
});
H.write();
