// The file plumbing every format in formats/ shares: atomic output files, per-split JSONL streams and
// streamed per-split parquet files with pyarrow-compatible schemas.
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileWriter, ParquetWriter, type ColumnSource, type SchemaElement } from 'hyparquet-writer';
import { VERSION } from '../contract/version.js';
import { jsonText } from './encode.js';
import { EXPORT_SCHEME, type ExportRow, type OutputFileSet, type WrittenFile } from './contract.js';

/**
 * The files of one export. Writers write `<name>.partial` beside the final name; commit() renames them all
 * once every writer has ended, so a failed export never leaves a half-written dataset under a real name.
 */
export class OutputFiles implements OutputFileSet {
  private readonly names: string[] = [];

  constructor(readonly dir: string) {}

  /** Registers an output file and returns the temporary path to write it at. */
  create(name: string): string {
    if (this.names.includes(name)) throw new Error(`export file ${name} is written twice`);
    this.names.push(name);
    return this.partial(name);
  }

  text(name: string, content: string): void {
    const fd = openSync(this.create(name), 'w');
    try {
      writeSync(fd, content);
    } finally {
      closeSync(fd);
    }
  }

  list(): readonly string[] {
    return this.names;
  }

  /** Sizes and hashes of the files registered so far (read back from disk once they are closed). */
  describe(): WrittenFile[] {
    return this.names.map((name) => {
      const bytes = readFileSync(this.partial(name));
      return { name, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
    });
  }

  /** Moves every file to its final name. */
  commit(): void {
    for (const name of this.names) renameSync(this.partial(name), join(this.dir, name));
  }

  abort(): void {
    for (const name of this.names) rmSync(this.partial(name), { force: true });
  }

  private partial(name: string): string {
    return join(this.dir, `${name}.partial`);
  }
}

/** One JSONL file per split (`<split><suffix>`), written as rows arrive. */
export class JsonlSplits {
  private readonly fds = new Map<string, number>();

  constructor(files: OutputFileSet, splits: readonly string[], suffix = '.jsonl') {
    for (const split of splits) this.fds.set(split, openSync(files.create(`${split}${suffix}`), 'w'));
  }

  write(rows: readonly ExportRow[], toRecord: (row: ExportRow) => unknown): void {
    const text = new Map<string, string[]>();
    for (const row of rows) {
      const lines = text.get(row.split) ?? [];
      lines.push(jsonText(toRecord(row)));
      text.set(row.split, lines);
    }
    for (const [split, lines] of text) writeSync(this.fd(split), `${lines.join('\n')}\n`);
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  private fd(split: string): number {
    const fd = this.fds.get(split);
    if (fd === undefined) throw new Error(`row of unknown split "${split}"`);
    return fd;
  }
}

/** Rows per parquet row group: what a parquet writer holds in memory per split before writing it out. */
export const ROW_GROUP_ROWS = 1_000;

export interface ParquetLayout {
  /** Flattened parquet schema, root first. */
  schema: SchemaElement[];
  /** One record per row, keyed by top-level column name (INT64 values as bigint). */
  toRecord(row: ExportRow): Record<string, unknown>;
}

/**
 * One parquet file per split (`<split>.parquet`), streamed: each split buffers at most ROW_GROUP_ROWS rows
 * and writes them as one row group, so memory stays bounded whatever the export size.
 */
export class ParquetSplits {
  private readonly writers = new Map<string, { writer: ParquetWriter; pending: Record<string, unknown>[] }>();
  private readonly columns: string[];

  constructor(
    files: OutputFileSet,
    splits: readonly string[],
    private readonly layout: ParquetLayout,
    suffix = '.parquet',
  ) {
    this.columns = topLevelColumns(layout.schema);
    for (const split of splits) {
      const writer = new ParquetWriter({
        writer: fileWriter(files.create(`${split}${suffix}`)),
        schema: layout.schema,
        createdBy: `envforge ${VERSION} (hyparquet-writer)`,
        kvMetadata: [{ key: 'envforge.scheme', value: EXPORT_SCHEME }],
      });
      this.writers.set(split, { writer, pending: [] });
    }
  }

  async write(rows: readonly ExportRow[]): Promise<void> {
    for (const row of rows) {
      const target = this.writers.get(row.split);
      if (!target) throw new Error(`row of unknown split "${row.split}"`);
      target.pending.push(this.layout.toRecord(row));
      if (target.pending.length >= ROW_GROUP_ROWS) await this.flush(target);
    }
  }

  async close(): Promise<void> {
    for (const target of this.writers.values()) {
      await this.flush(target);
      await target.writer.finish();
    }
    this.writers.clear();
  }

  private async flush(target: { writer: ParquetWriter; pending: Record<string, unknown>[] }): Promise<void> {
    if (target.pending.length === 0) return;
    const rows = target.pending;
    target.pending = [];
    const columnData: ColumnSource[] = this.columns.map((name) => ({ name, data: rows.map((r) => r[name]) }));
    await target.writer.write({ columnData, rowGroupSize: Number.MAX_SAFE_INTEGER });
  }
}

function topLevelColumns(schema: SchemaElement[]): string[] {
  const names: string[] = [];
  // Walks the flattened tree: a child's subtree is skipped by counting the children still to visit.
  let i = 1;
  const skip = (): void => {
    const element = schema[i++] as SchemaElement;
    for (let c = 0; c < (element.num_children ?? 0); c++) skip();
  };
  while (i < schema.length) {
    names.push((schema[i] as SchemaElement).name);
    skip();
  }
  return names;
}

/** Parquet schema helpers: nullable (OPTIONAL) like the files pyarrow and HF datasets write. */
export const pq = {
  root: (fields: Field[]): SchemaElement[] => [{ name: 'root', num_children: fields.length }, ...fields.flat()],
  string: (name: string): SchemaElement => ({
    name,
    type: 'BYTE_ARRAY',
    converted_type: 'UTF8',
    repetition_type: 'OPTIONAL',
  }),
  int64: (name: string): SchemaElement => ({ name, type: 'INT64', repetition_type: 'OPTIONAL' }),
  boolean: (name: string): SchemaElement => ({ name, type: 'BOOLEAN', repetition_type: 'OPTIONAL' }),
  struct: pqStruct,
  /** A 3-level LIST of structs (`name.list.element`), as pyarrow writes it. */
  listOfStructs: (name: string, fields: Field[]): SchemaElement[] => [
    { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    ...pqStruct('element', fields),
  ],
};

/** A field is a leaf element or a group's flattened elements. */
type Field = SchemaElement | SchemaElement[];

function pqStruct(name: string, fields: Field[]): SchemaElement[] {
  return [{ name, repetition_type: 'OPTIONAL', num_children: fields.length }, ...fields.flat()];
}
