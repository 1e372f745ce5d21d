/** Something that holds a resource until disposed (VS Code's IDisposable). */
export interface Disposable {
  dispose(): void | Promise<void>;
}

/** Owns disposables and disposes them all, newest first, exactly once. */
export class DisposableStore implements Disposable {
  private items: Disposable[] = [];
  private disposed = false;

  add<T extends Disposable>(item: T): T {
    if (this.disposed) {
      void item.dispose();
    } else {
      this.items.push(item);
    }
    return item;
  }

  delete(item: Disposable): void {
    this.items = this.items.filter((i) => i !== item);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const items = this.items.reverse();
    this.items = [];
    for (const item of items) {
      try {
        await item.dispose();
      } catch {
        // one failing disposable must not keep the others alive
      }
    }
  }
}

export function toDisposable(fn: () => void | Promise<void>): Disposable {
  return { dispose: fn };
}
