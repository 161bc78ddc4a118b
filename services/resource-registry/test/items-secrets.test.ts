import { createDecipheriv, randomBytes } from 'node:crypto';
import type { RegistryItemsClient } from '@flowmesh/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretCipher } from '../src/secrets/secret-cipher.js';
import { parseSecretKeys } from '@flowmesh/keyring';
import { as, CapturedLog, errorOf, httpText, itemsClient, rowsOf } from './support/items-support.js';
import { startRegistryCast, type RegistryCast } from './support/registry-cast.js';

const currentKey = randomBytes(32);
const oldKey = randomBytes(32);
const SECRET_KEYS = `k2:${currentKey.toString('base64')},k1:${oldKey.toString('base64')}`;

/** Secret values used in this file; none may ever appear in a log line or a stored row. */
const secrets: string[] = [];
function secret(label: string): string {
  // Plain-looking on purpose: the log scrubber must not be what hides it.
  const value = `plain-${label}-${randomBytes(9).toString('hex')}`;
  secrets.push(value);
  return value;
}

let cast: RegistryCast;
let items: RegistryItemsClient;
const log = new CapturedLog();

beforeAll(async () => {
  cast = await startRegistryCast(
    { FLOWMESH_SECRET_KEYS: SECRET_KEYS, LOG_LEVEL: 'trace' },
    { logDestination: log },
  );
  items = itemsClient(cast);
});

afterAll(async () => {
  await cast?.stop();
});

const owner = () => as(cast, cast.actors.owner);
const token = () => cast.actors.owner.token;

/** What AES-256-GCM with `key` and the variable's path as additional data gives back. */
function openRow(row: Record<string, unknown>, key: Buffer): string {
  const sealed = row.ciphertext as Buffer;
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAAD(Buffer.from(`flowmesh-variable\0${String(row.workspace_id)}\0${String(row.path)}`));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
}

describe('secret variables', () => {
  it('created over HTTP as Windmill does ({path, value, is_secret, description}): 201 and the path', async () => {
    const value = secret('http');
    const created = await httpText(cast, 'POST', '/api/w/main/variables/create', token(), {
      path: 'f/team/api_key',
      value,
      is_secret: true,
      description: 'the team key',
    });
    expect(created).toMatchObject({ status: 201, text: 'f/team/api_key' });
    expect(
      (await cast.http('GET', '/api/w/main/variables/get_value/f/team/api_key', cast.actors.reader.token))
        .body,
    ).toBe(value);
    expect(
      (await cast.http('GET', '/api/w/main/variables/get/f/team/api_key', cast.actors.member.token)).body,
    ).toMatchObject({
      path: 'f/team/api_key',
      value,
      is_secret: true,
      description: 'the team key',
    });
    const undecrypted = (
      await cast.http('GET', '/api/w/main/variables/get/f/team/api_key?decrypt_secret=false', token())
    ).body;
    expect(undecrypted).not.toHaveProperty('value');
  });

  it('are stored as AES-256-GCM ciphertext under the current key id, never as plaintext', async () => {
    const value = secret('stored');
    await items.createVariable({ ...owner(), path: 'u/owner/stored', value, is_secret: true });
    const [row] = await cast.dataSource.query<Array<Record<string, unknown>>>(
      `SELECT * FROM variable WHERE path = 'u/owner/stored'`,
    );
    expect(row).toMatchObject({ is_secret: true, value: null, key_id: 'k2' });
    expect(openRow(row, currentKey)).toBe(value);
    const everything =
      JSON.stringify(await rowsOf(cast, 'variable')) + JSON.stringify(await rowsOf(cast, 'outbox_message'));
    for (const plaintext of secrets) expect(everything).not.toContain(plaintext);
  });

  it('the database refuses a secret row holding plaintext', async () => {
    const error = await cast.dataSource
      .query(
        `INSERT INTO variable (workspace_id, path, is_secret, value, created_by, edited_by) VALUES ('main', 'u/owner/raw', true, 'x', 'a', 'a')`,
      )
      .then(
        () => undefined,
        (caught: unknown) => caught as Error,
      );
    expect(error?.message).toContain('CHK_variable_secret_sealed');
  });

  it('reach only callers who may read them: others get the not-found answer, lists never carry them', async () => {
    const value = secret('private');
    await items.createVariable({ ...owner(), path: 'u/owner/private', value, is_secret: true });
    await items.createVariable({ ...owner(), path: 'u/owner/plain', value: 'visible', is_secret: false });
    const stranger = as(cast, cast.actors.stranger);
    expect(
      await errorOf(() => items.getVariableValue({ ...stranger, path: 'u/owner/private' })),
    ).toMatchObject({
      code: 'NOT_FOUND',
      message: 'variable u/owner/private not found',
    });
    expect(
      await errorOf(() => items.getVariableValue({ ...stranger, path: 'u/owner/nothing' })),
    ).toMatchObject({
      code: 'NOT_FOUND',
      message: 'variable u/owner/nothing not found',
    });
    const { variables } = await items.listVariables(owner());
    expect(variables.find((v) => v.path === 'u/owner/plain')).toMatchObject({
      value: 'visible',
      is_secret: false,
    });
    expect(variables.find((v) => v.path === 'u/owner/private')).not.toHaveProperty('value');
    expect(
      JSON.stringify((await cast.http('GET', '/api/w/main/variables/list', token())).body),
    ).not.toContain(value);
  });

  it('keys rotate: a secret sealed under the old key reads, and is sealed again under the current one when written', async () => {
    const value = secret('rotated');
    const old = new SecretCipher(
      (parseSecretKeys(`k1:${oldKey.toString('base64')}`) as { ok: true; keyring: never }).keyring,
    );
    const sealed = old.seal(value, { workspace: 'main', path: 'u/owner/rotated' });
    await cast.dataSource.query(
      `INSERT INTO variable (workspace_id, path, is_secret, key_id, ciphertext, created_by, edited_by) VALUES ('main', 'u/owner/rotated', true, $1, $2, 'owner', 'owner')`,
      [sealed.keyId, sealed.sealed],
    );
    expect((await items.getVariableValue({ ...owner(), path: 'u/owner/rotated' })).value).toBe(value);
    await items.updateVariable({ ...owner(), path: 'u/owner/rotated', description: 'touched' });
    const [row] = await cast.dataSource.query<Array<Record<string, unknown>>>(
      `SELECT * FROM variable WHERE path = 'u/owner/rotated'`,
    );
    expect(row).toMatchObject({ key_id: 'k2' });
    expect(openRow(row, currentKey)).toBe(value);
  });

  it('are bound to their path: a ciphertext moved to another variable does not decrypt, and the error holds no value', async () => {
    const value = secret('bound');
    await items.createVariable({ ...owner(), path: 'u/owner/bound_a', value, is_secret: true });
    await items.createVariable({
      ...owner(),
      path: 'u/owner/bound_b',
      value: secret('other'),
      is_secret: true,
    });
    await cast.dataSource.query(
      `UPDATE variable SET ciphertext = (SELECT ciphertext FROM variable WHERE path = 'u/owner/bound_a') WHERE path = 'u/owner/bound_b'`,
    );
    const error = await errorOf(() => items.getVariableValue({ ...owner(), path: 'u/owner/bound_b' }));
    expect(error).toMatchObject({
      code: 'INTERNAL',
      message:
        'secret u/owner/bound_b does not decrypt with key "k2": the key differs or the stored value was altered',
    });
  });

  it('rename re-seals under the new path; a secret cannot become plain; updates answer without the value', async () => {
    const value = secret('moving');
    await items.createVariable({ ...owner(), path: 'u/owner/moving', value, is_secret: true });
    const moved = await items.updateVariable({
      ...owner(),
      path: 'u/owner/moving',
      new_path: 'f/team/moved',
    });
    expect(moved).not.toHaveProperty('value');
    expect(
      (await items.getVariableValue({ ...as(cast, cast.actors.reader), path: 'f/team/moved' })).value,
    ).toBe(value);
    expect(
      await errorOf(() => items.updateVariable({ ...owner(), path: 'f/team/moved', is_secret: false })),
    ).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'is_secret: variable f/team/moved is a secret and stays one; create a plain variable instead',
    });
    const replaced = secret('replaced');
    await items.updateVariable({ ...owner(), path: 'f/team/moved', value: replaced });
    expect((await items.getVariableValue({ ...owner(), path: 'f/team/moved' })).value).toBe(replaced);
  });

  it('errors about a secret never carry it: refused writes, bad paths, forbidden reads, interpolation', async () => {
    const value = secret('refused');
    const refusals = await Promise.all([
      errorOf(() => items.createVariable({ ...owner(), path: 'bad/path', value, is_secret: true })),
      errorOf(() =>
        items.createVariable({
          ...as(cast, cast.actors.reader),
          path: 'f/team/not_mine',
          value,
          is_secret: true,
        }),
      ),
      errorOf(() => items.createVariable({ ...owner(), path: 'f/team/api_key', value, is_secret: true })),
      errorOf(() =>
        items.updateVariable({ ...as(cast, cast.actors.stranger), path: 'f/team/api_key', value }),
      ),
      errorOf(() =>
        items.interpolate({ ...as(cast, cast.actors.stranger), value: { key: '$var:f/team/api_key' } }),
      ),
    ]);
    expect(refusals.map((error) => error.code)).toEqual([
      'VALIDATION_FAILED',
      'PERMISSION_DENIED',
      'CONFLICT',
      'NOT_FOUND',
      'NOT_FOUND',
    ]);
    const answers = JSON.stringify(refusals.map((error) => error.toEnvelope()));
    for (const plaintext of secrets) expect(answers).not.toContain(plaintext);
    const http = await cast.http('POST', '/api/w/main/variables/create', token(), {
      path: 'x',
      value,
      is_secret: true,
    });
    expect(http.status).toBe(400);
    expect(JSON.stringify(http.body)).not.toContain(value);
  });

  it('interpolation hands a secret to a caller who may read it', async () => {
    const { value } = await items.interpolate({
      ...as(cast, cast.actors.writer),
      value: { headers: { authorization: '$var:f/team/api_key' } },
    });
    expect(value).toEqual({ headers: { authorization: secrets[0] } });
  });
});

// Last in the file: every secret written above has passed through the service by now.
describe('logs', () => {
  it('the service logged at trace level during this file, and no line holds a secret value', () => {
    expect(log.lines.length).toBeGreaterThan(0);
    expect(log.containing('"service":"resource-registry"').length).toBeGreaterThan(0);
    for (const plaintext of secrets) expect(log.containing(plaintext)).toEqual([]);
    expect(log.containing(currentKey.toString('base64'))).toEqual([]);
  });
});
