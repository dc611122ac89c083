/**
 * Asynchronous sections that run one after another, in the order they are asked for: what one section reads and
 * writes, no other section changes meanwhile. A section asked for while none runs starts at once.
 */
export class Serial {
  private last: Promise<unknown> | null = null;

  run<T>(section: () => Promise<T>): Promise<T> {
    const result = this.last === null ? section() : this.last.then(section);
    const settled = result.catch(() => undefined);
    this.last = settled;
    void settled.then(() => {
      if (this.last === settled) this.last = null;
    });
    return result;
  }
}
