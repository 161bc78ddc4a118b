/** A dependency that does not answer within this is down: readiness must answer fast. */
export const DEPENDENCY_CHECK_TIMEOUT_MS = 1_500;
