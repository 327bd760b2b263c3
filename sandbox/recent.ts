// A bounded memo of a pure function of a string: for hot paths that ask about the same few texts again
// (a module's source, a prompt), where a Map lookup of a string V8 has hashed costs far less than the work.

/** `fn` with its results for the `size` most recently added keys kept (oldest out first). */
export function recentMemo<T>(fn: (key: string) => T, size: number): (key: string) => T {
  const recent = new Map<string, T>();
  return (key) => {
    if (recent.has(key)) return recent.get(key) as T;
    const value = fn(key);
    if (recent.size >= size) recent.delete(recent.keys().next().value as string);
    recent.set(key, value);
    return value;
  };
}

/** Sets `key` in `map` as its newest entry, dropping the oldest past `size` (a Map keeps insertion order). */
export function setRecent<K, V>(map: Map<K, V>, key: K, value: V, size: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > size) map.delete(map.keys().next().value as K);
}
