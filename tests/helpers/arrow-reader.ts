// An independent parquet reader for the export tests: arrow-rs (parquet-wasm) reads the file and the Arrow
// C data interface structs are decoded from wasm memory, so a file our writer gets wrong in a way our own
// reader (hyparquet) forgives still fails.
import { readFileSync } from 'node:fs';
import { readParquet, wasmMemory } from 'parquet-wasm/node';

export interface ArrowField {
  name: string | null;
  format: string;
  nullable: boolean;
  children: ArrowField[];
}
/**
 * Reads a parquet file with arrow-rs (parquet-wasm) and decodes the Arrow C data interface structs from
 * wasm memory: enough of the spec for utf8, int64, boolean, struct and list columns. wasm32 layout: ArrowSchema
 * {format, name, metadata, flags@16, n_children@24, children@32}, ArrowArray {length@0, null_count@8,
 * offset@16, n_buffers@24, n_children@32, buffers@40, children@44}.
 */
export function readWithArrow(path: string): { schema: ArrowField; rows: Array<Record<string, unknown>> } {
  const stream = readParquet(new Uint8Array(readFileSync(path))).intoFFI();
  const memory = wasmMemory();
  const view = () => new DataView(memory.buffer);
  const u8 = () => new Uint8Array(memory.buffer);
  const u32 = (p: number) => view().getUint32(p, true);
  const i64 = (p: number) => Number(view().getBigInt64(p, true));
  const cstr = (p: number) => {
    if (!p) return null;
    let end = p;
    while (u8()[end]) end++;
    return new TextDecoder().decode(u8().slice(p, end));
  };
  const schemaAt = (p: number): ArrowField => ({
    format: cstr(u32(p)) as string,
    name: cstr(u32(p + 4)),
    nullable: (i64(p + 16) & 2) !== 0,
    children: Array.from({ length: i64(p + 24) }, (_, i) => schemaAt(u32(u32(p + 32) + 4 * i))),
  });
  const arrayAt = (p: number, field: ArrowField): unknown[] => {
    const length = i64(p);
    const nulls = i64(p + 8);
    const offset = i64(p + 16);
    const buffer = (i: number) => u32(u32(p + 40) + 4 * i);
    const child = (i: number) => u32(u32(p + 44) + 4 * i);
    const valid = (i: number) =>
      nulls === 0 || !buffer(0) || ((u8()[buffer(0) + ((offset + i) >> 3)] as number) >> ((offset + i) & 7)) & 1;
    const offsetAt = (i: number) => view().getInt32(buffer(1) + 4 * (offset + i), true);
    const out: unknown[] = [];
    for (let i = 0; i < length; i++) {
      if (!valid(i)) {
        out.push(null);
        continue;
      }
      if (field.format === 'u')
        out.push(new TextDecoder().decode(u8().slice(buffer(2) + offsetAt(i), buffer(2) + offsetAt(i + 1))));
      else if (field.format === 'l') out.push(i64(buffer(1) + 8 * (offset + i)));
      else if (field.format === 'b')
        out.push((((u8()[buffer(1) + ((offset + i) >> 3)] as number) >> ((offset + i) & 7)) & 1) === 1);
      else if (field.format !== '+s' && field.format !== '+l')
        throw new Error(`no decoder for Arrow format ${field.format}`);
    }
    if (field.format === '+s') {
      const columns = field.children.map((c, k) => arrayAt(child(k), c));
      return Array.from({ length }, (_, i) =>
        valid(i) ? Object.fromEntries(field.children.map((c, k) => [c.name, columns[k]?.[offset + i]])) : null,
      );
    }
    if (field.format === '+l') {
      const values = arrayAt(child(0), field.children[0] as ArrowField);
      return Array.from({ length }, (_, i) => (valid(i) ? values.slice(offsetAt(i), offsetAt(i + 1)) : null));
    }
    return out;
  };
  const schema = schemaAt(stream.schemaAddr());
  const rows = Array.from({ length: stream.numArrays() }, (_, i) =>
    arrayAt(stream.arrayAddr(i), schema),
  ).flat() as Array<Record<string, unknown>>;
  stream.free();
  return { schema, rows };
}
const describeField = (f: ArrowField): string =>
  `${f.name}:${f.format}${f.nullable ? '?' : ''}` +
  `${f.children.length ? `<${f.children.map(describeField).join(',')}>` : ''}`;
export const describeColumns = (f: ArrowField) => f.children.map(describeField).join(',');
