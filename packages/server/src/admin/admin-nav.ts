/** The sections of the management backend, in the order of the header. */
const ADMIN_SECTIONS = [
  { href: '/admin/users', label: 'Users' },
  { href: '/admin/signups', label: 'Sign-ups' },
  { href: '/admin/settings', label: 'Settings' },
  { href: '/admin/permissions', label: 'Permissions' },
  { href: '/admin/data', label: 'Data stores' },
  { href: '/admin/files', label: 'File stores' },
  { href: '/admin/outbox', label: 'Mail outbox' },
  { href: '/admin/webhooks', label: 'Webhooks' },
  { href: '/admin/jobs', label: 'Jobs' },
  { href: '/admin/tools', label: 'Tools' },
] as const;

/** The header links with the current section marked. */
export function adminNav(currentPath: string): { href: string; label: string; current: boolean }[] {
  return ADMIN_SECTIONS.map((s) => ({ ...s, current: currentPath === s.href || currentPath.startsWith(`${s.href}/`) }));
}
