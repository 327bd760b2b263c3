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
