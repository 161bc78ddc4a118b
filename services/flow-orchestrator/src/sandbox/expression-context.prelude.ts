/**
 * Code run inside each fresh QuickJS context before the expression. It turns the host's
 * context into lazy globals: a name is fetched (as JSON, the only thing that crosses the
 * boundary) the first time the expression reads it, and a plain-object value such as
 * `results` or `flow_input` is fetched key by key. An expression reading `results.a` in a run
 * with a thousand prior steps therefore copies one result, not a thousand.
 *
 * The host functions `load(name, key?)` and `keysOf(name)` return strings only: `undefined`
 * when the name or key does not exist, `''` when it exists and holds `undefined`, else JSON.
 * The prelude captures JSON and Reflect before the expression runs, so an expression that
 * overwrites them breaks only itself.
 *
 * The prelude evaluates to `finish(value)`: the JSON text of the expression's value (or
 * `undefined`), computed with the captured stringify; a function, symbol or bigint throws.
 */
export const EXPRESSION_CONTEXT_PRELUDE = String.raw`
(function (load, keysOf, names, objectNames) {
  'use strict';
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const reflectGet = Reflect.get;
  const reflectHas = Reflect.has;
  const reflectDescriptor = Reflect.getOwnPropertyDescriptor;
  const reflectOwnKeys = Reflect.ownKeys;
  const defineProperty = Object.defineProperty;
  const decode = (text) => (text === '' ? undefined : parse(text));

  const lazyObject = (name) => {
    const cache = new Map();
    let keys;
    const keyList = () => {
      if (keys === undefined) keys = new Set(parse(keysOf(name)));
      return keys;
    };
    const read = (key) => {
      if (cache.has(key)) return { found: true, value: cache.get(key) };
      if (keys !== undefined && !keys.has(key)) return { found: false };
      const text = load(name, key);
      if (text === undefined) return { found: false };
      const value = decode(text);
      cache.set(key, value);
      return { found: true, value };
    };
    return new Proxy({}, {
      get(target, key, receiver) {
        if (typeof key === 'string') {
          const hit = read(key);
          if (hit.found) return hit.value;
        }
        return reflectGet(target, key, receiver);
      },
      has(target, key) {
        return (typeof key === 'string' && keyList().has(key)) || reflectHas(target, key);
      },
      ownKeys(target) {
        return [...keyList(), ...reflectOwnKeys(target)];
      },
      getOwnPropertyDescriptor(target, key) {
        if (typeof key === 'string' && keyList().has(key)) {
          return { value: read(key).value, writable: true, enumerable: true, configurable: true };
        }
        return reflectDescriptor(target, key);
      },
      set(target, key, value) {
        if (typeof key !== 'string') return false;
        keyList().add(key);
        cache.set(key, value);
        return true;
      },
      deleteProperty(target, key) {
        if (typeof key === 'string') {
          keyList().delete(key);
          cache.delete(key);
        }
        return true;
      },
    });
  };

  for (const name of parse(names)) {
    let loaded = false;
    let value;
    defineProperty(globalThis, name, {
      enumerable: true,
      configurable: true,
      get() {
        if (!loaded) {
          const text = load(name);
          value = text === undefined ? undefined : decode(text);
          loaded = true;
        }
        return value;
      },
      set(next) {
        value = next;
        loaded = true;
      },
    });
  }
  for (const name of parse(objectNames)) {
    const proxy = lazyObject(name);
    defineProperty(globalThis, name, { enumerable: true, configurable: true, writable: true, value: proxy });
  }

  return function finish(value) {
    const kind = typeof value;
    if (kind === 'function' || kind === 'symbol' || kind === 'bigint') {
      throw new TypeError('a ' + kind + ' is not JSON');
    }
    return stringify(value);
  };
})
`;
