import { describe, expect, it } from 'vitest';
import { natsServerInstallHint } from './local-nats-server.js';

describe('natsServerInstallHint', () => {
  it.each([
    ['darwin', '', '`brew install nats-server`'],
    ['linux', 'ID=debian\n', '`sudo apt-get install nats-server`'],
    ['linux', 'ID=linuxmint\nID_LIKE="ubuntu debian"\n', '`sudo apt-get install nats-server`'],
    ['linux', 'ID=fedora\n', '`sudo dnf install nats-server`'],
    ['linux', 'ID=arch\n', '`sudo pacman -S nats-server`'],
    ['linux', 'ID=alpine\n', '`sudo apk add nats-server`'],
    ['linux', 'ID=nixos\n', '`go install github.com/nats-io/nats-server/v2@latest`'],
    ['win32', '', '`choco install nats-server`'],
  ] as const)('on %s (%j) says %s, in one line', (system, osRelease, command) => {
    const hint = natsServerInstallHint(system, osRelease);
    expect(hint).toContain(command);
    expect(hint).not.toContain('\n');
  });
});
