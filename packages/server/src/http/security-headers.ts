import type { FastifyInstance } from 'fastify';

/**
 * Response headers that keep browsers from misusing Roost's answers. Every answer: no type
 * sniffing, a CSP that allows nothing (an answer is data, never a page; it also forbids
 * framing), resources for the own origin only; behind TLS also HSTS. Answers that are not JSON
 * (pages, downloads) also get the headers only documents act on: no framing for old browsers,
 * no referrer, the opener policy. HTML answers (the admin and user pages, /docs) get a CSP for
 * pages instead: scripts, styles, images and connections from Roost itself, forms posting only
 * to Roost, no plugins, no <base>. File downloads set their own (a sandbox; see file-download.ts).
 *
 * Cost: Node and Fastify spend about 2 500 instructions on each response header; the
 * document-only ones were a tenth of a cached getItem's work, so JSON answers go without.
 */
const API_CSP = "default-src 'none'; frame-ancestors 'none'";
export const PAGE_CSP =
  "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; " +
  "frame-ancestors 'none'";
/** A year, the usual value once a site is on HTTPS for good; subdomains are the operator's call. */
const HSTS = 'max-age=31536000';

export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('content-security-policy', API_CSP);
    reply.header('cross-origin-resource-policy', 'same-origin');
    // `protocol` is https only over TLS or, with trustProxy, when the proxy says so.
    if (request.protocol === 'https') reply.header('strict-transport-security', HSTS);
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type !== 'string' || !type.startsWith('application/json')) {
      reply.header('x-frame-options', 'DENY');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('cross-origin-opener-policy', 'same-origin');
      if (
        typeof type === 'string' &&
        type.startsWith('text/html') &&
        reply.getHeader('content-security-policy') === API_CSP
      ) {
        reply.header('content-security-policy', PAGE_CSP);
      }
    }
    done(null, payload);
  });
}
