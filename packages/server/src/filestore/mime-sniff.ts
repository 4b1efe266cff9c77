import { lookup } from 'mime-types';

/**
 * The media type of a file: from its name where the extension says it, else from the first
 * bytes. Only the few signatures worth knowing are checked (no dependency: `file-type` needs
 * Node 22): PNG, JPEG, GIF, WebP, PDF, ZIP, and text (valid UTF-8 without control characters).
 */
export function mimeOf(name: string, head: Buffer, complete: boolean): string {
  // Only a real extension counts (mime-types would read the name "img" itself as one), and
  // `application/octet-stream` from it says nothing the contents could not say better.
  const dot = name.lastIndexOf('.');
  const byName = dot > 0 ? lookup(name.slice(dot + 1)) : false;
  return byName && byName !== 'application/octet-stream' ? byName : sniffMime(head, complete);
}

const startsWith = (head: Buffer, bytes: number[], at = 0) => bytes.every((b, i) => head[at + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** The type the first bytes show, else text or `application/octet-stream` (also a direct upload's check). */
export function sniffMime(head: Buffer, complete: boolean): string {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) return 'image/webp';
  if (startsWith(head, ascii('%PDF-'))) return 'application/pdf';
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06]))
    return 'application/zip';
  if (head.length > 0 && isText(head, complete)) return 'text/plain';
  return 'application/octet-stream';
}

/**
 * Valid UTF-8 with no control characters but tab, newline, form feed and carriage return. When
 * `head` is only the start of the file, a multi-byte character cut off at its end is fine.
 */
function isText(head: Buffer, complete: boolean): boolean {
  let i = 0;
  while (i < head.length) {
    const b = head[i] ?? 0;
    if (b < 0x80) {
      if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d) return false;
      if (b === 0x7f) return false;
      i += 1;
      continue;
    }
    const length = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (length === 0) return false;
    if (i + length > head.length) return !complete;
    for (let k = 1; k < length; k++) if (((head[i + k] ?? 0) & 0xc0) !== 0x80) return false;
    i += length;
  }
  return true;
}
