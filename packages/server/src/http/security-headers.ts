import type { FastifyInstance } from 'fastify';

/**
 * Response headers that keep browsers from misusing Roost's answers. Every answer: no type
 * sniffing, no framing, no referrer, a CSP that allows nothing (an answer is data, never a
 * page), resources and windows for the own origin only; behind TLS also HSTS. HTML answers
 * (the admin and user pages, /docs) get a CSP for pages instead: scripts, styles, images and
 * connections from Roost itself, forms posting only to Roost, no plugins, no <base>. File
 * downloads set their own (a sandbox; see file-download.ts).
 *
 * Cost: constant headers set in one hook, plus a content-type look in `onSend`.
 */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";
export const PAGE_CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";
/** A year, the usual value once a site is on HTTPS for good; subdomains are the operator's call. */
export const HSTS = 'max-age=31536000';

export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('content-security-policy', API_CSP);
    reply.header('cross-origin-resource-policy', 'same-origin');
    reply.header('cross-origin-opener-policy', 'same-origin');
    // `protocol` is https only over TLS or, with trustProxy, when the proxy says so.
    if (request.protocol === 'https') reply.header('strict-transport-security', HSTS);
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('text/html') && reply.getHeader('content-security-policy') === API_CSP) {
      reply.header('content-security-policy', PAGE_CSP);
    }
    done(null, payload);
  });
}
