/**
 * The part of negotiator 1.x (jshttp, the negotiation of Express) that Roost uses
 * (src/http/client-bundle.ts). @types/negotiator describes 0.6, which has no `preferred`: the
 * server's order among codings the request ranks alike (its README, "encoding").
 */
declare module 'negotiator' {
  class Negotiator {
    constructor(request: { headers: Record<string, string | string[] | undefined> });
    /** The coding to send, or undefined when the request refuses each, `identity` included. */
    encoding(available: readonly string[], options?: { preferred?: readonly string[] }): string | undefined;
  }
  export = Negotiator;
}
