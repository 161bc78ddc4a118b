/**
 * The expression context key holding what `variable(path)` / `resource(path)` answer
 * (`{ "var:<path>": value, "res:<path>": value }`, read by the engine as the run): with it, the
 * sandbox defines those two functions over it. Its own file: the sandbox thread loads it as is.
 */
export const ITEMS_CONTEXT_KEY = '__flowmesh_items';
