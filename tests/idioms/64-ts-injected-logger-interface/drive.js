const H = require('recorder');
// the loggers of logger.ts are pure logging wrappers: their callers emit the messages
H.setup(__dirname + '/src', { skip: ['logger.ts'] });
const { ConsoleLogger, VerboseLogger } = require(H.compiled('logger'));
const { InvoiceService } = require(H.compiled('billing'));
[['acme', 80, 12, false], ['globex', 450, 41, true], ['initech', 1200, 95, true]].forEach(([cust, amount, days, verbose], c) => {
  H.case(c);
  const logger = verbose ? new VerboseLogger('billing') : new ConsoleLogger('billing');
  const s = new InvoiceService(logger, c === 2 ? 'USD' : undefined);
  const id = s.issue(cust, amount);
  s.remind(id, days);
});
H.write();
