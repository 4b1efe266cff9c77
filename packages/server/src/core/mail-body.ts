import type { Mail } from './mailer.js';

/** The one shape of every mail Roost sends (users/user-mails.ts, the settings page's test mail). */

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * Mail clients ignore stylesheets and classes, so the HTML part carries its styles inline: one
 * card of at most 560 px headed by the subject, the link as a button (its address also written
 * out, for clients that show no buttons); the text part has the same words without markup.
 */
const STYLE = {
  body:
    'margin:0;padding:24px 12px;background:#f6f7fa;font:16px/1.5 system-ui,-apple-system,"Segoe ' +
    'UI",Roboto,sans-serif;color:#1d2330',
  card: 'max-width:560px;margin:0 auto;background:#fff;border:1px solid #d9dee7;border-radius:8px;padding:24px',
  heading: 'margin:0 0 16px;font-weight:700;font-size:20px;line-height:1.3;color:#1d2330',
  p: 'margin:0 0 12px;white-space:pre-wrap;overflow-wrap:anywhere',
  button:
    'display:inline-block;padding:10px ' +
    '18px;background:#2457c5;color:#fff;border-radius:6px;text-decoration:none;font-weight:600',
  small: 'margin:16px 0 0;font-size:13px;color:#5b6475;overflow-wrap:anywhere',
};

export function composeMail(
  kind: string,
  to: string,
  subject: string,
  paragraphs: string[],
  link?: { url: string; label: string },
): Mail {
  const text = `${[...paragraphs, ...(link ? [`${link.label}: ${link.url}`] : [])].join('\n\n')}\n`;
  const button = link
    ? '<p style="margin:20px 0 0">' +
      `<a href="${escapeHtml(link.url)}" style="${STYLE.button}">${escapeHtml(link.label)}</a></p>` +
      `<p style="${STYLE.small}">Or open this address: ` +
      `<a href="${escapeHtml(link.url)}" style="color:#2457c5">${escapeHtml(link.url)}</a></p>`
    : '';
  const html =
    '<!doctype html><html><head><meta charset="utf-8">' +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(subject)}</title>` +
    '</head>' +
    `<body style="${STYLE.body}"><div style="${STYLE.card}"><h1 style="${STYLE.heading}">${escapeHtml(subject)}</h1>` +
    paragraphs.map((p) => `<p style="${STYLE.p}">${escapeHtml(p)}</p>`).join('') +
    button +
    `</div></body></html>`;
  return { kind, to, subject, text, html };
}
