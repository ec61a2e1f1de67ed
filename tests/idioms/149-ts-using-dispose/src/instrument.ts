// A lab spectrometer on a serial port and its lamp: resources released by
// `using` declarations, whose dispose methods log.
export class Spectrometer implements Disposable {
  private static busy = new Set<string>();
  private readings = 0;

  private constructor(readonly port: string) {}

  static open(port: string): Spectrometer {
    if (Spectrometer.busy.has(port)) throw new Error(`${port} is in use`);
    Spectrometer.busy.add(port);
    console.log(`${port}: spectrometer connected`);
    return new Spectrometer(port);
  }

  absorbance(sample: string, transmitted: number): number {
    if (transmitted <= 0 || transmitted > 1) throw new RangeError(`${sample}: transmittance ${transmitted} out of (0, 1]`);
    this.readings += 1;
    return -Math.log10(transmitted);
  }

  [Symbol.dispose](): void {
    Spectrometer.busy.delete(this.port);
    console.log(`${this.port}: disconnected after ${this.readings} reading(s)`);
  }
}

export class Lamp implements AsyncDisposable {
  private constructor(readonly kind: string) {}

  static async on(kind: string): Promise<Lamp> {
    await new Promise((resolve) => setImmediate(resolve));
    console.info(`${kind} lamp warmed up`);
    return new Lamp(kind);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    console.info(`${this.kind} lamp cooled down and off`);
  }
}
