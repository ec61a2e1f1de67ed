export type Fields = Record<string, string | number | boolean>;
export type Level = 'debug' | 'info' | 'warn' | 'error';

// A logger takes a message, or fields and a message; subclasses say where lines go.
export abstract class BaseLogger {
  protected abstract write(level: Level, line: string): void;

  debug(message: string): void;
  debug(fields: Fields, message: string): void;
  debug(a: string | Fields, b?: string): void {
    this.emit('debug', a, b);
  }

  info(message: string): void;
  info(fields: Fields, message: string): void;
  info(a: string | Fields, b?: string): void {
    this.emit('info', a, b);
  }

  warn(message: string): void;
  warn(fields: Fields, message: string): void;
  warn(a: string | Fields, b?: string): void {
    this.emit('warn', a, b);
  }

  private emit(level: Level, a: string | Fields, b?: string): void {
    const [fields, message] = typeof a === 'string' ? [undefined, a] : [a, b ?? ''];
    const tail = fields ? ' ' + Object.entries(fields).map(([k, v]) => `${k}=${v}`).join(' ') : '';
    this.write(level, message + tail);
  }
}
