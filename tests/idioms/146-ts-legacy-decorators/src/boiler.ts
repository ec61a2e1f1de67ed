import { clamp, device, logged, retry } from './decorators';

@device('boiler')
export class Boiler {
  @clamp(30, 80) flowTemp!: number;
  private ignitions = 0;

  constructor(public id: string, private flameFailures: number) {}

  @logged
  setFlow(celsius: number): number {
    this.flowTemp = celsius;
    return this.flowTemp;
  }

  @retry(3)
  ignite(): boolean {
    this.ignitions += 1;
    if (this.flameFailures > 0) {
      this.flameFailures -= 1;
      return false;
    }
    console.log(`${this.id}: flame established after ${this.ignitions} ignition(s)`);
    return true;
  }

  @logged
  shutdown(reason: string): void {
    if (reason === 'lockout') console.error(`${this.id}: locked out, reset by hand`);
  }
}
