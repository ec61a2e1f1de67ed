export function logged<This, Args extends unknown[], R>(
  target: (this: This, ...args: Args) => R,
  context: ClassMethodDecoratorContext<This, (this: This, ...args: Args) => R>,
): (this: This, ...args: Args) => R {
  const name = String(context.name);
  return function (this: This, ...args: Args): R {
    console.log(`-> ${name}(${args.map((a) => JSON.stringify(a)).join(', ')})`);
    const result = target.call(this, ...args);
    console.log(`<- ${name} returned ${JSON.stringify(result)}`);
    return result;
  };
}

export function deprecated(note: string) {
  return function <This, Args extends unknown[], R>(
    target: (this: This, ...args: Args) => R,
    context: ClassMethodDecoratorContext<This, (this: This, ...args: Args) => R>,
  ): (this: This, ...args: Args) => R {
    return function (this: This, ...args: Args): R {
      console.warn(`${String(context.name)} is deprecated: ${note}`);
      return target.apply(this, args);
    };
  };
}
