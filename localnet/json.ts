// JSON serialization that writes bigint as a bare number, as the real RPC emits u64 values.

/** An f64 field: serde writes whole values as `5.0`, and kit keeps such numbers as `number` rather than bigint. */
export class F64 {
  constructor(readonly value: number) {}
}

export type Json = null | boolean | number | bigint | string | F64 | Json[] | { [k: string]: Json | undefined };

export function stringify(value: Json | undefined): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

function write(v: Json | undefined, out: string[]): void {
  if (v === null || v === undefined) {
    out.push('null');
  } else if (typeof v === 'string') {
    out.push(JSON.stringify(v));
  } else if (typeof v === 'bigint') {
    out.push(v.toString());
  } else if (typeof v === 'number') {
    out.push(Number.isFinite(v) ? String(v) : 'null');
  } else if (typeof v === 'boolean') {
    out.push(v ? 'true' : 'false');
  } else if (v instanceof F64) {
    const n = v.value;
    out.push(!Number.isFinite(n) ? 'null' : Number.isInteger(n) && Math.abs(n) < 1e16 ? n.toFixed(1) : String(n));
  } else if (Array.isArray(v)) {
    out.push('[');
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.push(',');
      write(v[i], out);
    }
    out.push(']');
  } else {
    out.push('{');
    let first = true;
    for (const k of Object.keys(v)) {
      const item = v[k];
      if (item === undefined) continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(k), ':');
      write(item, out);
    }
    out.push('}');
  }
}
