import { ActorSchema, defineRequest, MeshError, type RequestOf } from '@flowmesh/contracts';
import {
  HandleRequest,
  MESH_AUTHENTICATOR,
  MeshCaller,
  MeshClient,
  type MeshAuthenticator,
} from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MeshFixture } from './support/mesh-fixture.js';

const onBehalf = z.object({ actor: ActorSchema, workspace: z.string().min(1) });
const note = defineRequest(
  'notes.note.get',
  onBehalf.extend({ name: z.string() }),
  z.object({ name: z.string(), by: z.string() }),
);
const whoami = defineRequest('notes.caller.get', onBehalf, z.object({ by: z.string() }));

interface Caller {
  readonly username: string;
  readonly workspace: string;
}

/** The port as a service provides it: `fm_<user>` is that user in `main`; others fail as the registry would. */
const asked: Array<{ token: string; workspace: string }> = [];
const authenticator: MeshAuthenticator<Caller> = {
  authenticate(token, workspace) {
    asked.push({ token, workspace });
    if (!token.startsWith('fm_'))
      return Promise.reject(new MeshError('UNAUTHENTICATED', 'the token is invalid'));
    if (workspace !== 'main')
      return Promise.reject(new MeshError('NOT_FOUND', `workspace "${workspace}" not found`));
    return Promise.resolve({ username: token.slice(3), workspace });
  },
};

let handled = 0;

@Controller()
class NotesHandler {
  @HandleRequest(note)
  get(@Payload() req: RequestOf<typeof note>, @MeshCaller() caller: Caller) {
    handled++;
    return { name: req.name, by: `${caller.username}@${caller.workspace}` };
  }

  @HandleRequest(whoami)
  whoami(@MeshCaller() caller: Caller) {
    handled++;
    return { by: caller.username };
  }
}

describe('@MeshCaller(): the caller of a request handler', () => {
  let mesh: MeshFixture;
  let client: MeshClient;

  beforeAll(async () => {
    mesh = await MeshFixture.create('caller');
    await mesh.startApp([NotesHandler], {
      providers: [{ provide: MESH_AUTHENTICATOR, useValue: authenticator }],
    });
    client = new MeshClient(await mesh.connect('client'));
  });

  afterAll(async () => {
    await mesh?.dispose();
  });

  it('is the port’s answer for the request’s actor token in its workspace, beside the payload', async () => {
    asked.length = 0;
    expect(
      await client.request(note, { actor: { token: 'fm_alice' }, workspace: 'main', name: 'n1' }),
    ).toEqual({ name: 'n1', by: 'alice@main' });
    expect(await client.request(whoami, { actor: { token: 'fm_bob' }, workspace: 'main' })).toEqual({
      by: 'bob',
    });
    expect(asked).toEqual([
      { token: 'fm_alice', workspace: 'main' },
      { token: 'fm_bob', workspace: 'main' },
    ]);
  });

  it('fails the request with the port’s error, code and message unchanged, before the handler runs', async () => {
    const before = handled;
    await expect(
      client.request(note, { actor: { token: 'bad' }, workspace: 'main', name: 'n1' }),
    ).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'the token is invalid' });
    await expect(
      client.request(whoami, { actor: { token: 'fm_alice' }, workspace: 'elsewhere' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'workspace "elsewhere" not found' });
    expect(handled).toBe(before);
  });
});
