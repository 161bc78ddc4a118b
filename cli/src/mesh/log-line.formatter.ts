/**
 * Renders one log line of a mesh process for a terminal. Services log pino JSON; a JSON line
 * becomes `12:00:01 INFO  message key=value`, anything else (a stack trace from a crash, a
 * library printing to stdout) is shown as it came.
 */
// pino's numeric levels, for lines from a logger that keeps them.
const LEVELS: Record<string, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

// Fields every line carries; repeating them on each terminal line is noise.
const HIDDEN = new Set([
  'level',
  'time',
  'msg',
  'pid',
  'hostname',
  'service',
  'version',
  'role',
  'context',
  'url',
  'instanceId',
  'trace_id',
  'span_id',
  'trace_flags',
]);

const COLORS = ['36', '33', '35', '32', '34', '96', '93', '95'];
const LEVEL_COLORS: Record<string, string> = { WARN: '33', ERROR: '31', FATAL: '31' };

export interface LogFormatOptions {
  /** `json` passes lines through untouched (each already names its service). */
  readonly format: 'pretty' | 'json';
  readonly color: boolean;
}

export function createLogFormatter(names: readonly string[], options: LogFormatOptions) {
  const width = Math.max(...names.map((name) => name.length));
  const paint = (code: string | undefined, text: string) =>
    options.color && code ? `\u001b[${code}m${text}\u001b[0m` : text;

  return (name: string, line: string): string => {
    if (options.format === 'json') return line;
    const colorIndex = Math.max(0, names.indexOf(name)) % COLORS.length;
    const prefix = paint(COLORS[colorIndex], `[${name}]`.padEnd(width + 2));
    return `${prefix} ${prettyLine(line, paint)}`;
  };
}

function prettyLine(line: string, paint: (code: string | undefined, text: string) => string): string {
  if (!line.startsWith('{')) return line;
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (typeof record.msg !== 'string') return line;
  const rawLevel =
    typeof record.level === 'string' || typeof record.level === 'number' ? String(record.level) : '';
  const level = LEVELS[rawLevel] ?? rawLevel.toUpperCase();
  const time =
    typeof record.time === 'number' || typeof record.time === 'string' ? clockTime(record.time) : '';
  const fields = Object.entries(record)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const head = `${time} ${paint(LEVEL_COLORS[level], level.padEnd(5))} ${record.msg}`;
  return fields.length > 0 ? `${head} ${paint('90', fields.join(' '))}` : head;
}

function clockTime(time: number | string): string {
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString().slice(11, 23);
}
