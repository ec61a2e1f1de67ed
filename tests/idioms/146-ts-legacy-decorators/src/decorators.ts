// Decorators in TypeScript's older, experimentalDecorators form:
// (target, key, descriptor) for methods, (target, key) for properties,
// the constructor for classes.

export function logged(target: object, key: string, desc: PropertyDescriptor): void {
  const original = desc.value as (...args: unknown[]) => unknown;
  desc.value = function (this: unknown, ...args: unknown[]) {
    console.log(`-> ${target.constructor.name}.${key}(${args.map((a) => JSON.stringify(a)).join(', ')})`);
    return original.apply(this, args);
  };
}

export function retry(times: number) {
  return function (_target: object, key: string, desc: PropertyDescriptor): void {
    const original = desc.value as (...args: unknown[]) => boolean;
    desc.value = function (this: unknown, ...args: unknown[]) {
      for (let attempt = 1; attempt <= times; attempt++) {
        if (original.apply(this, args)) return true;
        console.warn(`${key}: attempt ${attempt} of ${times} failed`);
      }
      return false;
    };
  };
}

export function clamp(min: number, max: number) {
  return function (target: object, key: string): void {
    const values = new WeakMap<object, number>();
    Object.defineProperty(target, key, {
      get(this: object) {
        return values.get(this) ?? min;
      },
      set(this: object, v: number) {
        if (v < min || v > max) {
          console.warn(`${key} ${v} clamped to ${min}..${max}`);
          v = Math.min(max, Math.max(min, v));
        }
        values.set(this, v);
      },
    });
  };
}

export function device(kind: string) {
  return function <T extends new (...args: any[]) => { id: string }>(ctor: T): T {
    return class extends ctor {
      constructor(...args: any[]) {
        super(...args);
        console.info(`${kind} ${this.id} registered`);
      }
    };
  };
}
