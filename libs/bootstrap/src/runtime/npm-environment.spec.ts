import { describe, expect, it } from 'vitest';
import { npmEnvironment } from './npm-environment.js';

describe('npmEnvironment', () => {
  it("passes npm what reaches its registry, never the service's secrets", () => {
    expect(
      npmEnvironment({
        PATH: '/usr/bin',
        HOME: '/home/node',
        npm_config_registry: 'https://registry.example.test/',
        HTTPS_PROXY: 'http://proxy:3128',
        DATABASE_URL: 'postgres://user:secret@db/x',
        NATS_URL: 'nats://token@nats:4222',
        FLOWMESH_SECRET_KEYS: 'k1:abc',
      }),
    ).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/node',
      npm_config_registry: 'https://registry.example.test/',
      HTTPS_PROXY: 'http://proxy:3128',
    });
  });
});
