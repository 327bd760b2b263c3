// DNS rebinding: the reward service and the dashboard, bound to loopback, answer only requests that name
// them by an IP address, localhost or a name the operator allowed; a page whose own name was re-pointed at
// 127.0.0.1 gets 403 E_HOST on every route (a same-origin GET carries no Origin header to refuse it by).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { allowedHosts, hostName, hostRefusal, isLoopbackBind } from '../contract/hosts.js';
import { startDashboard } from '../dashboard/server.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { startServer } from '../serve/server.js';
import { fakeAdmission, sampleMeta, sampleSource } from './helpers/library-fixtures.js';
import { send } from './helpers/send-from.js';

const none = allowedHosts([]);

describe('which Host headers a server answers', () => {
  it(
    'bound to loopback, it answers IP literals and localhost names, with or without a port, and ' +
      'refuses every other name',
    () => {
      for (const host of [
        '127.0.0.1:8787',
        '127.0.0.1',
        '[::1]:8787',
        '10.1.2.3:80',
        'localhost:8787',
        'LOCALHOST',
        'localhost.',
        'app.localhost:3000',
      ])
        expect(hostRefusal(host, '127.0.0.1', none), host).toBeNull();
      for (const host of [
        'attacker.example',
        'attacker.example:8787',
        'localhost.attacker.example',
        '127.0.0.1.nip.io',
        'evil',
        '',
      ])
        expect(hostRefusal(host, '127.0.0.1', none), host).toContain('DNS rebinding');
      expect(hostRefusal(['localhost', 'evil.example'], '::1', none)).toContain('--allow-host');
    },
  );

  it('answers the names the operator allowed: exact, a domain with its subdomains, or any', () => {
    const allowed = allowedHosts(['Trainer-7.cluster', '.corp.example']);
    expect(hostRefusal('trainer-7.cluster:8787', '127.0.0.1', allowed)).toBeNull();
    expect(hostRefusal('a.b.corp.example', '127.0.0.1', allowed)).toBeNull();
    expect(hostRefusal('corp.example', '127.0.0.1', allowed)).toBeNull();
    expect(hostRefusal('evilcorp.example', '127.0.0.1', allowed)).not.toBeNull();
    expect(hostRefusal('anything.example', '127.0.0.1', allowedHosts(['*']))).toBeNull();
  });

  it('bound to another interface it answers any name, unless the operator listed names', () => {
    expect(hostRefusal('trainer-7.cluster', '0.0.0.0', none)).toBeNull();
    expect(hostRefusal('other.example', '0.0.0.0', allowedHosts(['trainer-7.cluster']))).not.toBeNull();
    expect(isLoopbackBind('127.0.0.2')).toBe(true);
    expect(isLoopbackBind('localhost')).toBe(true);
    expect(isLoopbackBind('::')).toBe(false);
  });

  it('reads the name out of the header and refuses a malformed allow-list entry by name', () => {
    expect(hostName('[::1]:80')).toBe('::1');
    expect(hostName('Example.ORG.:443')).toBe('example.org');
    expect(hostName('user@evil:80')).toBeNull();
    expect(() => allowedHosts(['http://x.example/'])).toThrow(/--allow-host takes a host name/);
  });
});

describe('the servers refuse a re-pointed name on every route', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'envforge-hosts-')), 'lib');
  beforeAll(async () => {
    const library = SqliteLibrary.open(dir, { create: true });
    const meta = sampleMeta('host-check');
    await library.admit(fakeAdmission(sampleSource(meta), meta));
    await library.close();
  });

  it('the reward service: 403 E_HOST for a foreign name, served to 127.0.0.1, localhost, an allowed name', async () => {
    const server = await startServer({ libraryDir: dir, port: 0, allowHosts: ['trainer.cluster'] });
    try {
      const foreign = await send(server.url, 'GET', '/v1/envs', undefined, {
        headers: { host: 'rebound.attacker.example' },
      });
      expect(foreign.status).toBe(403);
      expect(foreign.body.error.code).toBe('E_HOST');
      const post = await send(
        server.url,
        'POST',
        '/v1/verify',
        { items: [] },
        { headers: { host: 'rebound.attacker.example' } },
      );
      expect(post.status).toBe(403);
      for (const host of [new URL(server.url).host, 'localhost', 'trainer.cluster:1234']) {
        const ok = await send(server.url, 'GET', '/v1/envs', undefined, { headers: { host } });
        expect(ok.status, host).toBe(200);
        expect(ok.body.envs.map((e: { name: string }) => e.name)).toContain('host-check');
      }
    } finally {
      await server.close();
    }
  });

  it('the dashboard: 403 E_HOST for a foreign name on pages and the API, served for its own address', async () => {
    const dash = await startDashboard({ location: dir, port: 0 });
    try {
      for (const path of ['/', '/api/envs', '/api/envs/host-check']) {
        const foreign = await send(dash.url, 'GET', path, undefined, {
          headers: { host: 'rebound.attacker.example:8788' },
        });
        expect(foreign.status, path).toBe(403);
        expect(foreign.body.error.code).toBe('E_HOST');
      }
      const own = await send(dash.url, 'GET', '/api/envs/host-check', undefined, {
        headers: { host: new URL(dash.url).host },
      });
      expect(own.status).toBe(200);
    } finally {
      await dash.close();
    }
  });
});
