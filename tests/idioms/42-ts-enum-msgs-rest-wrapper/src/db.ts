enum Msg {
  Started = 'migration %s started',
  Applied = 'applied %d statements in %dms',
}

const log = (...args: unknown[]): void => console.log('[migrate]', ...args);
const DEBUG = true;

function debugLog(msg: string): void {
  if (DEBUG) console.log('[migrate:debug] ' + msg);
}

export class Migrator {
  run(name: string, stmts: number): void {
    console.log(Msg.Started, name);
    log('checking lock table');
    debugLog(`lock acquired for ${name}`);
    console.log(Msg.Applied, stmts, stmts * 3);
    log('released lock for', name);
  }
}
