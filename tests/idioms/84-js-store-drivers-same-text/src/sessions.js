'use strict';
const { openStore } = require('./stores');

class Sessions {
  constructor(url) {
    this.store = openStore(url);
  }

  login(user, roles) {
    this.store.put(`session:${user}`, { user, roles });
  }

  check(user) {
    const s = this.store.get(`session:${user}`);
    if (!s) console.warn(`sessions: ${user} is not logged in`);
    return Boolean(s);
  }

  logout(user) {
    this.store.delete(`session:${user}`);
  }
}

module.exports = { Sessions };
