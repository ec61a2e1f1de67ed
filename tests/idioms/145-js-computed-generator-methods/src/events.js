'use strict';

const EVT = Object.freeze({ PLAY: 'play', SKIP: 'skip', JINGLE: 'jingle' });
const kHistory = Symbol('history');
const kRemember = Symbol('remember');
const DESCRIBE = 'describe';

module.exports = { EVT, kHistory, kRemember, DESCRIBE };
