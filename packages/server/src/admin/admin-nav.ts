import type { NavSection } from '../core/service-kind.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The service kinds' sections of the header (admin/index.ts `registerPages`, from src/service-kinds.ts). */
    adminSections?: readonly NavSection[];
  }
}

/** The sections of the server itself, after those of the service kinds, in the order of the header. */
const SERVER_SECTIONS: readonly NavSection[] = [
  { href: '/admin/settings', label: 'Settings' },
  { href: '/admin/permissions', label: 'Permissions' },
  { href: '/admin/outbox', label: 'Mail outbox' },
  { href: '/admin/webhooks', label: 'Webhooks' },
  { href: '/admin/jobs', label: 'Jobs' },
  { href: '/admin/keys', label: 'API keys' },
  { href: '/admin/audit', label: 'Audit log' },
  { href: '/admin/logs', label: 'Logs' },
  { href: '/admin/backups', label: 'Backups' },
  { href: '/admin/tools', label: 'Tools' },
];

/** The header links (the service kinds' sections, then the server's) with the current section marked. */
export function adminNav(
  currentPath: string,
  kindSections: readonly NavSection[],
): { href: string; label: string; current: boolean }[] {
  return [...kindSections, ...SERVER_SECTIONS].map((s) => ({
    ...s,
    current: currentPath === s.href || currentPath.startsWith(`${s.href}/`),
  }));
}
