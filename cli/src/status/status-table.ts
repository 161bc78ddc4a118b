import type { ProcessStatus } from './collect-status.js';

/** A plain text table, one process a row, widths fitted to the content. */
export function renderStatusTable(rows: readonly ProcessStatus[]): string {
  const header = ['PROCESS', 'VERSION', 'HEALTH', 'UPTIME', 'CHECKS'];
  const body = rows.map((row) => [
    row.name,
    row.version ?? '-',
    row.health,
    row.uptimeMs === undefined ? '-' : formatDuration(row.uptimeMs),
    row.checks
      ? Object.entries(row.checks)
          .map(([name, state]) => `${name}:${state}`)
          .join(' ')
      : (row.error ?? '-'),
  ]);
  return renderTable(header, body);
}

export function renderTable(header: readonly string[], body: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ');
  return [line(header), ...body.map(line)].join('\n');
}

export function formatDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d${String(hours % 24).padStart(2, '0')}h`;
}
