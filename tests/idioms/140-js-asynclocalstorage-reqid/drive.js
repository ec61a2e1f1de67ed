const H = require('recorder');
// log.js only prefixes the request and logs what it is handed: its callers emit
H.setup(__dirname + '/src', { skip: ['log.js'] });
const { Catalog } = require('./src/catalog');
const { Desk } = require('./src/desk');
const context = require('./src/context');
const cases = [
  [[['978-0', 'Moby-Dick', 2], ['978-1', 'Emma', 1]], {}, [['ann', ['978-0', '978-1']]]],
  [[['978-2', 'Ulysses', 1]], { bob: 1 }, [['bob', ['978-2']], ['cy', ['978-2', '978-9']], ['bob', ['978-2']]]],
  [[['978-3', 'Middlemarch', 3]], { dee: 2 }, [['dee', ['978-3', '978-3', '978-3']], ['eve', ['978-3']]]],
];
(async () => {
  for (const [c, [books, limits, visits]] of cases.entries()) {
    H.case(c);
    context.reset();
    const desk = new Desk(new Catalog(books), limits);
    // the visits of a case are served at the same time: their lines interleave
    await Promise.all(visits.map(([member, isbns]) => desk.checkout(member, isbns)));
  }
  H.write();
})();
