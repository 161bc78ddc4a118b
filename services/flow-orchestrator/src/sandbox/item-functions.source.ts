import { ITEMS_CONTEXT_KEY } from '../ports/expression-items.port.js';

/**
 * Guest code defining Windmill's `variable(path)` and `resource(path)` (both async) over the
 * values the engine read for this expression; a path it did not read is refused.
 */
export const ITEM_FUNCTIONS_SOURCE = `(() => {
  const items = globalThis.${ITEMS_CONTEXT_KEY};
  const read = (kind, name, path) => {
    const key = kind + ':' + path;
    if (typeof path !== 'string' || !Object.prototype.hasOwnProperty.call(items, key))
      return Promise.reject(new Error(name + '(' + JSON.stringify(path) + '): only a path written as a string literal in the expression can be read'));
    return Promise.resolve(items[key]);
  };
  globalThis.variable = (path) => read('var', 'variable', path);
  globalThis.resource = (path) => read('res', 'resource', path);
})();`;
