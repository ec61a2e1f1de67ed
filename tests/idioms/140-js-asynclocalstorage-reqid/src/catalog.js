'use strict';
const log = require('./log');

const tick = () => new Promise((resolve) => setImmediate(resolve));

class Catalog {
  constructor(books) {
    this.copies = new Map(books.map(([isbn, title, n]) => [isbn, { title, free: n }]));
  }

  async lookup(isbn) {
    await tick();
    const book = this.copies.get(isbn);
    if (!book) log.warn('isbn %s is not in the catalog', isbn);
    return book;
  }

  async reserve(isbn) {
    const book = await this.lookup(isbn);
    if (!book) return null;
    if (book.free === 0) {
      log.info('"%s" has no free copy, placing a hold', book.title);
      return null;
    }
    book.free -= 1;
    await tick();
    log.info('copy of "%s" reserved, %d left', book.title, book.free);
    return book;
  }
}

module.exports = { Catalog };
