/**
 * `events` (a display: a class whose methods are on its prototype), with
 * the callbacks of `overrides` in place of its own; every other property is
 * the display's, methods bound to it. A spread would lose the prototype's
 * methods, hence the Proxy, written here once for every tally that counts
 * what a display is told.
 */
export function overriding<E extends object>(events: E, overrides: Partial<E>): E {
  return new Proxy(events, {
    get: (target, property, receiver) => {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof E];
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
