/**
 * `@roost/server/extend`: what a hook file imports (docs/hooks.md), without the server. A file of
 * `hooks/` loads through tsx beside a running Roost; importing this small module instead of the
 * package's entry (src/roost.ts) keeps it from loading a second copy of every service's module.
 */
export { defineExtension, type ExtensionApi, type RoostExtension } from './extension.js';
export { refuse, type Refusal } from './refuse.js';
export type { AfterHook, BeforeHook, ExtensionHooks, HookFilter, HookOptions } from './hooks.js';
export type { ServicesAs } from './services-as.js';
