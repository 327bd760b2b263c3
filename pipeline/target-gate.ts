// --target as a hard cap: an admission first takes a place under the target; a candidate that validates
// once every place is taken (it was in flight when the target was reached) is kept as "extra": journaled
// and reported with its module, never admitted.

export class TargetGate {
  private reserved = 0;

  constructor(
    private readonly target: number,
    private readonly admitted: () => number,
  ) {}

  /** Every place is admitted (not merely reserved). */
  get reached(): boolean {
    return this.admitted() >= this.target;
  }

  /** Takes a place for one admission; false when the admitted and reserved ones already fill the target. */
  reserve(): boolean {
    if (this.admitted() + this.reserved >= this.target) return false;
    this.reserved++;
    return true;
  }

  /** Gives the place back once the admission is counted (or did not happen). */
  release(): void {
    this.reserved--;
  }
}
