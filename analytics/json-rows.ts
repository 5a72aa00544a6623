// Parses a JSONEachRow body: one JSON object per line.
import type { Row } from './engine.ts';

export function parseJsonEachRow<T extends Row = Row>(body: string): T[] {
  const out: T[] = [];
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf('\n', start);
    if (end === -1) end = body.length;
    if (end > start) out.push(JSON.parse(body.slice(start, end)) as T);
    start = end + 1;
  }
  return out;
}
