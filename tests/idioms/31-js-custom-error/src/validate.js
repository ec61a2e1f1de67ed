'use strict';
const { SchemaError, LimitError } = require('./errors');

function checkDoc(doc) {
  if (typeof doc.id !== 'number') throw new SchemaError('id', 'a number');
  if (doc.items.length > 10) throw new LimitError(doc.items.length);
}

function importDoc(doc) {
  console.log('importing doc %s', doc.id);
  try {
    checkDoc(doc);
  } catch (err) {
    if (err instanceof SchemaError) {
      console.error(err.message);
    } else {
      console.error(`import failed: ${err}`);
    }
    return false;
  }
  console.log('imported doc %s', doc.id);
  return true;
}

function importAll(docs) {
  for (const d of docs) {
    try {
      if (d.items.length > 50) throw new LimitError(d.items.length);
      importDoc(d);
    } catch (e) {
      console.error('batch aborted:', e.message);
    }
  }
}

module.exports = { importAll };
