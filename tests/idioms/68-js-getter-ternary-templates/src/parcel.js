'use strict';

class Parcel {
  constructor(id, weight, items) {
    this.id = id;
    this.weight = weight;
    this.items = items;
    this.attempts = 0;
    this.delivered = false;
  }

  get label() {
    return `parcel ${this.id} (${this.weight > 20 ? 'heavy' : 'standard'}, ${this.items} item${this.items === 1 ? '' : 's'})`;
  }

  get status() {
    return this.delivered ? 'delivered' : this.attempts > 0 ? `pending after ${this.attempts} attempts` : 'pending';
  }

  toString() {
    return `#${this.id}`;
  }
}

module.exports = { Parcel };
