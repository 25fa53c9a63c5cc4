// The redo journal, byte for byte as docs/lock-protocol.md specifies it, so the CLI can replay a
// journal the extension left and the other way round:
//
//   rail-journal 1\n
//   file <path> <length> <checksum>\n<length bytes>\n
//   append <path> <length> <checksum>\n<length bytes>\n
//   end <count> <checksum>\n
//
// Checksums are 64-bit FNV-1a as 16 lowercase hex digits; `end` covers every byte before it.

export interface JournalEntry {
  /** `file`: the whole new content of `path`; `append`: bytes to append to it (the log). */
  kind: 'file' | 'append';
  /** Relative to the rail directory: `claims.md`, `claims/x.yaml`, `claims.log`. */
  path: string;
  bytes: Buffer;
}

/**
 * 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime 0x100000001b3). Computed on four 16-bit
 * limbs in plain numbers: BigInt per byte would cost milliseconds on a large claims.md.
 */
export function fnv1a64(bytes: Uint8Array): string {
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  for (let i = 0; i < bytes.length; i++) {
    h0 ^= bytes[i] as number;
    // h * 0x100000001b3 = h * 0x1b3 + (h << 40); 1 << 40 is 0x100 in limb 2.
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3;
    const t2 = h2 * 0x1b3 + h0 * 0x100;
    const t3 = h3 * 0x1b3 + h1 * 0x100;
    h0 = t0 & 0xffff;
    const c1 = t1 + (t0 >>> 16);
    h1 = c1 & 0xffff;
    const c2 = t2 + Math.floor(c1 / 0x10000);
    h2 = c2 & 0xffff;
    h3 = (t3 + Math.floor(c2 / 0x10000)) & 0xffff;
  }
  const hex = (n: number): string => n.toString(16).padStart(4, '0');
  return hex(h3) + hex(h2) + hex(h1) + hex(h0);
}

export function renderJournal(entries: readonly JournalEntry[]): Buffer {
  const parts: Buffer[] = [Buffer.from('rail-journal 1\n')];
  for (const e of entries) {
    parts.push(Buffer.from(`${e.kind} ${e.path} ${e.bytes.length} ${fnv1a64(e.bytes)}\n`), e.bytes, Buffer.from('\n'));
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, Buffer.from(`end ${entries.length} ${fnv1a64(body)}\n`)]);
}

/** Compares a written checksum with a computed one as the CLI does (hex number, any case). */
function sameSum(written: string | undefined, computed: string): boolean {
  return written !== undefined && /^[0-9a-fA-F]{1,16}$/.test(written) && written.toLowerCase().padStart(16, '0') === computed;
}

/** A journal's entries; `undefined` unless it is complete and every checksum matches. */
export function parseJournal(bytes: Buffer): JournalEntry[] | undefined {
  const magic = Buffer.from('rail-journal 1\n');
  if (bytes.length < magic.length || !bytes.subarray(0, magic.length).equals(magic)) return undefined;
  let at = magic.length;
  const entries: JournalEntry[] = [];
  for (;;) {
    const nl = bytes.indexOf(0x0a, at);
    if (nl < 0) return undefined;
    const header = bytes.subarray(at, nl).toString('utf8');
    const parts = header.split(' ');
    if (parts[0] === 'end') {
      if (parts.length !== 3) return undefined;
      const count = Number(parts[1]);
      if (count !== entries.length || !sameSum(parts[2], fnv1a64(bytes.subarray(0, at)))) return undefined;
      return nl + 1 === bytes.length ? entries : undefined;
    }
    const [kind, path, lenText, sum] = parts;
    if (parts.length !== 4 || (kind !== 'file' && kind !== 'append') || path === undefined) return undefined;
    if (!/^\d+$/.test(lenText ?? '')) return undefined;
    const len = Number(lenText);
    const start = nl + 1;
    if (start + len >= bytes.length || bytes[start + len] !== 0x0a) return undefined;
    const body = bytes.subarray(start, start + len);
    if (!sameSum(sum, fnv1a64(body))) return undefined;
    entries.push({ kind, path, bytes: Buffer.from(body) });
    at = start + len + 1;
  }
}
