const SECRET_NAME = /(PASSWORD|SECRET|TOKEN|KEYS?|CREDENTIALS?)$/i;

/**
 * A setting's value as it may appear in an error line: a secret is never echoed, and a URL
 * keeps everything but its password (DATABASE_URL often carries one).
 */
export function redactSetting(setting: string, value: string): string {
  if (SECRET_NAME.test(setting)) return '<redacted>';
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):[^@/\s]*@/i, '$1:***@');
}
