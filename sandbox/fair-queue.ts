// A queue per owner, served in turn: each take is the oldest item of the next owner in the rotation, so an
// owner's backlog delays another owner's work by at most one item per owner ahead of it (a client's share).
export class FairQueue<T> {
  /** Owners with waiting items, in the order they are served next (an owner served goes to the back). */
  private readonly queues = new Map<string, T[]>();
  private count = 0;

  /** Items waiting, of every owner. */
  get size(): number {
    return this.count;
  }

  push(owner: string, item: T): void {
    const queue = this.queues.get(owner);
    if (queue) queue.push(item);
    else this.queues.set(owner, [item]);
    this.count++;
  }

  /** The next owner's oldest item (owners in turn), or undefined when nothing waits. */
  shift(): T | undefined {
    const next = this.queues.entries().next();
    if (next.done) return undefined;
    const [owner, queue] = next.value;
    const item = queue.shift() as T;
    this.queues.delete(owner);
    if (queue.length > 0) this.queues.set(owner, queue);
    this.count--;
    return item;
  }

  /** Takes out the owner's waiting items that `drop` picks, and returns them (a cancelled request's work). */
  remove(owner: string, drop: (item: T) => boolean): T[] {
    const queue = this.queues.get(owner);
    if (!queue) return [];
    const dropped = queue.filter(drop);
    const kept = queue.filter((item) => !drop(item));
    if (kept.length > 0) this.queues.set(owner, kept);
    else this.queues.delete(owner);
    this.count -= dropped.length;
    return dropped;
  }
}
