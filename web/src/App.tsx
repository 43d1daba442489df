import { lazy, Suspense, useState } from 'react';
import { Navigate, Route, Routes, useLocation, useNavigate } from 'react-router-dom';
import AppLayout from '@cloudscape-design/components/app-layout';
import Flashbar from '@cloudscape-design/components/flashbar';
import SideNavigation, { type SideNavigationProps } from '@cloudscape-design/components/side-navigation';
import Spinner from '@cloudscape-design/components/spinner';
import TopNavigation from '@cloudscape-design/components/top-navigation';

import SignInModal from './components/SignInModal';
import { signOut } from './lib/auth';
import { CLUSTER_SECTIONS, clusterOfPath, clusterSection, clusterSectionHref } from './lib/clusterSections';
import { config } from './lib/config';
import { CONSOLE_SECTIONS, sectionOf } from './lib/consoleSections';
import { SessionProvider, useSession } from './session';

const ClustersPage = lazy(() => import('./pages/ClustersPage'));
const CreateClusterPage = lazy(() => import('./pages/CreateClusterPage'));
const ClusterPage = lazy(() => import('./pages/ClusterPage'));
const OperationsPage = lazy(() => import('./pages/OperationsPage'));
const OperationPage = lazy(() => import('./pages/OperationPage'));
const CapacityPage = lazy(() => import('./pages/CapacityPage'));
const TrainingPlanPage = lazy(() => import('./pages/TrainingPlanPage'));
const TeamsPage = lazy(() => import('./pages/TeamsPage'));
const NotFoundPage = lazy(() => import('./pages/NotFoundPage'));

const link = (s: { href: string; text: string }): SideNavigationProps.Item => ({ type: 'link', ...s });

function Shell() {
  const { token, identity, activeCluster, flashes } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [navigationOpen, setNavigationOpen] = useState(window.innerWidth >= 688);
  const follow = (event: CustomEvent<{ href?: string; external?: boolean }>) => {
    if (event.detail.href && !event.detail.external) {
      event.preventDefault();
      navigate(event.detail.href);
    }
  };

  const roleText = identity.role ? `Role: ${identity.role}` : 'Role: unknown';
  // On a cluster's page its sections are listed under its name, the one shown marked.
  const cluster = clusterOfPath(location.pathname);
  const section = clusterSection(new URLSearchParams(location.search).get('tab'));
  const clusterLinks: SideNavigationProps.Item[] = cluster
    ? [{
        type: 'link-group',
        text: cluster,
        href: `/clusters/${encodeURIComponent(cluster)}`,
        items: CLUSTER_SECTIONS.map(({ id, label }) => ({ type: 'link', text: label, href: clusterSectionHref(cluster, id) })),
      }]
    : [];
  return (
    <>
      <div id="top-nav" style={{ position: 'sticky', top: 0, zIndex: 1002 }}>
        <TopNavigation
          identity={{ href: '/clusters', title: 'Launchpod', onFollow: follow }}
          utilities={[
            ...(activeCluster
              ? [{
                  type: 'button' as const,
                  text: `Active cluster: ${activeCluster}`,
                  iconName: 'star-filled' as const,
                  href: `/clusters/${encodeURIComponent(activeCluster)}`,
                  onClick: follow,
                }]
              : []),
            ...(token
              ? [{
                  type: 'menu-dropdown' as const,
                  text: roleText,
                  description: identity.subject ? `Signed in as ${identity.subject}` : 'Signed in with a token',
                  iconName: 'user-profile' as const,
                  items: [{ id: 'signout', text: 'Sign out' }],
                  onItemClick: ({ detail }: { detail: { id: string } }) => {
                    if (detail.id === 'signout') signOut();
                  },
                }]
              : []),
          ]}
        />
      </div>
      <AppLayout
        headerSelector="#top-nav"
        toolsHide
        navigationOpen={navigationOpen}
        onNavigationChange={({ detail }) => setNavigationOpen(detail.open)}
        ariaLabels={{ navigation: 'Side navigation', navigationClose: 'Close navigation', navigationToggle: 'Open navigation', notifications: 'Notifications' }}
        notifications={<Flashbar items={flashes} stackItems={flashes.length > 2} />}
        navigation={
          <SideNavigation
            header={{ href: '/clusters', text: 'Launchpod' }}
            activeHref={
              cluster
                ? clusterSectionHref(cluster, section.id)
                : sectionOf(location.pathname)
            }
            onFollow={follow}
            items={[
              ...CONSOLE_SECTIONS.slice(0, 1).map(link),
              ...clusterLinks, // the open cluster's sections, under Clusters
              ...CONSOLE_SECTIONS.slice(1).map(link),
              { type: 'divider' },
              { type: 'link', text: 'API reference', href: `${config().apiUrl.replace(/\/$/, '')}/docs`, external: true },
            ]}
          />
        }
        content={
          token ? (
            <Suspense fallback={<Spinner size="large" />}>
              <Routes>
                <Route path="/" element={<Navigate to="/clusters" replace />} />
                <Route path="/clusters" element={<ClustersPage />} />
                <Route path="/clusters/create" element={<CreateClusterPage />} />
                <Route path="/clusters/:name" element={<ClusterPage />} />
                <Route path="/operations" element={<OperationsPage />} />
                <Route path="/operations/:id" element={<OperationPage />} />
                <Route path="/capacity" element={<CapacityPage />} />
                <Route path="/capacity/:plan" element={<TrainingPlanPage />} />
                <Route path="/teams" element={<TeamsPage />} />
                <Route path="*" element={<NotFoundPage />} />
              </Routes>
            </Suspense>
          ) : (
            <SignInModal />
          )
        }
      />
    </>
  );
}

export default function App() {
  return (
    <SessionProvider>
      <Shell />
    </SessionProvider>
  );
}
