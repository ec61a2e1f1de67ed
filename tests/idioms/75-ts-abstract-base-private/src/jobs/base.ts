export abstract class Job {
  static #count = 0;

  static {
    console.log('job classes loaded');
  }

  readonly id = ++Job.#count;
  protected abstract readonly kind: string;
  protected abstract execute(input: number): number;

  run(input: number): number {
    console.log(`[${this.kind}#${this.id}] starting with input ${input}`);
    const out = this.execute(input);
    if (out < 0) console.error(`[${this.kind}#${this.id}] failed`);
    else this.#done(out);
    return out;
  }

  #done(out: number): void {
    console.log(`[${this.kind}#${this.id}] produced ${out}`);
  }
}
