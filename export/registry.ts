// Every export format, in one place: the CLI offers these, and tests/exporter-contract.test.ts runs the
// exporter contract on each, so a format added here is tested without another line.
import type { ExportFormat } from './contract.js';
import { jsonl } from './formats/jsonl.js';
import { openrlhf } from './formats/openrlhf.js';
import { trl } from './formats/trl.js';
import { verl } from './formats/verl.js';

export const FORMATS = { verl, openrlhf, trl, jsonl } as const satisfies Record<string, ExportFormat>;
export type FormatName = keyof typeof FORMATS;
export const FORMAT_NAMES = Object.keys(FORMATS) as FormatName[];
