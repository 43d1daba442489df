// A cluster's sections, in the side navigation under the cluster's name (Cloudscape's side navigation pattern,
// "Link groups for large resource details": https://cloudscape.design/patterns/general/service-navigation/side-navigation/).
// Twelve sections do not fit a tab bar at 1280-1400 px; a list does, and grows without cutting a label.
// Each section is a deep link, /clusters/<name>?tab=<id> (notifications and tests link to them).

export const CLUSTER_SECTIONS = [
  { id: 'overview', label: 'Overview' },
  { id: 'instance-groups', label: 'Instance groups' },
  { id: 'nodes', label: 'Nodes' },
  { id: 'dependencies', label: 'Dependencies' },
  { id: 'features', label: 'Features' },
  { id: 'storage', label: 'Storage' },
  { id: 'jobs', label: 'Jobs' },
  { id: 'spaces', label: 'Spaces' },
  { id: 'inference', label: 'Inference' },
  { id: 'notifications', label: 'Notifications' },
  { id: 'operations', label: 'Operations' },
] as const;

export type ClusterSectionId = (typeof CLUSTER_SECTIONS)[number]['id'];

/** The section a ?tab= value names; Overview for none or one that is not a section. */
export function clusterSection(tab: string | null): (typeof CLUSTER_SECTIONS)[number] {
  return CLUSTER_SECTIONS.find((section) => section.id === tab) ?? CLUSTER_SECTIONS[0];
}

/** The link to a section of a cluster. Overview's names its tab too: the cluster's own link heads the group in
 * the side navigation, and only one of the two is the page shown. */
export function clusterSectionHref(cluster: string, id: ClusterSectionId): string {
  return `/clusters/${encodeURIComponent(cluster)}?tab=${id}`;
}

/** The cluster a path shows, or null (the list and the create wizard are not a cluster). */
export function clusterOfPath(pathname: string): string | null {
  const match = /^\/clusters\/([^/]+)\/?$/.exec(pathname);
  if (!match || match[1] === 'create') return null;
  return decodeURIComponent(match[1]);
}
