// Weak-skill steering of a batch: a share of the target (--weak-share, round-robin over the trainer's weak
// skills this author can train) is wanted for environments that train a weak skill. Each architect round is
// told how many of its specs must aim at them, and once the other admissions are all taken, a spec that
// trains no weak skill is set aside rather than started. The frontier it used and admitted-per-skill
// against wanted-per-skill go into progress events and the report.
import type { WeakSkill } from '../agents/prompts.js';
import type { EnvSpec } from '../agents/spec.js';

/** A skill of the frontier as the report shows it. */
export interface FrontierSkill {
  skill: string;
  passRate: number;
  n?: number;
}

/** The report's account of the steering (absent when the batch had no trainer feedback). */
export interface FrontierReport {
  weakShare: number;
  /** Trainable weak skills: how many admissions were wanted for each, and how many trained it. */
  weak: Array<FrontierSkill & { wanted: number; admitted: number }>;
  /** Weak skills this author cannot train (left out of the share). */
  untrainable: FrontierSkill[];
  saturated: FrontierSkill[];
  /** Admissions that train at least one weak skill, against ceil(weakShare × target). */
  weakAdmitted: number;
  weakWanted: number;
  /** Admitted environments per skill (every skill of every admitted environment). */
  admittedPerSkill: Record<string, number>;
  /** Specs not started because they train no weak skill and the other admissions were all taken. */
  setAside: number;
}

export interface SteeringInput {
  weak: readonly WeakSkill[];
  saturated: readonly WeakSkill[];
  weakShare: number;
  target: number;
  /** Whether the author can train a skill (absent: every skill). */
  canTrain?: (skill: string) => boolean;
}

const asFrontier = (w: WeakSkill): FrontierSkill => ({
  skill: w.skill,
  passRate: w.passRate,
  ...(w.n !== undefined ? { n: w.n } : {}),
});

export class WeakSteering {
  readonly weak: WeakSkill[];
  readonly untrainable: WeakSkill[];
  readonly weakWanted: number;
  /** Admissions wanted per weak skill: weakWanted dealt round-robin, weakest skill first. */
  readonly wanted = new Map<string, number>();
  private readonly admittedPerSkill = new Map<string, number>();
  private weakAdmitted = 0;
  private otherAdmitted = 0;
  private otherRunning = 0;
  private weakRunning = 0;
  private setAside = 0;

  constructor(private readonly input: SteeringInput) {
    const canTrain = input.canTrain ?? (() => true);
    this.weak = input.weak.filter((w) => canTrain(w.skill));
    this.untrainable = input.weak.filter((w) => !canTrain(w.skill));
    this.weakWanted = this.weak.length === 0 ? 0 : Math.min(input.target, Math.ceil(input.weakShare * input.target));
    this.weak.forEach((w) => this.wanted.set(w.skill, 0));
    for (let i = 0; i < this.weakWanted; i++) {
      const skill = (this.weak[i % this.weak.length] as WeakSkill).skill;
      this.wanted.set(skill, (this.wanted.get(skill) ?? 0) + 1);
    }
  }

  /** Whether the steering does anything (trainable weak skills and a positive share). */
  get active(): boolean {
    return this.weakWanted > 0;
  }

  trainsWeak(skills: readonly string[]): boolean {
    return skills.some((s) => this.wanted.has(s));
  }

  /** For an architect round of n specs: how many must train a weak skill, and which, most wanted first. */
  focus(n: number): { skills: string[]; slots: number } | undefined {
    const weakDeficit = this.weakWanted - this.weakAdmitted - this.weakRunning;
    if (!this.active || weakDeficit <= 0) return undefined;
    const otherFull = this.otherAdmitted + this.otherRunning >= this.input.target - this.weakWanted;
    const slots = otherFull ? n : Math.min(n, Math.max(1, Math.ceil(this.input.weakShare * n)));
    const deficit = (skill: string) => (this.wanted.get(skill) ?? 0) - (this.admittedPerSkill.get(skill) ?? 0);
    const skills = [...this.weak]
      .sort((a, b) => deficit(b.skill) - deficit(a.skill) || a.passRate - b.passRate)
      .map((w) => w.skill);
    return { skills, slots };
  }

  /**
   * Called when a spec is about to start: false sets it aside (it trains no weak skill and the other admissions are
   * taken).
   */
  start(spec: Pick<EnvSpec, 'skills'>): boolean {
    if (!this.active || this.trainsWeak(spec.skills)) {
      if (this.active) this.weakRunning++;
      return true;
    }
    if (
      this.otherAdmitted + this.otherRunning >= this.input.target - this.weakWanted &&
      this.weakAdmitted < this.weakWanted
    ) {
      this.setAside++;
      return false;
    }
    this.otherRunning++;
    return true;
  }

  /** Called when a started spec is done (admitted or not). */
  finish(spec: Pick<EnvSpec, 'skills'>): void {
    if (!this.active) return;
    if (this.trainsWeak(spec.skills)) this.weakRunning--;
    else this.otherRunning--;
  }

  /** Counts an admitted environment by its own skills (also for environments admitted before a resume). */
  admitted(skills: readonly string[]): void {
    for (const skill of new Set(skills)) this.admittedPerSkill.set(skill, (this.admittedPerSkill.get(skill) ?? 0) + 1);
    if (this.trainsWeak(skills)) this.weakAdmitted++;
    else this.otherAdmitted++;
  }

  report(): FrontierReport {
    return {
      weakShare: this.input.weakShare,
      weak: this.weak.map((w) => ({
        ...asFrontier(w),
        wanted: this.wanted.get(w.skill) ?? 0,
        admitted: this.admittedPerSkill.get(w.skill) ?? 0,
      })),
      untrainable: this.untrainable.map(asFrontier),
      saturated: this.input.saturated.map(asFrontier),
      weakAdmitted: this.weakAdmitted,
      weakWanted: this.weakWanted,
      admittedPerSkill: Object.fromEntries(
        [...this.admittedPerSkill].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
      ),
      setAside: this.setAside,
    };
  }
}
