// Runs tasks one at a time per wallet (in this process), each after the previous one settles, either way.
export class WalletQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(wallet: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(wallet) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(wallet, tail);
    void tail.then(() => {
      if (this.#tails.get(wallet) === tail) this.#tails.delete(wallet);
    });
    return result;
  }
}
