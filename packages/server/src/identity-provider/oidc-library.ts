import type * as OidcProvider from 'oidc-provider';

/**
 * `oidc-provider`, imported when the provider opens (index.ts `openIdentityProvider`) and not with
 * this folder's modules: on Node 20 the library prints "Unsupported runtime" as it is imported, and
 * a bundle of the CLI (scripts/cli-bundle.mjs) lifts a package's static imports to its top, so
 * every `roost` command printed it even with the provider off.
 */
type OidcLibrary = typeof OidcProvider;

let loaded: OidcLibrary | undefined;

export async function loadOidcLibrary(): Promise<OidcLibrary> {
  loaded ??= await import('oidc-provider');
  return loaded;
}

/** The library once `loadOidcLibrary` has run: what the provider's code calls while it serves. */
export function oidcLibrary(): OidcLibrary {
  if (!loaded) throw new Error('oidc-provider is used before openIdentityProvider loaded it');
  return loaded;
}
