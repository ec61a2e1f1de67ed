'use strict';

// The lobby panel: one object listening to several event types through
// its handleEvent method.
class Panel {
  constructor(lift, labels) {
    this.lift = lift;
    this.labels = labels;
    for (const type of ['arrive', 'door-open', 'fault']) lift.addEventListener(type, this);
  }

  label(floor) {
    return this.labels[floor] ?? String(floor);
  }

  handleEvent(event) {
    switch (event.type) {
      case 'arrive':
        console.log(`${this.lift.name}: arrived at ${this.label(event.detail.floor)} going ${event.detail.dir}`);
        break;
      case 'door-open':
        console.log(`${this.lift.name}: doors open at ${this.label(event.floor)}`);
        break;
      default:
        console.error(`${this.lift.name}: fault ${event.detail.code} (floor ${event.detail.floor})`);
    }
  }
}

module.exports = { Panel };
