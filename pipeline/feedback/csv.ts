// RFC 4180 CSV records for feedback files: quoted fields with commas, newlines and doubled quotes, CRLF
// or LF line ends, blank and # comment lines skipped, each record with the line it starts on.
import { FeedbackError, show, stripBom } from './problems.js';

export interface CsvRecord {
  /** 1-based line on which the record starts. */
  line: number;
  /** Unquoted cells are trimmed; quoted cells are kept verbatim. */
  cells: string[];
}

/**
 * RFC 4180 records: comma-separated, fields optionally in double quotes (commas, newlines and doubled
 * quotes inside), CRLF or LF line ends. Blank lines and lines starting with # are skipped.
 */
export function parseCsvRecords(text: string, file = '<csv>'): CsvRecord[] {
  const records: CsvRecord[] = [];
  const src = stripBom(text);
  let i = 0;
  let line = 1;
  while (i < src.length) {
    // At the start of a record: skip blank and comment lines.
    const end = src.indexOf('\n', i);
    const lineEnd = end === -1 ? src.length : end;
    const whole = src.slice(i, lineEnd).replace(/\r$/, '');
    if (whole.trim() === '' || whole.trimStart().startsWith('#')) {
      i = lineEnd + 1;
      line++;
      continue;
    }
    const record: CsvRecord = { line, cells: [] };
    let cell = '';
    let quoted = false;
    for (;;) {
      const ch = src[i];
      if (ch === '"' && cell.trim() === '' && !quoted) {
        // A quoted field: read to the closing quote.
        quoted = true;
        cell = '';
        const openLine = line;
        i++;
        for (;;) {
          if (i >= src.length)
            throw new FeedbackError([`${file} line ${openLine}: a quoted field is never closed (a " is missing)`]);
          const c = src[i] as string;
          if (c === '"') {
            if (src[i + 1] === '"') {
              cell += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          cell += c;
          i++;
        }
        // Only spaces may follow the closing quote before the separator.
        while (src[i] === ' ' || src[i] === '\t') i++;
        const next = src[i];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
          throw new FeedbackError([
            `${file} line ${line}: unexpected ${show(next)} after a closing quote (write a quote ` +
              `inside a quoted field as "")`,
          ]);
        }
        continue;
      }
      if (ch === undefined || ch === '\n' || (ch === '\r' && (src[i + 1] === '\n' || src[i + 1] === undefined))) {
        record.cells.push(quoted ? cell : cell.trim());
        if (ch === '\r') i++;
        if (ch !== undefined) {
          i++;
          line++;
        }
        break;
      }
      if (ch === ',') {
        record.cells.push(quoted ? cell : cell.trim());
        cell = '';
        quoted = false;
        i++;
        continue;
      }
      cell += ch;
      i++;
    }
    records.push(record);
  }
  return records;
}
