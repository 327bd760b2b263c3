// Entities whatever their characters (validators/episodic/pieces.ts, redteam-s18e E3): a sent value that is no single
// token makes the texts showing it cut where they cut around it, and the pieces of its form are candidate entities.
import { describe, expect, it } from 'vitest';
import { formOf, piecesOf, spaced } from '../validators/episodic/pieces.js';
import { withheldEntities } from '../validators/episodic/withheld.js';

describe('pieces of a text around a spaced sent value', () => {
  it('reads a comma list, a line each and a table by the separators around the sent value', () => {
    expect(piecesOf('Returned orders: Dana Reyes, Ines Moreau, Tom Novak', ['Ines Moreau'])).toEqual([
      'Dana Reyes',
      'Ines Moreau',
      'Tom Novak',
    ]);
    expect(piecesOf('Parcels:\n* Locker 47 (1 parcel)\n* Locker 12 (2 parcels)', ['Locker 12'])).toEqual([
      'Locker 47',
      'Locker 12',
    ]);
    expect(piecesOf('| Room 4B | free |\n| Room 12A | booked |', ['Room 12A'])).toEqual(['Room 4B', 'Room 12A']);
  });

  it('keeps only pieces of the sent value form, and reads nothing where every sent value is one token', () => {
    expect(piecesOf('Slots: Mon 09:00; Tue 14:30; closed on Sunday', ['Tue 14:30'])).toEqual([
      'Mon 09:00',
      'Tue 14:30',
    ]);
    expect(piecesOf('Slots: Mon 09:00, Tue 14:30.', ['Mon 09:00'])).toEqual(['Mon 09:00', 'Tue 14:30']);
    expect(piecesOf('Orders: O-12, O-14.', ['O-12'])).toEqual([]);
  });

  it('tells a spaced value by the token grammar, and forms by case and digits', () => {
    expect([spaced('Ines Moreau'), spaced('O-12'), spaced('T_4')]).toEqual([true, false, false]);
    expect(formOf('The Silent Harbor')).toBe('Aa Aa Aa');
    expect(formOf('Locker 47')).toBe(formOf('Locker 5'));
    expect([spaced('Zoë'), formOf('Søren'), formOf('Núñez')]).toEqual([true, 'Aa', 'Aa']);
    expect(formOf('Returned orders')).not.toBe(formOf('Dana Reyes'));
  });

  it('makes the other pieces withheld entities', () => {
    const shown = ['Returned orders: Dana Reyes, Ines Moreau, Tom Novak', 'Ines Moreau: lamp, $40.'];
    expect(withheldEntities(shown, ['Ines Moreau', 'Tom Novak'])).toEqual(['Dana Reyes']);
  });
});
