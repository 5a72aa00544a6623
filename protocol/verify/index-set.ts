// A set of non-negative integers kept as sorted disjoint ranges: the RNG indices a log has used, which
// are dense, so a monitor's saved state stays small however long the log grows.

export class IndexSet {
  // [start, end] inclusive, sorted, disjoint and not adjacent.
  readonly #ranges: [number, number][] = [];
  #count = 0;

  /** @throws {TypeError} when the JSON is not sorted, disjoint ranges */
  static fromJSON(json: unknown): IndexSet {
    const set = new IndexSet();
    if (!Array.isArray(json)) throw new TypeError('an index set is a list of [start, end] ranges');
    let last = -2;
    for (const r of json) {
      if (!Array.isArray(r) || r.length !== 2 || !Number.isSafeInteger(r[0]) || !Number.isSafeInteger(r[1]) || r[0] > r[1] || r[0] <= last + 1) {
        throw new TypeError('an index set is a list of sorted, disjoint [start, end] ranges');
      }
      set.#ranges.push([r[0], r[1]]);
      set.#count += r[1] - r[0] + 1;
      last = r[1];
    }
    return set;
  }

  toJSON(): [number, number][] {
    return this.#ranges.map(([a, b]) => [a, b]);
  }

  get size(): number {
    return this.#count;
  }

  // Index of the last range starting at or before n, or -1.
  #find(n: number): number {
    let lo = 0;
    let hi = this.#ranges.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#ranges[mid] as [number, number])[0] <= n) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  has(n: number): boolean {
    const i = this.#find(n);
    return i >= 0 && (this.#ranges[i] as [number, number])[1] >= n;
  }

  /** Adds `n`; false when it was already there. */
  add(n: number): boolean {
    const i = this.#find(n);
    const left = this.#ranges[i];
    if (left && left[1] >= n) return false;
    const right = this.#ranges[i + 1];
    const joinsLeft = left !== undefined && left[1] === n - 1;
    const joinsRight = right !== undefined && right[0] === n + 1;
    if (joinsLeft && joinsRight) {
      left[1] = right[1];
      this.#ranges.splice(i + 1, 1);
    } else if (joinsLeft) left[1] = n;
    else if (joinsRight) right[0] = n;
    else this.#ranges.splice(i + 1, 0, [n, n]);
    this.#count++;
    return true;
  }
}
