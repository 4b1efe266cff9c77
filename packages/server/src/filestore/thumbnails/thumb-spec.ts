/**
 * The `thumb` parameter of a download, in PocketBase's syntax (what its users know):
 * `WxH` crops to W×H from the centre, `WxHt` from the top, `WxHb` from the bottom, `WxHf` fits
 * inside W×H without cropping, `0xH` and `Wx0` scale to that height or width keeping the ratio.
 * The store's `thumbnails.sizes` (core/config-parts.ts) lists the values it serves.
 */
export interface ThumbSpec {
  /** The parameter as given, which names the thumbnail (`100x100t`). */
  text: string;
  /** 0: follows from the other side and the image's ratio. */
  width: number;
  height: number;
  fit: 'cover' | 'inside';
  /** Where a crop keeps the image (`cover` only). */
  position: 'centre' | 'top' | 'bottom';
}

const THUMB = /^(\d{1,4})x(\d{1,4})([tbf]?)$/;

/** The thumbnail `text` asks for; null when it is not in the syntax (or asks for 0x0, or a ratio with a mode). */
export function parseThumb(text: string): ThumbSpec | null {
  const match = THUMB.exec(text);
  if (!match) return null;
  const width = Number(match[1]);
  const height = Number(match[2]);
  const mode = match[3] ?? '';
  if (width === 0 && height === 0) return null;
  if ((width === 0 || height === 0) && mode !== '') return null;
  if (/^0\d/.test(match[1] ?? '') || /^0\d/.test(match[2] ?? '')) return null;
  return {
    text,
    width,
    height,
    fit: mode === 'f' || width === 0 || height === 0 ? 'inside' : 'cover',
    position: mode === 't' ? 'top' : mode === 'b' ? 'bottom' : 'centre',
  };
}
