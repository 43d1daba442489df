// The console's top-level sections, as the side navigation lists them: each one's address is the prefix of
// its pages' addresses.

export const CONSOLE_SECTIONS = [
  { href: '/clusters', text: 'Clusters' },
  { href: '/operations', text: 'Operations' },
  { href: '/capacity', text: 'Capacity' },
  { href: '/teams', text: 'Teams' },
];

// The section a page belongs to, by its address; none for an address that names no page.
export function sectionOf(pathname: string): string | undefined {
  return CONSOLE_SECTIONS.find((s) => pathname === s.href || pathname.startsWith(`${s.href}/`))?.href;
}
