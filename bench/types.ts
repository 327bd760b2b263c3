// The shape of benchmark results: an object keyed by benchmark name, each with a value and a unit.
export type BenchEntries = Record<string, { value: number; unit: string; [detail: string]: unknown }>;
