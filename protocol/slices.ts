// Long hashing in slices: a generator yields between slices so that its caller can let other work run
// (operator/in-turns.ts), or runs it to its end at once (finish).

/**
 * Counts work towards a slice: true when `size` units have been done since it last said true.
 * @throws {RangeError} on a size below 1
 * @example const due = sliceCounter(2048); for (const x of xs) { work(x); if (due()) yield; }
 */
export function sliceCounter(size: number): (units?: number) => boolean {
  if (!(size >= 1)) throw new RangeError('bad slice');
  let done = 0;
  return (units = 1) => {
    done += units;
    if (done < size) return false;
    done = 0;
    return true;
  };
}

/** Runs a sliced computation to its end at once. */
export function finish<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
