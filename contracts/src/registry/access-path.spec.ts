import { describe, expect, it } from 'vitest';
import { MeshError } from '../errors.js';
import { ItemPathSchema, parseItemPath, principalProblem } from './access-path.js';

describe('parseItemPath', () => {
  it('splits user and folder paths into kind, owner and name', () => {
    expect(parseItemPath('u/alice/x')).toEqual({ kind: 'user', owner: 'alice', name: 'x' });
    expect(parseItemPath('f/team/sub/agent.v2')).toEqual({
      kind: 'folder',
      owner: 'team',
      name: 'sub/agent.v2',
    });
  });

  it.each([
    ['x/y', 'path "x/y" must start with u/<user>/ or f/<folder>/'],
    ['', 'path "" must start with u/<user>/ or f/<folder>/'],
    ['u', 'path "u" must start with u/<user>/ or f/<folder>/'],
    ['g/devs/x', 'path "g/devs/x" must start with u/<user>/ or f/<folder>/'],
    ['u/alice', 'path "u/alice" must name an item after u/alice/'],
    ['f/team/', 'path "f/team/" must name an item after f/team/'],
    [
      'f/te am/x',
      "path \"f/te am/x\": \"te am\" is not valid: a folder name must be letters, digits, '_', '-' or '.', starting with a letter, digit or '_'",
    ],
    [
      'u/alice/../bob/x',
      "path \"u/alice/../bob/x\": segment \"..\" must be letters, digits, '_', '-' or '.', starting with a letter, digit or '_'",
    ],
  ])('refuses %j: %s', (path, message) => {
    let error: unknown;
    try {
      parseItemPath(path);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(MeshError);
    expect((error as MeshError).code).toBe('VALIDATION_FAILED');
    expect((error as MeshError).message).toBe(message);
  });

  it('refuses paths over 255 characters without echoing all of them', () => {
    const long = `u/alice/${'a'.repeat(300)}`;
    expect(() => parseItemPath(long)).toThrow(/is longer than 255 characters/);
    expect(() => parseItemPath(long)).not.toThrow(long);
  });

  it('is the same rule inside payloads (ItemPathSchema)', () => {
    expect(ItemPathSchema.safeParse('f/team/x').success).toBe(true);
    const result = ItemPathSchema.safeParse('team/x');
    expect(result.error?.issues[0]?.message).toBe('path "team/x" must start with u/<user>/ or f/<folder>/');
  });
});

describe('principals', () => {
  it('are u/<user> or g/<group>', () => {
    expect(principalProblem('u/alice')).toBeUndefined();
    expect(principalProblem('g/devs')).toBeUndefined();
    expect(principalProblem('alice')).toBe('"alice" must be u/<user> or g/<group>');
    expect(principalProblem('f/team')).toBe('"f/team" must be u/<user> or g/<group>');
    expect(principalProblem('u/')).toBe('"u/": a user name must not be empty');
  });
});
