/** Whether a query failed on a unique or primary key (two writers creating the same path). */
export function isUniqueViolation(error: unknown): boolean {
  return driverCode(error) === '23505';
}

/** Postgres cannot store U+0000 in jsonb or text. */
export function isNulCharacter(error: unknown): boolean {
  const code = driverCode(error);
  return code === '22P05' || code === '22021';
}

function driverCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const direct = (error as { code?: unknown }).code;
  if (typeof direct === 'string') return direct;
  const driver = (error as { driverError?: { code?: unknown } }).driverError;
  return typeof driver?.code === 'string' ? driver.code : undefined;
}
