/** Nest token of the `PythonLockResolver` (uv or pip, chosen at start). */
export const PYTHON_LOCK_RESOLVER = Symbol('PYTHON_LOCK_RESOLVER');
