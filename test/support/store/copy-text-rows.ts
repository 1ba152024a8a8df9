/** Reading back rows in PostgreSQL's COPY text format, as the writer sends them. */
import type { CopyRows } from '../../../src/store/copy-text';

const UNESCAPED: Record<string, string> = { '\\': '\\', n: '\n', r: '\r', t: '\t' };

/** A field's text, its escapes undone; null for \N. */
function field(text: string): string | null {
  return text === '\\N' ? null : text.replace(/\\(.)/g, (_, c: string) => UNESCAPED[c] ?? c);
}

/** The rows of a COPY, each by column name. */
export function copyTextRows(rows: CopyRows): Record<string, string | null>[] {
  const text = Buffer.concat(rows.data()).toString('utf8');
  if (text === '') return [];
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => {
      const fields = line.split('\t');
      expect(fields).toHaveLength(rows.columns.length);
      return Object.fromEntries(rows.columns.map((column, i) => [column, field(fields[i]!)]));
    });
}
