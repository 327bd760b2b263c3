// The frame reader of serve/ws-frames.ts (V27-3): what a client's raw WebSocket bytes hold while they arrive, read
// from frames ws itself wrote, split at every byte, with control frames between a message's fragments.
import { describe, expect, it } from 'vitest';
import { FRAME_HELD, FrameReader } from '../serve/ws-frames.js';

/** One masked client frame (RFC 6455 5.2), its length in 7 bits, 16 or 64 as its size needs. */
function frame(opcode: number, fin: boolean, payload: Buffer): Buffer {
  const n = payload.length;
  const head = [(fin ? 0x80 : 0) | opcode, 0x80 | (n > 65_535 ? 127 : n > 125 ? 126 : n)];
  if (n > 65_535) for (let shift = 56; shift >= 0; shift -= 8) head.push(Number((BigInt(n) >> BigInt(shift)) & 255n));
  else if (n > 125) head.push(n >> 8, n & 255);
  const mask = [1, 2, 3, 4];
  return Buffer.concat([Buffer.from([...head, ...mask]), payload.map((b, i) => b ^ (mask[i % 4] as number))]);
}

describe('FrameReader', () => {
  it('owes the bytes of an unfinished message and a fixed cost per fragment, nothing once it is whole', () => {
    for (const size of [0, 1, 125, 126, 65_535, 65_536, 70_000]) {
      const parts = [frame(1, false, Buffer.alloc(size, 97)), frame(0, false, Buffer.alloc(3, 97))] as const;
      const ping = frame(9, true, Buffer.from('hi'));
      const last = frame(0, true, Buffer.alloc(size, 97));
      const r = new FrameReader();
      for (const p of parts) r.push(p);
      expect(r.held, `${size}`).toBe(2);
      expect(r.owed, `${size}`).toBe(parts[0].length + parts[1].length);
      expect(r.cost, `${size}`).toBe(r.owed + 2 * FRAME_HELD);
      r.push(ping.subarray(0, 3)); // a ping begun between fragments is owed until whole, then nothing of it
      expect(r.owed).toBe(parts[0].length + parts[1].length + 3);
      r.push(ping.subarray(3));
      expect(r.owed).toBe(parts[0].length + parts[1].length);
      r.push(last);
      expect([r.held, r.owed], `${size}`).toEqual([0, 0]);
    }
  });

  it('reads the same whatever the chunks: byte by byte', () => {
    const stream = Buffer.concat([
      frame(1, true, Buffer.from('whole')),
      ...Array.from({ length: 50 }, (_, i) => frame(i === 0 ? 1 : 0, false, Buffer.from('x'))),
      frame(10, true, Buffer.alloc(0)),
      frame(0, false, Buffer.alloc(300, 98)),
    ]);
    const whole = new FrameReader();
    whole.push(stream);
    const bytes = new FrameReader();
    for (const b of stream) bytes.push(Buffer.from([b]));
    expect(bytes.held).toBe(51);
    expect([bytes.held, bytes.owed]).toEqual([whole.held, whole.owed]);
    // 1-byte fragments: each 7 bytes on the wire, each charged far more than its bytes (ws keeps it as an object)
    expect(bytes.cost).toBeGreaterThan(51 * FRAME_HELD);
  });
});
