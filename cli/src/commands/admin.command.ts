import {
  createLockerClient,
  createRegistryIdentityClient,
  type AdminInitReply,
  type AnnounceDeploysReply,
} from '@flowmesh/contracts';
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

interface RebuildDepmapOptions extends AdminInitOptions {
  workspace: string;
}

/**
 * `flowmesh admin init`: asks the running registry to create the workspace `main` and its first
 * admin when the database has none (the registry also does this itself at start). The admin's
 * token is `FLOWMESH_ADMIN_TOKEN` when set, else generated and printed here, once.
 */
export function registerAdminCommands(program: Command): void {
  const admin = program.command('admin').description('administer a running mesh');
  withMeshOptions(admin.command('init'))
    .description('create the workspace "main" and its first admin if the registry has none (idempotent)')
    .option('--timeout <ms>', 'how long to wait for the registry', parsePositiveInt, 5_000)
    .action(async (options: AdminInitOptions) => {
      const adminToken = process.env.FLOWMESH_ADMIN_TOKEN || undefined;
      const { conn, client } = await connectCli(options);
      try {
        const registry = createRegistryIdentityClient(client);
        const reply = await registry.adminInit(adminToken === undefined ? {} : { adminToken }, {
          timeoutMs: options.timeout,
        });
        process.stdout.write(options.json ? `${JSON.stringify(reply, null, 2)}\n` : describeInit(reply));
      } finally {
        await conn.drain();
      }
    });
  withMeshOptions(admin.command('rebuild-depmap'))
    .description(
      "have dependency-locker map and lock a workspace's scripts, flows and agents again (those deployed before it ran); admins only, token in FLOWMESH_TOKEN or FLOWMESH_ADMIN_TOKEN",
    )
    .option('--workspace <id>', 'the workspace', 'main')
    .option('--timeout <ms>', 'how long to wait for the locker', parsePositiveInt, 120_000)
    .action(async (options: RebuildDepmapOptions) => {
      const token = process.env.FLOWMESH_TOKEN || process.env.FLOWMESH_ADMIN_TOKEN;
      if (!token) throw new Error('set FLOWMESH_TOKEN (or FLOWMESH_ADMIN_TOKEN) to an admin token');
      const { conn, client } = await connectCli(options);
      try {
        const locker = createLockerClient(client);
        const reply = await locker.rebuildDepmap(
          { actor: { token }, workspace: options.workspace },
          { timeoutMs: options.timeout },
        );
        process.stdout.write(
          options.json ? `${JSON.stringify(reply, null, 2)}\n` : describeRebuild(options.workspace, reply),
        );
      } finally {
        await conn.drain();
      }
    });
}

export function describeRebuild(workspace: string, reply: AnnounceDeploysReply): string {
  return `workspace "${workspace}": ${reply.scripts} scripts, ${reply.flows} flows and ${reply.agents} agents handed to dependency-locker, which maps and locks them in the background\n`;
}

/** The options every admin command takes: output, and which mesh to reach. */
function withMeshOptions(command: Command): Command {
  return command
    .option('--json', 'print JSON instead of text')
    .option(
      '--nats-url <url>',
      'NATS server (default: $NATS_URL, else the mesh flowmesh start runs here, else nats://127.0.0.1:4222)',
    )
    .option('--prefix <prefix>', 'subject prefix of the mesh (default: $FLOWMESH_SUBJECT_PREFIX or fm)');
}

/** Connects to the mesh; the NATS client is loaded here, not as the CLI starts (~0.6 s of CPU). */
async function connectCli(options: AdminInitOptions) {
  const { connectMesh, MeshClient } = await import('@flowmesh/messaging');
  const settings = readCliSettings(process.env);
  const conn = await connectMesh({
    url: options.natsUrl ?? (await cliNatsUrl(settings, process.cwd())),
    name: 'flowmesh-cli',
    prefix: options.prefix ?? settings.subjectPrefix,
  });
  return { conn, client: new MeshClient(conn) };
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
