/** A Map that drops its oldest entry when it is full: the in-process caches of auth and the login throttle. */
export class BoundedMap<V> extends Map<string, V> {
  constructor(private readonly limit: number) {
    super();
  }
  override set(key: string, value: V): this {
    if (!this.has(key) && this.size >= this.limit) this.delete(this.keys().next().value as string);
    return super.set(key, value);
  }
}
