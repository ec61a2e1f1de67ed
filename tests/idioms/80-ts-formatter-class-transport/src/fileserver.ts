import { Transport } from './transport';

export class FileServer {
  private served = 0;

  constructor(private readonly files: Map<string, number>, private readonly transport: Transport) {
    transport.log({ kind: 'event', level: 'info', source: 'fileserver', text: `serving ${files.size} files` });
  }

  get(ip: string, path: string, time: Date): number {
    const size = this.files.get(path);
    const status = size === undefined ? 404 : 200;
    this.transport.log({ kind: 'access', ip, method: 'GET', path, status, bytes: size ?? 0, time });
    if (status === 200) this.served += size!;
    return status;
  }

  shutdown(): void {
    const level = this.served > 1_000_000 ? 'warn' : 'info';
    this.transport.log({ kind: 'event', level, source: 'fileserver', text: `shutting down after ${this.served} bytes` });
  }
}
