// The prompt replay's treatments (validators/episodic/treatments.ts: redteam-s18e E7): which tools an entity gets is
// drawn among the references' treatments unless the prompt pairs the entity with its tool, so a replay of entities the
// prompt names carries no decision the observations taught the reference.
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import { describedInPrompt, entityOf, redrawTreatments, treatmentsOf } from '../validators/episodic/treatments.js';

const id = { type: 'object', properties: { ticket_id: { type: 'string' } } };
const meta = {
  tools: [
    { name: 'list', description: '', parameters: { type: 'object', properties: {} } },
    { name: 'read', description: '', parameters: id },
    { name: 'close', description: '', parameters: id },
    { name: 'escalate', description: '', parameters: id },
    { name: 'tag', description: '', parameters: { type: 'object', properties: { level: { enum: ['a', 'b'] } } } },
  ],
} as unknown as EpisodicMeta;
const call = (tool: string, ticket_id?: string) => ({ tool, args: ticket_id === undefined ? {} : { ticket_id } });
const log = [
  call('list'),
  call('read', 'T-1'),
  call('close', 'T-1'),
  call('read', 'T-2'),
  call('escalate', 'T-2'),
  call('list'),
];

describe('treatments', () => {
  it('an entity is a call’s first string argument that is not an enum', () => {
    expect(entityOf(meta, call('read', 'T-1'))).toBe('T-1');
    expect(entityOf(meta, { tool: 'tag', args: { level: 'a' } })).toBeUndefined();
    expect(entityOf(meta, call('list'))).toBeUndefined();
  });

  it('lists the distinct tool sequences of the entities across the logs', () => {
    expect(treatmentsOf(meta, [log, [call('read', 'T-9'), call('close', 'T-9')]])).toEqual([
      ['read', 'close'],
      ['read', 'escalate'],
    ]);
  });

  it('redraws each entity’s treatment in place, the entity put into a tool its own calls do not use', () => {
    const treatments = treatmentsOf(meta, [log]);
    const out = redrawTreatments(meta, log, treatments, () => 1);
    expect(out).toEqual([
      call('list'),
      call('read', 'T-1'),
      call('escalate', 'T-1'),
      call('read', 'T-2'),
      call('escalate', 'T-2'),
      call('list'),
    ]);
  });

  it('changes nothing where the references treat every entity alike', () => {
    const alike = [call('read', 'T-1'), call('close', 'T-1'), call('read', 'T-2'), call('close', 'T-2')];
    expect(redrawTreatments(meta, alike, treatmentsOf(meta, [alike]), () => 0)).toEqual(alike);
  });

  it('keeps the treatment of an entity the prompt says something of, redraws one it only lists', () => {
    const prompt = 'Queue: T-1 (urgent), T-2 and T-3.\n- close a solved ticket\n- escalate an urgent one';
    expect(describedInPrompt(prompt, 'T-1')).toBe(true);
    expect(describedInPrompt(prompt, 'T-2')).toBe(false);
    expect(describedInPrompt('Matches: C-1 -> F-9, C-2 -> no match', 'F-9')).toBe(true);
    expect(describedInPrompt('T-10: close', 'T-1')).toBe(false);
    const drawn = redrawTreatments(meta, log, treatmentsOf(meta, [log]), () => 0, 'Tickets: T-1, T-2 (on fire).');
    expect(drawn).toEqual([
      call('list'),
      call('read', 'T-1'),
      call('close', 'T-1'),
      call('read', 'T-2'),
      call('escalate', 'T-2'),
      call('list'),
    ]);
  });

  it('lengthens or shortens an entity’s calls after its last one', () => {
    const uneven = [call('read', 'T-1'), call('close', 'T-1'), call('escalate', 'T-2'), call('list')];
    const treatments = [['escalate'], ['read', 'close']];
    expect(redrawTreatments(meta, uneven, treatments, () => 0)).toEqual([
      call('escalate', 'T-1'),
      call('escalate', 'T-2'),
      call('list'),
    ]);
    expect(redrawTreatments(meta, uneven, treatments, () => 1)).toEqual([
      call('read', 'T-1'),
      call('close', 'T-1'),
      call('read', 'T-2'),
      call('close', 'T-2'),
      call('list'),
    ]);
  });
});
