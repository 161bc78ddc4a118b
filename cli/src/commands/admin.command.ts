import { createRegistryIdentityClient, type AdminInitReply } from '@flowmesh/contracts';
import { connectMesh, MeshClient } from '@flowmesh/messaging';
import type { Command } from 'commander';
import { readCliSettings } from '../cli.config.js';
import { parsePositiveInt } from './option-parsers.js';
import { cliNatsUrl } from '../mesh/local-nats-auth.js';

interface AdminInitOptions {
  json?: boolean;
  timeout: number;
  natsUrl?: string;
  prefix?: string;
}

/**
 * `flowmesh admin init`: asks the running registry to create the workspace `main` and its first
 * admin when the database has none (the registry also does this itself at start). The admin's
 * token is `FLOWMESH_ADMIN_TOKEN` when set, else generated and printed here, once.
 */
export function registerAdminCommands(program: Command): void {
  const admin = program.command('admin').description('administer a running mesh');
  admin
    .command('init')
    .description('create the workspace "main" and its first admin if the registry has none (idempotent)')
    .option('--json', 'print JSON instead of text')
    .option('--timeout <ms>', 'how long to wait for the registry', parsePositiveInt, 5_000)
    .option(
      '--nats-url <url>',
      'NATS server (default: $NATS_URL, else the mesh flowmesh start runs here, else nats://127.0.0.1:4222)',
    )
    .option('--prefix <prefix>', 'subject prefix of the mesh (default: $FLOWMESH_SUBJECT_PREFIX or fm)')
    .action(async (options: AdminInitOptions) => {
      const settings = readCliSettings(process.env);
      const adminToken = process.env.FLOWMESH_ADMIN_TOKEN || undefined;
      const conn = await connectMesh({
        url: options.natsUrl ?? (await cliNatsUrl(settings, process.cwd())),
        name: 'flowmesh-cli',
        prefix: options.prefix ?? settings.subjectPrefix,
      });
      try {
        const registry = createRegistryIdentityClient(new MeshClient(conn));
        const reply = await registry.adminInit(adminToken === undefined ? {} : { adminToken }, {
          timeoutMs: options.timeout,
        });
        process.stdout.write(options.json ? `${JSON.stringify(reply, null, 2)}\n` : describeInit(reply));
      } finally {
        await conn.drain();
      }
    });
}

export function describeInit(reply: AdminInitReply): string {
  if (!reply.created) {
    return `workspace "${reply.workspace}" already has its first admin (${reply.email}); nothing created\n`;
  }
  const token =
    reply.token === undefined
      ? 'its token is FLOWMESH_ADMIN_TOKEN'
      : `API token (shown once, keep it): ${reply.token}`;
  return `created workspace "${reply.workspace}" and its first admin ${reply.email} (user ${reply.username}); ${token}\n`;
}
