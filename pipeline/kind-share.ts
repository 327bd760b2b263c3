// `--kind mixed` as a fair share of the target: each kind is kept half of it (rounded down), and an odd last
// place goes to whichever kind fills it first. Each architect round asks for the kinds that still want admissions;
// a spec of a kind whose share is admitted or running is set aside; a kind whose author runs out of
// novel designs (a round asked for it alone brings none) leaves the rest of its share to the other.
// Trainer feedback comes first: specs aimed at a weak skill are never set aside for their kind.
import type { RunKind } from '../agents/spec.js';
import { ALL_KINDS, countsPerKind, type KindName } from '../kinds/registry.js';

export const MIXED_RULE =
  'mixed: each kind is kept half of --target (rounded down; an odd last place goes to whichever kind fills ' +
  'it first); a kind that runs out of new designs leaves the rest of its share to the other; with ' +
  '--feedback, environments aimed at a weak skill come first, whatever their kind';

/**
 * The kinds `--kind mixed` shares the target between (a plug's `mixed`: single-turn and episodic; code is asked for by
 * name).
 */
const MIXED: readonly KindName[] = ALL_KINDS.filter((k) => k.mixed).map((k) => k.name);
const other = (kind: KindName): KindName => MIXED.find((k) => k !== kind) ?? (MIXED[0] as KindName);

export class KindShare {
  /** Places kept for each kind (the odd last place of a mixed target is kept for neither). */
  readonly wanted: Record<KindName, number>;
  private readonly target: number;
  private readonly admittedCount: Record<KindName, number> = countsPerKind(() => 0);
  private readonly running: Record<KindName, number> = countsPerKind(() => 0);
  private readonly exhausted = new Set<KindName>();
  setAside = 0;

  constructor(
    readonly kind: RunKind,
    target: number,
  ) {
    const half = Math.floor(target / 2);
    this.target = target;
    // One kind asked for gets the whole target; mixed shares it between single-turn and episodic (code is asked for by
    // name).
    this.wanted =
      kind !== 'mixed' ? { ...countsPerKind(() => 0), [kind]: target } : countsPerKind((k) => (k.mixed ? half : 0));
  }

  /** A kind is full when one more of it would eat into the other kind's reserved half. */
  private full(kind: KindName): boolean {
    return this.admittedCount[kind] + this.running[kind] >= this.target - this.wanted[other(kind)];
  }

  /** The kind the next architect round asks for: both while both want more, else the one that does. */
  ask(): RunKind {
    if (this.kind !== 'mixed') return this.kind;
    const open = MIXED.filter((k) => !this.full(k) && !this.exhausted.has(k));
    return open.length === 1 ? (open[0] as KindName) : 'mixed';
  }

  /**
   * A round asked for one kind brought no new spec: that kind's unfilled share goes to the other kind.
   * True when the share moved (specs of the other kind set aside earlier may start now).
   */
  roundBrought(asked: RunKind, fresh: number): boolean {
    if (this.kind !== 'mixed' || asked === 'mixed' || fresh > 0 || this.exhausted.has(asked)) return false;
    this.exhausted.add(asked);
    const left = Math.max(0, this.wanted[asked] - this.admittedCount[asked] - this.running[asked]);
    this.wanted[asked] -= left;
    this.wanted[other(asked)] += left;
    return left > 0;
  }

  /**
   * Called when a spec is about to start: false sets it aside (its kind's share is taken). A spec aimed at
   * a weak skill of the trainer's feedback (`weak`) is never set aside: that share comes first.
   */
  start(kind: KindName, weak = false): boolean {
    if (this.kind !== 'mixed') return true;
    if (this.full(kind) && !weak) {
      this.setAside++;
      return false;
    }
    this.running[kind]++;
    return true;
  }

  finish(kind: KindName): void {
    if (this.kind === 'mixed') this.running[kind]--;
  }

  admitted(kind: KindName): void {
    this.admittedCount[kind]++;
  }
}
