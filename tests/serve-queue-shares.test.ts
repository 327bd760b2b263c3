// The service's queue (maxQueue items in flight, serve/service.ts) is shared fairly between clients, as the
// session slots are: one client that fills it is refused past its share, while another client within its own
// share is still admitted (before, the first client's items shut every other client out with 503).
import { describe, expect, it } from 'vitest';
import { Service } from '../serve/service.js';

const service = (maxQueue: number) =>
  new Service({ maxQueue } as never, {} as never, {} as never, {} as never, {} as never);

describe("the service's queue when it is full", () => {
  it('refuses the client filling it past its share and admits another within its own', () => {
    const s = service(4);
    const hostile = [s.acquire(2, 'hostile'), s.acquire(2, 'hostile')]; // the queue is full
    expect(() => s.acquire(1, 'hostile')).toThrow(/this client 4, its fair share 4 while 1 share them/);
    const trainer = [s.acquire(1, 'trainer'), s.acquire(1, 'trainer')]; // its share: 4 / 2 clients
    expect(() => s.acquire(1, 'hostile')).toThrow(/this client 4, its fair share 2 while 2 share them/);
    expect(() => s.acquire(1, 'trainer')).toThrow(/this client 2, its fair share 2/);
    expect(s.inflight).toBe(6); // bounded: at most twice maxQueue
    // Once the hostile client's items are done, the queue has room for anyone again.
    for (const release of [...hostile, ...trainer]) release();
    expect(s.inflight).toBe(0);
    expect(() => s.acquire(4, 'trainer')()).not.toThrow();
  });

  it('still admits a request alone, whatever its size, and counts a release once', () => {
    const s = service(2);
    const release = s.acquire(10, 'one');
    release();
    release();
    expect(s.inflight).toBe(0);
  });
});
