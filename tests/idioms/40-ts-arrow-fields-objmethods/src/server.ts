export class Server {
  private conns = 0;

  constructor(private port: number) {}

  onConnect = (peer: string): void => {
    this.conns++;
    console.log(`client ${peer} connected (${this.conns} open)`);
  };

  static create(port: number): Server {
    console.log('creating server on port %d', port);
    return new Server(port);
  }

  get load(): number {
    console.debug(`load probe on :${this.port}`);
    return this.conns;
  }
}

export const hooks = {
  beforeStart(name: string): void {
    console.info('hook beforeStart for ' + name);
  },
  afterStop: (name: string): void => {
    console.info(`hook afterStop for ${name}`);
  },
};

export const shutdown = async (s: Server, reason: string): Promise<void> => {
  console.warn('shutting down: %s', reason);
};

export default function boot(port: number): Server {
  hooks.beforeStart('api');
  const s = Server.create(port);
  s.onConnect('10.1.1.' + port % 7);
  void s.load;
  console.log('boot complete');
  return s;
}
