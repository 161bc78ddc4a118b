import { ResourceVersionSummarySchema, type ResourceVersionSummary } from '@flowmesh/contracts';
import { z } from 'zod';
import type { RegistryHttp } from './registry-connection.js';

/** A resource's versions, newest first. */
export function listVersions(http: RegistryHttp, path: string): Promise<ResourceVersionSummary[]> {
  return http.get(`resources/history_list/${path}`, z.array(ResourceVersionSummarySchema));
}

/** `VERSION  CREATED_AT  BY  NOTE` with one row per version. */
export function versionsTable(versions: readonly ResourceVersionSummary[]): string {
  const rows = [
    ['VERSION', 'CREATED_AT', 'BY', 'NOTE'],
    ...versions.map((v) => [
      String(v.version),
      v.created_at,
      v.created_by,
      v.restored_from === null ? '' : `restored from ${v.restored_from}`,
    ]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return (
    rows
      .map((row) =>
        row
          .map((cell, column) => cell.padEnd(widths[column]))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}
