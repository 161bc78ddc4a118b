import { createHash } from 'node:crypto';

/** API tokens we generate start with this; job tokens with `fmj_`. */
export const API_TOKEN_PREFIX = 'fm_';
const SHOWN_PREFIX_LENGTH = 12;

/** What the database keeps of a token. */
export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The prefix shown in lists (and naming a token's budget): the token's first characters for one
 * we generated (54 of its 256 bits, useless on their own), a piece of the hash for one given to
 * us (`FLOWMESH_ADMIN_TOKEN`), whose length and shape we do not control.
 */
export function apiTokenPrefix(token: string): string {
  return token.startsWith(API_TOKEN_PREFIX) && token.length >= 40
    ? token.slice(0, SHOWN_PREFIX_LENGTH)
    : `h_${hashApiToken(token).slice(0, 10)}`;
}
