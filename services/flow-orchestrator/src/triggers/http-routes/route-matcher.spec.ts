import { describe, expect, it } from 'vitest';
import { RouteMatcher } from './route-matcher.js';

const route = (path: string, method: string) => ({
  name: `${method} ${path}`,
  segments: path.split('/'),
  method,
});

describe('RouteMatcher', () => {
  const matcher = new RouteMatcher([
    route('users/:id', 'get'),
    route('users/me', 'get'),
    route('users/:id', 'delete'),
    route('users/:id/posts/:post', 'get'),
    route('main/hooks/:name', 'post'),
    route(':org/hooks/github', 'post'),
  ]);

  it('takes parameters from the segments', () => {
    expect(matcher.match('get', ['users', '42', 'posts', '7'])).toMatchObject({
      kind: 'found',
      route: { name: 'get users/:id/posts/:post' },
      params: { id: '42', post: '7' },
    });
  });

  it('prefers a literal segment to a parameter, as matchit does', () => {
    expect(matcher.match('get', ['users', 'me'])).toMatchObject({
      route: { name: 'get users/me' },
      params: {},
    });
    expect(matcher.match('get', ['users', 'you'])).toMatchObject({ params: { id: 'you' } });
  });

  it('falls back to a parameter route when the literal one lacks the method', () => {
    expect(matcher.match('delete', ['users', 'me'])).toMatchObject({
      route: { name: 'delete users/:id' },
      params: { id: 'me' },
    });
    expect(matcher.match('post', ['main', 'hooks', 'github'])).toMatchObject({
      route: { name: 'post main/hooks/:name' },
    });
  });

  it('answers 405 with the methods that would work, and 404 for a path nothing answers', () => {
    expect(matcher.match('post', ['users', '42'])).toEqual({
      kind: 'method_not_allowed',
      allow: ['delete', 'get'],
    });
    expect(matcher.match('get', ['users'])).toEqual({ kind: 'not_found' });
    expect(matcher.match('get', ['users', '42', 'extra'])).toEqual({ kind: 'not_found' });
    expect(matcher.match('get', ['users', ''])).toEqual({ kind: 'not_found' });
  });
});
