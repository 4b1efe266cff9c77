/**
 * The part of negotiator 1.x (jshttp, the negotiation of Express) that Roost uses
 * (src/http/client-bundle.ts; the thumbnails' formats in src/http/routes/filestore-routes.ts).
 * @types/negotiator describes 0.6, which has no `preferred`: the server's order among codings
 * the request ranks alike (its README, "encoding").
 */
declare module 'negotiator' {
  class Negotiator {
    constructor(request: { headers: Record<string, string | string[] | undefined> });
    /** The coding to send, or undefined when the request refuses each, `identity` included. */
    encoding(available: readonly string[], options?: { preferred?: readonly string[] }): string | undefined;
    /** The media type to send among `available` (the request's best ranked), or undefined when it accepts none. */
    mediaType(available: readonly string[]): string | undefined;
  }
  export = Negotiator;
}
