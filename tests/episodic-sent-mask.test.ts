import { describe, expect, it } from 'vitest';
import { maskSent, maskValues, sentOf, sentPattern } from '../validators/episodic/sent-mask.js';

describe('the one mask of what a plan sent', () => {
  it('takes the string values sent, trimmed, the empty ones left out', () => {
    expect(sentOf({ guest_id: ' G252 ', nights: 10, note: '  ', date: '2026-06-02' })).toEqual(['G252', '2026-06-02']);
  });

  it('masks a value as a word, beside digits and punctuation too, in any case, and every number', () => {
    const sent = sentPattern(['G252', '2026-06-02', 'B']);
    expect(maskSent('g252 booked 10 nights from 2026-06-02; held B30-B34', sent)).toBe(
      '· booked # nights from ·; held ·#-·#',
    );
  });

  it('never masks a value inside a word, and keeps numbers where only the values are masked', () => {
    const sent = sentPattern(['book', 'a']);
    expect(maskValues('booked a book at 10', sent)).toBe('booked · · at 10');
  });

  it('masks nothing where nothing was sent', () => {
    expect(maskValues('G252 booked', sentPattern([]))).toBe('G252 booked');
  });
});
