'use strict';

// A lift car announcing what it does as DOM-style events.
class DoorEvent extends Event {
  constructor(type, floor, blocked = false) {
    super(type);
    this.floor = floor;
    this.blocked = blocked;
  }
}

class Lift extends EventTarget {
  constructor(name, floors) {
    super();
    this.name = name;
    this.floors = floors;
    this.at = 0;
  }

  call(floor) {
    if (floor < 0 || floor >= this.floors) {
      this.dispatchEvent(new CustomEvent('fault', { detail: { code: 'E_FLOOR', floor } }));
      return;
    }
    const dir = floor > this.at ? 'up' : 'down';
    for (let f = this.at; f !== floor; f += dir === 'up' ? 1 : -1) {
      this.dispatchEvent(new CustomEvent('pass', { detail: { floor: f, dir } }));
    }
    this.at = floor;
    this.dispatchEvent(new CustomEvent('arrive', { detail: { floor, dir } }));
  }

  door(open, blocked) {
    this.dispatchEvent(new DoorEvent(open ? 'door-open' : 'door-close', this.at, blocked));
  }
}

module.exports = { Lift, DoorEvent };
