// Long hashing (an RNG chain, a commit's liability tree) in slices, with the event loop free between them: one
// process may also answer the analytics, the local chain and anchoring (all-in-one), or the API's requests.

/**
 * Runs a sliced computation (a generator that yields between slices) to its end, letting the event loop turn
 * between slices.
 * @param busy - adds the milliseconds spent in the slices themselves (the turns between them left out)
 * @example await inTurns(liabilityTreeSteps(saltSecret, epoch, liabilities, 4096))
 */
export async function inTurns<T>(steps: Generator<void, T>, busy?: { ms: number }): Promise<T> {
  for (;;) {
    const t0 = busy ? performance.now() : 0;
    const step = steps.next();
    if (busy) busy.ms += performance.now() - t0;
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
