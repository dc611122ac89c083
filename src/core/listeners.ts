/** The listeners of one kind of event, held by what makes the events (the app's finished refreshes): no module-wide registry. */
export class Listeners<T> {
  private readonly listeners = new Set<(event: T) => void>();

  on(listener: (event: T) => void): void {
    this.listeners.add(listener);
  }

  off(listener: (event: T) => void): void {
    this.listeners.delete(listener);
  }

  /** Calls every listener in the order they came, at once. */
  emit(event: T): void {
    for (const listener of this.listeners) listener(event);
  }
}
